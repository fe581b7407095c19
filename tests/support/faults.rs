//! A fault-injecting proxy in front of a real Zoekt, for the faults a real Zoekt cannot be
//! made to show on demand: answers that contradict themselves, wrong types, deep nesting,
//! bodies cut short, malformed JSON, crashed shards while `/readyz` says 200, and a loading
//! phase (`/readyz` 503 with answers that lack files and count a crash).
//!
//! Everything not armed goes through to the real Zoekt unchanged. A fault is armed for the
//! next N search (or list) requests; the proxy counts the faults it served, so a test can
//! tell a fault that was met from one that was never reached.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// One kind of fault, as it reaches the pager in place of Zoekt's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// `FileCount: 7, MatchCount: 9, Files: null`: says files matched, returns none.
    ContradictingCounts,
    /// Zoekt's real answer with `FileCount` as a string.
    WrongTypes,
    /// An otherwise empty answer with a key nested 100,000 arrays deep.
    DeepNesting,
    /// The first half of Zoekt's real answer.
    Truncated,
    /// Not JSON.
    MalformedJson,
    /// No files and one crashed shard (while `/readyz` stays 200: a shard that crashed).
    CrashedShards,
    /// Zoekt's real answer with every second file left out (counts adjusted to match) and
    /// one crash counted: what a loading Zoekt answers with part of its shards loaded.
    PartialWhileLoading,
}

impl Fault {
    /// Every fault kind whose answer is not usable at all (or says it is cut).
    pub const ALL: [Fault; 6] = [
        Fault::ContradictingCounts,
        Fault::WrongTypes,
        Fault::DeepNesting,
        Fault::Truncated,
        Fault::MalformedJson,
        Fault::CrashedShards,
    ];
}

struct Shared {
    base: String,
    http: reqwest::Client,
    armed: Mutex<VecDeque<Fault>>,
    served: AtomicU32,
    searches: AtomicU32,
    /// `/readyz` answers 503 while set (a loading Zoekt).
    loading: AtomicBool,
    /// Every request hangs while set (a webserver that stopped answering).
    stalled: AtomicBool,
}

/// A running proxy, stopped when dropped.
pub struct FaultProxy {
    url: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FaultProxy {
    /// Starts a proxy in front of the Zoekt at `zoekt_url` on a free loopback port.
    pub async fn start(zoekt_url: &str) -> FaultProxy {
        let shared = Arc::new(Shared {
            base: zoekt_url.trim_end_matches('/').to_string(),
            http: reqwest::Client::builder().no_proxy().build().unwrap(),
            armed: Mutex::new(VecDeque::new()),
            served: AtomicU32::new(0),
            searches: AtomicU32::new(0),
            loading: AtomicBool::new(false),
            stalled: AtomicBool::new(false),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let app = Router::new()
            .fallback(forward)
            .with_state(Arc::clone(&shared));
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        FaultProxy { url, shared, task }
    }

    /// The URL to point the pager at.
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// The next `times` search or list requests get `fault` (after any armed before).
    pub fn arm(&self, fault: Fault, times: usize) {
        let mut armed = self.shared.armed.lock().unwrap();
        armed.extend(std::iter::repeat_n(fault, times));
    }

    /// Drops every fault armed and not yet served.
    pub fn disarm(&self) {
        self.shared.armed.lock().unwrap().clear();
    }

    /// Faults served so far.
    pub fn served(&self) -> u32 {
        self.shared.served.load(Ordering::SeqCst)
    }

    /// Search and list requests received so far.
    pub fn searches(&self) -> u32 {
        self.shared.searches.load(Ordering::SeqCst)
    }

    /// From now on every request (`/readyz` too) hangs for a minute before it goes on
    /// (`true`), as a webserver that stopped answering; or goes through (`false`). Search
    /// and list requests are counted when they arrive.
    pub fn set_stalled(&self, stalled: bool) {
        self.shared.stalled.store(stalled, Ordering::SeqCst);
    }

    /// From now on `/readyz` answers 503 (`true`) or goes through to Zoekt (`false`).
    pub fn set_loading(&self, loading: bool) {
        self.shared.loading.store(loading, Ordering::SeqCst);
    }
}

async fn forward(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    body: Bytes,
) -> Response {
    let path = uri.path().to_string();
    if path == "/readyz" && shared.loading.load(Ordering::SeqCst) {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "not ready: loading shards\n",
        )
            .into_response();
    }
    // A census goes out beside a broad first page's window, at the same time: faults are
    // the pages' own searches', or which request met one would be a race. (A census that
    // fails only costs the page its suggestions; the engine's tests cover that.)
    let census = serde_json::from_slice(&body).is_ok_and(|b| super::is_census(&b));
    let is_query = (path == "/api/search" && !census) || path == "/api/list";
    let fault = if is_query {
        shared.searches.fetch_add(1, Ordering::SeqCst);
        shared.armed.lock().unwrap().pop_front()
    } else {
        None
    };
    if shared.stalled.load(Ordering::SeqCst) {
        tokio::time::sleep(std::time::Duration::from_secs(60)).await;
    }
    let target = format!(
        "{}{}",
        shared.base,
        uri.path_and_query().map_or("/", |p| p.as_str())
    );
    let upstream = shared
        .http
        .request(method, &target)
        .header(header::CONTENT_TYPE, "application/json")
        .body(body)
        .send()
        .await;
    let (status, real) = match upstream {
        Ok(r) => (r.status(), r.bytes().await.unwrap_or_default()),
        Err(_) => return StatusCode::BAD_GATEWAY.into_response(),
    };
    let Some(fault) = fault else {
        return (status, [(header::CONTENT_TYPE, "application/json")], real).into_response();
    };
    shared.served.fetch_add(1, Ordering::SeqCst);
    let list = path == "/api/list";
    let damaged = damage(fault, list, &real);
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        damaged,
    )
        .into_response()
}

/// The body `fault` sends in place of Zoekt's `real` answer.
fn damage(fault: Fault, list: bool, real: &[u8]) -> Vec<u8> {
    let envelope = if list { "List" } else { "Result" };
    match fault {
        Fault::ContradictingCounts if list => {
            json!({"List": {"Repos": null, "Crashes": 0, "Stats": {"Repos": 5}}}).to_string()
        }
        Fault::ContradictingCounts => {
            json!({"Result": {"FileCount": 7, "MatchCount": 9, "Files": null}}).to_string()
        }
        Fault::WrongTypes => {
            let mut v: Value = serde_json::from_slice(real).unwrap();
            let key = if list { "Crashes" } else { "FileCount" };
            v[envelope][key] = json!("7");
            v.to_string()
        }
        Fault::DeepNesting => {
            // In a key the pager never reads: were the nesting not refused, what is left would
            // be a well-formed, empty answer.
            let depth = 100_000;
            let counts = if list {
                ""
            } else {
                "\"FileCount\":0,\"MatchCount\":0,"
            };
            format!(
                "{{\"{envelope}\":{{{counts}\"Debug\":{}{}}}}}",
                "[".repeat(depth),
                "]".repeat(depth)
            )
        }
        Fault::Truncated => {
            return real[..real.len() / 2].to_vec();
        }
        Fault::MalformedJson => format!("{{\"{envelope}\": {{\"FileCount\": 1,, nope"),
        Fault::CrashedShards if list => {
            json!({"List": {"Repos": null, "Crashes": 1, "Stats": {}}}).to_string()
        }
        Fault::CrashedShards => {
            json!({"Result": {"FileCount": 0, "MatchCount": 0, "Crashes": 1, "Files": null}})
                .to_string()
        }
        Fault::PartialWhileLoading => {
            let mut v: Value = serde_json::from_slice(real).unwrap();
            let field = if list { "Repos" } else { "Files" };
            let kept: Vec<Value> = v[envelope][field]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .step_by(2)
                .collect();
            if !list {
                v[envelope]["FileCount"] = json!(kept.len());
            }
            v[envelope][field] = Value::Array(kept);
            v[envelope]["Crashes"] = json!(1);
            v.to_string()
        }
    }
    .into_bytes()
}
