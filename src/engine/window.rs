//! The window fetch: asking Zoekt for enough files to cut a page of items out of them.
//!
//! Zoekt can only be told how many FILES to return (`MaxDocDisplayCount`), sorts them with an
//! unstable sort and no tie-break, and may move one "novel extension" file up to position 3.
//! Pages are cut from ITEMS. This module bridges the two so that item `k` is the same item
//! whichever page asks for it:
//! 1. every fetch of one query sends the same effort caps, so every window searches the same
//!    candidate set and a bigger window only adds files at the end of the order;
//! 2. files are re-sorted by (score desc, repository, path), a total order;
//! 3. while Zoekt may hold more files, files tied with the window's lowest score may have tied
//!    partners outside the window: only files scoring strictly above that edge are trusted;
//! 4. the window grows (bounded) until the trusted files yield the items needed or Zoekt has
//!    nothing more.

use std::cmp::Ordering;
use std::collections::HashSet;

use super::backend::{Backend, BackendError, FileSearch, RankedFile, SearchStats};
use super::config::Effort;

/// One window fetch to run.
#[derive(Debug, Clone)]
pub struct WindowSpec<'a> {
    /// The backend query.
    pub query: &'a str,
    /// The effort caps, the same for every window of the query.
    pub effort: Effort,
    /// Context lines around each matching line.
    pub context_lines: u32,
    /// Items wanted (offset + limit + 1: the extra one tells whether more exist).
    pub needed: usize,
    /// Largest `MaxDocDisplayCount` ever sent.
    pub max_files: u32,
}

/// The trusted items of a window and what Zoekt said about the search.
#[derive(Debug, Clone)]
pub struct Window<T> {
    /// Items of the trusted files, in page order.
    pub items: Vec<T>,
    /// Zoekt has no files beyond the window: `items` is every item there is.
    pub exhausted: bool,
    /// The window reached `max_files` before holding `needed` items.
    pub capped: bool,
    /// Statistics of the last fetch.
    pub stats: SearchStats,
    /// `MaxDocDisplayCount` of the last fetch.
    pub files_asked: u32,
}

/// Runs the growing window fetch; `flatten` turns one file into its items.
pub async fn fetch<B, T, F>(
    backend: &B,
    spec: &WindowSpec<'_>,
    flatten: F,
) -> Result<Window<T>, BackendError>
where
    B: Backend + ?Sized,
    F: Fn(&RankedFile) -> Vec<T>,
{
    let max_files = spec.max_files.max(1);
    let mut files_asked = clamp_u32(spec.needed).clamp(1, max_files);
    loop {
        let search = FileSearch {
            query: spec.query.to_string(),
            effort: spec.effort,
            max_files: files_asked,
            context_lines: spec.context_lines,
            whole_content: false,
        };
        let ranked = backend.search(&search).await?;
        let files = ranked.files;
        let exhausted = files.len() < files_asked as usize;
        let trusted = trusted_files(files, exhausted);
        let mut items = Vec::new();
        for f in &trusted {
            items.extend(flatten(f));
        }
        let capped = !exhausted && items.len() < spec.needed && files_asked >= max_files;
        if exhausted || items.len() >= spec.needed || capped {
            return Ok(Window {
                items,
                exhausted,
                capped,
                stats: ranked.stats,
                files_asked,
            });
        }
        files_asked = next_window(
            files_asked,
            trusted.len(),
            items.len(),
            spec.needed,
            max_files,
        );
    }
}

/// Grows by the observed items-per-file ratio (with headroom), at least doubling, at most
/// to the cap: a handful of fetches even when most files yield nothing.
fn next_window(asked: u32, trusted: usize, items: usize, needed: usize, max: u32) -> u32 {
    let doubled = asked.saturating_mul(2);
    let estimate = if items == 0 || trusted == 0 {
        doubled
    } else {
        let per_file = items as f64 / trusted as f64;
        clamp_u32((needed as f64 / per_file * 1.25).ceil() as usize)
    };
    doubled.max(estimate).min(max)
}

fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The total order pages are cut from.
fn page_order(a: &RankedFile, b: &RankedFile) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| a.repo.cmp(&b.repo))
        .then_with(|| a.path.cmp(&b.path))
}

/// A file's extension as Zoekt's novelty boost sees it (Go's `path.Ext`): from the last dot of
/// the last path element, or empty.
fn extension(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rfind('.').map_or("", |i| &name[i..])
}

/// Sorts the window into page order and keeps the files whose place in the global order is
/// certain. `files` is in Zoekt's order, which is needed to spot a boosted file.
fn trusted_files(mut files: Vec<RankedFile>, exhausted: bool) -> Vec<RankedFile> {
    // Zoekt sorts every file, moves the first one whose extension is not among the top two's
    // up to position 3 (index 2), and only then cuts the list. Such a file may come from far
    // below the cut, so its score says nothing about the edge. With a fourth file, a boosted
    // third scores below it; in a window of exactly three there is no fourth to compare, so a
    // third file with a new extension may have been boosted (docs/zoekt.md, "Ordering").
    let boosted = match files.len() {
        3 => {
            let ext = extension(&files[2].path);
            (extension(&files[0].path) != ext && extension(&files[1].path) != ext).then_some(2)
        }
        n if n > 3 => (files[2].score < files[3].score).then_some(2),
        _ => None,
    };
    let edge = files
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != boosted)
        .map(|(_, f)| f.score)
        .min_by(f64::total_cmp);
    let mut seen = HashSet::new();
    files.retain(|f| seen.insert((f.repo.clone(), f.path.clone())));
    files.sort_by(page_order);
    if !exhausted && let Some(edge) = edge {
        files.retain(|f| f.score > edge);
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::FakeBackend;

    fn f(repo: &str, path: &str, score: f64) -> RankedFile {
        RankedFile {
            repo: repo.into(),
            path: path.into(),
            score,
            ..Default::default()
        }
    }

    fn names(files: &[RankedFile]) -> Vec<String> {
        files
            .iter()
            .map(|f| format!("{}/{}", f.repo, f.path))
            .collect()
    }

    #[test]
    fn ties_at_the_edge_are_not_trusted_until_exhausted() {
        let window = vec![f("b", "x", 9.0), f("a", "y", 5.0), f("c", "z", 5.0)];
        assert_eq!(names(&trusted_files(window.clone(), false)), ["b/x"]);
        assert_eq!(names(&trusted_files(window, true)), ["b/x", "a/y", "c/z"]);
    }

    #[test]
    fn a_third_file_with_a_new_extension_in_a_window_of_three_is_not_the_edge() {
        // Zoekt may have boosted a.rs from far below: b/y and c/y tie, and a third copy of
        // README.md could sit between them and a.rs. Only b/x is certain.
        let window = vec![
            f("b", "x.md", 9.0),
            f("b", "y.md", 8.0),
            f("a", "z.rs", 1.0),
        ];
        assert_eq!(names(&trusted_files(window.clone(), false)), ["b/x.md"]);
        // The same extension as the top two: nothing was boosted, the edge is a.
        let plain = vec![
            f("b", "x.md", 9.0),
            f("b", "y.md", 8.0),
            f("a", "z.md", 1.0),
        ];
        assert_eq!(names(&trusted_files(plain, false)), ["b/x.md", "b/y.md"]);
        assert_eq!(extension("dir.d/LICENSE"), "");
        assert_eq!(extension("src/a.tar.gz"), ".gz");
    }

    #[test]
    fn ties_are_broken_by_repo_then_path() {
        let window = vec![f("b", "p", 7.0), f("a", "q", 7.0), f("a", "p", 7.0)];
        assert_eq!(names(&trusted_files(window, true)), ["a/p", "a/q", "b/p"]);
    }

    #[test]
    fn a_boosted_file_does_not_lower_the_edge() {
        // Zoekt order: 10, 9, [boosted 1], 8, 7 — the boosted file came from below the cut, so
        // files scoring between 1 and 7 may be missing: trust only > 7.
        let window = vec![
            f("r", "a", 10.0),
            f("r", "b", 9.0),
            f("r", "novel.md", 1.0),
            f("r", "c", 8.0),
            f("r", "d", 7.0),
        ];
        assert_eq!(names(&trusted_files(window, false)), ["r/a", "r/b", "r/c"]);
    }

    #[test]
    fn duplicate_files_are_kept_once() {
        let window = vec![f("r", "a", 3.0), f("r", "a", 3.0)];
        assert_eq!(trusted_files(window, true).len(), 1);
    }

    #[test]
    fn growth_is_at_least_double_and_bounded() {
        assert_eq!(next_window(10, 10, 0, 31, 1000), 20);
        assert_eq!(next_window(10, 10, 5, 31, 1000), 78); // 0.5 items/file → 62 × 1.25
        assert_eq!(next_window(600, 600, 1, 10_000, 1000), 1000);
    }

    // The growing fetch, end to end against a fake Zoekt.

    const Q: &str = "q";

    /// A fetch of `Q` for `needed` items, at most `max_files` files a request.
    fn spec(needed: usize, max_files: u32) -> WindowSpec<'static> {
        WindowSpec {
            query: Q,
            effort: Effort::default(),
            context_lines: 0,
            needed,
            max_files,
        }
    }

    /// One item per file: its name.
    fn one_item(f: &RankedFile) -> Vec<String> {
        vec![format!("{}/{}", f.repo, f.path)]
    }

    /// `n` files `r/fNN.go` of distinct scores, best first.
    fn distinct(n: usize) -> Vec<RankedFile> {
        (0..n)
            .map(|i| f("r", &format!("f{i:03}.go"), (n - i) as f64))
            .collect()
    }

    async fn run(
        backend: &FakeBackend,
        spec: &WindowSpec<'_>,
        flatten: impl Fn(&RankedFile) -> Vec<String>,
    ) -> Window<String> {
        fetch(backend, spec, flatten)
            .await
            .expect("fake never fails")
    }

    #[tokio::test]
    async fn the_first_request_asks_for_exactly_the_items_needed_in_files() {
        for (needed, max_files, first) in [(4, 100, 4), (1, 100, 1), (0, 100, 1), (500, 50, 50)] {
            let backend = FakeBackend::new().with(Q, distinct(1000));
            run(&backend, &spec(needed, max_files), one_item).await;
            let asked = backend.files_asked(Q);
            assert_eq!(asked[0], first, "needed {needed}, max_files {max_files}");
        }
        // max_files 0 still asks for one file (never "all", which 0 means to Zoekt).
        let backend = FakeBackend::new().with(Q, distinct(10));
        run(&backend, &spec(5, 0), one_item).await;
        assert_eq!(backend.files_asked(Q), [1]);
    }

    #[tokio::test]
    async fn a_walk_needing_more_items_grows_at_least_double_within_max_files() {
        // 100 files, only every tenth (f009, f019, ...) yields an item.
        let sparse = |f: &RankedFile| {
            if f.path.ends_with("9.go") {
                one_item(f)
            } else {
                vec![]
            }
        };
        for max_files in [64, 1000] {
            let backend = FakeBackend::new().with(Q, distinct(100));
            let w = run(&backend, &spec(5, max_files), sparse).await;
            let asked = backend.files_asked(Q);
            assert!(asked.len() >= 3, "{asked:?}");
            assert_eq!(asked[0], 5);
            for pair in asked.windows(2) {
                assert!(
                    pair[1] >= pair[0] * 2 || pair[1] == max_files,
                    "{asked:?} grows too slowly"
                );
            }
            assert!(asked.iter().all(|&n| n <= max_files), "{asked:?}");
            assert!(w.items.len() >= 5, "{:?}", w.items);
            assert_eq!(
                w.items[..5],
                ["f009", "f019", "f029", "f039", "f049"].map(|p| format!("r/{p}.go"))
            );
            assert!(!w.capped);
            assert_eq!(w.files_asked, *asked.last().unwrap());
        }
    }

    /// A file scoring 9, four files tied at 5 (listed in reverse page order, so the fake
    /// returns them that way), then `behind` files scoring below them.
    fn tie_fixture(behind: usize) -> Vec<RankedFile> {
        let mut files = vec![
            f("a", "top.go", 9.0),
            f("t2", "a.go", 5.0),
            f("t1", "b.go", 5.0),
            f("t1", "a.go", 5.0),
            f("t0", "z.go", 5.0),
        ];
        files.extend((0..behind).map(|i| f("z", &format!("low{i}.go"), 1.0 - i as f64 / 10.0)));
        files
    }

    const TIED_IN_PAGE_ORDER: [&str; 4] = ["t0/z.go", "t1/a.go", "t1/b.go", "t2/a.go"];

    #[tokio::test]
    async fn a_tie_group_at_the_edge_is_held_back_until_the_window_passes_it() {
        // Windows of 4 and 5 files end inside the tie group (or right at its end, which Zoekt
        // cannot tell apart): more files follow, so no tied file is certain yet.
        for max_files in [2, 3, 4, 5] {
            let backend = FakeBackend::new().with(Q, tie_fixture(4));
            let w = run(&backend, &spec(2, max_files), one_item).await;
            assert_eq!(w.items, ["a/top.go"], "max_files {max_files}");
            assert!(w.capped && !w.exhausted, "max_files {max_files}");
        }
        // Room to grow: the fetch only stops once the window holds a file below the ties.
        let backend = FakeBackend::new().with(Q, tie_fixture(4));
        let w = run(&backend, &spec(2, 100), one_item).await;
        let last = *backend.files_asked(Q).last().unwrap();
        assert!(last > 5, "stopped at a window of {last} files");
        assert!(!w.exhausted && !w.capped);
        let mut expected = vec!["a/top.go"];
        expected.extend(TIED_IN_PAGE_ORDER);
        assert_eq!(w.items[..5], expected);
        assert!(
            w.items[5..].iter().all(|i| i.starts_with("z/low")),
            "{:?}",
            w.items
        );
        let lows: Vec<&String> = w.items[5..].iter().collect();
        let mut sorted = lows.clone();
        sorted.sort();
        assert_eq!(lows, sorted, "distinct scores, best first");
    }

    #[tokio::test]
    async fn a_tie_group_at_the_end_is_returned_once_zoekt_is_exhausted() {
        let backend = FakeBackend::new().with(Q, tie_fixture(0));
        let w = run(&backend, &spec(2, 100), one_item).await;
        let mut expected = vec!["a/top.go"];
        expected.extend(TIED_IN_PAGE_ORDER);
        assert_eq!(w.items, expected);
        assert!(w.exhausted && !w.capped);
    }

    #[tokio::test]
    async fn the_cap_is_reported_and_is_not_exhaustion() {
        // 50 files, 20 items wanted, at most 8 files a request: capped, not exhausted.
        let backend = FakeBackend::new().with(Q, distinct(50));
        let w = run(&backend, &spec(20, 8), one_item).await;
        assert!(w.capped && !w.exhausted);
        assert_eq!(w.files_asked, 8);
        assert!(backend.files_asked(Q).iter().all(|&n| n <= 8));
        // The last of the 8 files is the window's edge: only 7 are certain.
        assert_eq!(w.items.len(), 7);
        // Zoekt holds fewer files than asked for: exhausted, every item, not capped.
        let backend = FakeBackend::new().with(Q, distinct(5));
        let w = run(&backend, &spec(20, 100), one_item).await;
        assert!(w.exhausted && !w.capped);
        assert_eq!(w.items.len(), 5);
        assert_eq!(backend.files_asked(Q), [20]);
        // An unknown query: no files, exhausted at once.
        let w = run(&FakeBackend::new(), &spec(3, 100), one_item).await;
        assert!(w.exhausted && w.items.is_empty());
    }

    #[tokio::test]
    async fn every_request_of_one_fetch_carries_the_same_effort() {
        let effort = Effort {
            shard_max_match_count: 7,
            total_max_match_count: 70,
            max_wall_time_ms: 700,
        };
        let backend = FakeBackend::new().with(Q, distinct(100));
        let s = WindowSpec {
            effort,
            context_lines: 2,
            ..spec(4, 1000)
        };
        // Only every tenth file yields an item: several growths.
        let sparse = |f: &RankedFile| {
            if f.path.ends_with("9.go") {
                one_item(f)
            } else {
                vec![]
            }
        };
        run(&backend, &s, sparse).await;
        let requests = backend.requests();
        assert!(requests.len() >= 3, "{requests:?}");
        for r in &requests {
            assert_eq!(r.effort, effort);
            assert_eq!(r.query, Q);
            assert_eq!(r.context_lines, 2);
            assert!(!r.whole_content);
        }
    }
}
