//! The census of a result: which files hold its items, and how many each, over the whole
//! result when Zoekt returned all of it, otherwise over a large sample scaled to the total.
//! What suggested ways to narrow are counted from (`suggest.rs`).
//!
//! Why a census, and not the page's own files: on real code a broad query's first thirty
//! results sit in one to three files, so counts over them say nothing of where the other
//! tens of thousands are. The census reads the best-ranked [`CENSUS_FILES`] files (or every
//! file, when there are fewer), from the answer the page's own window is read from where it
//! can be that answer: a first page with no context lines asks Zoekt for that many files in
//! its one request, and later pages of the walk are cut from the same answer in the window
//! cache. With context lines, the census is one more request without them, sent at the same
//! time as the page's. A census is a prefix of Zoekt's order that does not depend on the
//! window it was read from (the files certain to lead it, `answer.rs`), so it is the same
//! with the cache on or off.
//!
//! What a count is worth ([`CountKind`]) depends on what the census saw. Every file Zoekt
//! found, and nothing left out: exact. Every file Zoekt found, but Zoekt left files unsearched
//! (its per-shard match cap, its time budget): a narrowed call searches at least those files
//! again and stops later or never, so it holds at least as many. A sample: the best-ranked
//! files are not a random draw (Zoekt ranks by match quality, then repository and document
//! order), and measured on real code, a sample of a thousand files of eight thousand put
//! counts off by two to nine times either way, while one of more than half of them kept
//! within a factor of 1.5. So a sample of at least half the files is scaled to the total in
//! Zoekt's own unit for the tool's total (matching lines, or files) and said to be an
//! estimate; a smaller one is not scaled, and its counts are lower bounds.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::backend::SearchStats;

/// Files a census reads: Zoekt's best-ranked this many (within `--max-window`), so that counts
/// per repository, language and directory describe the result, not its first files. Most
/// broad queries on real code match a few thousand files: this many holds all or most of
/// them.
pub const CENSUS_FILES: u32 = 5_000;

/// Files a count settles for when Zoekt's answer for every file is too big to read: one
/// more request, not a search for the biggest answer that fits (`count_only`).
pub const SAMPLE_WHEN_TOO_BIG: u32 = 1_000;

/// A sample of at least this share of the files Zoekt found is scaled to the whole. Measured
/// on real code, 45% of 11,209 files kept every count within 5% over hundreds of
/// repositories, and put them off by twice either way over the same files as one.
const SCALED_SHARE: f64 = 0.5;

/// What a census's counts are worth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CountKind {
    /// The whole result: a narrowed call holds exactly this many.
    Exact,
    /// Estimated from a sample of at least half of the files, scaled to the total.
    About,
    /// A lower bound: the items seen, when Zoekt left files unsearched or the sample is
    /// small. A narrowed call holds at least this many.
    AtLeast,
}

impl CountKind {
    /// What goes before a count in words: `""`, `"about "` or `"at least "`.
    pub fn words(self) -> &'static str {
        match self {
            CountKind::Exact => "",
            CountKind::About => "about ",
            CountKind::AtLeast => "at least ",
        }
    }

    /// The kind of counts added up over several censuses: the weakest of theirs.
    pub fn of_all(kinds: impl IntoIterator<Item = CountKind>) -> CountKind {
        kinds.into_iter().max().unwrap_or(CountKind::Exact)
    }
}

/// Where one file's items end in an item list, and what a filter can select it by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileFacts {
    /// Repository name.
    pub repo: String,
    /// Path inside the repository.
    pub path: String,
    /// Language, as the backend detected it (empty: unknown).
    pub language: String,
    /// One past the file's last item in the list.
    pub item_end: usize,
    /// Zoekt's matches in the file (its matching lines, and the file name when that
    /// matched), the unit of Zoekt's own match count.
    pub matches: u32,
}

/// A census of one backend query's result (a tool may run several queries for one page:
/// `find_references` runs two).
#[derive(Debug)]
pub struct CensusPart {
    /// The files counted, in page order, each with its items.
    pub files: Vec<CountedFile>,
    /// What its counts are worth.
    pub kind: CountKind,
    /// How many of the result's items one counted item stands for (1 unless estimated).
    pub scale: f64,
    /// Files that match the query, by Zoekt's count (at least those counted).
    pub files_total: u64,
    /// What is worked out of the census once and kept with it (`suggest.rs` ranks its ways
    /// there), so that a page cut from a cached answer does not count again.
    memo: OnceLock<Arc<dyn Any + Send + Sync>>,
}

/// One file of a census.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountedFile {
    /// Repository name.
    pub repo: String,
    /// Path inside the repository.
    pub path: String,
    /// Language, as the backend detected it (empty: unknown).
    pub language: String,
    /// The tool's items in this file.
    pub items: u32,
}

impl CensusPart {
    /// The census of `facts`, the files of an answer certain to lead Zoekt's order for
    /// [`CENSUS_FILES`] files (every file it found when `ran_out`), with `stats`, Zoekt's
    /// statistics of the whole search, and whether Zoekt `left_out` files it did not search.
    /// `estimate` reads the tool's total from such statistics, the unit a sample is scaled in.
    pub(crate) fn new(
        facts: &[FileFacts],
        ran_out: bool,
        left_out: bool,
        stats: &SearchStats,
        estimate: fn(&SearchStats) -> u64,
    ) -> CensusPart {
        let files = counted(facts);
        // The sample's own statistics, as Zoekt would count them: its files, and its
        // matching lines (the file name counts as one, as in Zoekt's MatchCount).
        let sample = SearchStats {
            file_count: facts.len() as u64,
            match_count: facts.iter().map(|f| u64::from(f.matches)).sum(),
            ..SearchStats::default()
        };
        let share = facts.len() as f64 / stats.file_count.max(1) as f64;
        let (kind, scale) = match (ran_out, left_out) {
            (true, false) => (CountKind::Exact, 1.0),
            (true, true) => (CountKind::AtLeast, 1.0),
            (false, false) if share >= SCALED_SHARE => {
                let (whole, seen) = (estimate(stats), estimate(&sample));
                let scale = if seen == 0 {
                    1.0
                } else {
                    (whole as f64 / seen as f64).max(1.0)
                };
                (CountKind::About, scale)
            }
            (false, _) => (CountKind::AtLeast, 1.0),
        };
        CensusPart {
            files,
            kind,
            scale,
            files_total: stats.file_count.max(facts.len() as u64),
            memo: OnceLock::new(),
        }
    }

    /// A census of these counted files (for tests of what reads a census).
    #[cfg(test)]
    pub(crate) fn of_counted(
        files: Vec<CountedFile>,
        kind: CountKind,
        scale: f64,
        files_total: u64,
    ) -> CensusPart {
        CensusPart {
            files,
            kind,
            scale,
            files_total,
            memo: OnceLock::new(),
        }
    }

    /// What `work` works out of this census, the first time it is asked (later, the same).
    /// `None` when what was kept is of another type (it is never replaced).
    pub(crate) fn memo<R: Any + Send + Sync>(&self, work: impl FnOnce() -> R) -> Option<Arc<R>> {
        let kept = self.memo.get_or_init(|| Arc::new(work()));
        Arc::clone(kept).downcast::<R>().ok()
    }

    /// A census of the items a page collected, when no census could be taken (its request
    /// failed or its answer was too big to read): the page's files, exact when they are the
    /// whole result, else lower bounds.
    pub(crate) fn of_files(files: &[(&FileFacts, usize)], exact: bool) -> CensusPart {
        CensusPart {
            files: files
                .iter()
                .map(|(f, items)| CountedFile {
                    repo: f.repo.clone(),
                    path: f.path.clone(),
                    language: f.language.clone(),
                    items: u32::try_from(*items).unwrap_or(u32::MAX),
                })
                .collect(),
            kind: if exact {
                CountKind::Exact
            } else {
                CountKind::AtLeast
            },
            scale: 1.0,
            files_total: files.len() as u64,
            memo: OnceLock::new(),
        }
    }
}

/// Each file of `facts` (in page order, each ending its items at `item_end`) with its items.
fn counted(facts: &[FileFacts]) -> Vec<CountedFile> {
    let mut start = 0;
    facts
        .iter()
        .map(|f| {
            let items = f.item_end - start;
            start = f.item_end;
            CountedFile {
                repo: f.repo.clone(),
                path: f.path.clone(),
                language: f.language.clone(),
                items: u32::try_from(items).unwrap_or(u32::MAX),
            }
        })
        .collect()
}

/// Where a page's collection leaves the census of each query it ran, by query (a query
/// asked again, in a later round of the same page, replaces its census).
#[derive(Debug, Default)]
pub struct CensusSink {
    parts: Mutex<HashMap<String, Arc<CensusPart>>>,
}

impl CensusSink {
    /// Keeps `part`, the census of `query`.
    pub(crate) fn put(&self, query: &str, part: Arc<CensusPart>) {
        self.parts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(query.to_string(), part);
    }

    /// The censuses left, in a stable order (by query).
    pub(crate) fn take(self) -> Vec<Arc<CensusPart>> {
        let mut parts: Vec<(String, Arc<CensusPart>)> = self
            .parts
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .into_iter()
            .collect();
        parts.sort_by(|a, b| a.0.cmp(&b.0));
        parts.into_iter().map(|(_, p)| p).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::backend::RankedFile;

    #[test]
    fn a_later_census_of_the_same_query_replaces_the_earlier() {
        let sink = CensusSink::default();
        let part = |n| Arc::new(CensusPart::of_files(&[], n));
        sink.put("b", part(false));
        sink.put("a", part(false));
        sink.put("a", part(true));
        let parts = sink.take();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].kind, CountKind::Exact);
        assert_eq!(parts[1].kind, CountKind::AtLeast);
    }

    // The census end to end, through the engine and a fake Zoekt.

    use crate::engine::Pager;
    use crate::engine::backend::BackendErrorKind;
    use crate::engine::config::PagerConfig;
    use crate::engine::testing::{FakeBackend, LineArgs, LineTool, line};

    const Q: &str = "census";

    /// 3,000 files of one item each, a thousand in each of three repositories, scores
    /// falling (ties in fours).
    fn backend() -> FakeBackend {
        let files = (0..3000)
            .map(|i| RankedFile {
                repo: format!("r{}", i % 3),
                path: format!("d{}/f{i:04}.go", i % 10),
                language: "Go".into(),
                score: 10_000.0 - (i / 4) as f64,
                lines: vec![line(1, "census")],
                ..Default::default()
            })
            .collect();
        FakeBackend::new().with(Q, files)
    }

    fn first_page() -> LineArgs {
        LineArgs {
            query: Q.into(),
            limit: Some(30),
            ..Default::default()
        }
    }

    fn repos(p: &crate::engine::page::Page<crate::engine::testing::LineItem>) -> Vec<String> {
        let n = p.narrowing.as_ref().expect("ways to narrow");
        n.ways
            .iter()
            .map(|w| format!("{} {}", w.by, w.items))
            .collect()
    }

    #[tokio::test]
    async fn a_first_page_counts_the_whole_result_off_its_own_answer() {
        let p = Pager::new(backend(), PagerConfig::default());
        let page = p.page::<LineTool>(&first_page()).await.unwrap();
        // One request, for the census's files: Zoekt had fewer, so they are all of them.
        assert_eq!(p.backend().files_asked(Q), [CENSUS_FILES]);
        let n = page.narrowing.as_ref().unwrap();
        assert_eq!(
            (n.counts, n.files_read, n.files_total),
            (CountKind::Exact, 3000, 3000)
        );
        assert!(
            repos(&page).contains(&"repository r1 1000".to_string()),
            "{:?}",
            repos(&page)
        );
        // Without suggestions, the page asks for its own window only.
        let plain = PagerConfig {
            suggest_filters: false,
            ..PagerConfig::default()
        };
        let p = Pager::new(backend(), plain);
        let page = p.page::<LineTool>(&first_page()).await.unwrap();
        assert_eq!(p.backend().files_asked(Q), [34]);
        assert!(page.narrowing.is_none());
    }

    #[tokio::test]
    async fn an_answer_too_big_for_the_census_falls_back_to_a_smaller_one_then_the_page() {
        let b = backend();
        b.fail(BackendErrorKind::TooBig, 1500);
        let p = Pager::new(b, PagerConfig::default());
        let page = p.page::<LineTool>(&first_page()).await.unwrap();
        assert_eq!(
            p.backend().files_asked(Q),
            [CENSUS_FILES, SAMPLE_WHEN_TOO_BIG]
        );
        // A thousand of 3,000 files (less the tied ones at its edge): a third, not scaled,
        // so lower bounds.
        let n = page.narrowing.as_ref().unwrap();
        assert_eq!(n.counts, CountKind::AtLeast);
        assert!((990..=1000).contains(&n.files_read), "{}", n.files_read);
        let b = backend();
        b.fail(BackendErrorKind::TooBig, 500);
        let p = Pager::new(b, PagerConfig::default());
        let page = p.page::<LineTool>(&first_page()).await.unwrap();
        assert_eq!(
            p.backend().files_asked(Q),
            [CENSUS_FILES, SAMPLE_WHEN_TOO_BIG, 34]
        );
        assert_eq!(page.count, 30);
    }

    #[tokio::test]
    async fn a_count_settles_for_a_sample_when_every_file_is_too_big_to_read() {
        let b = backend();
        b.fail(BackendErrorKind::TooBig, 2000);
        let p = Pager::new(b, PagerConfig::default());
        let args = LineArgs {
            count_only: true,
            ..first_page()
        };
        let page = p.page::<LineTool>(&args).await.unwrap();
        // Two requests, not a search for the biggest answer that fits.
        assert_eq!(
            p.backend().files_asked(Q),
            [CENSUS_FILES, SAMPLE_WHEN_TOO_BIG]
        );
        assert!(!page.total.exact);
        assert_eq!(page.total.value, 3000);
        assert!(page.narrowing.is_some());
    }

    #[tokio::test]
    async fn with_context_lines_the_census_is_a_request_of_its_own_without_them() {
        use crate::engine::cursor::{RequestKey, Scope};
        use crate::engine::tool::Want;
        let p = Pager::new(backend(), PagerConfig::default());
        let sink = CensusSink::default();
        let requests = std::sync::atomic::AtomicU32::new(0);
        let key = RequestKey::new(Scope { id: 1 }, &[Q], "");
        let want = Want {
            needed: 31,
            after: None,
            request: &key,
            lookahead: 30,
            requests: &requests,
            census: Some(&sink),
            whole_or_sample: false,
        };
        let w = p
            .window(
                &want,
                Q,
                2,
                31,
                |f: &RankedFile| vec![f.path.clone()],
                |s| s.match_count,
            )
            .await
            .unwrap();
        assert!(w.len() >= 31);
        let asked: Vec<(u32, u32)> = p
            .backend()
            .requests()
            .iter()
            .map(|s| (s.max_files, s.context_lines))
            .collect();
        assert_eq!(asked.len(), 2);
        assert!(
            asked.contains(&(34, 2)) && asked.contains(&(CENSUS_FILES, 0)),
            "{asked:?}"
        );
        let parts = sink.take();
        assert_eq!(parts.len(), 1);
        assert_eq!(
            (parts[0].kind, parts[0].files.len()),
            (CountKind::Exact, 3000)
        );
    }
}
