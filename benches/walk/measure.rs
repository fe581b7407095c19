//! The walks: a tool paged at `limit` 30 to the end or the item cap, the Zoekt requests the
//! counting proxy sees meanwhile, the walk's biggest window replayed straight to Zoekt, the
//! no-Zoekt round trip, and every walk on one fresh server.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use zoekt_pager::harness::proxy::Proxy;

use crate::server::{Client, Server, call, http, text_of};
use crate::{
    CASES, Case, LIMIT, MAX_ITEMS, QUIET, QUIET_MAX, RAW_RUNS, RTT_CALLS, median, ms, on_off,
};

pub(crate) fn page_args(case: &Case, limit: u32, cursor: Option<&str>) -> Map<String, Value> {
    let mut a = Map::new();
    a.insert(case.key.into(), json!(case.query));
    a.insert("limit".into(), json!(limit));
    if let Some(c) = cursor {
        a.insert("cursor".into(), json!(c));
    }
    a
}

/// The /api/search request bodies the proxy has seen since it was last asked (none when
/// the server talks to Zoekt directly).
pub(crate) fn searches(proxy: Option<&Proxy>) -> Vec<Value> {
    proxy
        .map(Proxy::take)
        .unwrap_or_default()
        .into_iter()
        .filter(|x| x.path == "/api/search")
        .map(|x| x.request)
        .collect()
}

/// Waits until the proxy has seen nothing for [`QUIET`] (background prefetches done) and
/// returns what it saw meanwhile; without a proxy, waits [`QUIET`].
pub(crate) async fn settle(proxy: Option<&Proxy>) -> Vec<Value> {
    if proxy.is_none() {
        tokio::time::sleep(QUIET).await;
        return Vec::new();
    }
    let started = Instant::now();
    let mut quiet_since = Instant::now();
    let mut seen = Vec::new();
    while quiet_since.elapsed() < QUIET && started.elapsed() < QUIET_MAX {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let got = searches(proxy);
        if !got.is_empty() {
            seen.extend(got);
            quiet_since = Instant::now();
        }
    }
    seen
}

pub(crate) fn max_docs(body: &Value) -> u64 {
    body["Opts"]["MaxDocDisplayCount"].as_u64().unwrap_or(0)
}

#[derive(Clone)]
pub(crate) struct PageRec {
    pub(crate) ms: f64,
    pub(crate) items: usize,
    /// /api/search requests the proxy saw completed while this page ran.
    pub(crate) requests: usize,
}

/// A window replayed straight to Zoekt.
#[derive(Clone)]
pub(crate) struct RawWindow {
    pub(crate) query: String,
    pub(crate) max_docs: u64,
    pub(crate) direct_ms: Vec<f64>,
    pub(crate) via_proxy_ms: Vec<f64>,
}

#[derive(Clone)]
pub(crate) struct Walk {
    pub(crate) tool: &'static str,
    pub(crate) query: &'static str,
    pub(crate) cache_on: bool,
    /// Whether the server talked to Zoekt through the counting proxy.
    pub(crate) proxied: bool,
    pub(crate) pages: Vec<PageRec>,
    pub(crate) items: usize,
    pub(crate) reached_end: bool,
    pub(crate) walk_ms: f64,
    /// /api/search requests the proxy saw during the walk.
    pub(crate) bodies: Vec<Value>,
    /// ... and after its last page (background prefetches).
    pub(crate) trailing: Vec<Value>,
    pub(crate) raw: Vec<RawWindow>,
    pub(crate) warnings: Vec<String>,
    pub(crate) cache_counters: BTreeMap<String, i64>,
}

impl Walk {
    pub(crate) fn requests(&self) -> usize {
        self.bodies.len() + self.trailing.len()
    }

    pub(crate) fn biggest_window(&self) -> u64 {
        self.bodies.iter().map(max_docs).max().unwrap_or(0)
    }

    /// Raw Zoekt's time for the walk's deepest window (sum over its queries of the median).
    pub(crate) fn raw_ms(&self) -> f64 {
        self.raw.iter().map(|r| median(&r.direct_ms)).sum()
    }

    pub(crate) fn raw_via_proxy_ms(&self) -> f64 {
        self.raw.iter().map(|r| median(&r.via_proxy_ms)).sum()
    }

    pub(crate) fn page_ms(&self, n: usize) -> f64 {
        self.pages.get(n - 1).map_or(f64::NAN, |p| p.ms)
    }
}

/// Walks `case` at [`LIMIT`] up to [`MAX_ITEMS`] items or the end, timing each page and
/// counting the Zoekt requests the proxy sees.
pub(crate) async fn walk(
    server: &Server,
    client: &Client,
    proxy: Option<&Proxy>,
    case: &Case,
    cache_on: bool,
    max_items: usize,
) -> Walk {
    searches(proxy);
    let counters_before = server.cache_counters().await;
    let mut pages = Vec::new();
    let mut bodies = Vec::new();
    let mut warnings = Vec::new();
    let mut cursor: Option<String> = None;
    let mut items = 0;
    let mut reached_end = false;
    let started = Instant::now();
    while items < max_items {
        let args = page_args(case, LIMIT, cursor.as_deref());
        let t = Instant::now();
        let r = call(client, case.tool, args).await;
        let page_ms = ms(t.elapsed());
        let new = searches(proxy);
        assert_ne!(
            r.is_error,
            Some(true),
            "{} page {}: {}",
            case.tool,
            pages.len() + 1,
            text_of(&r)
        );
        let sc = r.structured_content.expect("structured content");
        let n = rows(&sc);
        for w in sc["warnings"].as_array().into_iter().flatten() {
            let w = w.as_str().map_or_else(|| w.to_string(), String::from);
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        items += n;
        pages.push(PageRec {
            ms: page_ms,
            items: n,
            requests: new.len(),
        });
        bodies.extend(new);
        cursor = sc["next_cursor"].as_str().map(String::from);
        if cursor.is_none() {
            reached_end = true;
            break;
        }
    }
    let walk_ms = ms(started.elapsed());
    let trailing = if cache_on {
        settle(proxy).await
    } else {
        searches(proxy)
    };
    let counters_after = server.cache_counters().await;
    let cache_counters = counters_after
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                *v as i64 - *counters_before.get(k).unwrap_or(&0) as i64,
            )
        })
        .collect();
    Walk {
        tool: case.tool,
        query: case.query,
        cache_on,
        proxied: proxy.is_some(),
        pages,
        items,
        reached_end,
        walk_ms,
        bodies,
        trailing,
        raw: Vec::new(),
        warnings,
        cache_counters,
    }
}

/// Wall time of `body` POSTed to `{url}/api/search`, the answer read in full (not parsed).
pub(crate) async fn post_ms(http: &reqwest::Client, url: &str, body: &[u8]) -> f64 {
    let t = Instant::now();
    let r = http
        .post(format!("{url}/api/search"))
        .header("Content-Type", "application/json")
        .body(body.to_vec())
        .send()
        .await
        .expect("raw Zoekt request");
    assert!(r.status().is_success(), "raw Zoekt: {}", r.status());
    r.bytes().await.expect("raw Zoekt answer");
    ms(t.elapsed())
}

/// The biggest window of each query `bodies` hold, replayed [`RAW_RUNS`] times straight to
/// Zoekt and through the proxy (to show the proxy's own cost).
async fn replay_deepest(zoekt: &str, proxy: &Proxy, bodies: &[Value]) -> Vec<RawWindow> {
    let mut biggest: BTreeMap<String, &Value> = BTreeMap::new();
    for b in bodies {
        let q = b["Q"].as_str().unwrap_or_default().to_string();
        let e = biggest.entry(q).or_insert(b);
        if max_docs(b) > max_docs(e) {
            *e = b;
        }
    }
    let http = http();
    let mut out = Vec::new();
    for (query, body) in biggest {
        let bytes = serde_json::to_vec(body).expect("body JSON");
        post_ms(&http, zoekt, &bytes).await;
        let mut direct_ms = Vec::new();
        let mut via_proxy_ms = Vec::new();
        for _ in 0..RAW_RUNS {
            direct_ms.push(post_ms(&http, zoekt, &bytes).await);
            via_proxy_ms.push(post_ms(&http, proxy.url(), &bytes).await);
        }
        out.push(RawWindow {
            query,
            max_docs: max_docs(body),
            direct_ms,
            via_proxy_ms,
        });
    }
    proxy.take();
    out
}

/// Latencies of `calls` tool calls the server refuses before asking Zoekt
/// (`search_symbols` with `limit: 0`); the proxy must see no request.
pub(crate) async fn round_trips(client: &Client, proxy: Option<&Proxy>, calls: usize) -> Vec<f64> {
    let args = page_args(&CASES[0], 0, None);
    for _ in 0..5 {
        call(client, "search_symbols", args.clone()).await;
    }
    searches(proxy);
    let mut out = Vec::with_capacity(calls);
    for _ in 0..calls {
        let t = Instant::now();
        let r = call(client, "search_symbols", args.clone()).await;
        out.push(ms(t.elapsed()));
        assert_eq!(r.is_error, Some(true), "limit 0 must be refused");
    }
    assert!(
        searches(proxy).is_empty(),
        "a refused call must not reach Zoekt"
    );
    out
}

/// The three walk servers: cache off and on through the proxy, cache on without it; and
/// the proxied walks in table order.
pub(crate) struct Runs {
    pub(crate) proxied: Vec<Walk>,
    pub(crate) on: Run,
    pub(crate) off: Run,
    pub(crate) direct: Run,
}

/// One server's walks, its round trips, its peak RSS and what its cache held at the end.
pub(crate) struct Run {
    pub(crate) walks: Vec<Walk>,
    pub(crate) rtt: Vec<f64>,
    pub(crate) peak_rss_kib: Option<u64>,
    pub(crate) cache_bytes: Option<u64>,
}

/// Every walk on one fresh server with the cache on or off, and its round trips. `proxied`:
/// the server talks to Zoekt through the counting proxy (else straight, to time the walks
/// without the proxy's own cost).
pub(crate) async fn walks_on(bin: &Path, zoekt: &str, cache_on: bool, proxied: bool) -> Run {
    let proxy = Proxy::start(zoekt)
        .await
        .expect("start the recording proxy");
    let server_zoekt = if proxied { proxy.url() } else { zoekt };
    let server = Server::start(bin, server_zoekt, cache_on).await;
    let tap = proxied.then_some(&proxy);
    let client = server.client().await;
    let rtt = round_trips(&client, tap, RTT_CALLS).await;
    let mut walks = Vec::new();
    for case in &CASES {
        let mut w = walk(&server, &client, tap, case, cache_on, MAX_ITEMS).await;
        if proxied {
            w.raw = replay_deepest(zoekt, &proxy, &w.bodies).await;
        } else if cache_on {
            // Let background prefetches end before the next walk.
            settle(None).await;
        }
        eprintln!(
            "walk bench: {} cache {}{}: {} pages, {} requests, {:.0} ms",
            w.tool,
            on_off(cache_on),
            if proxied { "" } else { " (no proxy)" },
            w.pages.len(),
            w.requests(),
            w.walk_ms
        );
        walks.push(w);
    }
    let _ = client.cancel().await;
    let peak_rss_kib = server.status_kib("VmHWM");
    let cache_bytes = server.metric("zoekt_pager_cache_bytes").await;
    server.stop().await;
    Run {
        walks,
        rtt,
        peak_rss_kib,
        cache_bytes,
    }
}

/// Items on a structured page: the rows of every group of every part (docs/output.md). A
/// group is a list (`[repo, path, rows, branches]`); its rows are the entry that the part's
/// `fields` names with a list of the row fields.
fn rows(page: &Value) -> usize {
    let parts = [page].into_iter().chain(
        ["definitions", "references"]
            .iter()
            .filter_map(|k| page.get(*k)),
    );
    let mut n = 0;
    for part in parts {
        n += part
            .get("rows")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let at = part["fields"]
            .as_array()
            .and_then(|f| f.iter().position(Value::is_array));
        for key in ["files", "repos"] {
            for group in part
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let rows = at.and_then(|at| group.get(at)).and_then(Value::as_array);
                n += rows
                    .expect("a group holds its rows where `fields` says")
                    .len();
            }
        }
    }
    n
}
