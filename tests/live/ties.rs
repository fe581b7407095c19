//! Ties: files whose scores are exactly equal, paged at every limit.
//!
//! Zoekt sorts files by score with an unstable sort and no tie-break, and reshuffles equal
//! scores from run to run; the engine's documented order is (score desc, file key), the file
//! key being a hash of repository, path and branches (`oracle::file_key`).
//! Against the real Zoekt serving the generated tie corpus (`scripts/gen-ties.py`: 40
//! identical repositories tie-00 .. tie-39), every walk at every limit must give the same
//! items, without a duplicate, in the order computed here from the generator's facts. Each
//! test first asks raw Zoekt whether its query really ties, so it fails if the fixture stops
//! tying. The in-process `adversary` then springs what a real Zoekt cannot be made to do on
//! demand: every tie group reshuffled on every call, a novel-extension file boosted from
//! beyond the cut.

use crate::support;

use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::Hash;

use support::{ToolCalls, keys};
use zoekt_pager::tools::find_references::{ReferenceItem, ReferenceRole};
use zoekt_pager::{Page, PageArgs, PagerConfig, ToolError};

use support::oracle::{self, RawFile};
use support::{pager, walk};

/// Repositories of the tie corpus, in the order the engine must list their tied copies of
/// `path`: by the contract's file key.
fn tie_repos(path: &str) -> Vec<String> {
    let mut repos: Vec<String> = (0..40).map(|i| format!("tie-{i:02}")).collect();
    repos.sort_by_cached_key(|r| oracle::file_key(r, path, &[]));
    repos
}

/// Limit sequences walked over every tied query (the last limit repeats).
const LIMITS: [&[u32]; 5] = [&[1], &[3], &[7], &[30], &[1, 7, 3, 30]];

/// Fails unless every file has bit-for-bit the same score, listing the scores if not.
fn assert_same_score(what: &str, files: &[RawFile]) {
    assert!(!files.is_empty(), "{what}: Zoekt found no file");
    let bits = files[0].score.to_bits();
    if files.iter().any(|f| f.score.to_bits() != bits) {
        let listed: Vec<String> = files
            .iter()
            .map(|f| format!("  {:?}  {}/{}", f.score, f.repo, f.path))
            .collect();
        panic!(
            "{what}: the files do not tie, so this test would test no tie:\n{}",
            listed.join("\n")
        );
    }
}

/// Raw Zoekt's answer to `q`, after asserting every file of it has the same score.
async fn assert_all_tied(url: &str, q: &str) -> Vec<RawFile> {
    let files = oracle::search(url, q, 0).await;
    assert_same_score(&format!("`{q}`"), &files);
    assert_eq!(files.len(), 40, "`{q}`: one file per tie repository");
    files
}

/// Asserts that the 40 copies of each path among raw Zoekt's `files` for `q` tie; returns the
/// paths by descending score (the engine's order between the tie groups).
fn assert_tied_per_path(q: &str, files: &[RawFile]) -> Vec<String> {
    let mut groups: Vec<(String, Vec<RawFile>)> = Vec::new();
    for f in files.iter().cloned() {
        match groups.iter_mut().find(|(p, _)| *p == f.path) {
            Some((_, g)) => g.push(f),
            None => groups.push((f.path.clone(), vec![f])),
        }
    }
    for (path, g) in &groups {
        assert_same_score(&format!("`{q}`, {path}"), g);
        assert_eq!(g.len(), 40, "`{q}`: {path} in every tie repository");
    }
    groups.sort_by(|a, b| b.1[0].score.total_cmp(&a.1[0].score));
    assert!(
        groups.windows(2).all(|w| w[0].1[0].score > w[1].1[0].score),
        "`{q}`: different paths must not tie with each other"
    );
    groups.into_iter().map(|(p, _)| p).collect()
}

/// Walks with every limit sequence in `limits` and checks each walk against `expected`:
/// consecutive offsets, no duplicate, the same items in the same order.
async fn check_walks<T, K, F>(
    what: &str,
    limits: &[&[u32]],
    expected: &[K],
    key: impl Fn(&T) -> K,
    mut fetch: F,
) where
    T: Clone,
    K: Eq + Hash + Debug + Clone,
    F: AsyncFnMut(&PageArgs) -> Result<Page<T>, ToolError>,
{
    for limits in limits {
        let pages = walk(limits, async |a| fetch(a).await).await;
        let mut keys = Vec::new();
        let mut page_of = Vec::new();
        for (n, p) in pages.iter().enumerate() {
            assert_eq!(
                p.offset,
                keys.len() as u64,
                "{what}, limits {limits:?}: page {}",
                n + 1
            );
            keys.extend(p.items.iter().map(&key));
            page_of.extend(std::iter::repeat_n(n + 1, p.count));
        }
        let mut seen = HashMap::new();
        for (i, k) in keys.iter().enumerate() {
            if let Some(first) = seen.insert(k.clone(), i) {
                panic!(
                    "{what}, limits {limits:?}: {k:?} is item {first} (page {}) and again item \
                     {i} (page {})",
                    page_of[first], page_of[i]
                );
            }
        }
        if let Some(i) =
            (0..keys.len().max(expected.len())).find(|&i| keys.get(i) != expected.get(i))
        {
            panic!(
                "{what}, limits {limits:?}: {} items, {} expected; item {i} (page {}) is {:?}, \
                 expected {:?}",
                keys.len(),
                expected.len(),
                page_of.get(i).map_or("-".into(), |p| p.to_string()),
                keys.get(i),
                expected.get(i)
            );
        }
    }
}

type LineKey = (String, String, u32);

/// `tieLineProbe`: 3 lines in each src/tiegroup.go, 120 line items in 40 tied files.
fn tie_line_items() -> Vec<LineKey> {
    tie_repos("src/tiegroup.go")
        .into_iter()
        .flat_map(|r| [6, 7, 8].map(|l| (r.clone(), "src/tiegroup.go".to_string(), l)))
        .collect()
}

#[tokio::test]
async fn lines_of_tied_files_page_identically_at_every_limit() {
    let url = support::ties_zoekt("lines_of_tied_files_page_identically_at_every_limit");
    let q = "tieLineProbe";
    let raw = assert_all_tied(&url, q).await;
    assert!(raw.iter().all(|f| f.line_numbers() == [6, 7, 8]), "{raw:?}");
    let p = pager(&url);
    let expected = tie_line_items();
    assert_eq!(expected.len(), 120);
    check_walks(
        "search tieLineProbe",
        &LIMITS,
        &expected,
        keys::line,
        async |a| p.lines("tieLineProbe", 0, a).await,
    )
    .await;
}

#[tokio::test]
async fn limit_one_walks_survive_zoekts_reshuffling() {
    let url = support::ties_zoekt("limit_one_walks_survive_zoekts_reshuffling");
    let q = "tieLineProbe";
    assert_all_tied(&url, q).await;
    let p = pager(&url);
    let expected = tie_line_items();
    for run in 1..=5 {
        let what = format!("search tieLineProbe, run {run}");
        check_walks(&what, &[&[1]], &expected, keys::line, async |a| {
            p.lines("tieLineProbe", 0, a).await
        })
        .await;
    }
}

#[tokio::test]
async fn tied_file_names_page_identically_at_every_limit() {
    let url = support::ties_zoekt("tied_file_names_page_identically_at_every_limit");
    assert_all_tied(&url, "file:LICENSE").await;
    let p = pager(&url);
    let expected: Vec<(String, String)> = tie_repos("LICENSE")
        .into_iter()
        .map(|r| (r, "LICENSE".to_string()))
        .collect();
    check_walks(
        "search_files LICENSE",
        &LIMITS,
        &expected,
        keys::file,
        async |a| p.files("LICENSE", a).await,
    )
    .await;
}

#[tokio::test]
async fn tied_symbols_page_identically_at_every_limit() {
    let url = support::ties_zoekt("tied_symbols_page_identically_at_every_limit");
    assert_all_tied(&url, "sym:TieGroupProbe").await;
    let p = pager(&url);
    let expected: Vec<(String, String, u32, String)> = tie_repos("src/tiegroup.go")
        .into_iter()
        .map(|r| (r, "src/tiegroup.go".into(), 4, "TieGroupProbe".into()))
        .collect();
    check_walks(
        "search_symbols TieGroupProbe",
        &LIMITS,
        &expected,
        keys::symbol,
        async |a| p.symbols("TieGroupProbe", &[], a).await,
    )
    .await;
}

#[tokio::test]
async fn tied_references_page_identically_at_every_limit() {
    let url = support::ties_zoekt("tied_references_page_identically_at_every_limit");
    // Literal queries (not built by the crate): definitions by symbol, usages by whole word
    // (the contract's usages query also asks the symbol, so Zoekt marks definition lines).
    let (definitions, usages) = (
        "case:yes sym:^TieGroupProbe$",
        r"case:yes (sym:^TieGroupProbe$ or content:\bTieGroupProbe\b)",
    );
    assert_all_tied(&url, definitions).await;
    // Usages come from two tied groups: the line above the definition (the doc comment names
    // TieGroupProbe as a whole word) and the call in src/helper.go.
    let usage_paths = assert_tied_per_path(usages, &oracle::search(&url, usages, 0).await);
    let usage_line = |path: &str| match path {
        "src/tiegroup.go" => 3,
        "src/helper.go" => 4,
        other => panic!("`{usages}` matched unexpected {other}"),
    };
    let mut expected: Vec<(&str, String, String, u32)> = tie_repos("src/tiegroup.go")
        .into_iter()
        .map(|r| ("definition", r, "src/tiegroup.go".into(), 4))
        .collect();
    for path in &usage_paths {
        for r in tie_repos(path) {
            expected.push(("usage", r, path.clone(), usage_line(path)));
        }
    }
    assert_eq!(expected.len(), 120, "40 definitions, then 80 usages");
    let p = pager(&url);
    check_walks(
        "find_references TieGroupProbe",
        &LIMITS,
        &expected,
        |r: &ReferenceItem| {
            let role = match r.role {
                ReferenceRole::Definition => "definition",
                ReferenceRole::Reference => "usage",
            };
            (role, r.repo.clone(), r.path.clone(), r.line)
        },
        async |a| p.references("TieGroupProbe", "", a).await,
    )
    .await;
}

/// A real Zoekt trap on tied files: README.md (2 lines each, 40 tied copies) scores just
/// above src/helper.go, whose `.go` is a novel extension next to two README.md files, so
/// Zoekt boosts a helper.go to position 3. In a 3-file window that leaves two of the 40 tied
/// README.md files, picked by Zoekt's unstable sort, ahead of the boosted one.
#[tokio::test]
async fn tied_files_ahead_of_a_boosted_file_page_identically() {
    let url = support::ties_zoekt("tied_files_ahead_of_a_boosted_file_page_identically");
    let q = "repository or ieHelper";
    let raw = oracle::search(&url, q, 0).await;
    let paths = assert_tied_per_path(q, &raw);
    assert_eq!(paths, ["README.md", "src/helper.go", "src/tiegroup.go"]);
    let lines: HashMap<&str, &[u32]> = [
        ("README.md", &[1, 3][..]),
        ("src/helper.go", &[3][..]),
        ("src/tiegroup.go", &[3][..]),
    ]
    .into();
    assert!(
        raw.iter()
            .all(|f| f.line_numbers() == lines[f.path.as_str()]),
        "{raw:?}"
    );
    let window = oracle::search(&url, q, 3).await;
    assert_eq!(
        window[2].path, "src/helper.go",
        "Zoekt no longer boosts the novel extension: {window:?}"
    );
    let mut expected: Vec<LineKey> = Vec::new();
    for path in &paths {
        for r in tie_repos(path) {
            for &l in lines[path.as_str()] {
                expected.push((r.clone(), path.clone(), l));
            }
        }
    }
    assert_eq!(expected.len(), 160);
    let p = pager(&url);
    // Zoekt's sort of tied files is unstable: ten runs of two walks (160 pages at limit 1, 80
    // at limit 2), each page a fresh request that may pick other README.md files. The runs go
    // side by side: each is a chain of requests waiting on Zoekt, not a load on it.
    let runs = (1..=10).map(|run| {
        let (p, expected) = (&p, &expected);
        async move {
            check_walks(
                &format!("search `{q}`, run {run}"),
                &[&[2], &[1]],
                &expected[..],
                keys::line,
                async |a| p.lines(q, 0, a).await,
            )
            .await
        }
    });
    futures_util::future::join_all(runs).await;
}

/// A tie wider than the largest window: 40 tied LICENSE files, at most 8 files a request. The
/// first page is full, up to the 8 files a window holds (it used to be empty: every file sat
/// at the untrusted edge), no walk
/// repeats an item, each walk moves forward in the contract's order, and every page says
/// that tied files beyond the window may be missing.
#[tokio::test]
async fn a_tie_wider_than_the_window_still_pages_forward() {
    let url = support::ties_zoekt("a_tie_wider_than_the_window_still_pages_forward");
    assert_all_tied(&url, "file:LICENSE").await;
    let cfg = PagerConfig {
        max_window: 8,
        ..PagerConfig::default()
    };
    let p = support::pager_with(&url, cfg);
    let order = tie_repos("LICENSE");
    for limits in LIMITS {
        let pages = walk(limits, async |a| p.files("LICENSE", a).await).await;
        assert_eq!(
            pages[0].count as u32,
            limits[0].min(8),
            "limits {limits:?}: the first page is as full as the window allows"
        );
        let mut previous = None;
        for page in &pages {
            assert!(!page.complete, "limits {limits:?}");
            assert!(
                zoekt_pager::form::page_warnings(page)
                    .iter()
                    .any(|w| w.contains("--max-window")),
                "limits {limits:?}: {:?}",
                page.warnings
            );
            for item in &page.items {
                let rank = order.iter().position(|r| *r == item.repo).unwrap();
                if let Some(prev) = previous {
                    assert!(rank > prev, "limits {limits:?}: {} goes back", item.repo);
                }
                previous = Some(rank);
            }
        }
    }
}

/// The 40-way tie at the default window: the first page is full at every limit (the walks
/// themselves are checked item by item above).
#[tokio::test]
async fn the_forty_way_tie_fills_the_first_page() {
    let url = support::ties_zoekt("the_forty_way_tie_fills_the_first_page");
    let p = pager(&url);
    for limit in [1, 3, 7, 30] {
        let page = p
            .files("LICENSE", &support::first_page(limit))
            .await
            .unwrap();
        assert_eq!(page.count as u32, limit);
        assert!(page.complete && page.total.exact && page.total.value == 40);
    }
}
