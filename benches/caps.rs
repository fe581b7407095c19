//! What the deterministic effort caps cost: page-1 latency of a broad and a narrow `search`,
//! with the old cross-shard cap (TotalMaxMatchCount 100,000, which Zoekt applies at a
//! timing-dependent point) and without it (the default), each beside raw Zoekt's time for the
//! same request in the same run.
//!
//! Needs the generated corpus's Zoekt (18 shards): `scripts/test.sh` starts it, or by hand
//! `ZOEKT_SHARD_LIMIT=470000 ZOEKT_PORT=6071 ZOEKT_STATE_DIR=.zoekt/big scripts/zoekt.sh up
//! target/gen-corpus-12000`, then
//! `ZOEKT_PAGER_LIVE_BIG_URL=http://127.0.0.1:6071 cargo bench --bench caps`.
//! Prints numbers; asserts nothing about time.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use zoekt_pager::tools::search::{Search, SearchArgs};
use zoekt_pager::zoekt::{ClientOptions, ZoektClient};
use zoekt_pager::{Effort, Pager, PagerConfig};

const RUNS: usize = 15;
const LIMIT: u32 = 30;

fn median_and_p90(mut v: Vec<Duration>) -> (f64, f64) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (ms(v[v.len() / 2]), ms(v[(v.len() * 9) / 10]))
}

/// One raw /api/search with the pager's page-1 options; returns (wall time, Zoekt's Duration,
/// files Zoekt counted, shards scanned).
async fn raw(url: &str, q: &str, effort: &Effort, max_docs: u32) -> (Duration, Duration, u64, u64) {
    let mut opts = json!({
        "MaxDocDisplayCount": max_docs,
        "ShardMaxMatchCount": effort.shard_max_match_count,
        "MaxWallTime": effort.max_wall_time_ms * 1_000_000,
    });
    if effort.total_max_match_count > 0 {
        opts["TotalMaxMatchCount"] = json!(effort.total_max_match_count);
    }
    let started = Instant::now();
    let v: Value = reqwest::Client::new()
        .post(format!("{url}/api/search"))
        .json(&json!({"Q": q, "Opts": opts}))
        .send()
        .await
        .expect("raw Zoekt")
        .json()
        .await
        .expect("raw Zoekt JSON");
    let wall = started.elapsed();
    let r = &v["Result"];
    let n = |k: &str| r[k].as_u64().unwrap_or(0);
    (
        wall,
        Duration::from_nanos(n("Duration")),
        n("FileCount"),
        n("ShardsScanned"),
    )
}

/// The allocator the server binary runs with (`src/main.rs`), so these numbers are the ones
/// the server meets.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let Ok(url) = std::env::var("ZOEKT_PAGER_LIVE_BIG_URL") else {
        eprintln!("caps bench: set ZOEKT_PAGER_LIVE_BIG_URL (see the top of benches/caps.rs)");
        std::process::exit(2);
    };
    let before = Effort {
        total_max_match_count: 100_000,
        ..Effort::default()
    };
    let after = Effort::default();
    println!(
        "page 1 of `search`, limit {LIMIT}, {RUNS} runs each (median / p90 ms); raw = the same request straight to Zoekt"
    );
    println!(
        "| query | caps | pager page 1 | raw Zoekt wall | Zoekt Duration | FileCount (distinct) | shards scanned (distinct) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (label, q) in [
        ("broad `x`", "x"),
        ("narrow `genSym123\\b`", r"genSym123\b"),
    ] {
        for (caps, effort) in [
            ("before: shard 10,000 + total 100,000", before),
            ("after: shard 10,000, no total", after),
        ] {
            let cfg = PagerConfig {
                effort,
                ..PagerConfig::default()
            };
            // Over JSON: the raw calls it is set beside are JSON's.
            let opts = ClientOptions {
                zoekt_transport: zoekt_pager::zoekt::Wire::Json,
                ..ClientOptions::default()
            };
            let client = ZoektClient::new(&url, opts).expect("client");
            let pager = Pager::new(client, cfg);
            let args = SearchArgs {
                query: q.into(),
                limit: Some(LIMIT),
                ..Default::default()
            };
            // Warm Zoekt's and the OS's caches once.
            pager.page::<Search>(&args).await.expect("page");
            let (mut pages, mut walls, mut zoekts) = (Vec::new(), Vec::new(), Vec::new());
            let (mut counts, mut scanned) = (Vec::new(), Vec::new());
            for _ in 0..RUNS {
                let started = Instant::now();
                pager.page::<Search>(&args).await.expect("page");
                pages.push(started.elapsed());
                // The first window: n = limit + 1 items, plus room for the edge.
                let n = LIMIT + 1;
                let (wall, zoekt, files, shards) = raw(&url, q, &effort, n + (n / 8).max(3)).await;
                walls.push(wall);
                zoekts.push(zoekt);
                counts.push(files);
                scanned.push(shards);
            }
            counts.sort_unstable();
            counts.dedup();
            scanned.sort_unstable();
            scanned.dedup();
            let (p50, p90) = median_and_p90(pages);
            let (w50, w90) = median_and_p90(walls);
            let (z50, z90) = median_and_p90(zoekts);
            println!(
                "| {label} | {caps} | {p50:.1} / {p90:.1} | {w50:.1} / {w90:.1} | {z50:.1} / {z90:.1} | {counts:?} | {scanned:?} |"
            );
        }
    }
}
