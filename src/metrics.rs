//! Process metrics in the Prometheus/OpenMetrics text format, for `/metrics`.
//!
//! Counted where they happen: tool calls and cursor errors by the MCP layer, Zoekt latency by
//! [`Instrumented`], a [`Backend`] wrapper, so neither the Zoekt client nor the paging engine
//! knows metrics exist. Label values come from closed sets (tool names, error codes,
//! endpoints): user input never becomes a label, so the series count stays bounded.

use std::sync::Arc;
use std::time::Instant;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::engine::backend::{
    Backend, BackendError, FileSearch, RankedFiles, Readiness, RepoListing,
};
use crate::engine::cache::WindowCache;

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
    /// Which Zoekt (its base URL, which holds no secret: `zoekt::tls::check_url`).
    backend: String,
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
    zoekt_requests_per_page: Family<ToolLabel, Histogram, fn() -> Histogram>,
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

fn requests_histogram() -> Histogram {
    // 0 (served from the window cache), 1, 2, 4 .. 32 requests.
    Histogram::new([0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0])
}

impl Metrics {
    /// Every metric, registered, at zero.
    pub fn new() -> Self {
        Self::with_cache(None)
    }

    /// Every metric, and those of the window cache when there is one (read at each scrape).
    pub fn with_cache(cache: Option<WindowCache>) -> Self {
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
            "Latency of requests to Zoekt by endpoint, outcome and backend",
            zoekt_seconds.clone(),
        );
        let zoekt_requests_per_page: Family<ToolLabel, Histogram, fn() -> Histogram> =
            Family::new_with_constructor(requests_histogram);
        registry.register(
            "zoekt_requests_per_page",
            "Requests to Zoekt one page made, by tool (0: served from the window cache)",
            zoekt_requests_per_page.clone(),
        );
        if let Some(cache) = cache {
            registry.register_collector(Box::new(CacheCollector(cache)));
        }
        Metrics {
            registry,
            tool_calls,
            pages,
            items,
            cursor_errors,
            zoekt_seconds,
            zoekt_requests_per_page,
        }
    }

    /// One finished tool call: `outcome` is `ok`, or the error code it ended with (the
    /// caller decides what a code is, and counts a refused cursor with
    /// [`Metrics::cursor_error`] too).
    pub fn tool_call(&self, tool: &str, outcome: &str) {
        self.tool_calls
            .get_or_create(&CallLabels {
                tool: tool.to_string(),
                outcome: outcome.to_string(),
            })
            .inc();
    }

    /// A tool call the client cancelled (or left, over HTTP) before its answer: counted as
    /// outcome `cancelled`, so dropped work shows beside the calls answered.
    pub fn tool_call_cancelled(&self, tool: &str) {
        self.tool_calls
            .get_or_create(&CallLabels {
                tool: tool.to_string(),
                outcome: "cancelled".to_string(),
            })
            .inc();
    }

    /// A rejected cursor (counted by tool calls, and by MCP `resources/list` directly).
    pub fn cursor_error(&self, code: &str) {
        self.cursor_errors
            .get_or_create(&CodeLabel {
                code: code.to_string(),
            })
            .inc();
    }

    /// One page of `items` items served by `tool`, which made `zoekt_requests` requests.
    pub fn page_served(&self, tool: &str, items: usize, zoekt_requests: u32) {
        let label = ToolLabel {
            tool: tool.to_string(),
        };
        self.pages.get_or_create(&label).inc();
        self.items.get_or_create(&label).inc_by(items as u64);
        self.zoekt_requests_per_page
            .get_or_create(&label)
            .observe(f64::from(zoekt_requests));
    }

    fn zoekt_request(&self, endpoint: &str, outcome: &str, backend: &str, seconds: f64) {
        self.zoekt_seconds
            .get_or_create(&ZoektLabels {
                endpoint: endpoint.to_string(),
                outcome: outcome.to_string(),
                backend: backend.to_string(),
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

/// The window cache's counts and size, read at each scrape.
#[derive(Debug)]
struct CacheCollector(WindowCache);

impl Collector for CacheCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let s = self.0.stats();
        for (name, help, value) in [
            ("cache_hits", "Windows read off a cached answer", s.hits),
            (
                "cache_misses",
                "Windows that needed a fetch from Zoekt (shared between concurrent pages)",
                s.misses,
            ),
            (
                "cache_evictions",
                "Cached answers dropped for size or age",
                s.evictions,
            ),
            (
                "cache_prefetches",
                "Background fetches of the next window started",
                s.prefetches,
            ),
            (
                "cache_prefetches_skipped",
                "Background fetches not started because enough were running",
                s.prefetches_skipped,
            ),
        ] {
            let counter = ConstCounter::new(value);
            counter.encode(encoder.encode_descriptor(
                name,
                help,
                None,
                counter.metric_type(),
            )?)?;
        }
        for (name, help, value) in [
            (
                "cache_bytes",
                "Bytes the window cache holds (estimated)",
                s.bytes,
            ),
            ("cache_capacity_bytes", "Bound on cache_bytes", s.capacity),
            ("cache_entries", "Entries the window cache holds", s.entries),
        ] {
            let gauge = ConstGauge::new(i64::try_from(value).unwrap_or(i64::MAX));
            gauge.encode(encoder.encode_descriptor(name, help, None, gauge.metric_type())?)?;
        }
        Ok(())
    }
}

/// A [`Backend`] that times every request to Zoekt.
#[derive(Debug, Clone)]
pub struct Instrumented<B> {
    inner: B,
    metrics: Arc<Metrics>,
    backend: String,
}

impl<B> Instrumented<B> {
    /// Times every request `inner` makes, into `metrics`.
    pub fn new(inner: B, metrics: Arc<Metrics>) -> Self {
        Instrumented {
            inner,
            metrics,
            backend: String::new(),
        }
    }

    /// The same, its samples labelled `backend="{name}"`.
    pub fn labelled(mut self, name: &str) -> Self {
        self.backend = name.to_string();
        self
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
        self.metrics.zoekt_request(
            endpoint,
            outcome,
            &self.backend,
            started.elapsed().as_secs_f64(),
        );
        result
    }
}

impl<B: Backend> Backend for Instrumented<B> {
    async fn search(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
        self.timed("search", self.inner.search(search)).await
    }
    async fn search_window(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
        self.timed("search", self.inner.search_window(search)).await
    }
    async fn repos(
        &self,
        query: &str,
        wall_time: std::time::Duration,
    ) -> Result<RepoListing, BackendError> {
        self.timed("list", self.inner.repos(query, wall_time)).await
    }
    async fn readiness(&self) -> Result<Readiness, BackendError> {
        self.timed("readyz", self.inner.readiness()).await
    }
    async fn readiness_within(
        &self,
        budget: std::time::Duration,
    ) -> Result<Readiness, BackendError> {
        self.timed("readyz", self.inner.readiness_within(budget))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_and_histograms_render_with_labels() {
        let m = Metrics::new();
        m.tool_call("search_symbols", "ok");
        m.tool_call("search_symbols", "INVALID_CURSOR");
        m.cursor_error("INVALID_CURSOR");
        m.page_served("search_symbols", 30, 0);
        m.zoekt_request("search", "ok", "http://z:6070", 0.004);
        let text = m.render();
        assert!(
            text.contains(r#"zoekt_pager_tool_calls_total{tool="search_symbols",outcome="ok"} 1"#),
            "{text}"
        );
        assert!(text.contains(r#"zoekt_pager_cursor_errors_total{code="INVALID_CURSOR"} 1"#));
        assert!(text.contains(r#"zoekt_pager_items_total{tool="search_symbols"} 30"#));
        assert!(text.contains(
            r#"zoekt_pager_zoekt_request_seconds_bucket{le="0.004",endpoint="search",outcome="ok",backend="http://z:6070"} 1"#
        ));
        assert!(text.trim_end().ends_with("# EOF"));
    }
}
