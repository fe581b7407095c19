//! What a fan-out costs: one index over three real zoekt-webservers against one webserver
//! holding it all, in one run, through the library (no MCP, so the numbers are the engine's).
//!
//! - windows: for each query and window size, the fan-out's search (all three at once,
//!   merged) against the slowest backend's raw time for the same window, taken two ways:
//!   each backend asked alone, one after the other, through the client (decoded); and the
//!   three asked at once over plain HTTP, the body read but not decoded (what the fan-out
//!   waits for at the least, under the same contention for the CPUs); and the single
//!   webserver's; p50 and p90 over the runs; and a whole first page whose first window is
//!   that one, against the three asked together for every window the page asked. The
//!   webserver holding the whole index is timed in a phase of its own first, then a rest:
//!   the fan-out's calls never pay for the work it does after its answers, which a fan-out
//!   deployment, with no such fourth webserver beside its three, never meets. Each pair
//!   compared run by run swaps its order every run;
//! - the worst p50 over the slowest webserver's raw time, in a line of its own, against the
//!   target of 2 ms (per window for a page that asks several);
//! - the same windows again with the pager kept off the webservers' CPU (all of them on one
//!   CPU, this process on the others, for that table only; `--bench` runs only): the
//!   pager's time after the slowest answer, its decoding taking no webserver's CPU time;
//! - walks: the same walks (limit 30, window cache off, so every page asks Zoekt) over 1 and
//!   3 backends: pages, p50 page latency, walk time;
//! - load: 32 clients at once, each walking those walks, over 1 and 3 backends: pages a
//!   second, p50 and p99 page latency.
//!
//! Needs `ZOEKT_PAGER_LIVE_URL` and `ZOEKT_PAGER_LIVE_SPLIT_URLS` (and the tie index's pair,
//! and the webservers' `ZOEKT_PAGER_LIVE_WEBSERVER_PIDS`),
//! as `scripts/test.sh` starts them: `scripts/test.sh --run cargo bench --bench fanout`. It
//! prints markdown tables and writes them to `docs/bench/fanout.md` (over JSON) or
//! `docs/bench/fanout-grpc.md` (with `ZOEKT_PAGER_ZOEKT_TRANSPORT=grpc`). Without `--bench` (as
//! `cargo test --all-targets` runs it) it only does a smoke run and writes nothing.

use std::time::{Duration, Instant};

#[path = "../common/raw.rs"]
mod raw;
#[path = "../common/recording.rs"]
mod recording;

mod cpu;
mod report;
mod walks;

use std::sync::Arc;

use raw::Raw;
use recording::Recording;
use zoekt_pager::backend::{Backend, FileSearch, Shape};
use zoekt_pager::tools::files_with_matches::{FilesWithMatches, FilesWithMatchesArgs};
use zoekt_pager::zoekt::{ClientOptions, Wire, ZoektClient};
use zoekt_pager::{Effort, FanOut, Pager, PagerConfig};

use cpu::CpuOfItsOwn;
use report::{PageRow, Row, verdict};
use walks::{uncached, walks};

fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is unset: run `scripts/test.sh --run cargo bench --bench fanout`")
    })
}

/// The transport the pager and the raw calls use: `ZOEKT_PAGER_ZOEKT_TRANSPORT` (`grpc` or
/// `json`, the default).
fn wire() -> Wire {
    match std::env::var("ZOEKT_PAGER_ZOEKT_TRANSPORT").as_deref() {
        Ok("grpc") => Wire::Grpc,
        _ => Wire::Json,
    }
}

fn client(url: &str) -> ZoektClient {
    let opts = ClientOptions {
        zoekt_transport: wire(),
        ..ClientOptions::default()
    };
    ZoektClient::new(url, opts).expect("client")
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

/// An uncached pager over `urls` whose backends keep what they are asked.
fn recorded(urls: &str) -> Pager<FanOut<Recording>> {
    let members = urls
        .split(',')
        .map(|u| {
            let backend = Recording::new(client(u));
            (u.to_string(), backend)
        })
        .collect();
    Pager::new(
        FanOut::new(members, false).expect("fan-out"),
        windows_only(),
    )
}

/// The engine's settings without suggestions: a first page that takes a census asks for
/// thousands of files, and this bench times the windows a walk's pages ask for.
fn windows_only() -> PagerConfig {
    PagerConfig {
        suggest_filters: false,
        ..PagerConfig::default()
    }
}

/// The windows the backends of `pager` were asked since the last call: the same ones for
/// each, or the page did not ask every backend (one left out would flatter the fan-out).
fn windows_asked(pager: &Pager<FanOut<Recording>>) -> Vec<FileSearch> {
    let mut each = pager.backend().members().iter().map(|m| m.backend.take());
    let first = each.next().expect("a backend");
    for other in each {
        assert_eq!(other, first, "every backend asked the same windows");
    }
    first
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
        shape: Shape::Lines,
    }
}

async fn timed<B: Backend>(b: &B, s: &FileSearch) -> f64 {
    let t = Instant::now();
    b.search(s).await.expect("search");
    ms(t.elapsed())
}

/// The three backends asked at once for `s` over the bench's transport, each answer received
/// whole but not decoded: the slowest one's time (ms).
async fn raw_together(raw: &Arc<Raw>, urls: &[String], s: &FileSearch) -> f64 {
    let tasks: Vec<_> = urls
        .iter()
        .map(|u| {
            let (raw, url, s) = (Arc::clone(raw), u.clone(), s.clone());
            tokio::spawn(async move { raw.search(&url, &s).await.0 })
        })
        .collect();
    let mut worst: f64 = 0.0;
    for t in tasks {
        worst = worst.max(t.await.expect("task"));
    }
    worst
}

/// [`raw_together`] for each of `windows` in turn (a page asks its windows one after
/// another): the sum of the slowest one's times (ms).
async fn raw_windows(raw: &Arc<Raw>, urls: &[String], windows: &[FileSearch]) -> f64 {
    let mut sum = 0.0;
    for w in windows {
        sum += raw_together(raw, urls, w).await;
    }
    sum
}

/// A rest after a phase of calls, so that the webservers' work after their answers (Go's
/// collector) is done before the next phase is timed.
async fn settle() {
    tokio::time::sleep(Duration::from_millis(200)).await;
}

async fn page_ms<B: Backend>(pager: &Pager<B>, args: &FilesWithMatchesArgs) -> f64 {
    let t = Instant::now();
    pager.page::<FilesWithMatches>(args).await.expect("page");
    ms(t.elapsed())
}

/// The `files_with_matches` limit whose first page asks for a window of `files` files (the
/// engine's first window: n + max(n / 8, 3) files for n = limit + 1 items).
fn limit_for_window(files: u32) -> u32 {
    (1..files)
        .find(|limit| {
            let n = limit + 1;
            n + (n / 8).max(3) == files
        })
        .expect("a limit for the window")
}

/// The window table's rows for one corpus. `alone`: also time each backend asked alone (left
/// out when the webservers share one CPU: one of them alone there has it to itself, which
/// says nothing of the fan-out).
async fn windows(
    corpus: &'static str,
    one: &str,
    three: &str,
    runs: usize,
    alone: bool,
) -> Vec<Row> {
    let single = client(one);
    let fanout = fan(three);
    let pager = recorded(three);
    let pager_one = uncached(one);
    let urls: Vec<String> = three.split(',').map(String::from).collect();
    let http = Arc::new(Raw::new(wire(), &urls));
    let queries: &[&str] = if corpus == "fixtures" {
        &["sym:pagerItem", "e", "f:."]
    } else {
        &["tieLineProbe", "repository or ieHelper", "f:."]
    };
    let mut rows = Vec::new();
    for &query in queries {
        for files in [8u32, 34, 101] {
            let s = window(query, files);
            // What the fan-out asks each backend (`asked_of` in src/fanout/merge.rs).
            let each = window(query, (files + 1).max(4));
            let page_args = FilesWithMatchesArgs {
                query: query.into(),
                limit: Some(limit_for_window(files)),
                ..Default::default()
            };
            // Once untimed: connections open, pages in memory, the page's windows known.
            page_ms(&pager, &page_args).await;
            let page_windows = windows_asked(&pager);
            // `limit_for_window` copies the engine's first window: it must still be this one.
            assert_eq!(page_windows[0], each, "the page's first window");
            page_ms(&pager_one, &page_args).await;
            timed(&fanout, &s).await;
            timed(&single, &s).await;
            raw_together(&http, &urls, &each).await;
            let (mut f, mut slow, mut diff, mut one_t) = (vec![], vec![], vec![], vec![]);
            let (mut tog, mut diff_tog) = (vec![], vec![]);
            let (mut pages, mut diff_page, mut pages_one) = (vec![], vec![], vec![]);
            // The webserver holding the whole index first, every run of it, then a rest: it
            // goes on working after it answers (Go's collector), on the CPUs the three share,
            // and a fan-out deployment has no such fourth webserver beside its three.
            for _ in 0..runs {
                one_t.push(timed(&single, &s).await);
                pages_one.push(page_ms(&pager_one, &page_args).await);
            }
            settle().await;
            for run in 0..runs {
                // Each pair compared run by run (fan-out and the three asked together; page
                // and the three asked again) swaps its order every run, so neither side is
                // always the one measured right after the other's calls.
                let (fan_ms, together, page_ms, together_again);
                if run % 2 == 0 {
                    fan_ms = timed(&fanout, &s).await;
                    together = raw_together(&http, &urls, &each).await;
                    page_ms = self::page_ms(&pager, &page_args).await;
                    together_again = raw_windows(&http, &urls, &page_windows).await;
                } else {
                    together = raw_together(&http, &urls, &each).await;
                    fan_ms = timed(&fanout, &s).await;
                    together_again = raw_windows(&http, &urls, &page_windows).await;
                    page_ms = self::page_ms(&pager, &page_args).await;
                }
                f.push(fan_ms);
                tog.push(together);
                diff_tog.push(fan_ms - together);
                pages.push(page_ms);
                diff_page.push(page_ms - together_again);
                assert_eq!(
                    windows_asked(&pager),
                    page_windows,
                    "the page asked other windows"
                );
            }
            if alone {
                // Each backend alone, against a fan-out right before it: run by run too.
                for _ in 0..runs {
                    let fan_ms = timed(&fanout, &s).await;
                    let mut worst: f64 = 0.0;
                    for m in fanout.members() {
                        worst = worst.max(timed(m.backend.as_ref(), &each).await);
                    }
                    slow.push(worst);
                    diff.push(fan_ms - worst);
                }
            }
            settle().await;
            rows.push(Row {
                corpus,
                query,
                files,
                fan: (quantile(&mut f, 0.5), quantile(&mut f, 0.9)),
                alone: alone.then(|| {
                    (
                        (quantile(&mut slow, 0.5), quantile(&mut slow, 0.9)),
                        quantile(&mut diff, 0.5),
                    )
                }),
                together: (quantile(&mut tog, 0.5), quantile(&mut tog, 0.9)),
                over_together: quantile(&mut diff_tog, 0.5),
                page: PageRow {
                    p50: quantile(&mut pages, 0.5),
                    over: quantile(&mut diff_page, 0.5),
                    on_one: quantile(&mut pages_one, 0.5),
                    windows: page_windows.len(),
                },
                single: quantile(&mut one_t, 0.5),
            });
        }
    }
    rows
}

/// The allocator the server binary runs with (`src/main.rs`), so these numbers are the ones
/// the server meets: the fan-out decodes tens of thousands of small strings a call, and with
/// the system allocator instead each call took about a tenth more CPU time.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[tokio::main]
async fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let runs = if full { 42 } else { 2 };
    let mut corpora = vec![(
        "fixtures",
        var("ZOEKT_PAGER_LIVE_URL"),
        var("ZOEKT_PAGER_LIVE_SPLIT_URLS"),
    )];
    if full {
        corpora.push((
            "ties",
            var("ZOEKT_PAGER_LIVE_TIES_URL"),
            var("ZOEKT_PAGER_LIVE_SPLIT_TIES_URLS"),
        ));
    }
    let mut shared = Vec::new();
    for (corpus, one, three) in &corpora {
        shared.extend(windows(corpus, one, three, runs, true).await);
    }
    let mut out = format!(
        "# Fan-out over three webservers\n\n`scripts/test.sh --run cargo bench --bench fanout`, \
         over Zoekt's {:?} API (`ZOEKT_PAGER_ZOEKT_TRANSPORT`: the pager's calls and the raw \
         ones alike), one run, {runs} runs a window. `fan-out`: the merged search over 3 backends; \
         `slowest alone`: the slowest backend asked alone (through the client, decoded) for \
         what the fan-out asks it; `slowest together`: the three asked at once, raw \
         (answers received but not decoded), the slowest one's time (the same contention for \
         the CPUs as the fan-out meets), asked right before or right after the fan-out, in turn \
         run by run; `over`: p50 of (fan-out - that) run by run (`over alone`: against a \
         fan-out asked right before the three alone); \
         `page`: a whole first page of `files_with_matches` (cache off) whose first window \
         is this one; a page whose files tie at the window's edge asks bigger windows until \
         it is past them (with one webserver as with three), so `page windows` says how many \
         it asked; its p50 over the three asked together for those same windows one after \
         another (before and after the page in turn), run by run; and the same page from \
         the webserver holding the whole index; `one webserver`: the same window from the \
         webserver holding the whole index. That webserver is timed first, every run of \
         a window, and then left to rest for 200 ms, before the three are: it goes on working \
         after it answers (Go's collector), on the CPUs the three share, and a fan-out \
         deployment has no such fourth webserver beside its three.\n\n\
         ## Pager and webservers on the same CPUs\n\n\
         | corpus | query | window | fan-out p50 / p90 ms | slowest alone p50 / p90 ms | over alone p50 ms | slowest together p50 / p90 ms | over together p50 ms | page windows | page p50 ms | page over together p50 ms | page on one webserver p50 ms | one webserver p50 ms |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        wire()
    );
    for r in &shared {
        assert!(r.alone.is_some(), "measured alone");
        out.push_str(&r.table_line());
    }
    out.push('\n');
    out.push_str(&verdict(&shared));
    // The same windows with the pager kept off the webservers' CPU (a full run only: a smoke
    // run is one of the tests, and the webservers it would pin are theirs too).
    let pinned = full
        .then(|| {
            let pids: Vec<u32> = var("ZOEKT_PAGER_LIVE_WEBSERVER_PIDS")
                .split(',')
                .map(|p| p.parse().expect("a process id"))
                .collect();
            CpuOfItsOwn::pin(&pids)
        })
        .flatten();
    if let Some(pinned) = pinned {
        let mut own = Vec::new();
        for (corpus, one, three) in &corpora {
            own.extend(windows(corpus, one, three, runs, false).await);
        }
        drop(pinned);
        out.push_str(
            "\n## The pager on a CPU of its own\n\nEvery webserver on one CPU, the pager (this \
             process) on the others, so its decoding never takes a webserver's CPU time. The \
             three webservers share their CPU, as the fan-out and the three asked together both \
             meet, so their answers come in one after another and the pager decodes the first \
             ones while it waits for the last: what is over is its time after the slowest \
             answer.\n\n\
             | corpus | query | window | fan-out p50 / p90 ms | slowest together p50 / p90 ms | over together p50 ms | page windows | page p50 ms | page over together p50 ms | page on one webserver p50 ms | one webserver p50 ms |\n\
             |---|---|---|---|---|---|---|---|---|---|---|\n",
        );
        for r in &own {
            out.push_str(&r.table_line());
        }
        out.push('\n');
        out.push_str(&verdict(&own));
    }
    out.push('\n');
    out.push_str(
        &walks(
            &var("ZOEKT_PAGER_LIVE_URL"),
            &var("ZOEKT_PAGER_LIVE_SPLIT_URLS"),
            if full { 32 } else { 2 },
        )
        .await,
    );
    println!("{out}");
    if full {
        // One file per transport: each is its own measurement.
        let name = match wire() {
            Wire::Json => "docs/bench/fanout.md",
            Wire::Grpc => "docs/bench/fanout-grpc.md",
        };
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
        std::fs::write(&path, out).unwrap_or_else(|e| panic!("write {name}: {e}"));
        eprintln!("wrote {}", path.display());
    }
}
