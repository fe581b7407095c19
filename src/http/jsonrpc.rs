//! `/mcp` request bodies, judged as the stdio transport judges a line
//! ([`crate::mcp::message::judge`]) before rmcp reads them, so both transports answer a message
//! the same way.
//!
//! rmcp's HTTP path reads a known method whose params do not fit it (`tools/call` with
//! `arguments: [1]`) as a custom request, and answers it `-32601` (method not found); a body
//! that is not JSON, or JSON that is not a message, gets a 415 with serde's text. Here such a
//! body gets the JSON-RPC error the stdio transport sends: `-32602` with the request's id
//! (HTTP 200, as rmcp answers a request whose handler failed), `-32700` or `-32600` (HTTP 400,
//! as rmcp answers a message it refuses). Anything else goes on to rmcp untouched.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use rmcp::model::ServerJsonRpcMessage;

use crate::mcp::message::{Judged, judge};

/// Middleware that answers a POSTed JSON body [`judge`] refuses, and passes the rest on.
pub async fn judge_body(req: Request, next: Next) -> Response {
    if req.method() != Method::POST || !is_json(req.headers()) {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    // The listener has already read the body whole within --max-request-bytes.
    let bytes = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => bytes,
        Err(_) => {
            let mut response = Response::new(Body::from("the request body could not be read\n"));
            *response.status_mut() = StatusCode::BAD_REQUEST;
            return response;
        }
    };
    match judge(&bytes) {
        Judged::Reply(reply) => {
            tracing::debug!("answered a body that is not a usable message");
            answer(&reply)
        }
        Judged::Message(_) | Judged::Ignore => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
    }
}

/// `Content-Type: application/json` (parameters aside), the bodies rmcp reads.
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let essence = v.split_once(';').map_or(v, |(essence, _)| essence);
            essence.trim().eq_ignore_ascii_case("application/json")
        })
}

/// The error reply as rmcp would send one: 200 for invalid params of a request it would have
/// run, 400 for a body that is not a message at all.
fn answer(reply: &ServerJsonRpcMessage) -> Response {
    let status = match reply {
        ServerJsonRpcMessage::Error(e) if e.error.code.0 == -32602 => StatusCode::OK,
        _ => StatusCode::BAD_REQUEST,
    };
    let body = serde_json::to_vec(reply).unwrap_or_default();
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
