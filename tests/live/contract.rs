//! The paging contract (docs/contract.md), checked tool by tool against the real, pinned
//! zoekt-webserver that `scripts/test.sh` starts on the fixture corpus and on the generated
//! 12,000-file corpus. Each walk is compared with a truth computed without the code under
//! test (tests/support/oracle.rs: one raw, uncut Zoekt answer, sorted by the contract's rule)
//! and with fixture facts (fixtures/README.md). Ties are tested in tests/ties.rs.

use crate::support;

use std::collections::{BTreeSet, HashSet};

use serde::Serialize;
use support::{ToolCalls, keys};
use zoekt_pager::tool::Tool;
use zoekt_pager::tools::files_with_matches::{FilesWithMatches, FilesWithMatchesArgs};
use zoekt_pager::tools::find_references::{ReferenceItem, ReferenceRole};
use zoekt_pager::tools::search::LineItem;
use zoekt_pager::tools::search_files::FileItem;
use zoekt_pager::tools::search_symbols::{SearchSymbols, SymbolItem};
use zoekt_pager::zoekt::query;
use zoekt_pager::{ErrorCode, PageArgs, PagerConfig, Position, RequestKey};

use support::{all_items, oracle, pager, pager_with, sizes, walk};

/// The live Zoekt on fixtures/corpus.
fn zoekt() -> String {
    support::fixture_zoekt("tests/contract.rs")
}

fn symbol_keys(items: &[SymbolItem]) -> Vec<(String, String, u32, String)> {
    items.iter().map(keys::symbol).collect()
}

fn file_keys(items: &[FileItem]) -> Vec<(String, String)> {
    items.iter().map(keys::file).collect()
}

fn line_keys(items: &[LineItem]) -> Vec<(String, String, u32)> {
    items.iter().map(keys::line).collect()
}

fn reference_keys(items: &[ReferenceItem]) -> Vec<(bool, String, String, u32)> {
    items.iter().map(keys::reference).collect()
}

fn assert_no_duplicates<T: Serialize>(items: &[T]) {
    let mut seen = HashSet::new();
    for i in items {
        let key = serde_json::to_string(i).unwrap();
        assert!(seen.insert(key.clone()), "duplicate item {key}");
    }
}

#[tokio::test]
async fn symbols_walk_30_30_30_10() {
    let url = zoekt();
    let p = pager(&url);
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
    let names: BTreeSet<_> = items.iter().map(|s| s.definition.name.clone()).collect();
    let expected: BTreeSet<_> = (1..=100).map(|n| format!("pagerItem{n:03}")).collect();
    assert_eq!(names, expected, "fixture fact: pagerItem001..pagerItem100");
    let truth = oracle::symbols(&url, r"sym:pagerItem\d+").await;
    assert_eq!(
        symbol_keys(&items),
        truth,
        "union of pages == one unpaged query"
    );
    // Symbols carry kind and parent from ctags; text is the trimmed source line.
    let method = items
        .iter()
        .find(|s| s.path.ends_with("registry.rs"))
        .expect("a Rust method");
    assert!(
        !method.definition.kind.is_empty()
            && method.definition.parent.as_deref() == Some("Registry"),
        "{method:?}"
    );
    assert!(
        items.iter().all(|s| s.text.contains(&s.definition.name)),
        "text holds the name"
    );
}

#[tokio::test]
async fn limit_counts_items_not_files() {
    let p = pager(&zoekt());
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

#[tokio::test]
async fn limit_changes_mid_walk() {
    let url = zoekt();
    let p = pager(&url);
    let truth = oracle::symbols(&url, r"sym:pagerItem\d+").await;
    assert_eq!(truth.len(), 100);
    for limits in [&[30, 50][..], &[100, 10], &[7, 1, 13, 2]] {
        let pages = walk(limits, async |a| p.symbols(r"pagerItem\d+", &[], a).await).await;
        assert_eq!(symbol_keys(&all_items(&pages)), truth, "limits {limits:?}");
        // Each page starts where the previous one ended.
        let mut expected = 0;
        for page in &pages {
            assert_eq!(page.offset, expected);
            expected += page.count as u64;
        }
    }
}

#[tokio::test]
async fn files_match_by_name_only() {
    let url = zoekt();
    let p = pager(&url);
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
    let truth = oracle::file_names(&url, r"file:\.go$").await;
    assert_eq!(file_keys(&items), truth);
    assert_eq!(items.len(), 50, "fixture fact: 45 + 5 Go files");
    assert!(
        items.iter().all(|f| f.language == "Go"),
        "language from Zoekt"
    );
}

#[tokio::test]
async fn references_are_whole_word_definitions_first() {
    let url = zoekt();
    let p = pager(&url);
    let pages = walk(&[5], async |a| p.references("get", "", a).await).await;
    let items = all_items(&pages);
    assert_no_duplicates(&items);
    assert_eq!(items.len(), 37, "fixture fact: 4 definitions + 33 usages");
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
            oracle::has_word(&r.text, "get"),
            "not a whole-word get: {r:?}"
        );
    }
    let truth = oracle::references(&url, "get").await;
    assert_eq!(reference_keys(&items), truth);
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
        assert_eq!(
            reference_keys(&all_items(&pages)),
            truth,
            "limits {limits:?}"
        );
    }
}

#[tokio::test]
async fn search_lines_walk() {
    let url = zoekt();
    let p = pager(&url);
    let pages = walk(&[30], async |a| p.lines("pagerLineMark", 0, a).await).await;
    assert_eq!(
        sizes(&pages),
        [30, 30, 15],
        "fixture fact: 75 pagerLineMark lines"
    );
    let items = all_items(&pages);
    assert_no_duplicates(&items);
    let truth = oracle::lines(&url, "pagerLineMark").await;
    assert_eq!(line_keys(&items), truth);
    assert!(items.iter().all(|m| m.text.contains("pagerLineMark")));
    // Context lines do not change which items come out, nor the cursor.
    let with_ctx = walk(&[30], async |a| p.lines("pagerLineMark", 2, a).await).await;
    assert_eq!(sizes(&with_ctx), [30, 30, 15]);
    assert_eq!(line_keys(&all_items(&with_ctx)), truth);
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
                ..PageArgs::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(line_keys(&continued.items), truth[30..]);
}

/// A token budget on pages ends big pages early; the cursor continues right after the last
/// item, so the walk is still exactly the unpaged result. Each form a client may hand a model
/// (the items' JSON, the page's text) fits on its own.
#[tokio::test]
async fn size_bound_shortens_pages_without_gaps() {
    let cfg = PagerConfig {
        max_page_tokens: 1_000,
        ..PagerConfig::default()
    };
    // 1,000 tokens at 4 characters each: each form of a page as sent (the text block, the
    // structured page's compact JSON), on its own.
    const BOUND: usize = 4_000;
    let url = zoekt();
    let p = pager_with(&url, cfg);
    let pages = walk(&[50], async |a| p.lines("pagerLineMark", 4, a).await).await;
    assert!(pages.len() > 2, "{:?}", sizes(&pages));
    assert!(pages.iter().any(|pg| pg.size_capped));
    for pg in &pages {
        let json =
            serde_json::to_string(&zoekt_pager::form::page_view("search", pg, None)).unwrap();
        let chars = json.chars().count();
        assert!(
            chars <= BOUND || pg.count == 1,
            "{chars} characters of JSON in {} items",
            pg.count
        );
        let text = zoekt_pager::form::page_text("search", pg, None);
        assert!(text.chars().count() <= BOUND || pg.count == 1, "{text}");
        assert_eq!(pg.size_capped, pg.count < 50 && pg.has_more, "{pg:?}");
    }
    let items = all_items(&pages);
    assert_eq!(
        line_keys(&items),
        oracle::lines(&url, "pagerLineMark").await
    );
}

#[tokio::test]
async fn repos_are_sorted_and_paged() {
    let p = pager(&zoekt());
    let pages = walk(&[2], async |a| p.repos("", a).await).await;
    let names: Vec<_> = all_items(&pages).into_iter().map(|r| r.name).collect();
    assert_eq!(
        names,
        ["alpha-rs", "beta-go", "delta-ts", "gamma-py", "twin-go"]
    );
    assert_eq!(sizes(&pages), [2, 2, 1]);
    let files: Vec<u64> = all_items(&pages).iter().map(|r| r.files).collect();
    assert_eq!(
        files,
        [13, 46, 14, 15, 6],
        "fixture fact: files per repository"
    );
    assert!(all_items(&pages).iter().all(|r| r.has_symbols));
}

#[tokio::test]
async fn cursor_errors_and_past_the_end() {
    let p = pager(&zoekt());
    let first = p
        .symbols(r"pagerItem\d+", &[], &support::first_page(10))
        .await
        .unwrap();
    let c = first.next_cursor.clone().unwrap();
    let with = |c: &str| PageArgs {
        limit: Some(10),
        cursor: Some(c.to_string()),
        ..PageArgs::default()
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
    // An empty cursor is no cursor (models send "" for an absent optional argument): the
    // first page, not an error.
    for empty in ["", "  "] {
        let again = p.symbols(r"pagerItem\d+", &[], &with(empty)).await.unwrap();
        assert_eq!(again.items, first.items, "{empty:?}");
    }
    for bad in [
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
        SearchSymbols::SCOPE,
        &[&query::symbols_query(r"pagerItem\d+").unwrap(), ""],
        &p.order_settings(),
    );
    // After every item there is: the lowest score there can be.
    let beyond = Position {
        section: 0,
        section_start: 0,
        earlier_cut: false,
        score: f64::NEG_INFINITY,
        file: 0,
        index: 0,
    };
    let e = p
        .symbols(r"pagerItem\d+", &[], &with(&key.cursor(u64::MAX, &beyond)))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidCursor);
    // Past the end: an empty page and no cursor, not an error.
    let past = p
        .symbols(r"pagerItem\d+", &[], &with(&key.cursor(1000, &beyond)))
        .await
        .unwrap();
    assert_eq!(
        (past.count, past.has_more, past.next_cursor.clone()),
        (0, false, None)
    );
    assert_eq!(past.total.value, 100);
}

// ---- the generated corpus of 12,000 files ----

#[tokio::test]
async fn big_corpus_walks_equal_unpaged() {
    let url = support::big_zoekt("big_corpus_walks_equal_unpaged");
    let cfg = PagerConfig {
        max_offset: 100_000,
        max_window: 20_000,
        ..PagerConfig::default()
    };
    let p = pager_with(&url, cfg);
    // Symbols spread over thousands of files.
    let pat = r"genSym1\d\d$";
    let pages = walk(&[7, 30], async |a| p.symbols(pat, &[], a).await).await;
    let items = all_items(&pages);
    assert_no_duplicates(&items);
    let truth = oracle::symbols(&url, &format!("sym:{pat}")).await;
    assert_eq!(symbol_keys(&items), truth);
    assert!(items.len() >= 100, "{} symbols", items.len());
    // Files, with shared copies in sibling repositories.
    let pages = walk(&[9, 100], async |a| p.files(r"unit_0001\d\d", a).await).await;
    let items = all_items(&pages);
    assert_no_duplicates(&items);
    let truth = oracle::file_names(&url, r"file:unit_0001\d\d").await;
    assert_eq!(file_keys(&items), truth);
    assert!(items.len() >= 100, "{} files", items.len());
    // Lines.
    let pages = walk(&[13], async |a| p.lines(r"genSym2\d\d\b", 0, a).await).await;
    let items = all_items(&pages);
    assert_no_duplicates(&items);
    let truth = oracle::lines(&url, r"genSym2\d\d\b").await;
    assert_eq!(line_keys(&items), truth);
    assert!(items.len() >= 100, "{} lines", items.len());
}

#[tokio::test]
async fn files_with_matches_walk() {
    let url = zoekt();
    let p = pager(&url);
    let args = FilesWithMatchesArgs {
        query: "pagerLineMark".into(),
        ..Default::default()
    };
    let pages = walk(&[5], async |a| {
        support::page_of::<FilesWithMatches, _>(&p, args.clone(), a).await
    })
    .await;
    assert_eq!(
        sizes(&pages),
        [5, 5, 2],
        "fixture fact: pagerLineMark is in 12 files"
    );
    let items = all_items(&pages);
    // Raw Zoekt: every file with a content match, in page order, its line count and first line.
    let truth: Vec<(String, String, u32, u32)> = oracle::files(&url, "pagerLineMark")
        .await
        .into_iter()
        .filter_map(|f| {
            let lines: Vec<u32> = f.line_numbers().into_iter().filter(|&n| n > 0).collect();
            let first = *lines.first()?;
            Some((f.repo, f.path, lines.len() as u32, first))
        })
        .collect();
    let got: Vec<(String, String, u32, u32)> = items
        .iter()
        .map(|i| {
            (
                i.repo.clone(),
                i.path.clone(),
                i.matching_lines,
                i.first_line,
            )
        })
        .collect();
    assert_eq!(got, truth);
    assert_eq!(
        items.iter().map(|i| i.matching_lines).sum::<u32>(),
        75,
        "fixture fact: 75 pagerLineMark lines"
    );
    assert!(items.iter().all(|i| i.text.contains("pagerLineMark")));
    let last = pages.last().unwrap();
    assert_eq!(last.total.value, 12);
    assert!(last.total.exact && last.complete);
}

#[tokio::test]
async fn whitespace_between_tokens_does_not_change_the_request() {
    let url = zoekt();
    let p = pager(&url);
    let first = p
        .lines("pagerLineMark lang:go", 0, &support::first_page(5))
        .await
        .unwrap();
    let c = first.next_cursor.clone().unwrap();
    let next = PageArgs {
        limit: Some(5),
        cursor: Some(c),
        ..PageArgs::default()
    };
    // The same query typed with more spaces continues the same walk.
    let spaced = p
        .lines("  pagerLineMark    lang:go ", 0, &next)
        .await
        .unwrap();
    let plain = p.lines("pagerLineMark lang:go", 0, &next).await.unwrap();
    assert_eq!(spaced.items, plain.items);
    assert_eq!(spaced.offset, 5);
    // Raw Zoekt agrees with the page on what the query holds.
    let truth = oracle::lines(&url, "pagerLineMark lang:go").await;
    assert_eq!(line_keys(&plain.items), truth[5..10].to_vec());
}
