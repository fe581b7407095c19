//! The seam between the engine and a search backend, in the engine's own terms.
//!
//! The engine asks for "files ranked for this query, at this effort, at most this many" and
//! gets them in the backend's rank order with the backend's statistics. The Zoekt adapter
//! (`zoekt::backend`) owns Zoekt's wire types and translates; the engine never sees them. An
//! ordered window of files is also what a cache can keep and slice for any page of any tool.

use std::future::Future;

use super::config::Effort;

/// One search to run.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FileSearch {
    /// The backend query (Zoekt query syntax).
    pub query: String,
    /// How hard the backend may work; the same for every window of one query.
    pub effort: Effort,
    /// Most files to return, best first (the window size).
    pub max_files: u32,
    /// Lines of context before and after each matching line.
    pub context_lines: u32,
    /// What each file of the answer holds.
    pub shape: Shape,
}

/// What each file of a search's answer holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Shape {
    /// Its matching lines (the pages' searches).
    #[default]
    Lines,
    /// Its matching lines and its whole content (`read_file`).
    WholeContent,
    /// Its name alone, once, whether its name or its content matched, and no lines: which
    /// files hold the result (a census, `engine/census.rs`). Each file counts as one match
    /// toward the per-shard cap, so such a search reaches far more files than one of lines.
    NamesOnly,
    /// A census that carries the files of another search with their lines: the query is
    /// written `(LINES) or (type:file (NAMES))` (`zoekt::query::census_carrying`), so each
    /// file `LINES` matches comes with its lines, exactly as that search alone returns it
    /// (same lines, same score), and every other file `NAMES` matches comes by name alone.
    /// `find_references` takes its definitions from its census this way (`engine/survey.rs`).
    NamesCarryingLines,
}

/// A backend's answer: files in its rank order, best first, and what it says of the search.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RankedFiles {
    /// The files, in the backend's order (not yet the engine's page order).
    pub files: Vec<RankedFile>,
    /// Counts and budget reports of the whole search.
    pub stats: SearchStats,
    /// The answer was bigger than the client reads (`--max-answer-bytes`), and these are its
    /// first files, each whole: Zoekt's answer to a request for exactly this many files, and
    /// the next file is past the bound. Only [`Backend::search_window`] answers so; a
    /// [`Backend::search`] answer too big is [`BackendErrorKind::TooBig`].
    pub cut_at_bytes: bool,
}

/// One file that matched.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RankedFile {
    /// Repository name.
    pub repo: String,
    /// Path inside the repository.
    pub path: String,
    /// Language the backend detected (may be empty).
    pub language: String,
    /// Branches holding this version of the file (empty for plain-folder indexes).
    pub branches: Vec<String>,
    /// The backend's score; higher ranks first.
    pub score: f64,
    /// The file's path matched the query.
    pub path_matched: bool,
    /// Matching lines of content, in the backend's order.
    pub lines: Vec<MatchedLine>,
    /// The whole content, when [`Shape::WholeContent`] asked for it.
    pub content: Option<String>,
}

/// One matching line of content.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MatchedLine {
    /// 1-based line number.
    pub number: u32,
    /// The line, decoded, with its newline if it had one.
    pub text: String,
    /// Context lines before it (newline-separated), when asked for.
    pub before: Option<String>,
    /// Context lines after it (newline-separated), when asked for.
    pub after: Option<String>,
    /// The matching parts of the line.
    pub fragments: Vec<Fragment>,
}

/// One matching part of a line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fragment {
    /// Byte offset of the match inside the line.
    pub byte_offset: u32,
    /// The symbol defined here, when the match is a symbol match on a ctags-indexed file.
    pub symbol: Option<Symbol>,
}

/// A symbol definition as ctags described it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Symbol {
    /// The symbol's name.
    pub name: String,
    /// ctags kind, e.g. `function`, `method`, `struct`.
    pub kind: String,
    /// Enclosing scope's name (may be empty).
    pub parent: String,
    /// Enclosing scope's kind (may be empty).
    pub parent_kind: String,
}

/// The most backends one backend can stand for (a fan-out of webservers): one bit each in
/// [`SearchStats::missing_backends`], [`SearchStats::shared_backends`],
/// [`RepoListing::missing_backends`] and the mask [`Backend::backend_names`] reads, which
/// are `u64`. The process refuses more Zoekt URLs than this (`zoekt::tls::check_urls`), and
/// a fan-out more backends.
pub const MAX_BACKENDS: usize = u64::BITS as usize;

/// What the backend says of a whole search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Files that matched (all of them, not only those returned).
    pub file_count: u64,
    /// Matches counted (all of them, not only those returned).
    pub match_count: u64,
    /// Files left out because a match budget ran out.
    pub files_skipped: u64,
    /// Shards left out because the time budget ran out.
    pub shards_skipped: u64,
    /// Shards that crashed or are still loading.
    pub crashes: u64,
    /// How long the search took on the backend's side, in milliseconds (a fan-out: its
    /// slowest backend). At the wall time, the search ran out of time: what it found is
    /// partial, and so are its counts (`engine::window::Cut::out_of_time`).
    pub duration_ms: u64,
    /// Backends of a fan-out that did not answer (a bit per backend, by its index): their
    /// files are missing from the answer (`src/fanout/`), which the page says
    /// (`Warning::MissingBackends`).
    pub missing_backends: u64,
    /// Backends of a fan-out that returned a file another backend also returned (a bit per
    /// backend): a repository served twice. Each file is kept once, but the counts above
    /// may still hold the copies not returned.
    pub shared_backends: u64,
}

/// The indexed repositories a query selects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepoListing {
    /// The repositories, in no particular order (one entry per shard set).
    pub repos: Vec<IndexedRepo>,
    /// Shards that crashed or are still loading.
    pub crashes: u64,
    /// Totals over the whole index.
    pub stats: IndexStats,
    /// Backends of a fan-out that did not answer (a bit per backend, by its index).
    pub missing_backends: u64,
    /// Repositories a fan-out found on two backends, in the order it met them: each is listed
    /// and counted once.
    pub shared: Vec<SharedRepo>,
}

/// A repository served by two backends of a fan-out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SharedRepo {
    /// The repository.
    pub repo: String,
    /// The two backends serving it (a bit each, by index, as
    /// [`RepoListing::missing_backends`]).
    pub backends: u64,
}

impl RepoListing {
    /// Versions of the indexer that wrote these repositories, sorted, each once.
    pub fn indexer_versions(&self) -> Vec<String> {
        let versions: std::collections::BTreeSet<&str> = self
            .repos
            .iter()
            .map(|r| r.indexer_version.as_str())
            .filter(|v| !v.is_empty())
            .collect();
        versions.into_iter().map(String::from).collect()
    }
}

/// One indexed repository.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexedRepo {
    /// Repository name.
    pub name: String,
    /// Number of indexed documents.
    pub documents: u64,
    /// Whether it was indexed with ctags symbols.
    pub has_symbols: bool,
    /// When it was indexed (RFC 3339), or empty.
    pub index_time: String,
    /// Indexed branch names.
    pub branches: Vec<String>,
    /// Version of the indexer that wrote it, or empty.
    pub indexer_version: String,
}

/// Totals over a whole index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexStats {
    /// Repositories.
    pub repos: u64,
    /// Documents.
    pub documents: u64,
    /// Shards.
    pub shards: u64,
    /// Bytes of index on disk.
    pub index_bytes: u64,
}

/// Whether the backend can serve searches now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readiness {
    /// HTTP status of the readiness probe (200 means ready).
    pub status: u16,
    /// What the backend said, trimmed.
    pub detail: String,
    /// Its own probe says it is not ready (for Zoekt: shards still loading), what makes an
    /// answer with crashed shards one to ask again. For one backend, simply not ready; a
    /// fan-out is also not ready while a backend rests after a timeout, which loads nothing.
    pub loading: bool,
}

impl Readiness {
    /// The probe said ready.
    pub fn is_ready(&self) -> bool {
        self.status == 200
    }
}

/// Why the backend could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct BackendError {
    /// The kind of failure, which decides the error code a caller sees.
    pub kind: BackendErrorKind,
    /// What happened, in the backend's words.
    pub message: String,
    /// For [`BackendErrorKind::TooBig`]: how many files an answer within the client's bound
    /// would hold, as far as the answer too big tells (`None`: it does not tell). A first
    /// window too big asks for that many next, not for half (`fetch.rs`).
    pub files_within: Option<u32>,
}

/// The kinds of backend failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendErrorKind {
    /// Nothing answered at the address.
    Unreachable,
    /// The backend did not answer in time.
    Timeout,
    /// The backend rejected the query (a syntax error).
    BadQuery,
    /// The backend failed (5xx or another unexpected status).
    ServerError,
    /// The answer was not what the backend's API promises.
    Malformed,
    /// The backend answered before its index was loaded (or with shards crashed).
    NotReady,
    /// The answer was bigger than the client reads.
    TooBig,
}

impl BackendErrorKind {
    /// A short stable name, for metrics labels.
    pub fn as_str(self) -> &'static str {
        match self {
            BackendErrorKind::Unreachable => "unreachable",
            BackendErrorKind::Timeout => "timeout",
            BackendErrorKind::BadQuery => "query_error",
            BackendErrorKind::ServerError => "server_error",
            BackendErrorKind::Malformed => "malformed",
            BackendErrorKind::NotReady => "not_ready",
            BackendErrorKind::TooBig => "too_big",
        }
    }
}

/// What the paging engine needs from a search backend.
pub trait Backend: Send + Sync + 'static {
    /// Ranked files for one search.
    fn search(
        &self,
        search: &FileSearch,
    ) -> impl Future<Output = Result<RankedFiles, BackendError>> + Send;
    /// [`Backend::search`] for a page's window, which may come back as the start of an
    /// answer too big to read whole ([`RankedFiles::cut_at_bytes`]) instead of the error:
    /// Zoekt's answer for fewer files, read in the same request, so that the window bound
    /// by the answer's size costs no second search (`fetch.rs`). By default, the search.
    fn search_window(
        &self,
        search: &FileSearch,
    ) -> impl Future<Output = Result<RankedFiles, BackendError>> + Send {
        self.search(search)
    }
    /// The repositories a query selects (`""`: all of them), within `wall_time`: the same
    /// bound a search gets from its [`Effort`], which a listing has no field for.
    fn repos(
        &self,
        query: &str,
        wall_time: std::time::Duration,
    ) -> impl Future<Output = Result<RepoListing, BackendError>> + Send;
    /// Whether the backend can serve searches now.
    fn readiness(&self) -> impl Future<Output = Result<Readiness, BackendError>> + Send;
    /// [`Backend::readiness`], waited for at most `budget`: a backend that has not answered
    /// by then is a [`BackendErrorKind::Timeout`]. A fan-out gives each of its backends the
    /// budget, so that one that hangs is named among the others' answers rather than
    /// hiding them all behind one timeout.
    fn readiness_within(
        &self,
        budget: std::time::Duration,
    ) -> impl Future<Output = Result<Readiness, BackendError>> + Send {
        async move {
            tokio::time::timeout(budget, self.readiness())
                .await
                .unwrap_or_else(|_| {
                    Err(BackendError {
                        kind: BackendErrorKind::Timeout,
                        message: format!("Zoekt did not answer within {} ms", budget.as_millis()),
                        files_within: None,
                    })
                })
        }
    }
    /// The names of the backends in `mask` (a fan-out's [`SearchStats::missing_backends`]);
    /// a single backend has none.
    fn backend_names(&self, mask: u64) -> Vec<String> {
        let _ = mask;
        Vec::new()
    }
}
