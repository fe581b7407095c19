//! Paging benchmark: what the engine and the MCP layer cost per page, with Zoekt's own time
//! taken out. A synthetic in-memory backend holds 20,000 matching files (3 symbols each, in
//! tied score groups of 8) and answers each request like Zoekt would: sorted, cut at
//! MaxDocDisplayCount. Walks and single pages run with the window cache off, then on.
//! Run: `cargo bench --bench paging`. Prints numbers; asserts nothing
//! about time (timings belong here, not in tests).

use std::time::{Duration, Instant};

use serde_json::json;
use zoekt_pager::backend::{
    Backend, BackendError, FileSearch, Fragment, MatchedLine, RankedFile, RankedFiles, Readiness,
    RepoListing, SearchStats, Symbol,
};
use zoekt_pager::tools::search_symbols::{SearchSymbols, SearchSymbolsArgs};
use zoekt_pager::{CacheConfig, Pager, PagerConfig, PagerServer, WindowCache};

const FILES: usize = 20_000;
const SYMBOLS_PER_FILE: usize = 3;

struct Synthetic {
    files: Vec<RankedFile>,
}

impl Synthetic {
    fn new() -> Self {
        let files = (0..FILES)
            .map(|i| {
                let lines = (0..SYMBOLS_PER_FILE)
                    .map(|k| {
                        let name = format!("benchSym{i}_{k}");
                        MatchedLine {
                            text: format!("func {name}(ctx context.Context) error {{\n"),
                            number: 10 * (k as u32 + 1),
                            fragments: vec![Fragment {
                                byte_offset: 5,
                                symbol: Some(Symbol {
                                    name,
                                    kind: "function".into(),
                                    parent: String::new(),
                                    parent_kind: String::new(),
                                }),
                            }],
                            ..MatchedLine::default()
                        }
                    })
                    .collect();
                RankedFile {
                    path: format!("pkg{:03}/file{i:05}.go", i % 500),
                    repo: format!("repo{:02}", i % 40),
                    language: "Go".into(),
                    // Groups of 8 equal scores, descending: ties at most window edges.
                    score: 1_000_000.0 - (i / 8) as f64,
                    lines,
                    ..RankedFile::default()
                }
            })
            .collect();
        Synthetic { files }
    }
}

impl Backend for Synthetic {
    async fn search(&self, req: &FileSearch) -> Result<RankedFiles, BackendError> {
        let n = match req.max_files as usize {
            0 => self.files.len(),
            n => n.min(self.files.len()),
        };
        Ok(RankedFiles {
            stats: SearchStats {
                file_count: self.files.len() as u64,
                match_count: (self.files.len() * SYMBOLS_PER_FILE) as u64,
                ..SearchStats::default()
            },
            files: self.files[..n].to_vec(),
            cut_at_bytes: false,
        })
    }
    async fn repos(
        &self,
        _query: &str,
        _wall_time: std::time::Duration,
    ) -> Result<RepoListing, BackendError> {
        Ok(RepoListing::default())
    }
    async fn readiness(&self) -> Result<Readiness, BackendError> {
        Ok(Readiness {
            status: 200,
            detail: String::new(),
            loading: false,
        })
    }
}

/// `search_symbols benchSym` at this limit and cursor.
fn args(limit: Option<u32>, cursor: Option<String>) -> SearchSymbolsArgs {
    SearchSymbolsArgs {
        query: "benchSym".into(),
        limit,
        cursor,
        ..Default::default()
    }
}

fn stats(label: &str, mut times: Vec<Duration>) {
    times.sort();
    let pct = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
    let total: Duration = times.iter().sum();
    println!(
        "{label:<52} n={:<4} mean={:>8.2?} p50={:>8.2?} p99={:>8.2?} max={:>8.2?}",
        times.len(),
        total / times.len() as u32,
        pct(0.5),
        pct(0.99),
        times.last().unwrap()
    );
}

/// Peak resident memory of this process (Linux), in MiB.
fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The allocator the server binary runs with (`src/main.rs`), so these numbers are the ones
/// the server meets.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    // `cargo bench` passes --bench; `cargo test --all-targets` runs this binary without it,
    // and then one page is enough to show the bench still builds and runs.
    if !std::env::args().any(|a| a == "--bench") {
        let pager = Pager::new(Synthetic::new(), PagerConfig::default());
        let page = pager
            .page::<SearchSymbols>(&args(None, None))
            .await
            .unwrap();
        assert_eq!(page.count, 30);
        println!("paging bench: smoke run only (use `cargo bench --bench paging` for numbers)");
        return;
    }
    let cfg = PagerConfig::default();
    println!(
        "synthetic corpus: {FILES} files x {SYMBOLS_PER_FILE} symbols; max_offset {}; peak RSS so far {:.1} MiB",
        cfg.max_offset,
        peak_rss_mib()
    );
    for (label, cache) in [
        ("cache off", None),
        ("cache on", WindowCache::new(&CacheConfig::DEFAULT)),
    ] {
        println!("{label}:");
        let pager = Pager::new(Synthetic::new(), cfg.clone()).with_cache(cache);
        engine_walks(&pager).await;
    }
    // The MCP layer on top: parse, page, render text + structuredContent.
    let server = PagerServer::new(Pager::new(Synthetic::new(), cfg));
    let mut times = Vec::new();
    let mut bytes = 0;
    for _ in 0..200 {
        let args = json!({"query": "benchSym", "limit": 30});
        let t = Instant::now();
        let r = server
            .call("search_symbols", args.as_object().cloned())
            .await
            .unwrap();
        times.push(t.elapsed());
        bytes = serde_json::to_vec(&r).unwrap().len();
    }
    stats(
        "  MCP tools/call search_symbols, first page, limit 30",
        times,
    );
    println!("  result size: {bytes} bytes of JSON (text block + structuredContent)");
    // A page the budget ends early: the form writes the page whole, then halves its way to
    // the most items that fit (each try written in both forms).
    let small = PagerConfig {
        max_page_tokens: 2_000,
        max_context_lines: 3,
        max_snippet_length: 200,
        ..PagerConfig::default()
    };
    let server = PagerServer::new(Pager::new(Synthetic::new(), small.clone()));
    let mut times = Vec::new();
    let mut items = 0;
    for _ in 0..200 {
        let args = json!({"query": "benchSym", "limit": 100});
        let t = Instant::now();
        let r = server
            .call("search_symbols", args.as_object().cloned())
            .await
            .unwrap();
        times.push(t.elapsed());
        let text = r.content[0]
            .as_text()
            .map(|t| t.text.clone())
            .unwrap_or_default();
        items = text.lines().filter(|l| l.starts_with("  ")).count();
    }
    stats(
        "  MCP tools/call, limit 100 ended early by a 2,000-token budget",
        times,
    );
    println!("  {items} items fit");
    // The form alone, on pages already cut: one that fits (written once) and one the budget
    // ends early (written once whole, then once per halving).
    for (label, cfg, limit) in [
        ("form::show, limit 30, fits", PagerConfig::default(), 30),
        ("form::show, limit 100, ended early", small.clone(), 100),
    ] {
        let pager = Pager::new(Synthetic::new(), cfg);
        let args = args(Some(limit), None);
        let page = pager.page::<SearchSymbols>(&args).await.unwrap();
        let budget = pager.config().page_chars();
        let mut times = Vec::new();
        for _ in 0..200 {
            let page = page.clone();
            let t = Instant::now();
            let shown =
                zoekt_pager::form::show::<SearchSymbols>("search_symbols", &args, page, budget);
            times.push(t.elapsed());
            assert!(shown.page.count > 0);
        }
        stats(&format!("  {label}"), times);
    }
    println!("peak RSS: {:.1} MiB", peak_rss_mib());
}

/// Walks at limits 30 and 100 up to the paging ceiling, then one page at increasing depths.
async fn engine_walks(pager: &Pager<Synthetic>) {
    // A whole walk at limit 30 up to the paging ceiling: the window grows with the offset.
    for limit in [30u32, 100] {
        let mut args = args(Some(limit), None);
        let mut times = Vec::new();
        let mut items = 0;
        let started = Instant::now();
        loop {
            let t = Instant::now();
            let page = pager.page::<SearchSymbols>(&args).await.unwrap();
            times.push(t.elapsed());
            items += page.count;
            match page.next_cursor {
                Some(c) => args.cursor = Some(c),
                None => break,
            }
        }
        println!(
            "walk search_symbols limit {limit}: {items} items in {} pages, {:.2?} in all",
            times.len(),
            started.elapsed()
        );
        stats(&format!("  engine time per page (limit {limit})"), times);
    }

    // One page at increasing depths: cost grows with offset (the window is offset+limit+1).
    for offset_pages in [0u64, 10, 50, 100, 166] {
        let mut cursor = None;
        if offset_pages > 0 {
            // Reach the page by walking (cursors are opaque).
            let mut args = args(Some(30), None);
            for _ in 0..offset_pages {
                let p = pager.page::<SearchSymbols>(&args).await.unwrap();
                args.cursor = p.next_cursor;
            }
            cursor = args.cursor;
        }
        let args = args(Some(30), cursor);
        let mut times = Vec::new();
        for _ in 0..30 {
            let t = Instant::now();
            pager.page::<SearchSymbols>(&args).await.unwrap();
            times.push(t.elapsed());
        }
        stats(
            &format!("  one page at offset {:>5} (limit 30)", offset_pages * 30),
            times,
        );
    }
}
