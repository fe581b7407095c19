//! Process metrics in the Prometheus/OpenMetrics text format, for `/metrics`.
//!
//! Counted where they happen: tool calls and cursor errors by the MCP layer, Zoekt latency by
//! [`Instrumented`], a [`Backend`] wrapper, so neither the Zoekt client nor the paging engine
//! knows metrics exist. Label values come from closed sets (tool names, error codes,
//! endpoints): user input never becomes a label, so the series count stays bounded.

use std::sync::Arc;
use std::time::Instant;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::engine::backend::{
    Backend, BackendError, FileSearch, RankedFiles, Readiness, RepoListing,
};
use crate::mcp::ErrorCode;

/// Content type of [`Metrics::render`].
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    tool: String,
    /// `ok` or the error code (`INVALID_CURSOR`, `BACKEND_UNAVAILABLE`, ...).
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabel {
    tool: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CodeLabel {
    code: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ZoektLabels {
    endpoint: String,
    /// `ok` or the error kind.
    outcome: String,
}

/// Every metric of the process; cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    tool_calls: Family<CallLabels, Counter>,
    pages: Family<ToolLabel, Counter>,
    items: Family<ToolLabel, Counter>,
    cursor_errors: Family<CodeLabel, Counter>,
    zoekt_seconds: Family<ZoektLabels, Histogram, fn() -> Histogram>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

fn latency_histogram() -> Histogram {
    // 1 ms .. ~16 s.
    Histogram::new(exponential_buckets(0.001, 2.0, 15))
}

impl Metrics {
    /// Every metric, registered, at zero.
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("zoekt_pager");
        let tool_calls = Family::<CallLabels, Counter>::default();
        let pages = Family::<ToolLabel, Counter>::default();
        let items = Family::<ToolLabel, Counter>::default();
        let cursor_errors = Family::<CodeLabel, Counter>::default();
        let zoekt_seconds: Family<ZoektLabels, Histogram, fn() -> Histogram> =
            Family::new_with_constructor(latency_histogram);
        registry.register(
            "tool_calls",
            "MCP tool calls by tool and outcome (ok or error code)",
            tool_calls.clone(),
        );
        registry.register("pages", "Pages served by tool", pages.clone());
        registry.register("items", "Items served by tool", items.clone());
        registry.register(
            "cursor_errors",
            "Rejected cursors by error code",
            cursor_errors.clone(),
        );
        registry.register(
            "zoekt_request_seconds",
            "Latency of requests to Zoekt by endpoint and outcome",
            zoekt_seconds.clone(),
        );
        Metrics {
            registry,
            tool_calls,
            pages,
            items,
            cursor_errors,
            zoekt_seconds,
        }
    }

    /// One finished tool call: `None` when it succeeded, else its error code.
    pub fn tool_call(&self, tool: &str, error: Option<ErrorCode>) {
        self.tool_calls
            .get_or_create(&CallLabels {
                tool: tool.to_string(),
                outcome: error.map_or("ok", ErrorCode::as_str).to_string(),
            })
            .inc();
        if let Some(code) = error.filter(|c| c.is_cursor_error()) {
            self.cursor_error(code);
        }
    }

    /// A rejected cursor (counted by tool calls, and by MCP `resources/list` directly).
    pub fn cursor_error(&self, code: ErrorCode) {
        self.cursor_errors
            .get_or_create(&CodeLabel {
                code: code.as_str().to_string(),
            })
            .inc();
    }

    /// One page of `items` items served by `tool`.
    pub fn page_served(&self, tool: &str, items: usize) {
        let label = ToolLabel {
            tool: tool.to_string(),
        };
        self.pages.get_or_create(&label).inc();
        self.items.get_or_create(&label).inc_by(items as u64);
    }

    fn zoekt_request(&self, endpoint: &str, outcome: &str, seconds: f64) {
        self.zoekt_seconds
            .get_or_create(&ZoektLabels {
                endpoint: endpoint.to_string(),
                outcome: outcome.to_string(),
            })
            .observe(seconds);
    }

    /// The exposition text (OpenMetrics, which Prometheus scrapes natively).
    pub fn render(&self) -> String {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .expect("writing to a String cannot fail");
        out
    }
}

/// A [`Backend`] that times every request to Zoekt.
#[derive(Debug, Clone)]
pub struct Instrumented<B> {
    inner: B,
    metrics: Arc<Metrics>,
}

impl<B> Instrumented<B> {
    /// Times every request `inner` makes, into `metrics`.
    pub fn new(inner: B, metrics: Arc<Metrics>) -> Self {
        Instrumented { inner, metrics }
    }

    /// The backend being timed.
    pub fn inner(&self) -> &B {
        &self.inner
    }

    async fn timed<T>(
        &self,
        endpoint: &str,
        call: impl Future<Output = Result<T, BackendError>>,
    ) -> Result<T, BackendError> {
        let started = Instant::now();
        let result = call.await;
        let outcome = match &result {
            Ok(_) => "ok",
            Err(e) => e.kind.as_str(),
        };
        self.metrics
            .zoekt_request(endpoint, outcome, started.elapsed().as_secs_f64());
        result
    }
}

impl<B: Backend> Backend for Instrumented<B> {
    async fn search(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
        self.timed("search", self.inner.search(search)).await
    }
    async fn repos(&self, query: &str) -> Result<RepoListing, BackendError> {
        self.timed("list", self.inner.repos(query)).await
    }
    async fn readiness(&self) -> Result<Readiness, BackendError> {
        self.timed("readyz", self.inner.readiness()).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_and_histograms_render_with_labels() {
        let m = Metrics::new();
        m.tool_call("search_symbols", None);
        m.tool_call("search_symbols", Some(ErrorCode::InvalidCursor));
        m.page_served("search_symbols", 30);
        m.zoekt_request("search", "ok", 0.004);
        let text = m.render();
        assert!(
            text.contains(r#"zoekt_pager_tool_calls_total{tool="search_symbols",outcome="ok"} 1"#),
            "{text}"
        );
        assert!(text.contains(r#"zoekt_pager_cursor_errors_total{code="INVALID_CURSOR"} 1"#));
        assert!(text.contains(r#"zoekt_pager_items_total{tool="search_symbols"} 30"#));
        assert!(text.contains(
            r#"zoekt_pager_zoekt_request_seconds_bucket{le="0.004",endpoint="search",outcome="ok"} 1"#
        ));
        assert!(text.trim_end().ends_with("# EOF"));
    }
}
