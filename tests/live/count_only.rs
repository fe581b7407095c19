//! `count_only` end to end: the real `zoekt-pager serve` over stdio, driven by rmcp's client,
//! against the real zoekt-webserver. A count sends the walk's first window of each query
//! beside its census, and one window of every file only when Zoekt's statistics say that
//! makes it exact; the walk after it starts from those answers. Expected values are fixture
//! facts (fixtures/README.md) and raw Zoekt.

use crate::support;

use serde_json::{Value, json};
use support::mcp::*;
use support::{Tap, oracle};

/// Fixture fact: `pagerItem\d+` names exactly 100 definitions. `count_only` says so, exact,
/// with the pages it makes, from the walk's first window and one of every file, with the
/// census beside; the walk that follows reuses that answer.
#[tokio::test]
async fn count_only_is_exact_from_the_first_window_and_one_of_every_file() {
    let zoekt =
        support::fixture_zoekt("count_only_is_exact_from_the_first_window_and_one_of_every_file");
    let raw = oracle::symbols(&zoekt, r"sym:pagerItem\d+").await.len();
    assert_eq!(raw, 100, "fixture fact: 100 definitions");
    let tap = Tap::start(&zoekt).await;
    let client = spawn_stdio(&tap.url(), &[support::OVER_JSON]).await;
    let q = json!({"query": r"pagerItem\d+", "count_only": true, "limit": 30});
    let r = call(&client, "search_symbols", q).await;
    let sc = r.structured_content.clone().unwrap();
    assert_eq!(
        flat_page(&sc)["total"],
        json!({"value": 100, "exact": true}),
        "{sc}"
    );
    assert_eq!(sc["pages"], json!(4), "{sc}");
    assert_eq!(flat_page(&sc)["count"], json!(0));
    assert_eq!(flat_page(&sc)["items"], json!([]));
    assert!(sc.get("next_cursor").is_none(), "{sc}");
    let body = text(&r);
    // Its footer (after the suggested ways to narrow, which count_only carries too).
    assert!(
        body.lines()
            .last()
            .unwrap()
            .starts_with("Count only: 100 items, 4 pages at limit 30."),
        "{body}"
    );
    // The walk's first window, whose statistics say Zoekt searched every file and counted
    // them; then every one of those files (and one more, to see Zoekt run out), which makes
    // the count exact. The census of the result's files goes beside the first (its ways to
    // narrow).
    let searches = tap.new_searches();
    assert_eq!(
        searches.iter().filter(|s| support::is_census(s)).count(),
        1,
        "{searches:?}"
    );
    let files = count_windows(&zoekt, &searches).await;
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(
        files[0] >= 34,
        "fixture fact: the first window does not hold them all"
    );

    // The walk after it is served from the counted answer.
    let pages = walk(
        &client,
        "search_symbols",
        json!({"query": r"pagerItem\d+"}),
        &[30],
    )
    .await;
    assert_eq!(page_sizes(&pages), [30, 30, 30, 10]);
    assert_eq!(
        tap.new_searches().len(),
        0,
        "the walk reuses the counted answer"
    );

    // An estimate says so, and why: a window of 10 files cannot hold 36 files.
    let small_tap = Tap::start(&zoekt).await;
    let small = spawn_stdio(
        &small_tap.url(),
        &[("ZOEKT_PAGER_MAX_WINDOW", "10"), support::OVER_JSON],
    )
    .await;
    let q = json!({"query": r"pagerItem\d+", "count_only": true});
    let r = call(&small, "search_symbols", q).await;
    let sc = r.structured_content.clone().unwrap();
    assert_eq!(flat_page(&sc)["total"]["exact"], json!(false), "{sc}");
    assert!(
        text(&r).contains("Count only: about ")
            && text(&r).contains("the total is an estimate from Zoekt's match count"),
        "{}",
        text(&r)
    );
    assert_eq!(
        small_tap.new_searches().len(),
        2,
        "the count's window and its census"
    );

    // find_references counts its definitions too when its usages are whole; a stale cursor
    // does not refuse a count.
    let r = call(
        &client,
        "find_references",
        json!({"symbol": "get", "count_only": true, "cursor": "stale"}),
    )
    .await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let truth = oracle::references(&zoekt, "get").await.len() as u64;
    let sc = r.structured_content.unwrap();
    assert_eq!(
        flat_page(&sc)["total"],
        json!({"value": truth, "exact": true}),
        "{sc}"
    );
    // Its two queries' first windows, and the census of the files holding either; then every
    // file of a query whose statistics say its first window does not hold them all.
    let searches = tap.new_searches();
    assert_eq!(
        searches.iter().filter(|s| support::is_census(s)).count(),
        1,
        "{searches:?}"
    );
    assert_eq!(count_windows(&zoekt, &searches).await.len(), 2);

    // Through windows of 10 files the usages are estimated, from Zoekt's match count of
    // their query, which counts each definition too: that is the total, and the definitions
    // are never asked.
    let r = call(
        &small,
        "find_references",
        json!({"symbol": "get", "count_only": true}),
    )
    .await;
    let sc = r.structured_content.unwrap();
    let asked: Vec<String> = small_tap
        .new_searches()
        .iter()
        .filter(|s| !support::is_census(s))
        .map(|s| s["Q"].as_str().unwrap().to_string())
        .collect();
    let [usages] = asked.as_slice() else {
        panic!("only the usages' first window: {asked:?}");
    };
    assert!(usages.contains(" or content:"), "{usages}");
    let (files, skipped) =
        oracle::search_capped(&zoekt, usages, 0, oracle::SHARD_MAX_MATCH_COUNT).await;
    assert!(
        files.len() > 10,
        "fixture fact: more usage files than the window"
    );
    assert_eq!(
        flat_page(&sc)["total"],
        json!({"value": skipped.match_count, "exact": false}),
        "{sc}"
    );
    for c in [client, small] {
        c.cancel().await.unwrap();
    }
}

/// Checks the windows a count sent beside its census, query by query, against raw Zoekt's
/// files for that query: the walk's first window (34 files at limit 30), and, when it could
/// not hold them all, one of every file and one more (to see Zoekt run out). The files of
/// each query, in the order first sent.
async fn count_windows(zoekt: &str, searches: &[Value]) -> Vec<u64> {
    let mut queries: Vec<(String, Vec<u64>)> = Vec::new();
    for s in searches.iter().filter(|s| !support::is_census(s)) {
        let q = s["Q"].as_str().unwrap().to_string();
        let asked = s["Opts"]["MaxDocDisplayCount"].as_u64().unwrap();
        match queries.iter_mut().find(|(sent, _)| *sent == q) {
            Some((_, sizes)) => sizes.push(asked),
            None => queries.push((q, vec![asked])),
        }
    }
    let mut files = Vec::new();
    for (q, asked) in queries {
        let n = oracle::search(zoekt, &q, 0).await.len() as u64;
        let expected = if n < 34 { vec![34] } else { vec![34, n + 1] };
        assert_eq!(asked, expected, "{q}: {n} files");
        files.push(n);
    }
    files
}
