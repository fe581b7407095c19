//! The walk table and the load table: the same walks over one backend and over three, one
//! walker at a time and many at once, every page asking Zoekt (window cache off).

use std::fmt::Write as _;
use std::time::Instant;

use zoekt_pager::backend::Backend;
use zoekt_pager::tools::PagedTool;
use zoekt_pager::tools::search::{Search, SearchArgs};
use zoekt_pager::tools::search_files::{SearchFiles, SearchFilesArgs};
use zoekt_pager::tools::search_symbols::{SearchSymbols, SearchSymbolsArgs};
use zoekt_pager::zoekt::ZoektClient;
use zoekt_pager::{FanOut, Pager};

use crate::{fan, ms, quantile, windows_only};

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

/// The three walks of the walk table, in turn: (name, (pages, p50 page ms, walk ms)) each.
async fn three_walks(pager: &Pager<FanOut<ZoektClient>>) -> Vec<(&'static str, (usize, f64, f64))> {
    vec![
        (
            "search_symbols .",
            walk::<SearchSymbols, _>(pager, |cursor| SearchSymbolsArgs {
                query: ".".into(),
                limit: Some(30),
                cursor,
                ..Default::default()
            })
            .await,
        ),
        (
            "search e",
            walk::<Search, _>(pager, |cursor| SearchArgs {
                query: "e".into(),
                limit: Some(30),
                cursor,
                ..Default::default()
            })
            .await,
        ),
        (
            "search_files .",
            walk::<SearchFiles, _>(pager, |cursor| SearchFilesArgs {
                query: ".".into(),
                limit: Some(30),
                cursor,
                ..Default::default()
            })
            .await,
        ),
    ]
}

/// A pager without the window cache (every page asks Zoekt), over `urls`.
pub(crate) fn uncached(urls: &str) -> Pager<FanOut<ZoektClient>> {
    Pager::new(fan(urls), windows_only())
}

/// `clients` walkers at once over one pager, each walking the three walks: (pages a second,
/// p50 page ms, p99 page ms, wall ms). Page latency is a walk's time over its pages.
async fn load(urls: &str, clients: usize) -> (f64, f64, f64, f64) {
    let pager = std::sync::Arc::new(uncached(urls));
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let pager = std::sync::Arc::clone(&pager);
            tokio::spawn(async move { three_walks(&pager).await })
        })
        .collect();
    let (mut pages, mut per_page) = (0usize, Vec::new());
    for t in tasks {
        for (_, (n, p50, _)) in t.await.expect("walker") {
            pages += n;
            per_page.extend(std::iter::repeat_n(p50, n));
        }
    }
    let wall = ms(started.elapsed());
    (
        pages as f64 / (wall / 1000.0),
        quantile(&mut per_page, 0.5),
        quantile(&mut per_page, 0.99),
        wall,
    )
}

pub(crate) async fn walks(one: &str, three: &str, clients: usize) -> String {
    let mut out = String::from(
        "| walk (limit 30, cache off) | backends | pages | p50 page ms | walk ms |\n|---|---|---|---|---|\n",
    );
    for (label, urls) in [("1", one.to_string()), ("3", three.to_string())] {
        let pager = uncached(&urls);
        let rows = three_walks(&pager).await;
        for (name, (pages, p50, total)) in rows {
            let _ = writeln!(
                out,
                "| {name} | {label} | {pages} | {p50:.2} | {total:.1} |"
            );
        }
    }
    let _ = write!(
        out,
        "\n| load: {clients} clients at once, each walking the three walks | backends | pages | pages / s | p50 page ms | p99 page ms | wall ms |\n|---|---|---|---|---|---|---|\n"
    );
    for (label, urls) in [("1", one), ("3", three)] {
        let (rate, p50, p99, wall) = load(urls, clients).await;
        let pages = (rate * wall / 1000.0).round();
        let _ = writeln!(
            out,
            "| limit 30, cache off | {label} | {pages} | {rate:.0} | {p50:.2} | {p99:.2} | {wall:.0} |"
        );
    }
    out
}
