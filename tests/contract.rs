//! The paging contract (shared/design.md), checked tool by tool on the fixture corpus and the
//! generated >10k-file corpus. Every check runs against the Zoekt model and, when `.ci/run`
//! started one, against a live zoekt-webserver (see tests/support).

mod support;

use std::collections::{BTreeSet, HashSet};

use serde::Serialize;
use zoekt_pager::page::flatten;
use zoekt_pager::page::window::page_order;
use zoekt_pager::page::{ErrorCode, PageArgs, PagerConfig, ReferenceRole, RequestKey, Tool};
use zoekt_pager::zoekt::ZoektClient;
use zoekt_pager::zoekt::query;
use zoekt_pager::zoekt::wire::{FileMatch, SearchOptions, SearchRequest};

use support::{all_items, pager, pager_with, sizes, walk};

/// Runs a check against the model and against the live Zoekt named by `$var`.
macro_rules! contract {
    ($check:ident, $model:path, $var:literal) => {
        mod $check {
            #[tokio::test]
            async fn model() {
                let m = $model().await;
                super::$check(&m.url()).await;
            }
            #[tokio::test]
            async fn live() {
                if let Some(url) = super::support::live_url($var, stringify!($check)) {
                    super::$check(&url).await;
                }
            }
        }
    };
    ($check:ident) => {
        contract!(
            $check,
            super::support::fixture_model,
            "ZOEKT_PAGER_LIVE_URL"
        );
    };
}

/// One unpaged query: every file Zoekt has (no display cut, the same effort caps), in page
/// order, flattened. The ground truth a walk must reproduce.
async fn unpaged<T>(
    client: &ZoektClient,
    q: &str,
    ctx: u32,
    flat: impl Fn(&FileMatch) -> Vec<T>,
) -> Vec<T> {
    let req = SearchRequest {
        q: q.to_string(),
        opts: SearchOptions {
            num_context_lines: ctx,
            ..PagerConfig::default().effort.options(0)
        },
    };
    let mut files = client.search(&req).await.expect("unpaged search").files;
    files.sort_by(page_order);
    files.dedup_by(|a, b| (&a.repository, &a.file_name) == (&b.repository, &b.file_name));
    files.iter().flat_map(flat).collect()
}

fn assert_no_duplicates<T: Serialize>(items: &[T]) {
    let mut seen = HashSet::new();
    for i in items {
        let key = serde_json::to_string(i).unwrap();
        assert!(seen.insert(key.clone()), "duplicate item {key}");
    }
}

async fn symbols_walk_30_30_30_10(url: &str) {
    let p = pager(url);
    let pages = walk(&[30], async |a| p.symbols(r"pagerItem\d+", &[], a).await).await;
    assert_eq!(sizes(&pages), [30, 30, 30, 10]);
    assert!(pages.last().unwrap().next_cursor.is_none());
    assert!(
        pages[..3]
            .iter()
            .all(|p| p.has_more && p.next_cursor.is_some())
    );
    assert_eq!(pages[0].total.value, 100, "total on the first page");
    let items = all_items(&pages);
    assert_no_duplicates(&items);
    let names: BTreeSet<_> = items.iter().map(|s| s.name.clone()).collect();
    assert_eq!(names.len(), 100);
    assert!(names.iter().all(|n| n.starts_with("pagerItem")));
    let q = query::symbols_query(r"pagerItem\d+").unwrap();
    let truth = unpaged(&support::client(url), &q, 0, |f| {
        flatten::symbols(f, &BTreeSet::new())
    })
    .await;
    assert_eq!(items, truth, "union of pages == one unpaged query");
    // Symbols carry kind and parent from ctags.
    let method = items
        .iter()
        .find(|s| s.path.ends_with("registry.rs"))
        .expect("a Rust method");
    assert!(
        !method.kind.is_empty() && method.parent.is_some(),
        "{method:?}"
    );
}
contract!(symbols_walk_30_30_30_10);

async fn limit_counts_items_not_files(url: &str) {
    let p = pager(url);
    let five = p
        .symbols(r"pagerItem\d+", &[], &support::first_page(5))
        .await
        .unwrap();
    assert_eq!(five.count, 5);
    // registry.rs alone holds 40 pagerItem methods: limit 10 is 10 symbols from one file.
    let ten = p
        .symbols(
            r"file:registry\.rs pagerItem\d+",
            &[],
            &support::first_page(10),
        )
        .await
        .unwrap();
    assert_eq!(ten.count, 10);
    assert!(ten.items.iter().all(|s| s.path.ends_with("registry.rs")));
    assert!(ten.has_more);
}
contract!(limit_counts_items_not_files);

async fn limit_changes_mid_walk(url: &str) {
    let p = pager(url);
    let q = query::symbols_query(r"pagerItem\d+").unwrap();
    let truth = unpaged(&support::client(url), &q, 0, |f| {
        flatten::symbols(f, &BTreeSet::new())
    })
    .await;
    for limits in [&[30, 50][..], &[100, 10], &[7, 1, 13, 2]] {
        let pages = walk(limits, async |a| p.symbols(r"pagerItem\d+", &[], a).await).await;
        assert_eq!(all_items(&pages), truth, "limits {limits:?}");
        // Each page starts where the previous one ended.
        let mut expected = 0;
        for page in &pages {
            assert_eq!(page.offset, expected);
            expected += page.count as u64;
        }
    }
}
contract!(limit_changes_mid_walk);

async fn files_match_by_name_only(url: &str) {
    let p = pager(url);
    let pages = walk(&[1], async |a| p.files("widgetry", a).await).await;
    let paths: BTreeSet<String> = all_items(&pages)
        .iter()
        .map(|f| format!("{}/{}", f.repo, f.path))
        .collect();
    let expected: BTreeSet<String> = [
        "alpha-rs/examples/widgetry_demo.rs",
        "beta-go/config/widgetry_config.go",
        "delta-ts/src/widgetry-table.ts",
        "gamma-py/gamma/widgetry.py",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(paths, expected, "only files whose NAME matches");
    assert_eq!(sizes(&pages), [1, 1, 1, 1]);
    // A broad walk with an odd limit equals the unpaged query.
    let pages = walk(&[7], async |a| p.files(r"\.go$", a).await).await;
    let items = all_items(&pages);
    assert_no_duplicates(&items);
    let truth = unpaged(
        &support::client(url),
        &query::files_query(r"\.go$").unwrap(),
        0,
        flatten::files,
    )
    .await;
    assert_eq!(items, truth);
    assert!(items.len() > 40, "{} Go files", items.len());
}
contract!(files_match_by_name_only);

async fn references_are_whole_word_definitions_first(url: &str) {
    let p = pager(url);
    let pages = walk(&[5], async |a| p.references("get", "", a).await).await;
    let items = all_items(&pages);
    assert_no_duplicates(&items);
    assert_eq!(items.len(), 37, "4 definitions + 33 usages");
    let defs = items
        .iter()
        .take_while(|r| r.role == ReferenceRole::Definition)
        .count();
    assert_eq!(defs, 4);
    assert!(
        items[defs..]
            .iter()
            .all(|r| r.role == ReferenceRole::Reference)
    );
    for r in &items {
        assert!(
            flatten::find_word(&r.text, "get").is_some(),
            "not a whole-word get: {r:?}"
        );
    }
    let qs = query::references_queries("get", "").unwrap();
    let c = support::client(url);
    let truth_defs = unpaged(&c, &qs.definitions, 0, |f| flatten::definitions(f, "get")).await;
    let lines: BTreeSet<_> = truth_defs
        .iter()
        .map(|d| (d.repo.clone(), d.path.clone(), d.line))
        .collect();
    let truth_uses = unpaged(&c, &qs.usages, 0, |f| flatten::usages(f, "get", &lines)).await;
    let truth: Vec<_> = truth_defs.into_iter().chain(truth_uses).collect();
    assert_eq!(items, truth);
    // Totals stay right whether the first page holds only definitions or reaches usages.
    for limit in [2, 5, 30] {
        let first = p
            .references("get", "", &support::first_page(limit))
            .await
            .unwrap();
        assert_eq!(first.total.value, 37, "limit {limit}: {:?}", first.total);
    }
    // Paging at other sizes gives the same sequence (positions never depend on the page).
    for limits in [&[1][..], &[3, 40], &[36, 1]] {
        let pages = walk(limits, async |a| p.references("get", "", a).await).await;
        assert_eq!(all_items(&pages), truth, "limits {limits:?}");
    }
}
contract!(references_are_whole_word_definitions_first);

async fn search_lines_walk(url: &str) {
    let p = pager(url);
    let pages = walk(&[30], async |a| p.lines("pagerLineMark", 0, a).await).await;
    assert_eq!(sizes(&pages), [30, 30, 15]);
    let items = all_items(&pages);
    assert_no_duplicates(&items);
    let truth = unpaged(&support::client(url), "pagerLineMark", 0, flatten::matches).await;
    assert_eq!(items, truth);
    // Context lines do not change which items come out, nor the cursor.
    let with_ctx = walk(&[30], async |a| p.lines("pagerLineMark", 2, a).await).await;
    assert_eq!(sizes(&with_ctx), [30, 30, 15]);
    assert!(
        with_ctx[0]
            .items
            .iter()
            .any(|m| !m.before.is_empty() || !m.after.is_empty())
    );
    let first = &pages[0];
    let continued = p
        .lines(
            "pagerLineMark",
            3,
            &PageArgs {
                limit: Some(45),
                cursor: first.next_cursor.clone(),
            },
        )
        .await
        .unwrap();
    let lines: Vec<_> = continued
        .items
        .iter()
        .map(|m| (m.repo.clone(), m.path.clone(), m.line))
        .collect();
    let expected: Vec<_> = items[30..]
        .iter()
        .map(|m| (m.repo.clone(), m.path.clone(), m.line))
        .collect();
    assert_eq!(lines, expected);
}
contract!(search_lines_walk);

/// A byte bound on pages ends big pages early; the cursor continues right after the last
/// item, so the walk is still exactly the unpaged result.
async fn size_bound_shortens_pages_without_gaps(url: &str) {
    const BOUND: usize = 3_000;
    let p = pager_with(
        url,
        PagerConfig {
            max_page_bytes: BOUND,
            ..PagerConfig::default()
        },
    );
    let pages = walk(&[50], async |a| p.lines("pagerLineMark", 4, a).await).await;
    assert!(pages.len() > 2, "{:?}", sizes(&pages));
    assert!(pages.iter().any(|pg| pg.size_capped));
    for pg in &pages {
        let bytes: usize = pg
            .items
            .iter()
            .map(|i| serde_json::to_vec(i).unwrap().len() + 1)
            .sum();
        assert!(
            bytes <= BOUND || pg.count == 1,
            "{bytes} bytes in {} items",
            pg.count
        );
        assert_eq!(pg.size_capped, pg.count < 50 && pg.has_more, "{pg:?}");
    }
    let items = all_items(&pages);
    let truth = unpaged(&support::client(url), "pagerLineMark", 4, flatten::matches).await;
    assert_eq!(items, truth);
}
contract!(size_bound_shortens_pages_without_gaps);

async fn tied_files_never_swap_across_pages(url: &str) {
    // tiebreakProbe sits in 4 files that are byte-identical in beta-go and twin-go.
    let p = pager(url);
    let mut reference = None;
    for round in 0..8 {
        for limit in [1u32, 2, 3] {
            let pages = walk(&[limit], async |a| p.lines("tiebreakProbe", 0, a).await).await;
            let items = all_items(&pages);
            assert_eq!(items.len(), 8, "round {round} limit {limit}");
            assert_no_duplicates(&items);
            match &reference {
                None => reference = Some(items),
                Some(r) => assert_eq!(&items, r, "round {round} limit {limit}"),
            }
        }
    }
}
contract!(tied_files_never_swap_across_pages);

async fn repos_are_sorted_and_paged(url: &str) {
    let p = pager(url);
    let pages = walk(&[2], async |a| p.repos("", a).await).await;
    let names: Vec<_> = all_items(&pages).into_iter().map(|r| r.name).collect();
    assert_eq!(
        names,
        ["alpha-rs", "beta-go", "delta-ts", "gamma-py", "twin-go"]
    );
    assert_eq!(sizes(&pages), [2, 2, 1]);
    assert!(
        all_items(&pages)
            .iter()
            .all(|r| r.has_symbols && r.files > 0)
    );
}
contract!(repos_are_sorted_and_paged);

async fn cursor_errors_and_past_the_end(url: &str) {
    let p = pager(url);
    let first = p
        .symbols(r"pagerItem\d+", &[], &support::first_page(10))
        .await
        .unwrap();
    let c = first.next_cursor.clone().unwrap();
    let with = |c: &str| PageArgs {
        limit: Some(10),
        cursor: Some(c.to_string()),
    };
    let e = p.symbols("other", &[], &with(&c)).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::CursorMismatch);
    let e = p.files(r"pagerItem\d+", &with(&c)).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::CursorMismatch);
    let e = p
        .symbols(r"pagerItem\d+", &["method".into()], &with(&c))
        .await
        .unwrap_err();
    assert_eq!(
        e.code,
        ErrorCode::CursorMismatch,
        "kinds are part of the request"
    );
    for bad in [
        "",
        "garbage!",
        &c[..c.len() - 2],
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    ] {
        let e = p
            .symbols(r"pagerItem\d+", &[], &with(bad))
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidCursor, "{bad:?}");
    }
    let key = RequestKey::new(
        Tool::SearchSymbols,
        &[&query::symbols_query(r"pagerItem\d+").unwrap(), ""],
    );
    let e = p
        .symbols(r"pagerItem\d+", &[], &with(&key.cursor(u64::MAX)))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidCursor);
    // Past the end: an empty page and no cursor, not an error.
    let past = p
        .symbols(r"pagerItem\d+", &[], &with(&key.cursor(1000)))
        .await
        .unwrap();
    assert_eq!(
        (past.count, past.has_more, past.next_cursor.clone()),
        (0, false, None)
    );
    assert_eq!(past.total.value, 100);
}
contract!(cursor_errors_and_past_the_end);

/// The paging ceiling is enforced before any request: a huge cursor never reaches Zoekt.
#[tokio::test]
async fn over_ceiling_cursor_never_reaches_zoekt() {
    let m = support::fixture_model().await;
    let p = pager_with(
        &m.url(),
        PagerConfig {
            max_offset: 50,
            ..PagerConfig::default()
        },
    );
    let key = RequestKey::new(
        Tool::SearchSymbols,
        &[&query::symbols_query("x").unwrap(), ""],
    );
    let before = m.search_requests().await.len();
    let e = p
        .symbols(
            "x",
            &[],
            &PageArgs {
                limit: Some(10),
                cursor: Some(key.cursor(51)),
            },
        )
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidCursor);
    assert_eq!(m.search_requests().await.len(), before);
}

// ---- the generated corpus of more than 10,000 files ----

async fn big_model() -> support::zoekt_model::ModelServer {
    support::zoekt_model::ModelServer::start(support::generated_model_corpus()).await
}

async fn big_corpus_walks_equal_unpaged(url: &str) {
    let cfg = PagerConfig {
        max_offset: 100_000,
        max_window: 20_000,
        ..PagerConfig::default()
    };
    let p = pager_with(url, cfg);
    let c = support::client(url);
    // Symbols spread over thousands of files.
    let pat = r"genSym1\d\d$";
    let pages = walk(&[7, 30], async |a| p.symbols(pat, &[], a).await).await;
    let items = all_items(&pages);
    assert_no_duplicates(&items);
    let truth = unpaged(&c, &query::symbols_query(pat).unwrap(), 0, |f| {
        flatten::symbols(f, &BTreeSet::new())
    })
    .await;
    assert_eq!(items, truth);
    assert!(items.len() >= 100, "{} symbols", items.len());
    // Files, with ties between the shared copies in sibling repositories.
    let pages = walk(&[9, 100], async |a| p.files(r"unit_0001\d\d", a).await).await;
    let items = all_items(&pages);
    assert_no_duplicates(&items);
    let truth = unpaged(
        &c,
        &query::files_query(r"unit_0001\d\d").unwrap(),
        0,
        flatten::files,
    )
    .await;
    assert_eq!(items, truth);
    assert!(items.len() >= 100, "{} files", items.len());
    // Lines.
    let pages = walk(&[13], async |a| p.lines(r"genSym2\d\d\b", 0, a).await).await;
    let truth = unpaged(&c, r"genSym2\d\d\b", 0, flatten::matches).await;
    assert_eq!(all_items(&pages), truth);
}
contract!(
    big_corpus_walks_equal_unpaged,
    super::big_model,
    "ZOEKT_PAGER_LIVE_BIG_URL"
);
