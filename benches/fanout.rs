//! What a fan-out costs: one index over three real zoekt-webservers against one webserver
//! holding it all, in one run, through the library (no MCP, so the numbers are the engine's).
//!
//! - windows: for each query and window size, the fan-out's search (all three at once,
//!   merged) against the slowest backend's raw time for the same window (each backend asked
//!   alone, one after the other, for what the fan-out asks it), and the single webserver's;
//!   p50 and p90 over the runs;
//! - walks: the same walks (limit 30, window cache off, so every page asks Zoekt) over 1 and
//!   3 backends: pages, p50 page latency, walk time.
//!
//! Needs `ZOEKT_PAGER_LIVE_URL` and `ZOEKT_PAGER_LIVE_SPLIT_URLS` (and the tie index's pair),
//! as `scripts/test.sh` starts them: `scripts/test.sh --run cargo bench --bench fanout`. It
//! prints markdown tables and writes them to `docs/bench/fanout.md`. Without `--bench` (as
//! `cargo test --all-targets` runs it) it only does a smoke run and writes nothing.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use zoekt_pager::backend::{Backend, FileSearch};
use zoekt_pager::tools::PagedTool;
use zoekt_pager::tools::search::{Search, SearchArgs};
use zoekt_pager::tools::search_files::{SearchFiles, SearchFilesArgs};
use zoekt_pager::tools::search_symbols::{SearchSymbols, SearchSymbolsArgs};
use zoekt_pager::zoekt::{ClientOptions, ZoektClient};
use zoekt_pager::{Effort, FanOut, Pager, PagerConfig};

fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is unset: run `scripts/test.sh --run cargo bench --bench fanout`")
    })
}

fn client(url: &str) -> ZoektClient {
    ZoektClient::new(url, ClientOptions::default()).expect("client")
}

fn fan(urls: &str) -> FanOut<ZoektClient> {
    FanOut::new(
        urls.split(',')
            .map(|u| (u.to_string(), client(u)))
            .collect(),
        false,
    )
    .expect("fan-out")
}

fn quantile(samples: &mut [f64], q: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[((samples.len() - 1) as f64 * q).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The search the engine sends for a window of `files` files of `query`.
fn window(query: &str, files: u32) -> FileSearch {
    FileSearch {
        query: query.to_string(),
        effort: Effort::default(),
        max_files: files,
        context_lines: 0,
        whole_content: false,
    }
}

async fn timed<B: Backend>(b: &B, s: &FileSearch) -> f64 {
    let t = Instant::now();
    b.search(s).await.expect("search");
    ms(t.elapsed())
}

struct Row {
    corpus: &'static str,
    query: &'static str,
    files: u32,
    fan: (f64, f64),
    slowest: (f64, f64),
    over: f64,
    single: f64,
}

async fn windows(corpus: &'static str, one: &str, three: &str, runs: usize) -> Vec<Row> {
    let single = client(one);
    let fanout = fan(three);
    let queries: &[&str] = if corpus == "fixtures" {
        &["sym:pagerItem", "e", "f:."]
    } else {
        &["tieLineProbe", "repository or ieHelper", "f:."]
    };
    let mut rows = Vec::new();
    for &query in queries {
        for files in [8u32, 34, 101] {
            let s = window(query, files);
            // What the fan-out asks each backend (docs: engine/fanout.rs).
            let each = window(query, (files + 1).max(4));
            // Once untimed: connections open, pages in memory.
            timed(&fanout, &s).await;
            timed(&single, &s).await;
            let (mut f, mut slow, mut diff, mut one_t) = (vec![], vec![], vec![], vec![]);
            for _ in 0..runs {
                let fan_ms = timed(&fanout, &s).await;
                let mut worst: f64 = 0.0;
                for m in fanout.members() {
                    worst = worst.max(timed(m.backend.as_ref(), &each).await);
                }
                one_t.push(timed(&single, &s).await);
                f.push(fan_ms);
                slow.push(worst);
                diff.push(fan_ms - worst);
            }
            rows.push(Row {
                corpus,
                query,
                files,
                fan: (quantile(&mut f, 0.5), quantile(&mut f, 0.9)),
                slowest: (quantile(&mut slow, 0.5), quantile(&mut slow, 0.9)),
                over: quantile(&mut diff, 0.5),
                single: quantile(&mut one_t, 0.5),
            });
        }
    }
    rows
}

/// Walks `T` to its end at limit 30 without the window cache: (pages, p50 page ms, walk ms).
async fn walk<T: PagedTool, B: Backend>(
    pager: &Pager<B>,
    args: impl Fn(Option<String>) -> T::Args,
) -> (usize, f64, f64) {
    let started = Instant::now();
    let mut cursor = None;
    let mut times = Vec::new();
    loop {
        let t = Instant::now();
        let page = pager.page::<T>(&args(cursor)).await.expect("page");
        times.push(ms(t.elapsed()));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    let pages = times.len();
    (pages, quantile(&mut times, 0.5), ms(started.elapsed()))
}

async fn walks(one: &str, three: &str) -> String {
    let mut out = String::from(
        "| walk (limit 30, cache off) | backends | pages | p50 page ms | walk ms |\n|---|---|---|---|---|\n",
    );
    for (label, urls) in [("1", one.to_string()), ("3", three.to_string())] {
        let cfg = PagerConfig::default();
        let pager: Pager<FanOut<ZoektClient>> = Pager::new(fan(&urls), cfg);
        let rows = [
            (
                "search_symbols .",
                walk::<SearchSymbols, _>(&pager, |cursor| SearchSymbolsArgs {
                    query: ".".into(),
                    limit: Some(30),
                    cursor,
                    ..Default::default()
                })
                .await,
            ),
            (
                "search e",
                walk::<Search, _>(&pager, |cursor| SearchArgs {
                    query: "e".into(),
                    limit: Some(30),
                    cursor,
                    ..Default::default()
                })
                .await,
            ),
            (
                "search_files .",
                walk::<SearchFiles, _>(&pager, |cursor| SearchFilesArgs {
                    query: ".".into(),
                    limit: Some(30),
                    cursor,
                    ..Default::default()
                })
                .await,
            ),
        ];
        for (name, (pages, p50, total)) in rows {
            let _ = writeln!(
                out,
                "| {name} | {label} | {pages} | {p50:.2} | {total:.1} |"
            );
        }
    }
    out
}

#[tokio::main]
async fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let runs = if full { 41 } else { 2 };
    let mut rows = windows(
        "fixtures",
        &var("ZOEKT_PAGER_LIVE_URL"),
        &var("ZOEKT_PAGER_LIVE_SPLIT_URLS"),
        runs,
    )
    .await;
    if full {
        rows.extend(
            windows(
                "ties",
                &var("ZOEKT_PAGER_LIVE_TIES_URL"),
                &var("ZOEKT_PAGER_LIVE_SPLIT_TIES_URLS"),
                runs,
            )
            .await,
        );
    }
    let mut out = format!(
        "# Fan-out over three webservers\n\n`scripts/test.sh --run cargo bench --bench fanout`, \
         one run, {runs} runs a window. `fan-out`: the merged search over 3 backends; \
         `slowest raw`: the slowest backend asked alone for what the fan-out asks it; \
         `over slowest`: p50 of (fan-out - slowest raw) run by run; `one webserver`: the same \
         window from the webserver holding the whole index.\n\n\
         | corpus | query | window | fan-out p50 / p90 ms | slowest raw p50 / p90 ms | over slowest p50 ms | one webserver p50 ms |\n\
         |---|---|---|---|---|---|---|\n"
    );
    for r in &rows {
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {:.2} / {:.2} | {:.2} / {:.2} | {:+.2} | {:.2} |",
            r.corpus,
            r.query,
            r.files,
            r.fan.0,
            r.fan.1,
            r.slowest.0,
            r.slowest.1,
            r.over,
            r.single
        );
    }
    out.push('\n');
    out.push_str(
        &walks(
            &var("ZOEKT_PAGER_LIVE_URL"),
            &var("ZOEKT_PAGER_LIVE_SPLIT_URLS"),
        )
        .await,
    );
    println!("{out}");
    if full {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/bench/fanout.md");
        std::fs::write(&path, out).expect("write docs/bench/fanout.md");
        eprintln!("wrote {}", path.display());
    }
}
