//! A tap on Zoekt's JSON API: listens on loopback, forwards every request to the real Zoekt,
//! keeps the exchange (with the answer normalised) and hands the normalised answer on. A
//! pager pointed at it talks through its ordinary client, so what it keeps is exactly what
//! went over the wire: the tests that check the requests sent, and the walk bench that
//! counts them, look through it. (Recordings are made above the wire, by the `recorder`.)

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::exchange::{Exchange, normalise};

struct Upstream {
    base: String,
    http: reqwest::Client,
    log: Mutex<Vec<Exchange>>,
}

/// A running proxy; exchanges accumulate until [`Proxy::take`].
pub struct Proxy {
    url: String,
    upstream: Arc<Upstream>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// Starts a proxy in front of `zoekt_url` on a free loopback port.
    pub async fn start(zoekt_url: &str) -> std::io::Result<Proxy> {
        let upstream = Arc::new(Upstream {
            base: zoekt_url.trim_end_matches('/').to_string(),
            http: reqwest::Client::builder()
                .no_proxy()
                .build()
                .map_err(std::io::Error::other)?,
            log: Mutex::new(Vec::new()),
        });
        let app = Router::new()
            .fallback(forward)
            .with_state(Arc::clone(&upstream));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}", listener.local_addr()?);
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Proxy {
            url,
            upstream,
            task,
        })
    }

    /// The base URL to point a Zoekt client at.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The exchanges since the last call, in order.
    pub fn take(&self) -> Vec<Exchange> {
        std::mem::take(&mut *self.upstream.log.lock().expect("proxy log lock"))
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn forward(
    State(up): State<Arc<Upstream>>,
    method: Method,
    uri: Uri,
    body: Bytes,
) -> Response {
    let path = uri.path().to_string();
    let request: Value = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()))
    };
    let mut req = up
        .http
        .request(method.clone(), format!("{}{path}", up.base))
        .body(body.to_vec());
    if !body.is_empty() {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    let (status, bytes) = match req.send().await {
        Ok(r) => {
            let status = r.status().as_u16();
            (status, r.bytes().await.unwrap_or_default())
        }
        // Nothing answered: say so as a gateway error, and record that too.
        Err(e) => (502, Bytes::from(format!("recording proxy: {e}"))),
    };
    let mut response: Value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    normalise(&mut response);
    up.log.lock().expect("proxy log lock").push(Exchange {
        method: method.to_string(),
        path,
        request,
        status,
        response: response.clone(),
    });
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    match response {
        Value::String(s) => (status, s).into_response(),
        json => (
            status,
            [(header::CONTENT_TYPE, "application/json")],
            json.to_string(),
        )
            .into_response(),
    }
}
