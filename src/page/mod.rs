//! The paging engine: from a tool request to one exact page of items.
//!
//! request → validate → cursor → window fetch → flatten → slice. It knows Zoekt only through
//! the [`Backend`] trait and knows nothing of MCP: the MCP layer and the CLI render what it
//! returns. See `docs/contract.md`, "Paging rules".

pub mod cursor;
pub mod flatten;
pub mod health;
pub mod item;
pub mod read;
pub mod window;

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::Serialize;

pub use cursor::{CursorError, RequestKey, Tool};
pub use health::HealthReport;
pub use item::{FileItem, MatchItem, ReferenceItem, ReferenceRole, RepoItem, SymbolItem};
pub use read::{FileSlice, ReadLimits};
pub use window::{Backend, Effort, Window, WindowSpec};

use crate::zoekt::ZoektError;
use crate::zoekt::query::{self, QueryError};
use crate::zoekt::wire::SearchResult;

/// Limits and defaults of the engine (all configurable; see `config`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PagerConfig {
    pub default_limit: u32,
    pub max_limit: u32,
    /// Largest item offset a cursor may carry.
    pub max_offset: u64,
    /// Largest number of files asked of Zoekt in one fetch.
    pub max_window: u32,
    pub max_context_lines: u32,
    pub effort: Effort,
    /// Upper bound, in bytes, of the JSON of one page's items: a page that would be larger
    /// (long context, say) ends early and its cursor continues right after the last item.
    pub max_page_bytes: usize,
    /// Bounds of one `read_file` answer.
    pub read: ReadLimits,
}

impl Default for PagerConfig {
    fn default() -> Self {
        PagerConfig {
            default_limit: 30,
            max_limit: 100,
            max_offset: 5_000,
            max_window: 5_000,
            max_context_lines: 10,
            effort: Effort::default(),
            max_page_bytes: 20_000,
            read: ReadLimits::default(),
        }
    }
}

/// Machine-readable error codes shared by every tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    InvalidArgument,
    InvalidCursor,
    CursorMismatch,
    BackendUnavailable,
    BackendQueryError,
    BackendTimeout,
    BackendError,
    /// `read_file`: no such repository/path in the index.
    NotFound,
}

impl ErrorCode {
    /// The wire name, e.g. `INVALID_CURSOR` (same as the serde form).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::InvalidCursor => "INVALID_CURSOR",
            ErrorCode::CursorMismatch => "CURSOR_MISMATCH",
            ErrorCode::BackendUnavailable => "BACKEND_UNAVAILABLE",
            ErrorCode::BackendQueryError => "BACKEND_QUERY_ERROR",
            ErrorCode::BackendTimeout => "BACKEND_TIMEOUT",
            ErrorCode::BackendError => "BACKEND_ERROR",
            ErrorCode::NotFound => "NOT_FOUND",
        }
    }
}

/// A failed page: a code, what happened and what to do about it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PageError {
    pub code: ErrorCode,
    pub message: String,
    pub hint: String,
}

impl PageError {
    pub fn invalid_argument(message: impl Into<String>, hint: impl Into<String>) -> Self {
        PageError {
            code: ErrorCode::InvalidArgument,
            message: message.into(),
            hint: hint.into(),
        }
    }
}

impl std::fmt::Display for PageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} ({})",
            self.code.as_str(),
            self.message,
            self.hint
        )
    }
}

impl std::error::Error for PageError {}

impl From<QueryError> for PageError {
    fn from(e: QueryError) -> Self {
        PageError::invalid_argument(e.to_string(), e.hint())
    }
}

impl From<CursorError> for PageError {
    fn from(e: CursorError) -> Self {
        let (code, hint) = match &e {
            CursorError::OtherTool { minted_by } => (
                ErrorCode::CursorMismatch,
                format!(
                    "Pass this cursor to {} with the same arguments, or omit cursor to start over.",
                    minted_by.name()
                ),
            ),
            CursorError::OtherQuery => (
                ErrorCode::CursorMismatch,
                "Cursors only continue the query that produced them; omit cursor to start this query from the first page.".into(),
            ),
            CursorError::OffsetTooLarge { .. } => (
                ErrorCode::InvalidCursor,
                "Narrow the query (add repo:, lang: or file: filters) instead of paging this deep.".into(),
            ),
            CursorError::Malformed(_) => (
                ErrorCode::InvalidCursor,
                "Pass next_cursor exactly as the previous page returned it, or omit cursor to start over.".into(),
            ),
        };
        PageError {
            code,
            message: e.to_string(),
            hint,
        }
    }
}

impl From<ZoektError> for PageError {
    fn from(e: ZoektError) -> Self {
        let (code, hint) = match &e {
            ZoektError::Unreachable { .. } => (
                ErrorCode::BackendUnavailable,
                "Check that zoekt-webserver runs with -rpc at ZOEKT_URL; retry in a moment if it is restarting.",
            ),
            ZoektError::Timeout { .. } => (
                ErrorCode::BackendTimeout,
                "Narrow the query (repo:, lang:, file: filters) or retry; the backend was too slow.",
            ),
            ZoektError::Query { .. } => (
                ErrorCode::BackendQueryError,
                "Fix the query syntax: patterns are RE2 regexes (escape metacharacters like ( [ . with \\).",
            ),
            ZoektError::Server { .. } | ZoektError::Malformed { .. } => (
                ErrorCode::BackendError,
                "The backend failed on this request; retry, and report it if it persists.",
            ),
        };
        PageError {
            code,
            message: e.to_string(),
            hint: hint.into(),
        }
    }
}

/// A count of items: exact when Zoekt was exhausted, otherwise Zoekt's own estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Total {
    pub value: u64,
    /// `false`: an estimate from Zoekt's match/file counts (may over- or under-count items).
    pub exact: bool,
}

/// One page of items and everything needed to get the next one.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// Number of items on this page.
    pub count: usize,
    /// Position of the first item in the whole result (0-based).
    pub offset: u64,
    pub limit: u32,
    pub has_more: bool,
    /// Pass it back as `cursor` for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    pub total: Total,
    /// `false` when Zoekt's answer was partial (timeouts, skipped shards or files, crashes,
    /// caps reached): `warnings` says why.
    pub complete: bool,
    /// `true` when the page holds fewer than `limit` items only because of the response size
    /// bound (e.g. many context lines); `next_cursor` continues right after it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub size_capped: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Page-independent arguments every paged call has.
#[derive(Debug, Clone, Default)]
pub struct PageArgs {
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

/// The engine, over any [`Backend`].
#[derive(Debug, Clone)]
pub struct Pager<B> {
    backend: B,
    cfg: PagerConfig,
}

/// Where a page starts and how big it is, once validated.
#[derive(Debug, Clone, Copy)]
struct Slice {
    offset: u64,
    limit: u32,
}

impl Slice {
    /// offset + limit + 1: the items that decide this page and whether another follows.
    fn needed(&self) -> usize {
        (self.offset as usize)
            .saturating_add(self.limit as usize)
            .saturating_add(1)
    }
}

impl<B: Backend> Pager<B> {
    pub fn new(backend: B, cfg: PagerConfig) -> Self {
        Pager { backend, cfg }
    }

    pub fn config(&self) -> &PagerConfig {
        &self.cfg
    }

    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// `search_symbols`: one item per symbol definition.
    pub async fn symbols(
        &self,
        query_text: &str,
        kinds: &[String],
        args: &PageArgs,
    ) -> Result<Page<SymbolItem>, PageError> {
        let q = query::symbols_query(query_text)?;
        let kinds = normalise_kinds(kinds)?;
        let kinds_part = kinds.iter().cloned().collect::<Vec<_>>().join(",");
        let key = RequestKey::new(Tool::SearchSymbols, &[&q, &kinds_part]);
        self.simple_page(
            &key,
            &q,
            0,
            args,
            |f| flatten::symbols(f, &kinds),
            |s| s.match_count,
        )
        .await
    }

    /// `search_files`: one item per file whose path matched.
    pub async fn files(
        &self,
        query_text: &str,
        args: &PageArgs,
    ) -> Result<Page<FileItem>, PageError> {
        let q = query::files_query(query_text)?;
        let key = RequestKey::new(Tool::SearchFiles, &[&q]);
        self.simple_page(&key, &q, 0, args, flatten::files, |s| s.file_count)
            .await
    }

    /// `search`: one item per matching line.
    pub async fn lines(
        &self,
        query_text: &str,
        context_lines: u32,
        args: &PageArgs,
    ) -> Result<Page<MatchItem>, PageError> {
        let q = query::search_query(query_text)?;
        if context_lines > self.cfg.max_context_lines {
            return Err(PageError::invalid_argument(
                format!("context_lines is {context_lines}"),
                format!("Use 0 to {} context lines.", self.cfg.max_context_lines),
            ));
        }
        let key = RequestKey::new(Tool::Search, &[&q]);
        self.simple_page(&key, &q, context_lines, args, flatten::matches, |s| {
            s.match_count
        })
        .await
    }

    async fn simple_page<T, F, E>(
        &self,
        key: &RequestKey,
        q: &str,
        context_lines: u32,
        args: &PageArgs,
        flatten: F,
        estimate: E,
    ) -> Result<Page<T>, PageError>
    where
        T: Serialize,
        F: Fn(&crate::zoekt::wire::FileMatch) -> Vec<T>,
        E: Fn(&SearchResult) -> u64,
    {
        let slice = self.slice(key, args)?;
        let w = window::fetch(
            &self.backend,
            &self.window_spec(q, context_lines, slice.needed()),
            flatten,
        )
        .await?;
        let mut warnings = Vec::new();
        self.warn(&w, &mut warnings);
        let total = if w.exhausted {
            Total {
                value: w.items.len() as u64,
                exact: true,
            }
        } else {
            Total {
                value: estimate(&w.stats).max(w.items.len() as u64),
                exact: false,
            }
        };
        Ok(self.cut(key, slice, w.items, total, warnings))
    }

    /// `find_references`: every definition (from `sym:`), then every usage (whole word, case
    /// sensitive), each group in page order. Definitions come first and are counted exactly
    /// before any usage is numbered, so a usage's position never depends on the page asked.
    pub async fn references(
        &self,
        symbol: &str,
        filters: &str,
        args: &PageArgs,
    ) -> Result<Page<ReferenceItem>, PageError> {
        let qs = query::references_queries(symbol, filters)?;
        let symbol = symbol.trim();
        let key = RequestKey::new(Tool::FindReferences, &[&qs.definitions, &qs.usages]);
        let slice = self.slice(&key, args)?;
        let needed = slice.needed();
        let mut warnings = Vec::new();

        let defs = window::fetch(
            &self.backend,
            &self.window_spec(&qs.definitions, 0, needed),
            |f| flatten::definitions(f, symbol),
        )
        .await?;
        self.warn(&defs, &mut warnings);
        // All definitions are known unless the page lies inside them (or the window cap was
        // hit, which `warn` reported); usages are numbered after them. Even a page of
        // definitions only asks for one usage, for the usage count.
        let defs_complete = defs.items.len() < needed;
        let def_lines: BTreeSet<(String, String, u32)> = defs
            .items
            .iter()
            .map(|d| (d.repo.clone(), d.path.clone(), d.line))
            .collect();
        let usages_needed = needed.saturating_sub(defs.items.len()).max(1);
        let usages = window::fetch(
            &self.backend,
            &self.window_spec(&qs.usages, 0, usages_needed),
            |f| flatten::usages(f, symbol, &def_lines),
        )
        .await?;
        self.warn(&usages, &mut warnings);
        let exact = defs.exhausted && usages.exhausted && defs_complete;
        let usage_total = if usages.exhausted && defs_complete {
            usages.items.len() as u64
        } else {
            // Zoekt counts the definition lines among the content matches too.
            usages
                .stats
                .match_count
                .saturating_sub(def_lines.len() as u64)
                .max(usages.items.len() as u64)
        };
        let total = Total {
            value: defs.items.len() as u64 + usage_total,
            exact,
        };
        if !defs_complete {
            // The page lies inside the definitions: usages cannot move it.
            return Ok(self.cut(&key, slice, defs.items, total, warnings));
        }
        let mut items = defs.items;
        items.extend(usages.items);
        Ok(self.cut(&key, slice, items, total, warnings))
    }

    /// `list_repos`: indexed repositories sorted by name.
    pub async fn repos(
        &self,
        query_text: &str,
        args: &PageArgs,
    ) -> Result<Page<RepoItem>, PageError> {
        self.repos_for(Tool::ListRepos, query_text, args).await
    }

    /// The same pages for MCP `resources/list`, with cursors of their own.
    pub async fn repo_resources(&self, args: &PageArgs) -> Result<Page<RepoItem>, PageError> {
        self.repos_for(Tool::RepoResources, "", args).await
    }

    /// One repository by exact name, or `None`.
    pub async fn repo(&self, name: &str) -> Result<Option<RepoItem>, PageError> {
        let q = format!("repo:^{}$", query::escape_token_regex(name));
        let page = self
            .repos(
                &q,
                &PageArgs {
                    limit: Some(self.cfg.max_limit),
                    cursor: None,
                },
            )
            .await?;
        Ok(page.items.into_iter().find(|r| r.name == name))
    }

    async fn repos_for(
        &self,
        tool: Tool,
        query_text: &str,
        args: &PageArgs,
    ) -> Result<Page<RepoItem>, PageError> {
        let q = if query_text.trim().is_empty() {
            String::new()
        } else {
            query::search_query(query_text)?
        };
        let key = RequestKey::new(tool, &[&q]);
        let slice = self.slice(&key, args)?;
        let list = self.backend.list(&q).await?;
        let mut warnings = Vec::new();
        if list.crashes > 0 {
            warnings.push(format!(
                "{} shard(s) crashed or are still loading",
                list.crashes
            ));
        }
        let mut items: Vec<RepoItem> = list
            .repos
            .into_iter()
            .map(|r| RepoItem {
                name: r.repository.name,
                files: r.stats.documents,
                has_symbols: r.repository.has_symbols,
                index_time: r.index_metadata.index_time,
                branches: r.repository.branches.into_iter().map(|b| b.name).collect(),
            })
            .collect();
        items.sort_by(|a, b| a.name.cmp(&b.name));
        items.dedup_by(|a, b| a.name == b.name);
        let total = Total {
            value: items.len() as u64,
            exact: true,
        };
        Ok(self.cut(&key, slice, items, total, warnings))
    }

    fn slice(&self, key: &RequestKey, args: &PageArgs) -> Result<Slice, PageError> {
        let limit = args.limit.unwrap_or(self.cfg.default_limit);
        if limit == 0 || limit > self.cfg.max_limit {
            return Err(PageError::invalid_argument(
                format!("limit is {limit}"),
                format!(
                    "Use a limit from 1 to {} (default {}).",
                    self.cfg.max_limit, self.cfg.default_limit
                ),
            ));
        }
        let offset = match &args.cursor {
            Some(c) => key.offset_of(c, self.cfg.max_offset)?,
            None => 0,
        };
        Ok(Slice { offset, limit })
    }

    fn window_spec<'q>(&self, q: &'q str, context_lines: u32, needed: usize) -> WindowSpec<'q> {
        WindowSpec {
            query: q,
            effort: self.cfg.effort,
            context_lines,
            needed,
            max_files: self.cfg.max_window,
        }
    }

    /// Adds the reasons a window's answer may be partial.
    fn warn<T>(&self, w: &Window<T>, warnings: &mut Vec<String>) {
        let s = &w.stats;
        if s.shards_skipped > 0 {
            warnings.push(format!(
                "Zoekt skipped {} shard(s) (time budget)",
                s.shards_skipped
            ));
        }
        if s.files_skipped > 0 {
            warnings.push(format!(
                "Zoekt skipped {} file(s) (match budget)",
                s.files_skipped
            ));
        }
        if s.crashes > 0 {
            warnings.push(format!(
                "{} shard(s) crashed or are still loading",
                s.crashes
            ));
        }
        if s.match_count >= u64::from(self.cfg.effort.total_max_match_count) {
            warnings.push(format!(
                "the match budget of {} was reached; narrow the query for complete results",
                self.cfg.effort.total_max_match_count
            ));
        }
        if w.capped {
            warnings.push(format!(
                "results beyond the first {} files are not reachable; narrow the query",
                w.files_asked
            ));
        }
    }

    /// Cuts `items[offset .. offset+limit]`, shortened to the byte bound, and mints the next
    /// cursor: it points right after the last item returned, so a page ended early by the
    /// bound still never skips anything.
    fn cut<T: Serialize>(
        &self,
        key: &RequestKey,
        slice: Slice,
        items: Vec<T>,
        total: Total,
        mut warnings: Vec<String>,
    ) -> Page<T> {
        let start = (slice.offset as usize).min(items.len());
        let end = (slice.offset as usize)
            .saturating_add(slice.limit as usize)
            .min(items.len());
        let total_items = items.len();
        let mut page: Vec<T> = items.into_iter().skip(start).take(end - start).collect();
        let kept = fitting_prefix(&page, self.cfg.max_page_bytes);
        let size_capped = kept < page.len();
        page.truncate(kept);
        let more_items = total_items > start + page.len();
        let next_offset = slice.offset + page.len() as u64;
        let next_cursor = if more_items && next_offset <= self.cfg.max_offset {
            Some(key.cursor(next_offset))
        } else {
            None
        };
        if more_items && next_cursor.is_none() {
            warnings.push(format!(
                "paging stops at item {}; narrow the query to see the rest",
                self.cfg.max_offset
            ));
        }
        let complete = warnings.is_empty();
        Page {
            count: page.len(),
            items: page,
            offset: slice.offset,
            limit: slice.limit,
            has_more: next_cursor.is_some(),
            next_cursor,
            total,
            complete,
            size_capped,
            warnings,
        }
    }
}

/// How many leading items fit in `max_bytes` of JSON (always at least one, so a walk moves).
fn fitting_prefix<T: Serialize>(items: &[T], max_bytes: usize) -> usize {
    let mut used = 0usize;
    for (i, item) in items.iter().enumerate() {
        let size = serde_json::to_vec(item).map_or(0, |v| v.len()) + 1;
        used += size;
        if used > max_bytes && i > 0 {
            return i;
        }
    }
    items.len()
}

/// Lower-cases, dedups and bounds the `kinds` filter.
fn normalise_kinds(kinds: &[String]) -> Result<BTreeSet<String>, PageError> {
    if kinds.len() > 20 {
        return Err(PageError::invalid_argument(
            format!("{} kinds given", kinds.len()),
            "Pass at most 20 ctags kinds, e.g. [\"function\", \"method\"].",
        ));
    }
    let mut set = BTreeSet::new();
    for k in kinds {
        let k = k.trim().to_lowercase();
        if k.is_empty()
            || k.len() > 40
            || !k
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ' ')
        {
            return Err(PageError::invalid_argument(
                format!("`{k}` is not a ctags kind"),
                "Use ctags kind names such as function, method, struct, class, interface, variable.",
            ));
        }
        set.insert(k);
    }
    Ok(set)
}
