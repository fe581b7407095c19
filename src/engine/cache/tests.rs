//! Tests of `engine::cache`, kept beside it so the module reads as what it does.

use std::time::Duration;

use super::*;
use crate::engine::Pager;
use crate::engine::backend::RankedFile;
use crate::engine::config::PagerConfig;
use crate::engine::page::Page;
use crate::engine::testing::{
    FakeBackend, LineArgs, LineItem, LineTool, file, line, pages_at_once,
};
use crate::engine::tool::{PageArgs, PagedArgs};

const NAME: &str = "cached";

/// 600 files of 1 to 3 symbols each, scores in tied groups of 4, listed out of order.
fn files() -> Vec<RankedFile> {
    (0..600)
        .rev()
        .map(|i| {
            let lines = (0..(i % 3 + 1))
                .map(|k| line(10 * (k + 1), &format!("func cached{i}_{k}() {{")))
                .collect();
            RankedFile {
                repo: format!("r{}", i % 7),
                path: format!("p/f{i:04}.go"),
                score: 1000.0 - (i / 4) as f64,
                ..file(lines)
            }
        })
        .collect()
}

fn backend() -> FakeBackend {
    FakeBackend::new().with(NAME, files())
}

fn cached(backend: FakeBackend, cfg: CacheConfig) -> Pager<FakeBackend> {
    Pager::new(backend, PagerConfig::default()).with_cache(WindowCache::new(&cfg))
}

/// Searches of lines so far (a broad first page's census is a search of names beside
/// them, which these tests of windows leave aside).
fn searches(p: &Pager<FakeBackend>) -> usize {
    p.backend().line_searches()
}

/// Every page of a walk with these page sizes (the last repeats).
async fn walk(p: &Pager<FakeBackend>, limits: &[u32]) -> Vec<Page<LineItem>> {
    let mut args = LineArgs {
        query: NAME.into(),
        ..Default::default()
    };
    let mut pages: Vec<Page<LineItem>> = Vec::new();
    loop {
        let limit = limits[pages.len().min(limits.len() - 1)];
        let cursor = pages.last().and_then(|p| p.next_cursor.clone());
        if !pages.is_empty() && cursor.is_none() {
            return pages;
        }
        args.set_paging(PageArgs {
            limit: Some(limit),
            cursor,
            ..PageArgs::default()
        });
        pages.push(p.page::<LineTool>(&args).await.expect("page"));
        assert!(pages.len() < 2000, "runaway walk");
    }
}

/// What each page says, as text to compare: everything but the requests it cost and how
/// it was cut (which the page's form reads, and which no reader sees).
fn json(pages: &[Page<LineItem>]) -> Vec<String> {
    pages
        .iter()
        .map(|p| {
            let mut p = p.clone();
            p.zoekt_requests = 0;
            p.ends = None;
            format!("{p:?}")
        })
        .collect()
}

/// Answers of more than 150 files are too big to read: the walk is bound there, the
/// cache's bigger steps, too big themselves, must not bind it anywhere else, and the
/// cache remembers the bound instead of asking for too much on every page.
#[tokio::test]
async fn a_size_bound_walk_is_the_same_with_the_cache_on_and_off() {
    for limits in [vec![7], vec![30], vec![7, 30, 1, 13, 64, 100, 3]] {
        let off = Pager::new(backend(), PagerConfig::default());
        let on = cached(backend(), CacheConfig::DEFAULT);
        off.backend().fail(BackendErrorKind::TooBig, 150);
        on.backend().fail(BackendErrorKind::TooBig, 150);
        let reference = walk(&off, &limits).await;
        let pages = walk(&on, &limits).await;
        assert_eq!(json(&pages), json(&reference), "limits {limits:?}");
        // The bound is found once for the walk: requests too big to read halve the gap
        // to it (about log2 of 5,000), never one per page.
        let asked: Vec<u32> = on
            .backend()
            .requests()
            .iter()
            .map(|r| r.max_files)
            .collect();
        let too_big = asked.iter().filter(|&&n| n > 150).count();
        assert!(
            too_big <= 13,
            "limits {limits:?}: {too_big} too big: {asked:?}"
        );
        assert!(
            searches(&on) <= searches(&off),
            "limits {limits:?}: {asked:?}"
        );
        let last = reference.last().unwrap();
        assert!(
            last.warnings
                .iter()
                .any(|w| matches!(w, crate::engine::warning::Warning::TooBigToRead { .. })),
            "{:?}",
            last.warnings
        );
    }
}

/// A window too big read as its start, as the Zoekt client reads one, binds the walk
/// where the searches too big to read did, with the cache on and off, and costs a page
/// one search of lines at most: no retry, no bisection.
#[tokio::test]
async fn a_start_read_within_the_bound_binds_the_walk_in_one_search_a_page() {
    for limits in [vec![7], vec![30], vec![7, 30, 1, 13, 64, 100, 3]] {
        let bisected = Pager::new(backend(), PagerConfig::default());
        bisected.backend().fail(BackendErrorKind::TooBig, 150);
        let reference = walk(&bisected, &limits).await;
        let off = Pager::new(backend(), PagerConfig::default());
        let on = cached(backend(), CacheConfig::DEFAULT);
        let mut walks = Vec::new();
        for (name, p) in [("off", &off), ("on", &on)] {
            p.backend().fail(BackendErrorKind::TooBig, 150);
            p.backend().keep_starts();
            let pages = walk(p, &limits).await;
            // The census, too big as well, now counts the start of its answer where
            // the bisected walk's counted the page's own items.
            let unsuggested = |pages: &[Page<LineItem>]| {
                let mut pages = pages.to_vec();
                pages.iter_mut().for_each(|p| p.narrowing = None);
                json(&pages)
            };
            assert_eq!(
                unsuggested(&pages),
                unsuggested(&reference),
                "{name}, limits {limits:?}"
            );
            walks.push(json(&pages));
            let asked: Vec<u32> = p.backend().requests().iter().map(|r| r.max_files).collect();
            // Without the cache a page beyond the first asks for the walk's first window,
            // then for one sized by it (`fetch_direct`); with it, the cache's own steps.
            let per_page = if name == "off" { 2 } else { 1 };
            assert!(
                searches(p) <= per_page * pages.len(),
                "{name}, limits {limits:?}: {} pages, {asked:?}",
                pages.len()
            );
        }
        assert_eq!(walks[0], walks[1], "the cache changes no page");
        assert!(
            searches(&off) < searches(&bisected),
            "limits {limits:?}: {} against {}",
            searches(&off),
            searches(&bisected)
        );
    }
}

/// Any other failure is passed on after one request: only a step too big is retried.
/// (The page runs on a thread of its own, so that a retry loop that never yields fails
/// the test after 5 s instead of hanging it.)
#[test]
fn a_failing_backend_is_asked_once() {
    let on = Arc::new(cached(backend(), CacheConfig::DEFAULT));
    on.backend().fail(BackendErrorKind::Unreachable, 0);
    let args = LineArgs {
        query: NAME.into(),
        ..Default::default()
    };
    let pager = Arc::clone(&on);
    let (done, outcome) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let page = runtime.block_on(pager.page::<LineTool>(&args));
        let _ = done.send(page.map(|_| ()));
    });
    let e = outcome
        .recv_timeout(Duration::from_secs(5))
        .expect("no retry loop")
        .unwrap_err();
    assert!(format!("{e:?}").contains("Unreachable"), "{e:?}");
    assert_eq!(searches(&on), 1);
}

#[tokio::test]
async fn a_walk_is_the_same_with_the_cache_on_and_off_and_costs_log_n_requests() {
    for limits in [vec![7], vec![30], vec![7, 30, 1, 13, 64, 100, 3]] {
        let off = Pager::new(backend(), PagerConfig::default());
        let on = cached(backend(), CacheConfig::DEFAULT);
        let reference = walk(&off, &limits).await;
        let pages = walk(&on, &limits).await;
        assert_eq!(json(&pages), json(&reference), "limits {limits:?}");
        let items: usize = pages.iter().map(|p| p.count).sum();
        assert_eq!(items, (0..600).map(|i| i % 3 + 1).sum::<usize>());
        // Every page without the cache asks Zoekt; with it, a handful of growing answers
        // (and the prefetches among them) serve the whole walk.
        assert!(searches(&off) >= reference.len(), "limits {limits:?}");
        assert!(
            searches(&on) <= 8,
            "limits {limits:?}: {} requests for {} pages: {:?}",
            searches(&on),
            pages.len(),
            on.backend()
                .requests()
                .iter()
                .map(|s| s.max_files)
                .collect::<Vec<_>>()
        );
        let zero = pages.iter().filter(|p| p.zoekt_requests == 0).count();
        assert!(zero * 2 > pages.len(), "{zero} of {} pages", pages.len());
    }
}

#[tokio::test]
async fn a_cache_too_small_to_keep_anything_changes_no_page() {
    let tiny = CacheConfig {
        cache_bytes: 1,
        ..CacheConfig::DEFAULT
    };
    let off = Pager::new(backend(), PagerConfig::default());
    let on = cached(backend(), tiny);
    assert_eq!(
        json(&walk(&on, &[30]).await),
        json(&walk(&off, &[30]).await)
    );
}

#[tokio::test]
async fn concurrent_identical_pages_share_one_request() {
    let p = cached(
        backend(),
        CacheConfig {
            cache_prefetch: 0,
            ..CacheConfig::DEFAULT
        },
    );
    p.backend().slow(Duration::from_millis(50));
    let args = LineArgs {
        query: NAME.into(),
        limit: Some(30),
        ..Default::default()
    };
    let pages = pages_at_once(&p, &args, 16).await;
    // One search for the page, and one census of the broad result beside it.
    assert_eq!(searches(&p), 1);
    assert_eq!(p.backend().censuses_asked(NAME), 1);
    assert!(json(&pages).iter().all(|x| *x == json(&pages)[0]));
    assert_eq!(pages.iter().map(|x| x.zoekt_requests).sum::<u32>(), 2);
}

#[tokio::test]
async fn the_next_window_is_fetched_ahead_and_not_after_shutdown() {
    // Without suggestions: a first page that takes a census asks for a thousand files,
    // which holds this whole walk.
    let plain = PagerConfig {
        suggest_filters: false,
        ..PagerConfig::default()
    };
    let p = Pager::new(backend(), plain).with_cache(WindowCache::new(&CacheConfig::DEFAULT));
    let args = |cursor: Option<String>| LineArgs {
        query: NAME.into(),
        limit: Some(30),
        cursor,
        ..Default::default()
    };
    // A client that takes its time between pages never waits for Zoekt after page 1:
    // whenever the next page lies beyond the answer at hand, it is fetched ahead.
    let mut page = p.page::<LineTool>(&args(None)).await.unwrap();
    let (mut pages, mut waited) = (1, 0);
    while let Some(c) = page.next_cursor {
        tokio::time::sleep(Duration::from_millis(20)).await;
        page = p.page::<LineTool>(&args(Some(c))).await.unwrap();
        pages += 1;
        waited += page.zoekt_requests;
        // A walk that never ends (a broken cursor) fails here rather than hanging.
        assert!(pages < 1_000, "the walk does not end");
    }
    assert!(pages > 10, "{pages} pages");
    assert_eq!(waited, 0, "a page waited for Zoekt");
    let asked: Vec<u32> = p.backend().requests().iter().map(|s| s.max_files).collect();
    assert!(asked.len() >= 2, "page 1 and a prefetch: {asked:?}");
    // After shutdown, nothing is fetched ahead.
    let p = cached(backend(), CacheConfig::DEFAULT);
    p.cache().unwrap().shutdown();
    p.page::<LineTool>(&args(None)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(searches(&p), 1);
}

#[tokio::test]
async fn an_answer_is_used_until_its_time_to_live_and_never_after() {
    let p = cached(
        backend(),
        CacheConfig {
            cache_ttl_secs: 1,
            cache_prefetch: 0,
            ..CacheConfig::DEFAULT
        },
    );
    let args = LineArgs {
        query: NAME.into(),
        limit: Some(5),
        ..Default::default()
    };
    let first = p.page::<LineTool>(&args).await.unwrap();
    // The index changes: one better file arrives.
    let mut more = files();
    more.push(RankedFile {
        repo: "new".into(),
        score: 5000.0,
        ..file(vec![line(1, "func cachedNew() {")])
    });
    p.backend().replace(NAME, more);
    // Within the time to live the cached answer still serves: the same page, no request.
    let again = p.page::<LineTool>(&args).await.unwrap();
    assert_eq!(again.zoekt_requests, 0);
    assert_eq!(json(&[again]), json(&[first]));
    // After it, Zoekt is asked again and the new file leads.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let fresh = p.page::<LineTool>(&args).await.unwrap();
    // The page's window and its census, both asked again.
    assert_eq!(fresh.zoekt_requests, 2);
    assert_eq!(fresh.items[0].text, "func cachedNew() {");
}

/// An answer cut by loading shards is not kept: the retry its error asks for reaches
/// Zoekt, and finds the answer once the shards are up.
#[tokio::test]
async fn an_answer_cut_while_shards_load_is_not_kept() {
    let q = NAME;
    let p = cached(FakeBackend::new(), CacheConfig::DEFAULT);
    p.backend().cut(
        q,
        crate::engine::backend::SearchStats {
            crashes: 1,
            ..Default::default()
        },
    );
    let args = LineArgs {
        query: NAME.into(),
        ..Default::default()
    };
    let e = p.page::<LineTool>(&args).await.unwrap_err();
    assert!(format!("{e:?}").contains("NotReady"), "{e:?}");
    // The shards are loaded now.
    p.backend().cut(q, Default::default());
    p.backend().replace(q, files());
    let page = p.page::<LineTool>(&args).await.unwrap();
    assert_eq!(page.count, 30);
    assert_eq!(searches(&p), 2);
}
