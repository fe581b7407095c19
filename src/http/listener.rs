//! The accept loop and connections, over hyper directly: `axum::serve` has no header, body or
//! idle timeouts, no connection cap, and drains stalled connections on shutdown as if they
//! were calls.
//!
//! - **Idle and header timeout.** hyper starts its header-read timer when it starts waiting
//!   for a request, so one timer covers a keep-alive connection left idle and a client sending
//!   its headers slowly: either is closed after `header_timeout`.
//! - **Body timeout and size.** The body is read whole before the application sees the request,
//!   within `body_timeout` (else 408) and `max_request_bytes` (else 413, at once when
//!   Content-Length already says so). With both Content-Length and Transfer-Encoding, hyper
//!   reads the body by Transfer-Encoding alone and drops Content-Length, as RFC 9112 section
//!   6.3 allows, so the two can never disagree about where the body ends.
//! - **Connection cap.** At `max_connections`, the oldest connections not running a call (idle,
//!   or still sending a request) are closed to make room, so idle clients cannot lock out a
//!   working one. Only when every connection runs a call is a new one turned away, with 503.
//! - **Shutdown.** Every connection is asked to close: one without a call gets [`LINGER`] to
//!   finish writing what it has, then goes (hyper's graceful shutdown alone would wait for
//!   headers that may never come); a call in flight, counted until its response body has
//!   been handed to hyper whole, runs on up to the grace period.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

/// The listener's limits (from [`super::HttpOptions`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub header_timeout: Duration,
    pub body_timeout: Duration,
    pub max_request_bytes: usize,
    pub max_connections: usize,
}

/// One open connection, as the registry sees it.
struct Open {
    /// Calls running on it (0 or 1 for HTTP/1 without pipelining).
    calls: Arc<AtomicUsize>,
    /// Cancelled to ask the connection to close.
    close: CancellationToken,
}

/// The open connections, oldest first (ids only grow).
#[derive(Default)]
struct Registry {
    next_id: u64,
    open: BTreeMap<u64, Open>,
}

impl Registry {
    /// Asks up to `n` of the oldest connections without a call to close, and forgets them.
    fn evict_idle(&mut self, n: usize) -> usize {
        let idle: Vec<u64> = self
            .open
            .iter()
            .filter(|(_, c)| c.calls.load(Ordering::Acquire) == 0)
            .map(|(id, _)| *id)
            .take(n)
            .collect();
        for id in &idle {
            if let Some(c) = self.open.remove(id) {
                c.close.cancel();
            }
        }
        idle.len()
    }
}

/// Accepts and serves connections until `shutdown`, then closes them as the module says and
/// waits up to `grace` for calls in flight.
pub(super) async fn run(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) {
    let registry = Arc::new(Mutex::new(Registry::default()));
    let stopping = CancellationToken::new();
    let tasks = TaskTracker::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors, say: wait a little rather than spin.
                tracing::warn!(error = %e, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let admitted = {
            let mut reg = registry.lock().unwrap_or_else(|p| p.into_inner());
            if reg.open.len() >= limits.max_connections {
                let evicted = reg.evict_idle((limits.max_connections / 8).max(1));
                tracing::debug!(evicted, "connection cap reached: closed idle connections");
            }
            if reg.open.len() >= limits.max_connections {
                None
            } else {
                let id = reg.next_id;
                reg.next_id += 1;
                let open = Open {
                    calls: Arc::new(AtomicUsize::new(0)),
                    close: stopping.child_token(),
                };
                let handles = (Arc::clone(&open.calls), open.close.clone());
                reg.open.insert(id, open);
                Some((id, handles))
            }
        };
        match admitted {
            Some((id, (calls, close))) => {
                let registry = Arc::clone(&registry);
                let app = app.clone();
                tasks.spawn(async move {
                    serve_connection(stream, app, limits, calls, close).await;
                    registry
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .open
                        .remove(&id);
                });
            }
            None => {
                tracing::warn!(
                    max_connections = limits.max_connections,
                    "every connection runs a call: turned one away"
                );
                tasks.spawn(turn_away(stream));
            }
        }
    }
    drop(listener);
    stopping.cancel();
    tasks.close();
    if tokio::time::timeout(grace, tasks.wait()).await.is_err() {
        tracing::warn!("grace period over with calls still in flight; exiting");
    }
}

/// Serves one connection until it ends or is asked to close. Asked to close, it goes at once
/// unless a call runs on it; that call is answered first.
async fn serve_connection(
    stream: TcpStream,
    app: Router,
    limits: Limits,
    calls: Arc<AtomicUsize>,
    close: CancellationToken,
) {
    let service = {
        let calls = Arc::clone(&calls);
        hyper::service::service_fn(move |req| handle(req, app.clone(), limits, Arc::clone(&calls)))
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    let mut conn = std::pin::pin!(conn);
    tokio::select! {
        result = conn.as_mut() => {
            if let Err(e) = result {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            return;
        }
        () = close.cancelled() => {}
    }
    conn.as_mut().graceful_shutdown();
    // This task polls the request handler too, so no call can start between this check and
    // the linger: a connection without a call only finishes writing, if it is, and goes.
    if calls.load(Ordering::Acquire) == 0 {
        let _ = tokio::time::timeout(LINGER, conn).await;
        return;
    }
    if let Err(e) = conn.await {
        tracing::debug!(error = %e, "connection ended with an error while closing");
    }
}

/// Reads the body within the limits, then hands the request to the application.
async fn handle(
    req: Request<Incoming>,
    app: Router,
    limits: Limits,
    calls: Arc<AtomicUsize>,
) -> Result<Response<Body>, Infallible> {
    let headers = req.headers();
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limits.max_request_bytes as u64) {
        return Ok(too_large(limits));
    }
    let (parts, body) = req.into_parts();
    let read = Limited::new(body, limits.max_request_bytes).collect();
    let bytes = match tokio::time::timeout(limits.body_timeout, read).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => {
            return Ok(too_large(limits));
        }
        Ok(Err(_)) => {
            return Ok(refuse(
                StatusCode::BAD_REQUEST,
                "the request body could not be read".into(),
            ));
        }
        Err(_) => {
            return Ok(refuse(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} ms",
                    limits.body_timeout.as_millis()
                ),
            ));
        }
    };
    let call = Running::start(calls);
    let response = app
        .oneshot(Request::from_parts(parts, Body::from(bytes)))
        .await
        .unwrap_or_else(|never| match never {});
    // The call runs on until hyper has taken the whole response body.
    Ok(response.map(|body| Body::new(Answering { body, _call: call })))
}

/// How long a connection without a call may go on writing once asked to close.
const LINGER: Duration = Duration::from_millis(250);

/// Counts a call as running on its connection while alive.
struct Running(Arc<AtomicUsize>);

impl Running {
    fn start(calls: Arc<AtomicUsize>) -> Self {
        calls.fetch_add(1, Ordering::AcqRel);
        Running(calls)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body that keeps its call counted until hyper has read it to the end (or
/// dropped it).
struct Answering {
    body: Body,
    _call: Running,
}

impl hyper::body::Body for Answering {
    type Data = <Body as hyper::body::Body>::Data;
    type Error = <Body as hyper::body::Body>::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        std::pin::Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

fn too_large(limits: Limits) -> Response<Body> {
    refuse(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!(
            "the request body is over {} bytes (--max-request-bytes)",
            limits.max_request_bytes
        ),
    )
}

/// A plain-text refusal that closes the connection (its body may be unread).
fn refuse(status: StatusCode, why: String) -> Response<Body> {
    tracing::info!(status = status.as_u16(), reason = %why, "http request refused");
    let mut response = Response::new(Body::from(format!("{why}\n")));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// Answers 503 on a connection the cap left no room for, without reading its request.
async fn turn_away(mut stream: TcpStream) {
    let why = "every connection is running a call: retry\n";
    let busy = format!(
        "HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\nretry-after: 1\r\n\
         content-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\n\r\n{why}",
        why.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(busy.as_bytes())).await;
}
