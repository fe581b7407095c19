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

mod concurrency;
mod measure;
mod report;
mod server;

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use zoekt_pager::harness::proxy::Proxy;

use concurrency::concurrency;
use measure::{Runs, Walk, post_ms, round_trips, walk, walks_on};
use report::{json_report, report, svg};
use server::{Server, http, server_binary};

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

fn on_off(cache_on: bool) -> &'static str {
    if cache_on { "on" } else { "off" }
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
             12,000-file corpus (scripts/bench.sh does it all; see the top of benches/walk/main.rs)"
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
         Generated by `scripts/bench.sh` (`cargo bench --bench walk`, benches/walk/main.rs); \
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
