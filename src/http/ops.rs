//! Operator endpoints: liveness, readiness (follows Zoekt) and metrics.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;

use crate::engine::Pager;
use crate::engine::backend::Backend;
use crate::metrics::{CONTENT_TYPE, Metrics};

struct Ops<B> {
    pager: Arc<Pager<B>>,
    metrics: Arc<Metrics>,
    ready_timeout: Duration,
}

/// Router for `/healthz`, `/readyz` and `/metrics`, sharing the pager and the metrics.
pub fn routes<B: Backend + 'static>(
    pager: Arc<Pager<B>>,
    metrics: Arc<Metrics>,
    ready_timeout: Duration,
) -> Router {
    let state = Arc::new(Ops {
        pager,
        metrics,
        ready_timeout,
    });
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz::<B>))
        .route("/metrics", get(metrics_text::<B>))
        .with_state(state)
}

/// The process is up (says nothing about Zoekt: restarting the sidecar would not help it).
async fn healthz() -> &'static str {
    "ok\n"
}

/// 200 only while Zoekt answers and is ready; 503 with the reason otherwise. Asked anew on
/// every probe, so it follows Zoekt going away and coming back without a restart.
async fn readyz<B: Backend>(State(ops): State<Arc<Ops<B>>>) -> impl IntoResponse {
    // Each backend of a fan-out gets the whole budget, so one that hangs is named.
    match ops
        .pager
        .backend()
        .readiness_within(ops.ready_timeout)
        .await
    {
        Ok(r) if r.is_ready() => (StatusCode::OK, "ready\n".to_string()),
        Ok(r) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "not ready: Zoekt answered HTTP {}: {}\n",
                r.status, r.detail
            ),
        ),
        Err(e) => (StatusCode::SERVICE_UNAVAILABLE, format!("not ready: {e}\n")),
    }
}

async fn metrics_text<B>(State(ops): State<Arc<Ops<B>>>) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], ops.metrics.render())
}

/// What this listener serves, for a human who opens it in a browser.
pub async fn index() -> &'static str {
    "zoekt-pager: MCP (streamable HTTP) at /mcp; operator endpoints /healthz /readyz /metrics\n"
}
