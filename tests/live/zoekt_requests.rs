//! The exact requests the pager sends to the real Zoekt (seen through a recording tap): every
//! page's first window is the walk's first page's, m = limit + 1 files plus room for the
//! untrusted edge, max(m / 8, 3); deeper pages grow from it; and the effort caps never depend
//! on the page.

use crate::support;

use serde_json::Value;
use support::ToolCalls;
use zoekt_pager::{PageArgs, PagerConfig};

fn opt(v: &Value, k: &str) -> u64 {
    v["Opts"][k].as_u64().unwrap_or(0)
}

/// The default settings without suggestions: these tests follow a walk's own windows, not
/// the census a broad first page sends beside them (docs/narrowing.md).
fn windows_only() -> PagerConfig {
    PagerConfig {
        suggest_filters: false,
        ..PagerConfig::default()
    }
}

/// With suggestions (the default), a broad first page asks Zoekt for its own window and,
/// beside it, one census of the result's files: the same query under `type:file`, names
/// only, up to 40,000 files, without context lines, with its own wall time
/// (`--census-wall-time-ms`, 3 s). A result that fits on a page waits for none (what it
/// sent is dropped).
#[tokio::test]
async fn a_broad_first_page_asks_for_its_window_and_one_census_beside_it() {
    let m = support::Tap::start(&support::fixture_zoekt(
        "a_broad_first_page_asks_for_its_window_and_one_census_beside_it",
    ))
    .await;
    let p = support::json_pager(&m.url());
    let first = p
        .symbols(r"pagerItem\d+", &[], &support::first_page(30))
        .await
        .unwrap();
    assert_eq!(first.zoekt_requests, 2);
    let mut asked: Vec<(String, u64, u64, u64)> = m
        .new_searches()
        .iter()
        .map(|r| {
            (
                r["Q"].as_str().unwrap().to_string(),
                opt(r, "MaxDocDisplayCount"),
                opt(r, "NumContextLines"),
                opt(r, "MaxWallTime"),
            )
        })
        .collect();
    asked.sort();
    assert_eq!(
        asked,
        [
            (r"sym:pagerItem\d+".into(), 34, 0, 10_000_000_000),
            (
                r"type:file sym:pagerItem\d+".into(),
                40_000,
                0,
                3_000_000_000
            ),
        ]
    );
    // With context lines the page's own window has them; the census never does.
    p.lines("pagerLineMark", 2, &support::first_page(5))
        .await
        .unwrap();
    let mut asked: Vec<(u64, u64)> = m
        .new_searches()
        .iter()
        .map(|r| (opt(r, "MaxDocDisplayCount"), opt(r, "NumContextLines")))
        .collect();
    asked.sort();
    assert_eq!(asked, [(9, 2), (40_000, 0)]);
    // The next page of the walk takes no census.
    let second = p
        .symbols(
            r"pagerItem\d+",
            &[],
            &PageArgs {
                cursor: first.next_cursor.clone(),
                ..support::first_page(30)
            },
        )
        .await
        .unwrap();
    assert_eq!(second.count, 30);
    assert!(m.new_searches().iter().all(|r| !support::is_census(r)),);
}

#[tokio::test]
async fn windows_start_at_the_first_page_and_caps_are_fixed() {
    let m = support::Tap::start(&support::fixture_zoekt(
        "windows_start_at_the_first_page_and_caps_are_fixed",
    ))
    .await;
    let p = support::json_pager_with(&m.url(), windows_only());
    let mut cursor = None;
    let mut offset = 0u64;
    let mut most_requests = 0;
    let limit = 20u32;
    for _ in 0..5 {
        let page = p
            .symbols(
                r"pagerItem\d+",
                &[],
                &PageArgs {
                    limit: Some(limit),
                    cursor: cursor.clone(),
                    ..PageArgs::default()
                },
            )
            .await
            .unwrap();
        let reqs = m.new_searches();
        most_requests = most_requests.max(reqs.len());
        let first = &reqs[0];
        assert_eq!(first["Q"], r"sym:pagerItem\d+");
        // Every page starts from the walk's first window (limit + 1 items, plus room for the
        // untrusted edge); a deeper page then grows by the items per file (at least doubling).
        let probe = u64::from(limit) + 1;
        assert_eq!(
            opt(first, "MaxDocDisplayCount"),
            probe + (probe / 8).max(3),
            "offset {offset}"
        );
        let n = offset + probe;
        let windows: Vec<u64> = reqs.iter().map(|r| opt(r, "MaxDocDisplayCount")).collect();
        assert!(windows.windows(2).all(|w| w[1] >= 2 * w[0]), "{windows:?}");
        // The last window was enough: it holds no more files than one per item needed, with
        // the estimate's headroom (pagerItem files hold one or more items each).
        assert!(
            *windows.last().unwrap() <= (n * 3).div_ceil(2).max(2 * windows[0]),
            "offset {offset}: {windows:?}"
        );
        for r in &reqs {
            // The documented defaults (docs/configuration.md), not the code's own: a changed
            // default fails.
            assert_eq!(opt(r, "ShardMaxMatchCount"), 10_000);
            // No cross-shard cap (absent or 0): it would make the searched shards depend on
            // timing.
            assert_eq!(opt(r, "TotalMaxMatchCount"), 0);
            assert_eq!(opt(r, "MaxWallTime"), 10_000_000_000, "10 s in nanoseconds");
            assert!(
                opt(r, "MaxDocDisplayCount") <= 5_000,
                "--max-window's default"
            );
            assert!(
                r["Opts"].get("MaxMatchDisplayCount").is_none(),
                "never page with the match budget"
            );
        }
        offset += page.count as u64;
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(offset, 100);
    assert!(cursor.is_none(), "the walk ended");
    // A deeper page grew its window at least once, so the growth checks above ran.
    assert!(most_requests >= 2, "no page made a second request");
}

#[tokio::test]
async fn window_grows_when_files_yield_few_items_and_stays_bounded() {
    let m = support::Tap::start(&support::fixture_zoekt(
        "window_grows_when_files_yield_few_items_and_stays_bounded",
    ))
    .await;
    // `kinds` drops most symbols client-side (fixture fact: 4 `variable` symbols, spread over
    // 87 files): the window must grow, but never past the cap.
    let cfg = PagerConfig {
        max_window: 64,
        ..windows_only()
    };
    let p = support::json_pager_with(&m.url(), cfg);
    let page = p
        .symbols(".", &["variable".into()], &support::first_page(3))
        .await
        .unwrap();
    let reqs = m.new_searches();
    let windows: Vec<u64> = reqs.iter().map(|r| opt(r, "MaxDocDisplayCount")).collect();
    assert_eq!(windows[0], 4 + 3);
    assert!(windows.len() > 1, "the window must grow: {windows:?}");
    assert!(windows.windows(2).all(|w| w[1] > w[0]), "{windows:?}");
    assert!(windows.iter().all(|w| *w <= 64), "{windows:?}");
    assert_eq!(page.count, 3, "{:?}", page.items);
    assert!(
        page.items.iter().all(|s| s.definition.kind == "variable"),
        "{:?}",
        page.items
    );
}

#[tokio::test]
async fn context_lines_are_sent_and_bounded() {
    let m = support::Tap::start(&support::fixture_zoekt(
        "context_lines_are_sent_and_bounded",
    ))
    .await;
    let p = support::json_pager_with(&m.url(), windows_only());
    p.lines("pagerLineMark", 3, &PageArgs::default())
        .await
        .unwrap();
    assert_eq!(opt(&m.new_searches()[0], "NumContextLines"), 3);
    let e = p
        .lines("pagerLineMark", 11, &PageArgs::default())
        .await
        .unwrap_err();
    assert_eq!(e.code, zoekt_pager::ErrorCode::InvalidArgument);
    assert!(m.new_searches().is_empty(), "rejected before any call");
}

/// find_references' census carries its definitions (`(DEFS) or (type:file (WORDS))`, the
/// usages' files: definitions, and whole-word lines without `sym:`): its
/// first page asks Zoekt for the usages' window and that census, and nothing for the
/// definitions alone; the page is the one asked with suggestions off, which asks the
/// definitions' own window.
#[tokio::test]
async fn a_references_first_page_takes_its_definitions_from_the_census() {
    let m = support::Tap::start(&support::fixture_zoekt(
        "a_references_first_page_takes_its_definitions_from_the_census",
    ))
    .await;
    let p = support::json_pager(&m.url());
    let defs = r"case:yes sym:^get$";
    let usages = r"case:yes (sym:^get$ or content:\bget\b)";
    let words = r"case:yes content:\bget\b";
    let first = p
        .references("get", "", &support::first_page(30))
        .await
        .unwrap();
    let mut asked: Vec<(String, u64)> = m
        .new_searches()
        .iter()
        .map(|r| {
            (
                r["Q"].as_str().unwrap().to_string(),
                opt(r, "MaxDocDisplayCount"),
            )
        })
        .collect();
    asked.sort();
    assert_eq!(first.zoekt_requests, 2, "{asked:?}");
    assert_eq!(
        asked,
        [
            (format!("({defs}) or (type:file ({words}))"), 40_000),
            (usages.to_string(), 34),
        ]
    );
    // The fixture's facts: the four definitions of `get` first, then usages.
    assert_eq!(first.total.value, 37);
    let plain = support::json_pager_with(&m.url(), windows_only());
    let alone = plain
        .references("get", "", &support::first_page(30))
        .await
        .unwrap();
    let asked: Vec<String> = m
        .new_searches()
        .iter()
        .map(|r| r["Q"].as_str().unwrap().to_string())
        .collect();
    assert!(asked.iter().any(|q| q == defs), "{asked:?}");
    assert_eq!(
        serde_json::to_value(&alone.items).unwrap(),
        serde_json::to_value(&first.items).unwrap()
    );
    assert_eq!(alone.next_cursor, first.next_cursor);
    assert_eq!(alone.total, first.total);
}
