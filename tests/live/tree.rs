//! `list_tree` against the real, pinned zoekt-webserver: every directory's count is what raw
//! Zoekt lists under it (and what `search_files` counts for the prefix), every file shown is
//! one raw Zoekt lists, a walk by pages over MCP serves each entry once and validates, the
//! next call on the same tree costs no Zoekt request, and a path with nothing under it is
//! NOT_FOUND. Expected values come from raw Zoekt's JSON answers, never from the pager.

use crate::support;

use std::collections::BTreeSet;

use serde_json::{Value, json};
use support::mcp::*;
use zoekt_pager::tool::PagedArgs;
use zoekt_pager::tools::list_tree::{EntryKind, ListTree, ListTreeArgs};
use zoekt_pager::tools::search_files::{SearchFiles, SearchFilesArgs};
use zoekt_pager::zoekt::query::escape_regex;
use zoekt_pager::{CacheConfig, PageArgs, WindowCache};

/// Every file raw Zoekt lists for `repo` under `dir`, by name only.
async fn raw_listing(url: &str, repo: &str, dir: &str) -> BTreeSet<String> {
    let q = format!("type:file case:yes r:^{repo}$ f:^{}", escape_regex(dir));
    support::oracle::files(url, &q)
        .await
        .into_iter()
        .map(|f| f.path)
        .collect()
}

fn tree_args(repo: &str, path: &str, depth: u32, per_directory: u32) -> ListTreeArgs {
    ListTreeArgs {
        repo: repo.into(),
        path: Some(path.into()),
        depth: Some(depth),
        per_directory: Some(per_directory),
        ..ListTreeArgs::default()
    }
}

#[tokio::test]
async fn every_directory_counts_what_raw_zoekt_lists_under_it() {
    let zoekt = support::big_zoekt("every_directory_counts_what_raw_zoekt_lists_under_it");
    let p = support::pager(&zoekt);
    let repo = "gen-go-a";
    let raw = raw_listing(&zoekt, repo, "").await;
    assert!(raw.len() > 1_000, "{}", raw.len());
    let pages = support::walk(&[100], async |paging: &PageArgs| {
        support::page_of::<ListTree, _>(&p, tree_args(repo, "", 2, 1_000), paging).await
    })
    .await;
    let entries = support::all_items(&pages);
    assert_eq!(entries[0].files, raw.len() as u64);
    let mut dirs = 0;
    for e in &entries {
        match e.kind {
            EntryKind::Dir => {
                let under = raw.iter().filter(|f| f.starts_with(&e.path)).count();
                assert_eq!(
                    (e.files, e.files_at_least),
                    (under as u64, false),
                    "{}",
                    e.path
                );
                dirs += 1;
            }
            EntryKind::File => assert!(raw.contains(&e.path), "{}", e.path),
            EntryKind::More => panic!("per_directory 1000 shows everything: {e:?}"),
        }
    }
    assert!(dirs > 10, "{dirs}");
    // Every file at most two levels down is shown, once.
    let shallow: BTreeSet<&String> = raw.iter().filter(|f| f.matches('/').count() < 2).collect();
    let shown: BTreeSet<&String> = entries
        .iter()
        .filter(|e| e.kind == EntryKind::File)
        .map(|e| &e.path)
        .collect();
    assert_eq!(shown, shallow);
    // And search_files counts each directory's prefix the same.
    for e in entries.iter().filter(|e| e.kind == EntryKind::Dir).take(5) {
        let args = SearchFilesArgs {
            query: format!("case:yes r:^{repo}$ f:^{}", e.path),
            count_only: Some(true),
            ..SearchFilesArgs::default()
        };
        let count = p.page::<SearchFiles>(&args).await.unwrap().total;
        assert!(count.exact, "{}", e.path);
        assert_eq!(count.value, e.files, "{}", e.path);
    }
}

#[tokio::test]
async fn the_next_call_on_the_same_tree_costs_no_zoekt_request() {
    let zoekt = support::big_zoekt("the_next_call_on_the_same_tree_costs_no_zoekt_request");
    // Zoekt's requests are counted on the wire, and each cached page is held against the
    // same page from a pager without a cache.
    let tap = support::Tap::start(&zoekt).await;
    let p = support::json_pager(&tap.url()).with_cache(WindowCache::new(&CacheConfig::DEFAULT));
    let uncached = support::json_pager(&zoekt);
    let mut args = tree_args("gen-py-a", "", 2, 10);
    let first = p.page::<ListTree>(&args).await.unwrap();
    assert!(first.zoekt_requests >= 1);
    assert!(
        !tap.new_searches().is_empty(),
        "the first call lists the tree"
    );
    // Its next page, the same tree to another depth, and a directory inside it.
    args.set_paging(PageArgs {
        limit: Some(5),
        cursor: first.next_cursor.clone(),
        ..PageArgs::default()
    });
    let dir = first.items[1].path.clone();
    for a in [
        args,
        tree_args("gen-py-a", "", 4, 3),
        tree_args("gen-py-a", &dir, 1, 10),
    ] {
        let page = p.page::<ListTree>(&a).await.unwrap();
        assert_eq!(page.zoekt_requests, 0, "{a:?}");
        assert_eq!(tap.new_searches(), Vec::<Value>::new(), "{a:?}");
        assert!(page.total.exact);
        let fresh = uncached.page::<ListTree>(&a).await.unwrap();
        assert_eq!(page.items, fresh.items, "{a:?}");
    }
}

#[tokio::test]
async fn a_walk_over_mcp_serves_every_entry_once_and_a_missing_path_is_not_found() {
    let zoekt = support::fixture_zoekt(
        "a_walk_over_mcp_serves_every_entry_once_and_a_missing_path_is_not_found",
    );
    let client = spawn_stdio(&zoekt, &[]).await;
    let args = json!({"repo": "beta-go", "depth": 3, "per_directory": 4});
    let whole = page_items(&walk(&client, "list_tree", args.clone(), &[100]).await);
    let walked = page_items(&walk(&client, "list_tree", args, &[2, 3]).await);
    assert_eq!(walked, whole);
    assert_eq!(unique(&walked), walked.len());
    // The top counts what raw Zoekt lists in the repository.
    let raw = raw_listing(&zoekt, "beta-go", "").await;
    assert_eq!(whole[0]["files"], json!(raw.len()), "{}", whole[0]);
    // A `more` entry counts the files below its directory that the entries shown beside it
    // (the directory's own, one level down) do not hold.
    for more in whole.iter().filter(|e| e["kind"] == "more") {
        let dir = more["path"].as_str().unwrap_or_default();
        let depth = dir.matches('/').count();
        let shown: u64 = whole
            .iter()
            .filter(|e| e["kind"] != "more")
            .filter_map(|e| {
                let path = e["path"].as_str()?;
                let inside = path.strip_prefix(dir)?;
                let here = path.trim_end_matches('/').matches('/').count() == depth;
                (!inside.is_empty() && here).then(|| e["files"].as_u64().unwrap_or(1))
            })
            .sum();
        let under = raw.iter().filter(|f| f.starts_with(dir)).count() as u64;
        assert_eq!(more["files"].as_u64(), Some(under - shown), "{more}");
    }
    let kinds: BTreeSet<&str> = whole.iter().filter_map(|e| e["kind"].as_str()).collect();
    assert_eq!(kinds, BTreeSet::from(["dir", "file", "more"]));
    for (args, code) in [
        (
            json!({"repo": "beta-go", "path": "no/such/dir"}),
            "NOT_FOUND",
        ),
        (json!({"repo": "no-such-repo"}), "NOT_FOUND"),
        (json!({"repo": "beta-go", "depth": 0}), "INVALID_ARGUMENT"),
    ] {
        let text = expect_error(&client, "list_tree", args, code).await;
        assert!(!text.is_empty());
    }
    // The server stayed up.
    let again = call(&client, "list_tree", json!({"repo": "beta-go", "depth": 1})).await;
    assert_ne!(again.is_error, Some(true));
    let body: Value = again.structured_content.unwrap();
    assert!(body["rows"].as_array().is_some_and(|r| !r.is_empty()));
}
