//! Faults never become answers (issue "Faults never become answers").
//!
//! What a real Zoekt can be made to do (killed and restarted mid-walk, resumed at once), it
//! does here; what it cannot do on demand (answers that contradict themselves, wrong types,
//! deep nesting, bodies cut short, malformed JSON, crashed shards while `/readyz` says 200, a
//! loading phase with partial answers) comes from a fault-injecting proxy in front of the
//! real Zoekt (`support::faults`). Expected answers come from raw Zoekt (`support::oracle`),
//! from fixture facts (fixtures/README.md), or, for "identical to the uninterrupted walk",
//! from the same walk with no fault on the way.

use crate::support;

use std::collections::HashSet;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use support::faults::{Fault, FaultProxy};
use support::{ToolCalls, first_page, keys, oracle, page_of};
use zoekt_pager::tools::PagedTool;
use zoekt_pager::tools::files_with_matches::FilesWithMatches;
use zoekt_pager::tools::find_references::FindReferences;
use zoekt_pager::tools::list_repos::ListRepos;
use zoekt_pager::tools::search::Search;
use zoekt_pager::tools::search_files::SearchFiles;
use zoekt_pager::tools::search_symbols::SearchSymbols;
use zoekt_pager::zoekt::{ClientOptions, ZoektClient};
use zoekt_pager::{CacheConfig, ErrorCode, Page, PageArgs, Pager, PagerConfig, WindowCache};

fn zoekt() -> String {
    support::fixture_zoekt("tests/faults.rs")
}

/// A pager over `url` with no retries (each call meets Zoekt as it is), cache on or off.
fn pager_over(url: &str, cache: bool) -> Pager<ZoektClient> {
    pager_cached(url, cache.then_some(CacheConfig::default()))
}

/// [`pager_over`] with this cache (`None`: none).
fn pager_cached(url: &str, cache: Option<CacheConfig>) -> Pager<ZoektClient> {
    pager_with(url, cache, PagerConfig::default())
}

/// [`pager_cached`] with these settings.
fn pager_with(url: &str, cache: Option<CacheConfig>, cfg: PagerConfig) -> Pager<ZoektClient> {
    let opts = ClientOptions {
        retries: 0,
        // The stand-ins here speak JSON (faults a real Zoekt cannot be made to show).
        zoekt_transport: zoekt_pager::zoekt::Wire::Json,
        ..ClientOptions::DEFAULT
    };
    let pager = Pager::new(ZoektClient::new(url, opts).unwrap(), cfg);
    pager.with_cache(cache.as_ref().and_then(WindowCache::new))
}

/// The five repositories of fixtures/corpus, by name (fixtures/README.md).
const FIXTURE_REPOS: [&str; 5] = ["alpha-rs", "beta-go", "delta-ts", "gamma-py", "twin-go"];

/// How many requests one call makes before it gives an answer: an unusable answer fails the
/// call at once; crashed shards in a ready Zoekt are asked for once more.
fn requests_met(fault: Fault) -> usize {
    if fault == Fault::CrashedShards { 2 } else { 1 }
}

/// For each fault kind, cache on and off: the call that meets the fault gives no exact total
/// (an error, or a page marked incomplete), and the next normal call gives the real answer:
/// the 100 `pagerItem` definitions of raw Zoekt, exactly 100 (fixtures/README.md), on one
/// page whose total is exact (so a fault's exact total of 0 could not pass for it).
#[tokio::test]
async fn no_fault_becomes_an_answer_and_the_next_call_is_the_real_one() {
    let truth = oracle::symbols(&zoekt(), "sym:pagerItem").await;
    assert_eq!(truth.len(), 100, "fixture fact: 100 pagerItem definitions");
    let mut table = Vec::new();
    for cache in [false, true] {
        for fault in Fault::ALL {
            let proxy = FaultProxy::start(&zoekt()).await;
            let pager = pager_over(&proxy.url(), cache);
            proxy.arm(fault, requests_met(fault));
            let faulty = pager.symbols("pagerItem", &[], &first_page(100)).await;
            let outcome = match &faulty {
                Err(e) => {
                    assert_eq!(e.code, ErrorCode::BackendError, "{fault:?}: {e}");
                    assert!(!e.hint.is_empty());
                    format!("{}: {}", e.code.as_str(), e.message)
                }
                Ok(page) => {
                    assert_eq!(fault, Fault::CrashedShards, "{page:?}");
                    assert!(!page.total.exact && !page.complete, "{fault:?}: {page:?}");
                    assert!(page.has_more && page.next_cursor.is_some(), "{page:?}");
                    format!("page: {} items, total {:?}", page.count, page.total)
                }
            };
            assert_eq!(proxy.served() as usize, requests_met(fault), "{fault:?}");
            // The next normal call: the real page, exact.
            let next = pager
                .symbols("pagerItem", &[], &first_page(100))
                .await
                .unwrap_or_else(|e| panic!("{fault:?}, cache {cache}: {e}"));
            let got: Vec<_> = next.items.iter().map(keys::symbol).collect();
            assert_eq!(got, truth[..], "{fault:?}, cache {cache}");
            assert!(
                next.total.exact && next.total.value == 100,
                "{:?}",
                next.total
            );
            // And the faulty call's own continuation, where it had one, goes on from the
            // start: no item was lost to the fault.
            if let Ok(Some(cursor)) = faulty.as_ref().map(|p| p.next_cursor.clone()) {
                let resumed = pager
                    .symbols(
                        "pagerItem",
                        &[],
                        &PageArgs {
                            cursor: Some(cursor),
                            ..first_page(100)
                        },
                    )
                    .await
                    .unwrap();
                let got: Vec<_> = resumed.items.iter().map(keys::symbol).collect();
                assert_eq!(got, truth[..], "{fault:?}, cache {cache}");
            }
            // count_only too (a fresh cache, so the fault is met): never an exact total
            // from a fault, the real one after.
            let pager = pager_over(&proxy.url(), cache);
            let served = proxy.served();
            proxy.arm(fault, requests_met(fault));
            let count = pager
                .symbols(
                    "pagerItem",
                    &[],
                    &PageArgs {
                        count_only: true,
                        ..first_page(100)
                    },
                )
                .await;
            if let Ok(page) = &count {
                assert!(!page.total.exact, "{fault:?}: {page:?}");
            }
            assert_eq!(proxy.served() - served, requests_met(fault) as u32);
            let count = pager
                .symbols(
                    "pagerItem",
                    &[],
                    &PageArgs {
                        count_only: true,
                        ..first_page(100)
                    },
                )
                .await
                .unwrap();
            assert!(count.total.exact && count.total.value == 100);
            // The repository listing meets the same faults.
            let served = proxy.served();
            proxy.arm(fault, requests_met(fault));
            let listed = pager.repos("", &first_page(100)).await;
            if let Ok(page) = &listed {
                assert!(!page.total.exact && page.has_more, "{fault:?}: {page:?}");
            }
            assert_eq!(proxy.served() - served, requests_met(fault) as u32);
            let listed = pager.repos("", &first_page(100)).await.unwrap();
            let names: Vec<&str> = listed.items.iter().map(|r| r.name.as_str()).collect();
            assert_eq!(names, FIXTURE_REPOS, "{fault:?}, cache {cache}");
            assert!(listed.total.exact);
            table.push(format!("cache {cache:5} {fault:?}: {outcome}"));
        }
    }
    eprintln!("{}", table.join("\n"));
}

/// Walks tool `T` at `limit`. With `fault`, pauses past the cache's time to live before the
/// page at `at` (0-based), then arms the fault for the next `times` requests. Returns every
/// item (as JSON) and the pages' sizes.
async fn walk_through<T: PagedTool>(
    pager: &Pager<ZoektClient>,
    args: &Value,
    limit: u32,
    at: usize,
    fault: Option<(&FaultProxy, Fault, usize)>,
) -> (Vec<Value>, Vec<usize>)
where
    T::Item: Serialize,
{
    let mut paging = first_page(limit);
    let mut items = Vec::new();
    let mut sizes = Vec::new();
    loop {
        if let Some((proxy, fault, times)) = fault
            && sizes.len() == at
        {
            // Past the cache's time to live (see `short_lived_cache`).
            tokio::time::sleep(Duration::from_millis(1_100)).await;
            proxy.arm(fault, times);
        }
        let tool_args: T::Args = serde_json::from_value(args.clone()).unwrap();
        let page: Page<T::Item> = page_of::<T, _>(pager, tool_args, &paging)
            .await
            .unwrap_or_else(|e| panic!("page {}: {e}", sizes.len() + 1));
        items.extend(page.items.iter().map(|i| serde_json::to_value(i).unwrap()));
        sizes.push(page.count);
        assert!(sizes.len() < 1_000, "runaway walk");
        match page.next_cursor {
            Some(c) => paging.cursor = Some(c),
            None => return (items, sizes),
        }
    }
}

/// The window cache with a time to live of 1 s, the shortest: with any cache, a walk's second
/// fetch holds the whole of a fixture result, so the fourth page would meet neither Zoekt nor
/// a fault. The walk pauses past the time to live before it, as a reader may.
fn short_lived_cache() -> CacheConfig {
    CacheConfig {
        cache_ttl_secs: 1,
        ..CacheConfig::default()
    }
}

/// A walk whose fourth page meets crashed shards (no files, `Crashes: 1`, `/readyz` 200, for
/// the answer and for the one asked again), for every paged tool and the repository listing,
/// cache on and off: item for item the uninterrupted walk (0 duplicates, 0 missing). The
/// fourth page is held (empty, its cursor the same place) and the walk goes on from it.
#[tokio::test]
async fn a_walk_through_crashed_shards_is_the_uninterrupted_walk() {
    use zoekt_pager::tools::ToolInfo;
    let direct = pager_over(&zoekt(), false);
    let mut report = Vec::new();
    macro_rules! check {
        ($tool:ty, $args:expr, $limit:expr) => {{
            let args: Value = $args;
            let (expected, _) = walk_through::<$tool>(&direct, &args, $limit, 3, None).await;
            let unique: HashSet<String> = expected.iter().map(Value::to_string).collect();
            assert_eq!(
                unique.len(),
                expected.len(),
                "{}: duplicates",
                <$tool>::NAME
            );
            assert!(
                expected.len() > 3 * $limit as usize,
                "{}: too short",
                <$tool>::NAME
            );
            for cache in [false, true] {
                let proxy = FaultProxy::start(&zoekt()).await;
                let pager = pager_cached(&proxy.url(), cache.then_some(short_lived_cache()));
                let (got, sizes) = walk_through::<$tool>(
                    &pager,
                    &args,
                    $limit,
                    3,
                    Some((&proxy, Fault::CrashedShards, 2)),
                )
                .await;
                assert_eq!(got, expected, "{}, cache {cache}", <$tool>::NAME);
                assert_eq!(proxy.served(), 2, "{}, cache {cache}", <$tool>::NAME);
                report.push(format!(
                    "{} cache {cache}: {} of {} items, pages {sizes:?}",
                    <$tool>::NAME,
                    got.len(),
                    expected.len()
                ));
            }
        }};
    }
    check!(SearchSymbols, serde_json::json!({"query": "pagerItem"}), 3);
    check!(SearchFiles, serde_json::json!({"query": r"\.go$"}), 3);
    check!(FindReferences, serde_json::json!({"symbol": "get"}), 3);
    check!(Search, serde_json::json!({"query": r"pagerItem\d+"}), 3);
    check!(
        FilesWithMatches,
        serde_json::json!({"query": "pagerItem"}),
        3
    );
    check!(ListRepos, serde_json::json!({}), 1);
    eprintln!("{}", report.join("\n"));
}

/// A loading Zoekt (`/readyz` 503) whose answers lack files and count a crash never makes a
/// page, partial or empty: BACKEND_NOT_READY, whose cursor stays valid; once loaded, the walk
/// goes on exactly.
#[tokio::test]
async fn a_loading_zoekt_never_makes_a_page() {
    let truth = oracle::symbols(&zoekt(), "sym:pagerItem").await;
    for cache in [false, true] {
        let proxy = FaultProxy::start(&zoekt()).await;
        // Without suggestions: a first page that takes a census reads a window big enough
        // for this whole result, which the cache would then serve the next page from.
        let plain = PagerConfig {
            suggest_filters: false,
            ..PagerConfig::default()
        };
        let pager = pager_with(&proxy.url(), cache.then_some(CacheConfig::default()), plain);
        let first = pager
            .symbols("pagerItem", &[], &first_page(30))
            .await
            .unwrap();
        proxy.set_loading(true);
        proxy.arm(Fault::PartialWhileLoading, 1_000);
        let resume = PageArgs {
            cursor: first.next_cursor.clone(),
            ..first_page(60)
        };
        // limit 60 needs a bigger window than page 1's: the cache cannot serve it.
        for _ in 0..3 {
            let e = pager.symbols("pagerItem", &[], &resume).await.unwrap_err();
            assert_eq!(e.code, ErrorCode::BackendNotReady, "{e}");
        }
        let e = pager.repos("", &first_page(2)).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::BackendNotReady, "{e}");
        assert!(
            proxy.served() >= 4,
            "the faults were met: {}",
            proxy.served()
        );
        proxy.set_loading(false);
        proxy.disarm();
        let rest = pager.symbols("pagerItem", &[], &resume).await.unwrap();
        let got: Vec<_> = first
            .items
            .iter()
            .chain(&rest.items)
            .map(keys::symbol)
            .collect();
        assert_eq!(got, truth[..90], "cache {cache}");
        assert!(rest.complete && !rest.resynced, "{:?}", rest.warnings);
    }
}

/// Zoekt killed and restarted mid-walk, five times, over an index of 733 shards, the walk
/// resumed at once (not waiting for `/readyz`): every walk ends with every line of raw
/// Zoekt's answer, once each. Calls that meet Zoekt down or loading fail with a retryable
/// code and are called again with the same cursor.
#[tokio::test]
async fn walks_across_zoekt_restarts_complete() {
    let webserver = support::webserver::OwnWebserver::over(
        "ZOEKT_PAGER_LIVE_MANY_SHARDS_INDEX_DIR",
        "walks_across_zoekt_restarts_complete",
    );
    let mut zoekt = webserver.start();
    let pager = pager_over(&webserver.url(), false);
    let q = r"genSym[1-3]\d\d\b";
    // Raw Zoekt's answer, once it is up.
    let truth = loop {
        if let Ok(r) = ZoektClient::new(&webserver.url(), ClientOptions::DEFAULT)
            .unwrap()
            .readiness()
            .await
            && r.is_ready()
        {
            break oracle::lines(&webserver.url(), q).await;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(truth.len() > 150, "{}", truth.len());
    let mut report = Vec::new();
    for walk in 0..5 {
        let mut paging = first_page(30);
        let mut got = Vec::new();
        let mut retries: Vec<&'static str> = Vec::new();
        let mut pages = 0;
        loop {
            let page = match pager.lines(q, 0, &paging).await {
                Ok(page) => page,
                Err(e) => {
                    assert!(
                        matches!(
                            e.code,
                            ErrorCode::BackendUnavailable
                                | ErrorCode::BackendNotReady
                                | ErrorCode::BackendTimeout
                        ),
                        "walk {walk}: {e}"
                    );
                    retries.push(e.code.as_str());
                    assert!(retries.len() < 2_000, "Zoekt never came back");
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    continue;
                }
            };
            got.extend(page.items.iter().map(keys::line));
            pages += 1;
            if pages == 2 {
                drop(zoekt);
                zoekt = webserver.start();
            }
            match page.next_cursor {
                Some(c) => paging.cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(got, truth, "walk {walk}");
        let mut counts = std::collections::BTreeMap::new();
        for r in &retries {
            *counts.entry(*r).or_insert(0) += 1;
        }
        report.push(format!(
            "walk {walk}: {} lines in {pages} pages, retried {counts:?}",
            got.len()
        ));
    }
    drop(zoekt);
    eprintln!("{}", report.join("\n"));
}
