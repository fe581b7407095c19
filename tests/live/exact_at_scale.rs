//! Exact at scale, against the real Zoekt: walks of broad queries that hit Zoekt's budgets
//! never repeat an item and only move forward in the contract's order; the same request gives
//! the same files every time; a capped definition list never turns definitions into
//! references; cursors from other settings are refused; and a page usually costs one request.
//!
//! Expected answers come from raw Zoekt (`support::oracle`) and from fixture facts.

use crate::support;

use std::collections::{BTreeSet, HashMap, HashSet};

use support::{ToolCalls, all_items, keys, oracle, pager, pager_with, walk};
use zoekt_pager::tools::files_with_matches::{FilesWithMatches, FilesWithMatchesArgs};
use zoekt_pager::tools::find_references::ReferenceRole;
use zoekt_pager::{Effort, ErrorCode, PageArgs, PagerConfig};

// ---- the fixture corpus ----

#[tokio::test]
async fn a_capped_definition_list_never_labels_a_definition_as_a_reference() {
    let url =
        support::fixture_zoekt("a_capped_definition_list_never_labels_a_definition_as_a_reference");
    // Fixture fact: `get` has 4 definitions in 4 files. A window of 2 files cannot hold them.
    let truth = oracle::references(&url, "get").await;
    let definitions: BTreeSet<(String, String, u32)> = truth
        .iter()
        .filter(|(def, ..)| *def)
        .map(|(_, r, p, l)| (r.clone(), p.clone(), *l))
        .collect();
    assert_eq!(definitions.len(), 4, "fixture fact: 4 definitions of get");
    let cfg = PagerConfig {
        max_window: 2,
        ..PagerConfig::default()
    };
    let p = pager_with(&url, cfg);
    for limits in [&[1][..], &[3], &[30]] {
        let pages = walk(limits, async |a| p.references("get", "", a).await).await;
        let items = all_items(&pages);
        let mut seen = HashSet::new();
        for i in &items {
            let at = (i.repo.clone(), i.path.clone(), i.line);
            assert!(seen.insert(at.clone()), "{at:?} twice, limits {limits:?}");
            if i.role == ReferenceRole::Reference {
                assert!(
                    !definitions.contains(&at),
                    "the definition {at:?} is labelled a reference, limits {limits:?}"
                );
            }
        }
        let listed = items
            .iter()
            .filter(|i| i.role == ReferenceRole::Definition)
            .count();
        assert!(listed < 4, "the cap must bind: {listed} definitions listed");
        assert!(
            zoekt_pager::form::page_warnings(&pages[0])
                .iter()
                .any(|w| w.contains("definitions beyond the window")),
            "{:?}",
            pages[0].warnings
        );
        assert!(pages.iter().all(|p| !p.complete && !p.total.exact));
    }
}

#[tokio::test]
async fn a_cursor_minted_with_other_effort_caps_is_a_mismatch() {
    let url = support::fixture_zoekt("a_cursor_minted_with_other_effort_caps_is_a_mismatch");
    let p = pager(&url);
    let first = p
        .symbols(r"pagerItem\d+", &[], &support::first_page(10))
        .await
        .unwrap();
    let next = PageArgs {
        limit: Some(10),
        cursor: first.next_cursor.clone(),
        ..PageArgs::default()
    };
    for cfg in [
        PagerConfig {
            effort: Effort {
                shard_max_match_count: 5_000,
                ..Effort::default()
            },
            ..PagerConfig::default()
        },
        PagerConfig {
            effort: Effort {
                max_wall_time_ms: 2_000,
                ..Effort::default()
            },
            ..PagerConfig::default()
        },
        PagerConfig {
            max_window: 1_000,
            ..PagerConfig::default()
        },
    ] {
        let other = pager_with(&url, cfg.clone());
        let e = other
            .symbols(r"pagerItem\d+", &[], &next)
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::CursorMismatch, "{cfg:?}");
        assert!(e.hint.contains("omit cursor"), "{}", e.hint);
    }
    // The same settings take it; an empty cursor is the first page.
    let again = p.symbols(r"pagerItem\d+", &[], &next).await.unwrap();
    assert_eq!(again.offset, 10);
    let empty = PageArgs {
        limit: Some(10),
        cursor: Some(String::new()),
        ..PageArgs::default()
    };
    let restart = p.symbols(r"pagerItem\d+", &[], &empty).await.unwrap();
    assert_eq!(restart.items, first.items);
}

/// Zoekt requests per page over whole walks without the window cache, counted on the wire:
/// every window sequence starts from the walk's first window and then grows by the items per
/// file it holds (engine/window.rs), so a page beyond the first costs two requests per query,
/// usually, and rarely more: the bound is on the average over the walks. (A broad first
/// page's census, beside its windows, is counted by zoekt_requests.rs.)
#[tokio::test]
async fn a_page_costs_at_most_two_requests_per_query() {
    let url = support::fixture_zoekt("a_page_costs_at_most_two_requests_per_query");
    let tap = support::Tap::start(&url).await;
    // The tap counts JSON requests: over JSON in both passes of the suite.
    let p = support::json_pager(&tap.url());
    // search_files: one query a page.
    let (mut pages, mut requests) = (0, 0);
    for q in ["store", r"\.go$", "src", "test", r"\.(py|ts)$", "."] {
        for limits in [&[3][..], &[7], &[30]] {
            let walked = walk(limits, async |a| p.files(q, a).await).await;
            pages += walked.len();
            requests += tap.new_windows().len();
        }
    }
    let files_rate = requests as f64 / pages as f64;
    println!("search_files: {requests} requests / {pages} pages = {files_rate:.3}");
    assert!(
        files_rate <= 2.0,
        "search_files: {files_rate:.3} requests a page"
    );
    // find_references asks two queries at once on a page that starts among the definitions,
    // and only the usages query on a page resumed among the usages.
    let (mut pages, mut requests, mut queries_asked) = (0, 0, 0);
    for symbol in ["get", "Cache", "main", "New"] {
        for limit in [3, 7, 30] {
            let mut args = support::first_page(limit);
            let mut after_a_usage = false;
            loop {
                let page = p.references(symbol, "", &args).await.unwrap();
                let searches = tap.new_windows();
                let distinct: BTreeSet<&str> =
                    searches.iter().map(|s| s["Q"].as_str().unwrap()).collect();
                if after_a_usage {
                    assert_eq!(distinct.len(), 1, "{symbol} limit {limit}: {distinct:?}");
                    assert!(distinct.iter().all(|q| q.contains(" or content:")));
                }
                after_a_usage = page
                    .items
                    .last()
                    .is_some_and(|i| i.role == ReferenceRole::Reference);
                pages += 1;
                requests += searches.len();
                queries_asked += distinct.len();
                match page.next_cursor {
                    Some(c) => args.cursor = Some(c),
                    None => break,
                }
            }
        }
    }
    let per_page = requests as f64 / pages as f64;
    let per_query = requests as f64 / queries_asked as f64;
    println!(
        "find_references: {requests} requests / {pages} pages = {per_page:.3}; \
         {requests} requests / {queries_asked} queries asked = {per_query:.3}"
    );
    assert!(
        per_query <= 2.0,
        "find_references: {per_query:.3} requests a query"
    );
}

// ---- the generated corpus: a query that passes Zoekt's budgets ----

/// Items of `search x` as (repo, path, line), and where each stands in the contract's order.
type Line = (String, String, u32);

/// The contract's order of every line raw Zoekt returns for `q` at the default per-shard
/// cap: (score descending, file key, line), as a rank per line; and what Zoekt left out.
async fn line_ranks(url: &str, q: &str) -> (HashMap<Line, usize>, oracle::Skipped) {
    let (mut files, skipped) =
        oracle::search_capped(url, q, 0, oracle::SHARD_MAX_MATCH_COUNT).await;
    oracle::contract_order(&mut files);
    let mut ranks = HashMap::new();
    for f in files {
        for n in f.line_numbers() {
            let at = ranks.len();
            ranks.insert((f.repo.clone(), f.path.clone(), n), at);
        }
    }
    (ranks, skipped)
}

#[tokio::test]
async fn broad_walks_never_repeat_and_only_move_forward() {
    let url = support::big_zoekt("broad_walks_never_repeat_and_only_move_forward");
    let q = "x";
    let (ranks, skipped) = line_ranks(&url, q).await;
    // Generator fact: `x` passes 100,000 matches, and every shard reaches Zoekt's per-shard cap.
    let (_, uncapped) = oracle::search_capped(&url, q, 1, 100_000_000).await;
    assert!(uncapped.match_count > 100_000, "{uncapped:?}");
    assert!(
        skipped.files > 0,
        "the per-shard cap must bind: {skipped:?}"
    );
    // 300 items a walk (the paging ceiling set here). No window cache: every page is a fresh
    // request that searches every shard up to its cap (about 0.4 s of Zoekt's CPU each), so
    // the depth is what this test costs; 300 items are already six to forty times the
    // largest window of each walk, at about 50 lines a file.
    let depth = 300;
    let p = pager_with(
        &url,
        PagerConfig {
            max_offset: depth as u64,
            ..PagerConfig::default()
        },
    );
    let mix: Vec<u32> = (0..400).map(|i| [7, 30, 100, 1, 13, 64][i % 6]).collect();
    let mut walks: Vec<(String, Vec<Line>)> = Vec::new();
    for limits in [&[7][..], &[30], &[100], &mix] {
        let what = format!("search {q}, limits {:?}", &limits[..limits.len().min(6)]);
        let pages = walk(limits, async |a| p.lines(q, 0, a).await).await;
        let items: Vec<Line> = all_items(&pages).iter().map(keys::line).collect();
        // The walk reaches the paging ceiling and says why it stops.
        assert!(items.len() >= depth, "{what}: {} items", items.len());
        let last = pages.last().unwrap();
        assert!(
            zoekt_pager::form::page_warnings(last)
                .iter()
                .any(|w| w.contains("paging stops")),
            "{what}: {:?}",
            last.warnings
        );
        // Every page says the answer was cut by the per-shard cap, and no total is exact.
        for (n, page) in pages.iter().enumerate() {
            assert!(
                !page.complete && !page.total.exact,
                "{what}: page {}",
                n + 1
            );
            assert!(
                zoekt_pager::form::page_warnings(page)
                    .iter()
                    .any(|w| w.contains("per-shard match cap")),
                "{what}: page {}: {:?}",
                n + 1,
                page.warnings
            );
            assert!(!page.resynced, "{what}: page {}", n + 1);
        }
        // No duplicate, and strictly increasing in the contract's order.
        let mut seen = HashSet::new();
        let mut previous = None;
        for (i, item) in items.iter().enumerate() {
            assert!(seen.insert(item), "{what}: {item:?} twice (item {i})");
            let rank = *ranks
                .get(item)
                .unwrap_or_else(|| panic!("{what}: {item:?} is not in Zoekt's answer"));
            if let Some(prev) = previous {
                assert!(
                    rank > prev,
                    "{what}: item {i} {item:?} goes back in the order"
                );
            }
            previous = Some(rank);
        }
        walks.push((what, items));
    }
    // The cut is the same on every call: every walk is the same sequence, and it is the
    // head of the order.
    let head: Vec<Line> = {
        let mut by_rank: Vec<(&Line, &usize)> = ranks.iter().collect();
        by_rank.sort_by_key(|(_, r)| **r);
        by_rank.into_iter().map(|(l, _)| l.clone()).collect()
    };
    for (what, items) in &walks {
        assert_eq!(items[..], head[..items.len()], "{what}");
    }
}

#[tokio::test]
async fn the_same_broad_request_gives_the_same_files_every_time() {
    let url = support::big_zoekt("the_same_broad_request_gives_the_same_files_every_time");
    let p = pager(&url);
    let args = FilesWithMatchesArgs {
        query: "x".into(),
        ..Default::default()
    };
    let mut first = None;
    for run in 1..=20 {
        let page =
            support::page_of::<FilesWithMatches, _>(&p, args.clone(), &support::first_page(100))
                .await
                .unwrap();
        let files: Vec<(String, String)> = page
            .items
            .iter()
            .map(|i| (i.repo.clone(), i.path.clone()))
            .collect();
        assert_eq!(files.len(), 100);
        match &first {
            None => first = Some((files, page.total)),
            Some((f, total)) => {
                assert_eq!(&files, f, "run {run}");
                assert_eq!(&page.total, total, "run {run}");
            }
        }
    }
}

// ---- a git repository indexed with two branches ----

/// (repo, branches, path, line) of a matching line.
type BranchLine = (String, Vec<String>, String, u32);

#[tokio::test]
async fn files_on_two_branches_page_identically_with_their_branches() {
    let url = support::branches_zoekt("files_on_two_branches_page_identically_with_their_branches");
    let q = "branchProbe";
    // Raw Zoekt, in the contract's order: one file per (repository, path, branches).
    let raw = oracle::files(&url, q).await;
    let expected: Vec<BranchLine> = raw
        .iter()
        .flat_map(|f| {
            f.line_numbers()
                .into_iter()
                .map(|n| (f.repo.clone(), f.branches.clone(), f.path.clone(), n))
        })
        .collect();
    // Generator facts (scripts/gen-branches.sh): 5 lines in 4 versions of 3 paths.
    let mut facts = expected.clone();
    facts.sort();
    let b = |s: &[&str]| s.iter().map(|b| b.to_string()).collect::<Vec<_>>();
    assert_eq!(
        facts,
        [
            ("branchy".into(), b(&["dev"]), "src/devonly.go".into(), 5),
            ("branchy".into(), b(&["dev"]), "src/differs.go".into(), 7),
            ("branchy".into(), b(&["dev"]), "src/differs.go".into(), 9),
            ("branchy".into(), b(&["main"]), "src/differs.go".into(), 5),
            (
                "branchy".into(),
                b(&["main", "dev"]),
                "src/same.go".into(),
                5
            ),
        ]
    );
    let p = pager(&url);
    for limits in [&[1][..], &[2], &[3], &[30], &[2, 1, 3]] {
        for run in 1..=3 {
            let pages = walk(limits, async |a| p.lines(q, 0, a).await).await;
            let items = all_items(&pages);
            let got: Vec<BranchLine> = items
                .iter()
                .map(|i| (i.repo.clone(), i.branches.clone(), i.path.clone(), i.line))
                .collect();
            assert_eq!(got, expected, "limits {limits:?}, run {run}");
            assert!(pages.last().unwrap().total.exact);
        }
    }
    // The text names the branches: each version of the file heads its own lines.
    let page = p.lines(q, 0, &support::first_page(30)).await.unwrap();
    let text = zoekt_pager::form::page_text("search", &page, None);
    assert!(
        text.contains("branchy@dev/src/differs.go\n  7:5: "),
        "{text}"
    );
    assert!(
        text.contains("branchy@main/src/differs.go\n  5:18: "),
        "{text}"
    );
    // Files: the two versions of differs.go are two items.
    let files = p.files("differs", &support::first_page(30)).await.unwrap();
    let versions: Vec<Vec<String>> = files.items.iter().map(|f| f.branches.clone()).collect();
    assert_eq!(versions.len(), 2, "{versions:?}");
    assert!(versions.contains(&b(&["main"])) && versions.contains(&b(&["dev"])));
}
