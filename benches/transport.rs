//! Zoekt's two APIs side by side on the same windows: `/api/search` (JSON) and gRPC
//! `Search`, through the client and adapter the pager uses (`Backend::search`, decoded into
//! the engine's files), against the generated 12,000-file corpus (`ZOEKT_PAGER_LIVE_BIG_URL`).
//!
//! For each window: p50 and p90 of the call, the pager's CPU per answer (this process's user
//! and system time over the rounds, divided by them: the decoding, as the webserver runs in
//! its own process) and Zoekt's own `Duration` for the same search, from its answer. JSON's
//! raw call (the body read, not decoded) is timed in the same run. Rounds alternate the
//! transports so both meet the same load.
//!
//! `scripts/test.sh --run cargo bench --bench transport` prints a markdown table. Without
//! `--bench` (as `cargo test --all-targets` runs it) it makes one round and checks that both
//! transports answered alike.

use std::time::{Duration, Instant};

#[path = "common/raw.rs"]
mod raw;
#[path = "common/recording.rs"]
mod recording;

use raw::{raw_grpc, raw_json};
use recording::Recording;
use zoekt_pager::backend::{Backend, FileSearch, RankedFiles, Shape};
use zoekt_pager::tools::files_with_matches::{FilesWithMatches, FilesWithMatchesArgs};
use zoekt_pager::zoekt::{ClientOptions, Wire, ZoektClient};
use zoekt_pager::{Effort, Pager, PagerConfig};

/// CPU time this process has used (user + system), from /proc/self/stat in clock ticks.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or_default();
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime are fields 14 and 15 of the line: 12 and 13 after the ')'.
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn client(url: &str, wire: Wire) -> ZoektClient {
    let opts = ClientOptions {
        zoekt_transport: wire,
        max_answer_bytes: 256 << 20,
        ..ClientOptions::default()
    };
    ZoektClient::new(url, opts).expect("client")
}

fn files_and_lines(r: &RankedFiles) -> (usize, usize) {
    (
        r.files.len(),
        r.files.iter().map(|f| f.lines.len()).sum::<usize>(),
    )
}

/// Page 1 of `files_with_matches QUERY` (limit 30) over `wire`, suggestions on or off: the
/// page's p50 and the p50 of the raw calls of the same transport for the windows it asked
/// (asked one after another, as the page asks them), ms.
async fn page_against_raw(
    url: &str,
    wire: Wire,
    query: &str,
    suggest: bool,
    rounds: usize,
    http: &reqwest::Client,
    channel: &tonic::transport::Channel,
) -> (f64, f64, Vec<u32>) {
    let cfg = PagerConfig {
        suggest_filters: suggest,
        ..PagerConfig::default()
    };
    let pager = Pager::new(Recording::new(client(url, wire)), cfg);
    let args = FilesWithMatchesArgs {
        query: query.into(),
        limit: Some(30),
        ..Default::default()
    };
    // Once untimed: connections open, the page's windows known.
    pager.page::<FilesWithMatches>(&args).await.expect("page");
    let windows = pager.backend().take();
    let (mut page, mut raw) = (vec![], vec![]);
    for _ in 0..rounds {
        let started = Instant::now();
        pager.page::<FilesWithMatches>(&args).await.expect("page");
        page.push(started.elapsed().as_secs_f64() * 1e3);
        assert_eq!(
            pager.backend().take(),
            windows,
            "the same windows every time"
        );
        let mut sum = 0.0;
        for w in &windows {
            sum += match wire {
                Wire::Json => raw_json(http, url, w).await.0,
                Wire::Grpc => raw_grpc(channel, w).await.0,
            };
        }
        raw.push(sum);
    }
    page.sort_by(f64::total_cmp);
    raw.sort_by(f64::total_cmp);
    (
        pct(&page, 0.5),
        pct(&raw, 0.5),
        windows.iter().map(|w| w.max_files).collect(),
    )
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bench = args.iter().any(|a| a == "--bench");
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    // `--url URL --query Q`: another Zoekt (a real corpus) and a query broad there.
    let url = arg("--url").unwrap_or_else(|| {
        std::env::var("ZOEKT_PAGER_LIVE_BIG_URL").unwrap_or_else(|_| {
            panic!("ZOEKT_PAGER_LIVE_BIG_URL is unset: run `scripts/test.sh --run cargo bench --bench transport`")
        })
    });
    let query = arg("--query").unwrap_or_else(|| "genSym".to_string());
    let rounds = if bench { 21 } else { 1 };
    let json = client(&url, Wire::Json);
    let grpc = client(&url, Wire::Grpc);
    let raw = reqwest::Client::new();
    let channel = tonic::transport::Endpoint::from_shared(url.clone())
        .expect("a URL")
        .connect_lazy();
    let query = query.as_str();
    // (what, context lines, files)
    let cases = [
        ("page 1 window", 0, 34),
        ("fan-out sized window", 0, 1000),
        ("search page of 100 items, 10 context lines", 10, 113),
        ("census", 0, 5000),
    ];
    println!("Zoekt at {url}, query `{query}`, {rounds} rounds\n");
    println!(
        "| window | files, lines | JSON raw p50 / bytes | gRPC raw p50 / bytes | JSON p50 / p90 | gRPC p50 / p90 | JSON CPU | gRPC CPU | Zoekt's Duration p50 (JSON / gRPC) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (what, context_lines, files) in cases {
        let search = FileSearch {
            query: query.into(),
            effort: Effort::default(),
            max_files: files,
            context_lines,
            shape: Shape::Lines,
        };
        let (mut t_raw, mut t_raw_grpc, mut t_json, mut t_grpc) = (vec![], vec![], vec![], vec![]);
        let (mut z_json, mut z_grpc) = (vec![], vec![]);
        let (mut cpu_json, mut cpu_grpc) = (Duration::ZERO, Duration::ZERO);
        let (mut bytes_json, mut bytes_grpc) = (0, 0);
        let mut shape = None;
        for round in 0..rounds {
            let (took, n) = raw_json(&raw, &url, &search).await;
            t_raw.push(took);
            bytes_json = n;
            let (took, n) = raw_grpc(&channel, &search).await;
            t_raw_grpc.push(took);
            bytes_grpc = n;
            let order: [(Wire, &ZoektClient); 2] = if round % 2 == 0 {
                [(Wire::Json, &json), (Wire::Grpc, &grpc)]
            } else {
                [(Wire::Grpc, &grpc), (Wire::Json, &json)]
            };
            for (wire, c) in order {
                let cpu = cpu_time();
                let started = Instant::now();
                let answer = Backend::search(c, &search).await.expect("search");
                let took = started.elapsed().as_secs_f64() * 1e3;
                let used = cpu_time().saturating_sub(cpu);
                let got = files_and_lines(&answer);
                assert_eq!(
                    *shape.get_or_insert(got),
                    got,
                    "{what}: both transports alike"
                );
                let zoekt = answer.stats.duration_ms as f64;
                match wire {
                    Wire::Json => {
                        t_json.push(took);
                        z_json.push(zoekt);
                        cpu_json += used;
                    }
                    Wire::Grpc => {
                        t_grpc.push(took);
                        z_grpc.push(zoekt);
                        cpu_grpc += used;
                    }
                }
                drop(answer);
            }
        }
        for v in [
            &mut t_raw,
            &mut t_raw_grpc,
            &mut t_json,
            &mut t_grpc,
            &mut z_json,
            &mut z_grpc,
        ] {
            v.sort_by(f64::total_cmp);
        }
        let per = |d: Duration| d.as_secs_f64() * 1e3 / rounds as f64;
        let (f, l) = shape.unwrap();
        println!(
            "| {what} ({context_lines} context, {files} files) | {f}, {l} | {:.1} / {:.1} MB | {:.1} / {:.1} MB | {:.1} / {:.1} | {:.1} / {:.1} | {:.1} | {:.1} | {:.0} / {:.0} |",
            pct(&t_raw, 0.5),
            bytes_json as f64 / 1e6,
            pct(&t_raw_grpc, 0.5),
            bytes_grpc as f64 / 1e6,
            pct(&t_json, 0.5),
            pct(&t_json, 0.9),
            pct(&t_grpc, 0.5),
            pct(&t_grpc, 0.9),
            per(cpu_json),
            per(cpu_grpc),
            pct(&z_json, 0.5),
            pct(&z_grpc, 0.5),
        );
    }
    println!(
        "\n| page 1 of files_with_matches `{query}`, limit 30, cache off | windows asked (files) | page p50 ms | raw p50 of its windows, same transport | page - raw |"
    );
    println!("|---|---|---|---|---|");
    for suggest in [false, true] {
        for wire in [Wire::Json, Wire::Grpc] {
            let (page, raw_ms, windows) =
                page_against_raw(&url, wire, query, suggest, rounds, &raw, &channel).await;
            println!(
                "| {:?}, suggestions {} | {windows:?} | {page:.1} | {raw_ms:.1} | {:+.1} |",
                wire,
                if suggest { "on" } else { "off" },
                page - raw_ms
            );
        }
    }
}
