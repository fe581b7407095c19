//! In-process fakes for unit tests: no Zoekt, no network. A fake [`Backend`] here, and fake
//! tools in `tools.rs` ([`LineTool`], [`SectionTool`]), so that the engine's tests need no
//! real one.
//!
//! [`FakeBackend`] answers each query string from a fixed list of files, the way Zoekt would
//! for `MaxDocDisplayCount`: best score first, cut at the number of files asked, with
//! statistics of the whole search. It records every [`FileSearch`] it receives, so a test can
//! check how many files each request asked for and that the effort never changed.
//!
//! A test may change a query's files between calls (an index change) and make answers report
//! a cut (skipped shards or files, crashes). Not modelled: Zoekt's novelty boost (a file with
//! a new extension moved up to position 3), real budgets and timeouts; errors only as
//! [`FakeBackend::fail`] makes them. Tied files come back in the order the fixture lists them
//! (Zoekt's own order of ties is arbitrary), so a fixture can list them in any order it likes,
//! e.g. the reverse of page order, to show that the engine does not depend on it.

use std::collections::HashMap;
use std::sync::Mutex;

use super::backend::{
    Backend, BackendError, BackendErrorKind, FileSearch, Fragment, IndexStats, IndexedRepo,
    MatchedLine, RankedFile, RankedFiles, Readiness, RepoListing, SearchStats, Shape,
};

mod tools;

pub(crate) use tools::{LineArgs, LineItem, LineTool, SectionTool, pages_at_once};

/// A [`Backend`] answering from a map query → files, and recording every search.
#[derive(Debug, Default)]
pub(crate) struct FakeBackend {
    /// The files each query matches, in any order, and the cut reported with them.
    results: Mutex<HashMap<String, (Vec<RankedFile>, SearchStats)>>,
    /// Every search received, in order.
    requests: Mutex<Vec<FileSearch>>,
    /// How long each search takes (zero: none).
    delay: Mutex<std::time::Duration>,
    /// How long each census (search of names only) takes, on top of `delay`.
    census_delay: Mutex<std::time::Duration>,
    /// Censuses never fail (see [`FakeBackend::heal_census`]).
    census_heals: Mutex<bool>,
    /// Every search fails with this kind; or, with a file bound, only searches asking for
    /// more files than it (an answer too big to read).
    failure: Mutex<Option<(BackendErrorKind, u32)>>,
    /// What readiness says, when set; otherwise it follows the cuts (see `readiness`).
    ready: Mutex<Option<bool>>,
    /// Readiness never answers (a webserver that takes the request and hangs).
    readiness_hangs: Mutex<bool>,
    /// The next this many searches answer no files and one crashed shard.
    crash_next: Mutex<u32>,
    /// A window too big to read answers with its start (see [`FakeBackend::keep_starts`]).
    keeps_starts: Mutex<bool>,
    /// The repositories it lists, each in a shard of its own (set while it is built, so
    /// without a lock).
    listed: Vec<IndexedRepo>,
}

impl FakeBackend {
    /// A backend that knows no query (every search finds no files).
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Adds the files `query` matches (replacing any given before for it).
    pub(crate) fn with(self, query: &str, files: Vec<RankedFile>) -> Self {
        self.replace(query, files);
        self
    }

    /// Changes the files `query` matches from now on (the index changed).
    pub(crate) fn replace(&self, query: &str, files: Vec<RankedFile>) {
        let mut results = self.results.lock().expect("results lock");
        let cut = results.get(query).map(|r| r.1).unwrap_or_default();
        results.insert(query.to_string(), (files, cut));
    }

    /// From now on, answers to `query` report this cut: skipped shards and files and
    /// crashes are taken from `cut`, the counts stay the fake's own.
    pub(crate) fn cut(&self, query: &str, cut: SearchStats) {
        let mut results = self.results.lock().expect("results lock");
        results.entry(query.to_string()).or_default().1 = cut;
    }

    /// From now on, each search (and readiness) takes `delay` (so that concurrent searches
    /// overlap).
    pub(crate) fn slow(&self, delay: std::time::Duration) {
        *self.delay.lock().expect("delay lock") = delay;
    }

    /// Every census (search of names only) takes `delay` more before it answers.
    pub(crate) fn slow_census(&self, delay: std::time::Duration) {
        *self.census_delay.lock().expect("delay lock") = delay;
    }

    /// Lists `repos` (in place of none), each in a shard of its own.
    pub(crate) fn with_repos(self, repos: Vec<IndexedRepo>) -> Self {
        Self {
            listed: repos,
            ..self
        }
    }

    /// Makes every search asking for more than `over` files fail with `kind` (`over` 0: all,
    /// and the repository listing too).
    pub(crate) fn fail(&self, kind: BackendErrorKind, over: u32) {
        *self.failure.lock().expect("failure lock") = Some((kind, over));
    }

    /// From now on, a page's window over the bound of [`FakeBackend::fail`] (with
    /// [`BackendErrorKind::TooBig`]) answers with its first files up to the bound, cut
    /// ([`RankedFiles::cut_at_bytes`]), as the Zoekt client reads one; other searches still
    /// fail.
    pub(crate) fn keep_starts(&self) {
        *self.keeps_starts.lock().expect("failure lock") = true;
    }

    /// Censuses (searches of names only) do not fail, whatever [`FakeBackend::fail`] says:
    /// their answers are small where the pages' are too big.
    pub(crate) fn heal_census(&self) {
        *self.census_heals.lock().expect("failure lock") = true;
    }

    /// Searches stop failing (undoes [`FakeBackend::fail`]).
    pub(crate) fn heal(&self) {
        *self.failure.lock().expect("failure lock") = None;
    }

    /// From now on, readiness never answers.
    pub(crate) fn hang_readiness(&self) {
        *self.readiness_hangs.lock().expect("readiness lock") = true;
    }

    /// From now on, readiness says `ready`, whatever the cuts.
    pub(crate) fn set_ready(&self, ready: bool) {
        *self.ready.lock().expect("ready lock") = Some(ready);
    }

    /// The next `n` searches of lines (of any query) answer no files and one crashed shard.
    pub(crate) fn crash_next(&self, n: u32) {
        *self.crash_next.lock().expect("crash lock") = n;
    }

    /// Every search received so far, oldest first.
    pub(crate) fn requests(&self) -> Vec<FileSearch> {
        self.requests.lock().expect("requests lock").clone()
    }

    /// The `max_files` of every search of lines received so far for `query`, oldest first.
    pub(crate) fn files_asked(&self, query: &str) -> Vec<u32> {
        self.requests()
            .iter()
            .filter(|s| s.query == query && !is_census(s.shape))
            .map(|s| s.max_files)
            .collect()
    }

    /// How many searches of lines (of any query) were received so far: the pages' own, not
    /// their censuses.
    pub(crate) fn line_searches(&self) -> usize {
        self.requests()
            .iter()
            .filter(|s| !is_census(s.shape))
            .count()
    }

    /// The answer to `search`, unrecorded.
    async fn answer(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
        let mut delay = *self.delay.lock().expect("delay lock");
        if is_census(search.shape) {
            delay += *self.census_delay.lock().expect("delay lock");
        }
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        let failure = *self.failure.lock().expect("failure lock");
        let failure = failure.filter(|_| {
            !is_census(search.shape) || !*self.census_heals.lock().expect("failure lock")
        });
        // `max_files` 0 asks for every file: more than any bound.
        let asks_more = |over: u32| search.max_files == 0 || search.max_files > over;
        if let Some((kind, over)) = failure.filter(|&(_, over)| asks_more(over)) {
            return Err(BackendError {
                kind,
                message: format!("the fake fails searches of more than {over} files"),
                files_within: None,
            });
        }
        // Crashes are the pages' own searches' (a census beside them would take one at random).
        if !is_census(search.shape) {
            let mut crash = self.crash_next.lock().expect("crash lock");
            if *crash > 0 {
                *crash -= 1;
                return Ok(RankedFiles {
                    files: Vec::new(),
                    stats: SearchStats {
                        crashes: 1,
                        ..SearchStats::default()
                    },
                    cut_at_bytes: false,
                });
            }
        }
        let results = |query: &str| {
            self.results
                .lock()
                .expect("results lock")
                .get(query)
                .cloned()
                .unwrap_or_default()
        };
        // A census carrying a search's lines, `(L) or (type:file (N))`, is answered as Zoekt
        // answers it: N's files by name, but L's with their lines and score.
        let carried = (search.shape == Shape::NamesCarryingLines)
            .then(|| {
                let (lines, names) = search
                    .query
                    .strip_prefix('(')?
                    .split_once(") or (type:file (")?;
                Some((lines.to_string(), names.strip_suffix("))")?.to_string()))
            })
            .flatten();
        let (mut files, mut cut) = match &carried {
            Some((_, names)) => results(names),
            None => results(&search.query),
        };
        if is_census(search.shape) {
            // Each file once, by name: a file-name match and no lines, one match each.
            for f in &mut files {
                f.lines.clear();
                f.path_matched = true;
            }
        }
        if let Some((lines, _)) = &carried {
            // One search: what cut either query cuts it.
            let (lines, lines_cut) = results(lines);
            cut = SearchStats {
                shards_skipped: cut.shards_skipped.max(lines_cut.shards_skipped),
                files_skipped: cut.files_skipped.max(lines_cut.files_skipped),
                crashes: cut.crashes.max(lines_cut.crashes),
                duration_ms: cut.duration_ms.max(lines_cut.duration_ms),
                missing_backends: cut.missing_backends | lines_cut.missing_backends,
                ..cut
            };
            // Both branches' files: L's with their lines.
            for l in lines {
                match files
                    .iter_mut()
                    .find(|f| (&f.repo, &f.path) == (&l.repo, &l.path))
                {
                    Some(f) => *f = l,
                    None => files.push(l),
                }
            }
        }
        let stats = SearchStats {
            file_count: files.len() as u64,
            match_count: files
                .iter()
                .map(|f| (f.lines.len() as u64).max(u64::from(f.path_matched)))
                .sum(),
            shards_skipped: cut.shards_skipped,
            files_skipped: cut.files_skipped,
            crashes: cut.crashes,
            duration_ms: cut.duration_ms,
            missing_backends: cut.missing_backends,
            shared_backends: 0,
        };
        files.sort_by(|a, b| b.score.total_cmp(&a.score));
        if search.max_files > 0 {
            files.truncate(search.max_files as usize);
        }
        Ok(RankedFiles {
            files,
            stats,
            cut_at_bytes: false,
        })
    }

    /// How many censuses (searches of names only) of `query` were received so far.
    pub(crate) fn censuses_asked(&self, query: &str) -> usize {
        self.requests()
            .iter()
            .filter(|s| s.query == query && is_census(s.shape))
            .count()
    }
}

impl Backend for FakeBackend {
    /// The query's files sorted by score, descending (ties in fixture order), cut at
    /// `max_files` (0: all); the statistics count every file and line of the query.
    async fn search(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
        self.requests
            .lock()
            .expect("requests lock")
            .push(search.clone());
        self.answer(search).await
    }

    /// [`FakeBackend::search`], or the start of an answer too big to read after
    /// [`FakeBackend::keep_starts`]: one request either way.
    async fn search_window(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
        let answer = self.search(search).await;
        let keeps = *self.keeps_starts.lock().expect("failure lock");
        let failure = *self.failure.lock().expect("failure lock");
        match (answer, failure) {
            (Err(e), Some((BackendErrorKind::TooBig, over)))
                if keeps && e.kind == BackendErrorKind::TooBig && over > 0 =>
            {
                let start = FileSearch {
                    max_files: over,
                    ..search.clone()
                };
                let mut answer = self.answer(&start).await?;
                // An answer of fewer files than the bound is whole: it was never too big.
                answer.cut_at_bytes = answer.files.len() == over as usize;
                Ok(answer)
            }
            (answer, _) => answer,
        }
    }

    /// The repositories given by [`FakeBackend::with_repos`] (none by default), whatever the
    /// query; fails as every search does after [`FakeBackend::fail`] with no file bound.
    async fn repos(
        &self,
        _query: &str,
        _wall_time: std::time::Duration,
    ) -> Result<RepoListing, BackendError> {
        if let Some((kind, 0)) = *self.failure.lock().expect("failure lock") {
            return Err(BackendError {
                kind,
                message: "the fake fails every call".into(),
                files_within: None,
            });
        }
        let repos = self.listed.clone();
        let n = repos.len() as u64;
        Ok(RepoListing {
            stats: IndexStats {
                repos: n,
                documents: repos.iter().map(|r| r.documents).sum(),
                shards: n,
                index_bytes: 1000 * n,
            },
            repos,
            ..RepoListing::default()
        })
    }

    /// As set by [`FakeBackend::set_ready`]; by default ready unless some answer reports
    /// crashed shards: like Zoekt's /readyz while shards are still loading.
    /// Takes the searches' delay too, then follows the cuts (or `set_ready`).
    async fn readiness(&self) -> Result<Readiness, BackendError> {
        if *self.readiness_hangs.lock().expect("readiness lock") {
            std::future::pending::<()>().await;
        }
        let delay = *self.delay.lock().expect("delay lock");
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        let results = self.results.lock().expect("results lock");
        let loading = match *self.ready.lock().expect("ready lock") {
            Some(ready) => !ready,
            None => results.values().any(|(_, cut)| cut.crashes > 0),
        };
        Ok(Readiness {
            status: if loading { 503 } else { 200 },
            detail: if loading { "loading" } else { "ready" }.into(),
            loading,
        })
    }
}

/// Line `n` of a file, matching at its start.
pub(crate) fn line(n: u32, text: &str) -> MatchedLine {
    MatchedLine {
        text: format!("{text}\n"),
        number: n,
        fragments: vec![Fragment {
            byte_offset: 0,
            symbol: None,
        }],
        ..Default::default()
    }
}

/// File `r/a.go` with these matching lines.
pub(crate) fn file(lines: Vec<MatchedLine>) -> RankedFile {
    RankedFile {
        path: "a.go".into(),
        repo: "r".into(),
        lines,
        ..Default::default()
    }
}

/// Whether a search of `shape` is a census (of names only, or carrying a search's lines).
fn is_census(shape: Shape) -> bool {
    matches!(shape, Shape::NamesOnly | Shape::NamesCarryingLines)
}
