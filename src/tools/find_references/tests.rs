//! Tests of `tools::find_references`, kept beside it so the module reads as what it does.

use super::*;

#[test]
fn whole_words_only() {
    assert_eq!(find_word("x := get(1)", "get"), Some(5));
    assert_eq!(find_word("forget(); getUser(); get_all()", "get"), None);
    assert_eq!(find_word("forget(); get()", "get"), Some(10));
    assert_eq!(find_word("a.$b", "$b"), Some(2));
}
use crate::tools::search_symbols::tests::{file, line};

#[test]
fn a_line_zoekt_marks_as_a_definition_is_never_a_usage() {
    let f = file(vec![
        line(4, "func get() {", vec![(5, Some("get"))]),
        line(8, "get()", vec![(0, None)]),
        // Another symbol defined on a line that uses `get`: a usage.
        line(
            9,
            "func put() { get() }",
            vec![(5, Some("put")), (13, None)],
        ),
    ]);
    let u = usages_of(&f, "get");
    assert_eq!(u.iter().map(|u| u.line).collect::<Vec<_>>(), [8, 9]);
}

// Whole walks through the pager, against a fake Zoekt.

use crate::engine::Pager;
use crate::engine::backend::MatchedLine;
use crate::engine::config::PagerConfig;
use crate::engine::page::Page;
use crate::engine::testing::FakeBackend;
use crate::engine::tool::Total;
use ReferenceRole::{Definition as Def, Reference as Ref};

const FILTERS: &str = "lang:go";

/// File `repo/path` with this score and these matching lines.
fn at(repo: &str, path: &str, score: f64, lines: Vec<MatchedLine>) -> RankedFile {
    RankedFile {
        repo: repo.into(),
        path: path.into(),
        score,
        ..file(lines)
    }
}

/// What Zoekt would answer for `get`: the `sym:` query finds four definitions in three
/// files, the content query finds ten lines in four files, four of them the definitions.
/// Lines are listed out of position order and files out of page order on purpose.
fn fixture() -> FakeBackend {
    let q = query::references_queries("get", FILTERS).unwrap();
    let definitions = vec![
        at(
            "r2",
            "cache.go",
            9.0,
            vec![
                line(20, "func get() {}", vec![(5, Some("get"))]),
                line(
                    3,
                    "func (c *Cache) get(k string) {",
                    vec![(16, Some("get"))],
                ),
            ],
        ),
        at(
            "r0",
            "util.go",
            4.0,
            vec![line(7, "var get = 1", vec![(4, Some("get"))])],
        ),
        at(
            "r1",
            "store.go",
            9.0,
            vec![line(10, "func get() {", vec![(5, Some("get"))])],
        ),
    ];
    let usages = vec![
        at(
            "r0",
            "util.go",
            2.0,
            vec![
                line(9, "y := get + get", vec![(5, None), (11, None)]),
                line(7, "var get = 1", vec![(4, Some("get"))]),
            ],
        ),
        at(
            "r2",
            "cache.go",
            8.0,
            vec![
                line(25, "\treturn c.get(k)", vec![(10, None)]),
                line(
                    3,
                    "func (c *Cache) get(k string) {",
                    vec![(16, Some("get"))],
                ),
                line(20, "func get() {}", vec![(5, Some("get"))]),
            ],
        ),
        at(
            "r3",
            "main.go",
            6.0,
            vec![
                line(9, "\tdefer get()", vec![(7, None)]),
                line(5, "\tget()", vec![(1, None)]),
            ],
        ),
        at(
            "r1",
            "store.go",
            8.0,
            vec![
                line(15, "\treturn get()", vec![(8, None)]),
                line(10, "func get() {", vec![(5, Some("get"))]),
                line(12, "x := get()", vec![(5, None)]),
            ],
        ),
    ];
    FakeBackend::new()
        .with(&q.definitions, definitions)
        .with(&q.words, usages.clone())
        .with(&q.usages, usages)
}

/// The whole result, by hand: definitions in page order (score desc, file key, then
/// line), then the usages the same way, without the four definition lines. r1/store.go
/// and r2/cache.go tie in both queries; r2/cache.go's key is the smaller
/// (`keys_of_the_tied_files`).
const EXPECTED: [(ReferenceRole, &str, &str, u32); 10] = [
    (Def, "r2", "cache.go", 3),
    (Def, "r2", "cache.go", 20),
    (Def, "r1", "store.go", 10),
    (Def, "r0", "util.go", 7),
    (Ref, "r2", "cache.go", 25),
    (Ref, "r1", "store.go", 12),
    (Ref, "r1", "store.go", 15),
    (Ref, "r3", "main.go", 5),
    (Ref, "r3", "main.go", 9),
    (Ref, "r0", "util.go", 9),
];

#[test]
fn keys_of_the_tied_files() {
    use crate::engine::order::file_key;
    assert!(file_key("r2", "cache.go", &[]) < file_key("r1", "store.go", &[]));
}

fn facts(items: &[ReferenceItem]) -> Vec<(ReferenceRole, &str, &str, u32)> {
    items
        .iter()
        .map(|i| (i.role, i.repo.as_str(), i.path.as_str(), i.line))
        .collect()
}

fn args(limit: u32, cursor: Option<String>) -> FindReferencesArgs {
    FindReferencesArgs {
        symbol: "get".into(),
        filters: Some(FILTERS.into()),
        limit: Some(limit),
        cursor,
        ..Default::default()
    }
}

/// Every page of a walk at this page size, following `next_cursor` to the end.
async fn walk(pager: &Pager<FakeBackend>, limit: u32) -> Vec<Page<ReferenceItem>> {
    let mut pages = Vec::new();
    let mut cursor = None;
    loop {
        let page = pager
            .page::<FindReferences>(&args(limit, cursor))
            .await
            .expect("page");
        cursor = page.next_cursor.clone();
        pages.push(page);
        if cursor.is_none() || pages.len() > 20 {
            return pages;
        }
    }
}

#[tokio::test]
async fn every_page_size_walks_definitions_then_usages_in_one_order() {
    let pager = Pager::new(fixture(), PagerConfig::default());
    for limit in [1, 2, 3, 7] {
        let pages = walk(&pager, limit).await;
        let items: Vec<ReferenceItem> =
            pages.iter().flat_map(|p| p.items.iter().cloned()).collect();
        assert_eq!(facts(&items), EXPECTED, "limit {limit}");
        assert!(
            pages
                .iter()
                .all(|p| p.count <= limit as usize && p.complete)
        );
        let last = pages.last().unwrap();
        assert!(!last.has_more);
        assert_eq!(
            last.total,
            Total {
                value: EXPECTED.len() as u64,
                exact: true,
                at_least: false,
            },
            "limit {limit}"
        );
    }
    // The columns of the symbol, counted in characters (a tab is one).
    let page = pager.page::<FindReferences>(&args(10, None)).await.unwrap();
    let columns: Vec<u32> = page.items.iter().map(|i| i.column).collect();
    assert_eq!(columns, [17, 6, 6, 5, 11, 6, 9, 2, 8, 6]);
}

#[tokio::test]
async fn a_first_page_takes_the_definitions_from_its_census_in_two_requests() {
    let q = query::references_queries("get", FILTERS).unwrap();
    let census = query::census_carrying(&q.definitions, &q.words);
    let pager = Pager::new(fixture(), PagerConfig::default());
    let page = pager.page::<FindReferences>(&args(5, None)).await.unwrap();
    assert_eq!(facts(&page.items), EXPECTED[..5]);
    // The usages' window and the census, which carried the definitions: no request of
    // the definitions' own.
    assert_eq!(page.zoekt_requests, 2);
    assert!(pager.backend().files_asked(&q.definitions).is_empty());
    assert_eq!(pager.backend().censuses_asked(&census), 1);
    // The same page, total and cursor as without suggestions, which asks the
    // definitions' own window.
    let plain = Pager::new(
        fixture(),
        PagerConfig {
            suggest_filters: false,
            ..PagerConfig::default()
        },
    );
    let alone = plain.page::<FindReferences>(&args(5, None)).await.unwrap();
    assert_eq!(plain.backend().files_asked(&q.definitions).len(), 1);
    assert_eq!(facts(&alone.items), facts(&page.items));
    assert_eq!(
        (alone.total, alone.next_cursor.clone(), alone.complete),
        (page.total, page.next_cursor.clone(), page.complete)
    );
    // The walk goes on from that cursor exactly.
    let mut cursor = page.next_cursor.clone();
    let mut rest = Vec::new();
    while let Some(c) = cursor {
        let next = pager
            .page::<FindReferences>(&args(5, Some(c)))
            .await
            .unwrap();
        rest.extend(next.items);
        cursor = next.next_cursor;
    }
    assert_eq!(facts(&rest), EXPECTED[5..]);
}

/// A census later than its wall time and the grace: the definitions are asked for on
/// their own once it is given up, and the page is the same.
#[tokio::test(start_paused = true)]
async fn a_census_too_late_leaves_the_definitions_to_their_own_request() {
    let q = query::references_queries("get", FILTERS).unwrap();
    let backend = fixture();
    backend.slow_census(std::time::Duration::from_secs(60));
    let pager = Pager::new(backend, PagerConfig::default());
    let started = tokio::time::Instant::now();
    let page = pager.page::<FindReferences>(&args(5, None)).await.unwrap();
    assert_eq!(facts(&page.items), EXPECTED[..5]);
    assert_eq!(pager.backend().files_asked(&q.definitions).len(), 1);
    assert!(page.total.exact);
    // Given up after its wall time and a grace, never its whole 60 s.
    let wall = std::time::Duration::from_millis(PagerConfig::default().census_wall_time_ms);
    assert!((wall..wall * 2).contains(&started.elapsed()));
}

#[tokio::test]
async fn usage_pages_after_a_cut_definition_list_still_say_so() {
    let backend = fixture();
    let q = query::references_queries("get", FILTERS).unwrap();
    // The per-shard cap cut the definitions query; the usages are whole.
    backend.cut(
        &q.definitions,
        crate::engine::backend::SearchStats {
            files_skipped: 3,
            ..Default::default()
        },
    );
    let pager = Pager::new(backend, PagerConfig::default());
    let pages = walk(&pager, 2).await;
    assert_eq!(pages.len(), 5);
    for (n, page) in pages.iter().enumerate() {
        assert!(!page.complete && !page.total.exact, "page {}", n + 1);
    }
    // Pages 4 and 5 start among the usages (the definitions query is not asked again:
    // only pages 1 to 3 asked it) and still carry the warning.
    assert!(
        pages[4]
            .warnings
            .contains(&crate::engine::warning::Warning::EarlierSectionCut { section: 1 }),
        "{:?}",
        pages[4].warnings
    );
    assert_eq!(pager.backend().files_asked(&q.definitions).len(), 3);
}

#[tokio::test]
async fn a_page_inside_the_definitions_counts_them_all_when_zoekt_returned_them_all() {
    let backend = fixture();
    let q = query::references_queries("get", FILTERS).unwrap();
    let pager = Pager::new(backend, PagerConfig::default());
    let page = pager.page::<FindReferences>(&args(2, None)).await.unwrap();
    assert_eq!(facts(&page.items), EXPECTED[..2]);
    assert!(page.has_more);
    // The page lies inside the definitions, but Zoekt returned them all (3 files, fewer
    // than the window asked), and all the usages: the total is exact.
    assert_eq!(
        page.total,
        Total {
            value: 10,
            exact: true,
            at_least: false,
        }
    );
    // The usages were still asked, for their count.
    assert!(!pager.backend().files_asked(&q.usages).is_empty());
}
