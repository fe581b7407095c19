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
use std::future::Future;
use std::time::Duration;

use crate::zoekt::wire::{FileMatch, RepoList, SearchOptions, SearchRequest, SearchResult};
use crate::zoekt::{Readiness, ZoektClient, ZoektError};

/// What the paging engine needs from Zoekt. [`ZoektClient`] is the real one; the regression
/// harness wraps it to record exchanges.
pub trait Backend: Send + Sync {
    fn search(
        &self,
        req: &SearchRequest,
    ) -> impl Future<Output = Result<SearchResult, ZoektError>> + Send;
    fn list(&self, query: &str) -> impl Future<Output = Result<RepoList, ZoektError>> + Send;
    /// `/readyz` (or `/healthz`): whether Zoekt can serve searches now.
    fn readiness(&self) -> impl Future<Output = Result<Readiness, ZoektError>> + Send;
}

impl Backend for ZoektClient {
    fn search(
        &self,
        req: &SearchRequest,
    ) -> impl Future<Output = Result<SearchResult, ZoektError>> + Send {
        ZoektClient::search(self, req)
    }
    fn list(&self, query: &str) -> impl Future<Output = Result<RepoList, ZoektError>> + Send {
        ZoektClient::list(self, query)
    }
    fn readiness(&self) -> impl Future<Output = Result<Readiness, ZoektError>> + Send {
        ZoektClient::readiness(self)
    }
}

/// Search effort, fixed per deployment and never derived from the page (see module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effort {
    pub shard_max_match_count: u32,
    pub total_max_match_count: u32,
    pub max_wall_time: Duration,
}

impl Effort {
    /// Search options asking for `max_doc_display_count` files (0 = all) with these caps.
    pub fn options(&self, max_doc_display_count: u32) -> SearchOptions {
        SearchOptions {
            max_doc_display_count,
            shard_max_match_count: self.shard_max_match_count,
            total_max_match_count: self.total_max_match_count,
            max_wall_time: self.max_wall_time.as_nanos() as u64,
            ..SearchOptions::default()
        }
    }
}

impl Default for Effort {
    fn default() -> Self {
        Effort {
            shard_max_match_count: 10_000,
            total_max_match_count: 100_000,
            max_wall_time: Duration::from_secs(10),
        }
    }
}

/// One window fetch to run.
#[derive(Debug, Clone)]
pub struct WindowSpec<'a> {
    pub query: &'a str,
    pub effort: Effort,
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
    pub stats: SearchResult,
    /// `MaxDocDisplayCount` of the last fetch.
    pub files_asked: u32,
}

/// Runs the growing window fetch; `flatten` turns one file into its items.
pub async fn fetch<B, T, F>(
    backend: &B,
    spec: &WindowSpec<'_>,
    flatten: F,
) -> Result<Window<T>, ZoektError>
where
    B: Backend + ?Sized,
    F: Fn(&FileMatch) -> Vec<T>,
{
    let max_files = spec.max_files.max(1);
    let mut files_asked = clamp_u32(spec.needed).clamp(1, max_files);
    loop {
        let req = SearchRequest {
            q: spec.query.to_string(),
            opts: SearchOptions {
                num_context_lines: spec.context_lines,
                ..spec.effort.options(files_asked)
            },
        };
        let mut result = backend.search(&req).await?;
        let files = std::mem::take(&mut result.files);
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
                stats: result,
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
pub fn page_order(a: &FileMatch, b: &FileMatch) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| a.repository.cmp(&b.repository))
        .then_with(|| a.file_name.cmp(&b.file_name))
}

/// A file's extension as Zoekt's novelty boost sees it (Go's `path.Ext`): from the last dot of
/// the last path element, or empty.
fn extension(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rfind('.').map_or("", |i| &name[i..])
}

/// Sorts the window into page order and keeps the files whose place in the global order is
/// certain. `files` is in Zoekt's order, which is needed to spot a boosted file.
fn trusted_files(mut files: Vec<FileMatch>, exhausted: bool) -> Vec<FileMatch> {
    // Zoekt sorts every file, moves the first one whose extension is not among the top two's
    // up to position 3 (index 2), and only then cuts the list. Such a file may come from far
    // below the cut, so its score says nothing about the edge. With a fourth file, a boosted
    // third scores below it; in a window of exactly three there is no fourth to compare, so a
    // third file with a new extension may have been boosted (docs/zoekt.md, "Ordering").
    let boosted = match files.len() {
        3 => {
            let ext = extension(&files[2].file_name);
            (extension(&files[0].file_name) != ext && extension(&files[1].file_name) != ext)
                .then_some(2)
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
    files.retain(|f| seen.insert((f.repository.clone(), f.file_name.clone())));
    files.sort_by(page_order);
    if !exhausted && let Some(edge) = edge {
        files.retain(|f| f.score > edge);
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(repo: &str, path: &str, score: f64) -> FileMatch {
        FileMatch {
            repository: repo.into(),
            file_name: path.into(),
            score,
            ..Default::default()
        }
    }

    fn names(files: &[FileMatch]) -> Vec<String> {
        files
            .iter()
            .map(|f| format!("{}/{}", f.repository, f.file_name))
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
}
