//! Sidecar mode: MCP over streamable HTTP at `/mcp`, plus the operator endpoints a cluster
//! expects on the same listener (`/healthz`, `/readyz`, `/metrics`).
//!
//! Stateless by construction: no MCP sessions are kept (rmcp's `NeverSessionManager`, JSON
//! responses) and cursors carry their own position, so any replica behind a load balancer
//! can continue a walk another replica started. `/mcp` is guarded by Host/Origin checks
//! (DNS-rebinding protection) and, when a token is configured, by bearer auth; the operator
//! endpoints are not, because kubelet probes and Prometheus address pods by IP and carry no
//! token, and they reveal nothing about the index beyond counters.

mod auth;
mod host;
mod jsonrpc;
mod listener;
mod ops;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::engine::backend::Backend;
use crate::mcp::PagerServer;
use crate::metrics::Metrics;

/// Settings of the HTTP listener (see `config::HttpArgs` for where they come from).
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Bearer token `/mcp` requires; `None` = no auth.
    pub token: Option<String>,
    /// Accepted `Host` values (`host` or `host:port`); `["*"]` accepts any.
    pub allowed_hosts: Vec<String>,
    /// Accepted browser `Origin` values (`scheme://host:port`, `:*` = any port); `["*"]`
    /// accepts any. Requests without an Origin (non-browser clients) always pass.
    pub allowed_origins: Vec<String>,
    /// How long `/readyz` waits for Zoekt before answering 503.
    pub ready_timeout: Duration,
    /// How long in-flight calls may run on after SIGTERM before the process exits anyway.
    pub shutdown_grace: Duration,
    /// Largest accepted request body.
    pub max_request_bytes: usize,
    /// How long a connection may sit idle, or take to send a request's headers.
    pub header_timeout: Duration,
    /// How long a request's body may take to arrive.
    pub body_timeout: Duration,
    /// Most connections open at once (idle ones are closed to make room).
    pub max_connections: usize,
}

/// Hosts a loopback-only server answers to.
pub fn loopback_hosts() -> Vec<String> {
    vec!["localhost".into(), "127.0.0.1".into(), "::1".into()]
}

/// Browser origins matching `hosts` on any port, http or https.
pub fn origins_for(hosts: &[String]) -> Vec<String> {
    hosts
        .iter()
        .filter(|h| h.as_str() != "*")
        .flat_map(|h| {
            let host = if h.parse::<std::net::Ipv6Addr>().is_ok() {
                format!("[{h}]")
            } else {
                // `host:port` or `[v6]:port`: the port is replaced by `*` below.
                h.rsplit_once(':')
                    .map_or(h.as_str(), |(host, _)| host)
                    .to_string()
            };
            ["http", "https"].map(|s| format!("{s}://{host}:*"))
        })
        .collect()
}

/// Serves until `shutdown` resolves, then stops accepting, closes idle and stalled
/// connections at once, lets calls in flight finish (up to the grace period) and returns.
/// The connection limits are described in `listener`.
pub async fn serve<B: Backend + 'static>(
    listener: tokio::net::TcpListener,
    server: PagerServer<B>,
    metrics: Arc<Metrics>,
    opts: HttpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let ct = CancellationToken::new();
    let app = router(server, metrics, &opts, ct.child_token());
    let limits = listener::Limits {
        header_timeout: opts.header_timeout,
        body_timeout: opts.body_timeout,
        max_request_bytes: opts.max_request_bytes,
        max_connections: opts.max_connections,
    };
    let grace = opts.shutdown_grace;
    let announce = async move {
        shutdown.await;
        tracing::info!(
            grace_ms = grace.as_millis() as u64,
            "shutting down: draining in-flight calls"
        );
    };
    listener::run(listener, app, limits, announce, grace).await;
    // Only now: cancelling first would abort the calls being drained.
    ct.cancel();
    tracing::info!("HTTP server stopped");
}

/// The whole application: `/mcp` behind its guards, the operator endpoints beside it.
pub fn router<B: Backend + 'static>(
    server: PagerServer<B>,
    metrics: Arc<Metrics>,
    opts: &HttpOptions,
    ct: CancellationToken,
) -> Router {
    let mut config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        // The listener refuses a body past this bound first (413 before reading it); rmcp's
        // own bound is a second line of defence should a request reach it another way.
        .with_max_request_body_bytes(opts.max_request_bytes)
        .with_cancellation_token(ct);
    config = if opts.allowed_hosts.iter().any(|h| h == "*") {
        config.disable_allowed_hosts()
    } else {
        config.with_allowed_hosts(opts.allowed_hosts.clone())
    };
    config = if opts.allowed_origins.iter().any(|o| o == "*") {
        config.disable_allowed_origins()
    } else {
        config
            .with_allowed_origins(opts.allowed_origins.clone())
            .enforce_origin_validation()
    };
    let pager = Arc::clone(server.pager());
    let mcp = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let guarded = Router::new()
        .nest_service("/mcp", mcp)
        // Innermost: only an authorised request's body is judged.
        .layer(middleware::from_fn(jsonrpc::judge_body))
        .layer(middleware::from_fn_with_state(
            Arc::new(auth::TokenCheck::new(opts.token.as_deref())),
            auth::require_token,
        ))
        // Outermost: a malformed Host is refused before anything else looks at the request.
        .layer(middleware::from_fn(host::require_well_formed_host));
    Router::new()
        .merge(ops::routes(pager, metrics, opts.ready_timeout))
        .route("/", get(ops::index))
        .merge(guarded)
        .layer(middleware::from_fn(access_log))
}

/// One log line per request: method, path (never the query string or headers, which may
/// carry tokens), status and time.
async fn access_log(req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let resp = next.run(req).await;
    let status = resp.status().as_u16();
    if path == "/healthz" || path == "/readyz" || path == "/metrics" {
        tracing::debug!(%method, path, status, ms = started.elapsed().as_millis() as u64, "http");
    } else {
        tracing::info!(%method, path, status, ms = started.elapsed().as_millis() as u64, "http");
    }
    resp
}

/// Whether `addr` may be bound without `--allow-remote`.
pub fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().is_loopback()
}
