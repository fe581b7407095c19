//! What the window cache is worth against a real Zoekt: deep walks, cache on and off, through
//! the real server binary over MCP's streamable HTTP.
//!
//! For the window cache on (the defaults) and off (`--cache-bytes 0`) it spawns
//! `zoekt-pager serve --http 127.0.0.1:0` pointed at the harness's tap on Zoekt's JSON API
//! (`zoekt_pager::harness::proxy::Proxy`) in front of the Zoekt serving the generated
//! 12,000-file corpus, and measures, through rmcp's streamable-HTTP client:
//!
//! - walks of `limit` 30 up to 3,000 items (or the end) of `search_symbols`, `search_files`,
//!   `find_references`, `search` and `files_with_matches`: pages, Zoekt requests per walk (seen
//!   by the proxy), walk time, page 1 / page 10 / last page latency, and raw Zoekt's time for
//!   the walk's biggest window (its biggest /api/search body, replayed straight to Zoekt; for
//!   `find_references` the biggest of each of its two queries, summed);
//! - the no-Zoekt round trip (`search_symbols` with `limit: 0`, refused before Zoekt), the
//!   bound `2 x (raw deepest window + pages x round trip)` beside each cache-on walk, and what
//!   a page served from the cache adds over that round trip;
//! - 1, 8 and 32 concurrent clients (one MCP session each) walking the same 20 pages of
//!   `search_symbols` for a fixed time, cache on and off, each setting on a fresh server:
//!   pages/s, p50 / p99 page latency and the server's peak RSS (`VmHWM`).
//!
//! It prints markdown tables and writes them to `docs/bench/walk.md`, latency by page depth as
//! an SVG plot to `docs/bench/walk.svg`, and every raw number to `target/bench-walk.json`.
//! Timings are printed, never asserted.
//!
//! Run it with `scripts/bench.sh` (generates the corpus, gets Zoekt, starts one webserver on
//! port `ZOEKT_BIG_PORT`, default 6081, builds the release binary, runs this bench, stops the
//! webserver). By hand, with such a Zoekt up:
//! `cargo build --release && ZOEKT_PAGER_LIVE_BIG_URL=http://127.0.0.1:6081 cargo bench --bench walk`.
//!
//! The server binary is `ZOEKT_PAGER_BIN` when set (`scripts/bench.sh` sets it to a copy of
//! its `cargo build --release`), else the `zoekt-pager` cargo built for this bench
//! (`CARGO_BIN_EXE_zoekt-pager`: under `cargo bench` an optimised build, but with the
//! features the dev-dependencies turn on in crates they share with it). Without `--bench` on
//! the command line (as `cargo test --all-targets` runs it) it only does a smoke run: three
//! pages of one tool with the cache on, and writes no file.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use zoekt_pager::harness::proxy::Proxy;

type Client = RunningService<RoleClient, ()>;

/// Items per page.
const LIMIT: u32 = 30;
/// A walk stops after this many items (or at the end).
const MAX_ITEMS: usize = 3_000;
/// Calls measured for the no-Zoekt round trip.
const RTT_CALLS: usize = 50;
/// Replays of a walk's biggest window straight to Zoekt (after one untimed).
const RAW_RUNS: usize = 7;
/// Pages each concurrent client walks before starting over.
const CONC_PAGES: usize = 20;
/// How long each concurrency setting runs.
const CONC_TIME: Duration = Duration::from_secs(10);
/// Concurrent clients.
const CLIENTS: [usize; 3] = [1, 8, 32];
/// After the last page, how long the proxy must stay quiet before a walk's background
/// prefetches are taken as done (and at most how long to wait).
const QUIET: Duration = Duration::from_secs(2);
const QUIET_MAX: Duration = Duration::from_secs(30);

/// One tool's walk: its arguments besides `limit` and `cursor`.
struct Case {
    tool: &'static str,
    key: &'static str,
    query: &'static str,
    why: &'static str,
}

const CASES: [Case; 5] = [
    Case {
        tool: "search_symbols",
        key: "query",
        query: "genSym",
        why: "23,964 ctags definitions in 12,000 files (1-3 per file)",
    },
    Case {
        tool: "search_files",
        key: "query",
        query: "unit_",
        why: "every one of the 12,000 paths",
    },
    Case {
        tool: "find_references",
        key: "symbol",
        query: "x",
        why: "no definitions; 180,414 lines in 3,766 files within the shard cap (407,318 in all)",
    },
    Case {
        tool: "search",
        key: "query",
        query: "genSym",
        why: "23,964 lines (one per definition) in 12,000 files",
    },
    Case {
        tool: "files_with_matches",
        key: "query",
        query: "genSym",
        why: "all 12,000 files",
    },
];

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The `q`-quantile (nearest rank) of `v`; NaN when empty.
fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = ((q * s.len() as f64).ceil() as usize).clamp(1, s.len());
    s[rank - 1]
}

fn median(v: &[f64]) -> f64 {
    quantile(v, 0.5)
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("reqwest client")
}

/// A running `zoekt-pager serve --http 127.0.0.1:0`, killed on drop.
struct Server {
    child: tokio::process::Child,
    base: String,
}

impl Server {
    /// Starts the server binary against `zoekt_url`, with the window cache on (defaults) or
    /// off. The caller's own ZOEKT_PAGER_* settings are dropped; logs go to stderr, errors only.
    async fn start(bin: &Path, zoekt_url: &str, cache_on: bool) -> Server {
        let mut cmd = tokio::process::Command::new(bin);
        for (k, _) in std::env::vars().filter(|(k, _)| k.starts_with("ZOEKT_PAGER_")) {
            cmd.env_remove(k);
        }
        if !cache_on {
            cmd.args(["--cache-bytes", "0"]);
        }
        cmd.args(["serve", "--http", "127.0.0.1:0"])
            .env("ZOEKT_URL", zoekt_url)
            // Over JSON: the bench counts Zoekt requests through the recording proxy, which
            // sees JSON exchanges only.
            .env("ZOEKT_PAGER_ZOEKT_TRANSPORT", "json")
            .env("ZOEKT_PAGER_LOG", "error")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", bin.display()));
        let stdout = child.stdout.take().expect("piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("the server prints its address within 20 s")
            .expect("read the server's stdout")
            .expect("the server printed its address");
        let base = line
            .rsplit(' ')
            .next()
            .and_then(|u| u.strip_suffix("/mcp"))
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        Server { child, base }
    }

    async fn client(&self) -> Client {
        let cfg = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", self.base));
        ().serve(StreamableHttpClientTransport::from_config(cfg))
            .await
            .expect("MCP initialize over HTTP")
    }

    /// A field of /proc/<pid>/status in KiB (`VmHWM`: peak RSS, `VmRSS`: now).
    fn status_kib(&self, field: &str) -> Option<u64> {
        let pid = self.child.id()?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    /// One unlabelled metric from /metrics.
    async fn metric(&self, name: &str) -> Option<u64> {
        let r = http()
            .get(format!("{}/metrics", self.base))
            .send()
            .await
            .ok()?;
        let text = r.text().await.ok()?;
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
            .and_then(|v| v.trim().parse().ok())
    }

    /// The window cache's counters (`zoekt_pager_cache_*_total`) from /metrics.
    async fn cache_counters(&self) -> BTreeMap<String, u64> {
        let Ok(r) = http().get(format!("{}/metrics", self.base)).send().await else {
            return BTreeMap::new();
        };
        let text = r.text().await.unwrap_or_default();
        text.lines()
            .filter_map(|l| {
                let (name, v) = l.split_once(' ')?;
                let name = name
                    .strip_prefix("zoekt_pager_cache_")?
                    .strip_suffix("_total")?;
                Some((name.to_string(), v.trim().parse().ok()?))
            })
            .collect()
    }

    async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

async fn call(client: &Client, tool: &str, args: Map<String, Value>) -> CallToolResult {
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
    client
        .call_tool(params)
        .await
        .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"))
}

fn text_of(r: &CallToolResult) -> String {
    r.content
        .first()
        .and_then(|b| b.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default()
}

fn page_args(case: &Case, limit: u32, cursor: Option<&str>) -> Map<String, Value> {
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
fn searches(proxy: Option<&Proxy>) -> Vec<Value> {
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
async fn settle(proxy: Option<&Proxy>) -> Vec<Value> {
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

fn max_docs(body: &Value) -> u64 {
    body["Opts"]["MaxDocDisplayCount"].as_u64().unwrap_or(0)
}

#[derive(Clone)]
struct PageRec {
    ms: f64,
    items: usize,
    /// /api/search requests the proxy saw completed while this page ran.
    requests: usize,
}

/// A window replayed straight to Zoekt.
#[derive(Clone)]
struct RawWindow {
    query: String,
    max_docs: u64,
    direct_ms: Vec<f64>,
    via_proxy_ms: Vec<f64>,
}

#[derive(Clone)]
struct Walk {
    tool: &'static str,
    query: &'static str,
    cache_on: bool,
    /// Whether the server talked to Zoekt through the counting proxy.
    proxied: bool,
    pages: Vec<PageRec>,
    items: usize,
    reached_end: bool,
    walk_ms: f64,
    /// /api/search requests the proxy saw during the walk.
    bodies: Vec<Value>,
    /// ... and after its last page (background prefetches).
    trailing: Vec<Value>,
    raw: Vec<RawWindow>,
    warnings: Vec<String>,
    cache_counters: BTreeMap<String, i64>,
}

impl Walk {
    fn requests(&self) -> usize {
        self.bodies.len() + self.trailing.len()
    }

    fn biggest_window(&self) -> u64 {
        self.bodies.iter().map(max_docs).max().unwrap_or(0)
    }

    /// Raw Zoekt's time for the walk's deepest window (sum over its queries of the median).
    fn raw_ms(&self) -> f64 {
        self.raw.iter().map(|r| median(&r.direct_ms)).sum()
    }

    fn raw_via_proxy_ms(&self) -> f64 {
        self.raw.iter().map(|r| median(&r.via_proxy_ms)).sum()
    }

    fn page_ms(&self, n: usize) -> f64 {
        self.pages.get(n - 1).map_or(f64::NAN, |p| p.ms)
    }
}

/// Walks `case` at [`LIMIT`] up to [`MAX_ITEMS`] items or the end, timing each page and
/// counting the Zoekt requests the proxy sees.
async fn walk(
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
async fn post_ms(http: &reqwest::Client, url: &str, body: &[u8]) -> f64 {
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
async fn round_trips(client: &Client, proxy: Option<&Proxy>, calls: usize) -> Vec<f64> {
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
struct Runs {
    proxied: Vec<Walk>,
    on: Run,
    off: Run,
    direct: Run,
}

/// One server's walks, its round trips, its peak RSS and what its cache held at the end.
struct Run {
    walks: Vec<Walk>,
    rtt: Vec<f64>,
    peak_rss_kib: Option<u64>,
    cache_bytes: Option<u64>,
}

/// Every walk on one fresh server with the cache on or off, and its round trips. `proxied`:
/// the server talks to Zoekt through the counting proxy (else straight, to time the walks
/// without the proxy's own cost).
async fn walks_on(bin: &Path, zoekt: &str, cache_on: bool, proxied: bool) -> Run {
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

struct Concurrency {
    cache_on: bool,
    clients: usize,
    pages: usize,
    secs: f64,
    latencies: Vec<f64>,
    requests: usize,
    rss_start_kib: Option<u64>,
    peak_rss_kib: Option<u64>,
}

/// `clients` sessions on a fresh server, each walking the same [`CONC_PAGES`] pages of
/// `search_symbols` over and over for [`CONC_TIME`].
async fn concurrency(bin: &Path, zoekt: &str, cache_on: bool, clients: usize) -> Concurrency {
    let proxy = Proxy::start(zoekt)
        .await
        .expect("start the recording proxy");
    let server = Server::start(bin, proxy.url(), cache_on).await;
    let mut sessions = Vec::new();
    for _ in 0..clients {
        sessions.push(server.client().await);
    }
    let rss_start_kib = server.status_kib("VmRSS");
    proxy.take();
    let started = Instant::now();
    let deadline = started + CONC_TIME;
    let mut tasks = Vec::new();
    for client in sessions {
        tasks.push(tokio::spawn(async move {
            let case = &CASES[0];
            let mut latencies = Vec::new();
            'outer: while Instant::now() < deadline {
                let mut cursor: Option<String> = None;
                for _ in 0..CONC_PAGES {
                    if Instant::now() >= deadline {
                        break 'outer;
                    }
                    let t = Instant::now();
                    let r = call(
                        &client,
                        case.tool,
                        page_args(case, LIMIT, cursor.as_deref()),
                    )
                    .await;
                    latencies.push(ms(t.elapsed()));
                    assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
                    let sc = r.structured_content.expect("structured content");
                    cursor = sc["next_cursor"].as_str().map(String::from);
                    if cursor.is_none() {
                        break;
                    }
                }
            }
            let _ = client.cancel().await;
            latencies
        }));
    }
    let mut latencies = Vec::new();
    for t in tasks {
        latencies.extend(t.await.expect("client task"));
    }
    let secs = started.elapsed().as_secs_f64();
    let mut requests = searches(Some(&proxy)).len();
    if cache_on {
        requests += settle(Some(&proxy)).await.len();
    }
    let peak_rss_kib = server.status_kib("VmHWM");
    server.stop().await;
    Concurrency {
        cache_on,
        clients,
        pages: latencies.len(),
        secs,
        latencies,
        requests,
        rss_start_kib,
        peak_rss_kib,
    }
}

fn on_off(cache_on: bool) -> &'static str {
    if cache_on { "on" } else { "off" }
}

fn mib(kib: Option<u64>) -> String {
    kib.map_or_else(|| "?".into(), |k| format!("{:.1}", k as f64 / 1024.0))
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "**no**" }
}

/// The markdown report.
fn report(header: &str, runs: &Runs, conc: &[Concurrency]) -> String {
    let mut o = String::new();
    let walks = &runs.proxied;
    let (rtt_on, rtt_off) = (&runs.on.rtt, &runs.off.rtt);
    let rt_on = median(rtt_on);
    let rt_off = median(rtt_off);
    o.push_str(header);
    let _ = writeln!(o, "\n## Queries\n");
    for c in &CASES {
        let _ = writeln!(o, "- `{}` {}=`{}`: {}", c.tool, c.key, c.query, c.why);
    }
    let _ = writeln!(
        o,
        "\n## No-Zoekt round trip\n\n`search_symbols` with `limit: 0` (refused before Zoekt), \
         median of {RTT_CALLS} calls: **{rt_on:.3} ms** on the cache-on server, {rt_off:.3} ms \
         on the cache-off server (p90 {:.3} / {:.3} ms); {:.3} ms on the cache-on server \
         without the proxy.",
        quantile(rtt_on, 0.9),
        quantile(rtt_off, 0.9),
        median(&runs.direct.rtt)
    );

    let _ = writeln!(
        o,
        "\n## Walks: limit {LIMIT}, up to {MAX_ITEMS} items\n\n\
         Zoekt requests: /api/search requests the proxy saw during the walk, plus (after `+`) \
         background prefetches that finished after its last page. Raw deepest: the walk's \
         biggest /api/search body replayed straight to Zoekt ({RAW_RUNS} runs, median; \
         `find_references`: its two queries' biggest, summed); \"via proxy\": the same through \
         the recording proxy the server talks to.\n"
    );
    let _ = writeln!(
        o,
        "| tool | cache | pages | items | Zoekt requests | biggest MaxDocDisplayCount | walk ms | page 1 ms | page 10 ms | last page ms | raw deepest ms | via proxy ms |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for w in walks {
        let _ = writeln!(
            o,
            "| {} | {} | {}{} | {} | {} + {} | {} | {:.0} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
            w.tool,
            on_off(w.cache_on),
            w.pages.len(),
            if w.reached_end { " (end)" } else { "" },
            w.items,
            w.bodies.len(),
            w.trailing.len(),
            w.biggest_window(),
            w.walk_ms,
            w.page_ms(1),
            w.page_ms(10),
            w.pages.last().map_or(f64::NAN, |p| p.ms),
            w.raw_ms(),
            w.raw_via_proxy_ms(),
        );
    }
    let _ = writeln!(
        o,
        "\nWindows (MaxDocDisplayCount) the cache-on walks sent, in order, with the page \
         during which each finished:\n"
    );
    for w in walks.iter().filter(|w| w.cache_on) {
        let mut sent = w.bodies.iter();
        let mut parts = Vec::new();
        for (i, p) in w.pages.iter().enumerate() {
            for b in sent.by_ref().take(p.requests) {
                parts.push(format!("{} (page {})", max_docs(b), i + 1));
            }
        }
        let _ = writeln!(o, "- `{}`: {}", w.tool, parts.join(", "));
    }

    let _ = writeln!(
        o,
        "\n## Against the targets (cache on)\n\n\
         Bound: `2 x (raw deepest + pages x round trip)`, round trip {rt_on:.3} ms, where raw \
         deepest is this walk's biggest window. Strict bound: the same with the deepest window \
         of the cache-off walk instead, the window the last page itself needs (smaller when \
         the cache fetched ahead in one big step). Walk ms: \
         through the counting proxy (as in the table above); no proxy: the same walk on a \
         fresh cache-on server talking to Zoekt directly, run after the proxied ones. Cached \
         pages: cache-on pages during which the proxy saw no /api/search request finish; \
         overhead: page latency minus the round trip median.\n"
    );
    let _ = writeln!(
        o,
        "| tool | Zoekt requests | <= 12 | walk ms | no proxy ms | bound ms | within bound (proxy / no proxy) | strict bound ms | within strict bound (no proxy) | cache-off walk ms | speedup | cached pages | cached page overhead ms (median / p90) |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut all_overheads = Vec::new();
    for w in walks.iter().filter(|w| w.cache_on) {
        let off_walk = walks.iter().find(|x| !x.cache_on && x.tool == w.tool);
        let off = off_walk.map_or(f64::NAN, |x| x.walk_ms);
        let strict = off_walk.map_or(f64::NAN, |x| {
            2.0 * (x.raw_ms() + w.pages.len() as f64 * rt_on)
        });
        let direct = runs
            .direct
            .walks
            .iter()
            .find(|x| x.tool == w.tool)
            .map_or(f64::NAN, |x| x.walk_ms);
        let bound = 2.0 * (w.raw_ms() + w.pages.len() as f64 * rt_on);
        let overheads: Vec<f64> = w
            .pages
            .iter()
            .filter(|p| p.requests == 0)
            .map(|p| p.ms - rt_on)
            .collect();
        all_overheads.extend(overheads.iter().copied());
        let _ = writeln!(
            o,
            "| {} | {} | {} | {:.0} | {:.0} | {:.0} | {} / {} | {:.0} | {} | {:.0} | {:.1}x | {} of {} | {:.3} / {:.3} |",
            w.tool,
            w.requests(),
            yes_no(w.requests() <= 12),
            w.walk_ms,
            direct,
            bound,
            yes_no(w.walk_ms <= bound),
            yes_no(direct <= bound),
            strict,
            yes_no(direct <= strict),
            off,
            off / w.walk_ms,
            overheads.len(),
            w.pages.len(),
            median(&overheads),
            quantile(&overheads, 0.9),
        );
    }
    let _ = writeln!(
        o,
        "\nAll tools: a page served from the cache adds **{:.3} ms** (median over {} pages; \
         p90 {:.3} ms) over the no-Zoekt round trip.",
        median(&all_overheads),
        all_overheads.len(),
        quantile(&all_overheads, 0.9)
    );
    let _ = writeln!(
        o,
        "\nWalk servers' peak RSS (`VmHWM`): cache on {} MiB (window cache holding {} MiB after \
         the five walks), cache off {} MiB.",
        mib(runs.on.peak_rss_kib),
        runs.on
            .cache_bytes
            .map_or_else(|| "?".into(), |b| format!("{:.1}", b as f64 / 1048576.0)),
        mib(runs.off.peak_rss_kib),
    );
    let warned: Vec<&Walk> = walks.iter().filter(|w| !w.warnings.is_empty()).collect();
    if !warned.is_empty() {
        let _ = writeln!(o, "\nPage warnings seen:\n");
        for w in warned {
            for x in &w.warnings {
                let _ = writeln!(o, "- `{}` cache {}: {x}", w.tool, on_off(w.cache_on));
            }
        }
    }

    let _ = writeln!(
        o,
        "\n## Concurrency: `search_symbols` `{}`, limit {LIMIT}, pages 1-{CONC_PAGES} over and over, {} s per setting\n\n\
         Every client is its own MCP session over HTTP, all walking the same query; a fresh \
         server per setting. Peak RSS: the server's `VmHWM` after the run (RSS at start in \
         parentheses).\n",
        CASES[0].query,
        CONC_TIME.as_secs()
    );
    let _ = writeln!(
        o,
        "| cache | clients | pages | pages/s | p50 ms | p99 ms | Zoekt requests | peak RSS MiB | under 128 MiB |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|");
    for c in conc {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {:.1} | {:.1} | {:.1} | {} | {} ({}) | {} |",
            on_off(c.cache_on),
            c.clients,
            c.pages,
            c.pages as f64 / c.secs,
            median(&c.latencies),
            quantile(&c.latencies, 0.99),
            c.requests,
            mib(c.peak_rss_kib),
            mib(c.rss_start_kib),
            c.peak_rss_kib.map_or("?", |k| yes_no(k < 128 * 1024)),
        );
    }
    o
}

/// Latency by page depth, one line per tool, a panel per cache setting, log-scale y.
fn svg(walks: &[Walk]) -> String {
    const COLORS: [&str; 5] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"];
    let (w, h) = (1000.0, 470.0);
    let (pw, ph) = (400.0, 330.0);
    let top = 60.0;
    let lefts = [80.0, 560.0];
    let max_page = walks
        .iter()
        .map(|w| w.pages.len())
        .max()
        .unwrap_or(1)
        .max(2) as f64;
    let all: Vec<f64> = walks
        .iter()
        .flat_map(|w| w.pages.iter().map(|p| p.ms))
        .filter(|v| *v > 0.0)
        .collect();
    let lo = all
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .log10()
        .floor();
    let hi = all
        .iter()
        .copied()
        .fold(0.0, f64::max)
        .log10()
        .ceil()
        .max(lo + 1.0);
    let x = |left: f64, page: f64| left + (page - 1.0) / (max_page - 1.0) * pw;
    let y = |v: f64| top + ph - (v.max(1e-9).log10() - lo) / (hi - lo) * ph;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="24" text-anchor="middle" font-size="15">zoekt-pager page latency by depth (limit {LIMIT}, real Zoekt, 12,000-file corpus)</text>"#,
        w / 2.0
    );
    for (panel, cache_on) in [true, false].into_iter().enumerate() {
        let left = lefts[panel];
        let title = if cache_on {
            "window cache on (defaults)"
        } else {
            "window cache off (--cache-bytes 0)"
        };
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle" font-size="13">{title}</text>"#,
            left + pw / 2.0,
            top - 10.0
        );
        let _ = writeln!(
            s,
            r##"<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>"##
        );
        let mut e = lo as i32;
        while e <= hi as i32 {
            let v = 10f64.powi(e);
            let yy = y(v);
            let label = if e < 0 {
                format!("{v:.*}", (-e) as usize)
            } else {
                format!("{v:.0}")
            };
            let _ = writeln!(
                s,
                r##"<line x1="{left}" y1="{yy:.1}" x2="{}" y2="{yy:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{label}</text>"##,
                left + pw,
                left - 6.0,
                yy + 4.0
            );
            e += 1;
        }
        let mut tick = 0usize;
        while tick as f64 <= max_page {
            let page = (tick.max(1)) as f64;
            let xx = x(left, page);
            let _ = writeln!(
                s,
                r##"<line x1="{xx:.1}" y1="{}" x2="{xx:.1}" y2="{}" stroke="#444"/><text x="{xx:.1}" y="{}" text-anchor="middle">{}</text>"##,
                top + ph,
                top + ph + 5.0,
                top + ph + 18.0,
                page as usize
            );
            tick += 20;
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">page number</text>"#,
            left + pw / 2.0,
            top + ph + 36.0
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle" transform="rotate(-90 {} {})">latency ms (log)</text>"#,
            left - 50.0,
            top + ph / 2.0,
            left - 50.0,
            top + ph / 2.0
        );
        for (i, wk) in walks.iter().filter(|w| w.cache_on == cache_on).enumerate() {
            let pts: Vec<String> = wk
                .pages
                .iter()
                .enumerate()
                .map(|(n, p)| format!("{:.1},{:.1}", x(left, n as f64 + 1.0), y(p.ms)))
                .collect();
            let _ = writeln!(
                s,
                r#"<polyline fill="none" stroke="{}" stroke-width="1.5" points="{}"/>"#,
                COLORS[i % COLORS.len()],
                pts.join(" ")
            );
        }
    }
    for (i, c) in CASES.iter().enumerate() {
        let lx = 80.0 + i as f64 * 180.0;
        let ly = h - 22.0;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{}" stroke-width="3"/><text x="{}" y="{}">{}</text>"#,
            lx + 24.0,
            COLORS[i % COLORS.len()],
            lx + 30.0,
            ly + 4.0,
            c.tool
        );
    }
    s.push_str("</svg>\n");
    s
}

fn json_report(header: &Value, runs: &Runs, conc: &[Concurrency]) -> Value {
    let walks: Vec<Value> = runs
        .proxied
        .iter()
        .chain(&runs.direct.walks)
        .map(|w| {
            json!({
                "tool": w.tool,
                "query": w.query,
                "cache": on_off(w.cache_on),
                "via_proxy": w.proxied,
                "items": w.items,
                "reached_end": w.reached_end,
                "walk_ms": w.walk_ms,
                "pages": w.pages.iter().enumerate().map(|(i, p)| json!({
                    "page": i + 1, "ms": p.ms, "items": p.items, "zoekt_requests": p.requests,
                })).collect::<Vec<_>>(),
                "zoekt_requests": w.bodies.len(),
                "zoekt_requests_after_last_page": w.trailing.len(),
                "windows_sent": w.bodies.iter().map(|b| json!({"Q": b["Q"], "MaxDocDisplayCount": max_docs(b)})).collect::<Vec<_>>(),
                "windows_after_last_page": w.trailing.iter().map(|b| json!({"Q": b["Q"], "MaxDocDisplayCount": max_docs(b)})).collect::<Vec<_>>(),
                "raw_deepest": w.raw.iter().map(|r| json!({
                    "Q": r.query, "MaxDocDisplayCount": r.max_docs,
                    "direct_ms": r.direct_ms, "via_proxy_ms": r.via_proxy_ms,
                })).collect::<Vec<_>>(),
                "raw_deepest_ms": w.raw_ms(),
                "cache_counters": w.cache_counters,
                "warnings": w.warnings,
            })
        })
        .collect();
    let conc: Vec<Value> = conc
        .iter()
        .map(|c| {
            json!({
                "cache": on_off(c.cache_on),
                "clients": c.clients,
                "pages": c.pages,
                "secs": c.secs,
                "pages_per_sec": c.pages as f64 / c.secs,
                "p50_ms": median(&c.latencies),
                "p99_ms": quantile(&c.latencies, 0.99),
                "zoekt_requests": c.requests,
                "rss_start_kib": c.rss_start_kib,
                "peak_rss_kib": c.peak_rss_kib,
                "latencies_ms": c.latencies,
            })
        })
        .collect();
    json!({
        "setup": header,
        "round_trip_ms": {"on": runs.on.rtt, "off": runs.off.rtt, "on_no_proxy": runs.direct.rtt},
        "walk_servers": {
            "on": {"peak_rss_kib": runs.on.peak_rss_kib, "cache_bytes": runs.on.cache_bytes},
            "off": {"peak_rss_kib": runs.off.peak_rss_kib},
            "on_no_proxy": {"peak_rss_kib": runs.direct.peak_rss_kib, "cache_bytes": runs.direct.cache_bytes},
        },
        "walks": walks,
        "concurrency": conc,
    })
}

fn server_binary() -> PathBuf {
    std::env::var_os("ZOEKT_PAGER_BIN")
        .filter(|v| !v.is_empty())
        .map_or_else(
            || PathBuf::from(env!("CARGO_BIN_EXE_zoekt-pager")),
            PathBuf::from,
        )
}

/// `cargo test --all-targets` runs benches without `--bench`: three pages of one tool with
/// the cache on, printed, nothing written.
async fn smoke(bin: &Path, zoekt: &str) {
    let proxy = Proxy::start(zoekt)
        .await
        .expect("start the recording proxy");
    let server = Server::start(bin, proxy.url(), true).await;
    let client = server.client().await;
    let rtt = round_trips(&client, Some(&proxy), 3).await;
    let w = walk(
        &server,
        &client,
        Some(&proxy),
        &CASES[0],
        true,
        3 * LIMIT as usize,
    )
    .await;
    println!(
        "walk bench (smoke, no --bench): {} `{}`: {} pages, {} items, {} Zoekt requests, {:.1} ms; round trip {:.2} ms",
        w.tool,
        w.query,
        w.pages.len(),
        w.items,
        w.requests(),
        w.walk_ms,
        median(&rtt)
    );
    let _ = client.cancel().await;
    server.stop().await;
}

#[tokio::main]
async fn main() {
    let Ok(zoekt) = std::env::var("ZOEKT_PAGER_LIVE_BIG_URL") else {
        eprintln!(
            "walk bench: set ZOEKT_PAGER_LIVE_BIG_URL to a zoekt-webserver on the generated \
             12,000-file corpus (scripts/bench.sh does it all; see the top of benches/walk.rs)"
        );
        std::process::exit(2);
    };
    let zoekt = zoekt.trim_end_matches('/').to_string();
    let bin = server_binary();
    if !std::env::args().any(|a| a == "--bench") {
        smoke(&bin, &zoekt).await;
        return;
    }
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);
    let header = format!(
        "# zoekt-pager walk benchmark\n\n\
         Generated by `scripts/bench.sh` (`cargo bench --bench walk`, benches/walk.rs); \
         overwritten on every run. Zoekt: {zoekt} (generated 12,000-file corpus, 18 shards); \
         server binary: `{}`; {cpus} CPUs shared by Zoekt, the server and this bench. Each \
         server talks to Zoekt through a recording proxy that counts requests. Single runs: \
         read the numbers as indications, not as statistics.\n",
        bin.display()
    );
    eprintln!("walk bench: server binary {}", bin.display());

    // Warm Zoekt (and the OS's caches) for every query first.
    let http = http();
    for c in &CASES {
        let body = json!({"Q": c.query, "Opts": {"MaxDocDisplayCount": 100}});
        post_ms(&http, &zoekt, &serde_json::to_vec(&body).unwrap()).await;
    }

    let off = walks_on(&bin, &zoekt, false, true).await;
    let on = walks_on(&bin, &zoekt, true, true).await;
    let direct = walks_on(&bin, &zoekt, true, false).await;
    // Tool by tool, cache on first.
    let mut proxied: Vec<Walk> = Vec::new();
    for c in &CASES {
        for run in [&on, &off] {
            proxied.extend(
                run.walks
                    .iter()
                    .filter(|w| w.tool == c.tool)
                    .map(Walk::clone),
            );
        }
    }
    let runs = Runs {
        proxied,
        on,
        off,
        direct,
    };

    let mut conc = Vec::new();
    for cache_on in [true, false] {
        for clients in CLIENTS {
            let c = concurrency(&bin, &zoekt, cache_on, clients).await;
            eprintln!(
                "walk bench: {} clients cache {}: {} pages in {:.1} s",
                c.clients,
                on_off(c.cache_on),
                c.pages,
                c.secs
            );
            conc.push(c);
        }
    }

    let md = report(&header, &runs, &conc);
    println!("{md}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = root.join("docs/bench");
    std::fs::create_dir_all(&docs).expect("create docs/bench");
    std::fs::write(docs.join("walk.md"), &md).expect("write docs/bench/walk.md");
    std::fs::write(docs.join("walk.svg"), svg(&runs.proxied)).expect("write docs/bench/walk.svg");
    let setup = json!({
        "zoekt": zoekt, "binary": bin.display().to_string(), "cpus": cpus,
        "limit": LIMIT, "max_items": MAX_ITEMS, "raw_runs": RAW_RUNS,
        "round_trip_calls": RTT_CALLS, "concurrency_secs": CONC_TIME.as_secs(),
        "concurrency_pages": CONC_PAGES,
    });
    let raw = json_report(&setup, &runs, &conc);
    let out = root.join("target/bench-walk.json");
    std::fs::write(
        &out,
        serde_json::to_string_pretty(&raw).expect("JSON") + "\n",
    )
    .expect("write target/bench-walk.json");
    eprintln!(
        "walk bench: wrote docs/bench/walk.md, docs/bench/walk.svg, {}",
        out.display()
    );
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
