//! The paging engine: from a tool request to one exact page of items.
//!
//! request → plan (validated, canonical) → cursor → window fetch → flatten → cut. Tools
//! (`crate::tools`) declare what they search and how a file becomes items; this module does
//! the rest the same way for all of them. It knows the backend only through [`Backend`] and
//! knows nothing of MCP. See `docs/contract.md`, "Paging rules".

pub mod backend;
pub mod config;
pub mod cursor;
pub mod error;
pub mod page;
#[cfg(test)]
pub(crate) mod testing;
pub(crate) mod text;
pub mod window;

use backend::{Backend, RankedFile, SearchStats};
use config::PagerConfig;
use cursor::{RequestKey, Scope};
use error::{ArgumentError, Error};
use page::{Collected, Page, PageArgs, Slice, Total};
use window::{Window, WindowSpec};

use crate::tools::{PagedArgs, PagedTool};

/// The engine, over any [`Backend`].
#[derive(Debug, Clone)]
pub struct Pager<B> {
    backend: B,
    cfg: PagerConfig,
}

impl<B> Pager<B> {
    /// An engine asking `backend`, with these settings.
    pub fn new(backend: B, cfg: PagerConfig) -> Self {
        Pager { backend, cfg }
    }

    /// The settings.
    pub fn config(&self) -> &PagerConfig {
        &self.cfg
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.backend
    }
}

impl<B: Backend> Pager<B> {
    /// One page of tool `T`: validates the arguments, reads the cursor, collects the items
    /// the page needs and cuts the page.
    pub async fn page<T: PagedTool>(&self, args: &T::Args) -> Result<Page<T::Item>, Error> {
        self.page_in::<T>(T::SCOPE, args).await
    }

    /// [`Pager::page`] with the cursors of another scope: the same pages, whose cursors the
    /// tool's own pages do not accept (and the other way round).
    pub(crate) async fn page_in<T: PagedTool>(
        &self,
        scope: Scope,
        args: &T::Args,
    ) -> Result<Page<T::Item>, Error> {
        let plan = T::plan(args, &self.cfg)?;
        let key = RequestKey::new(scope, &T::key(&plan));
        let slice = self.slice(&key, &args.paging())?;
        let collected = T::collect(self, &plan, slice.needed()).await?;
        Ok(page::cut(&key, slice, collected, &self.cfg))
    }

    /// Items of one ranked query, flattened file by file: as many as `needed` when they
    /// exist, every one when the backend ran out of files. `estimate` reads the total from
    /// the backend's counts when the window does not reach the end.
    pub async fn ranked_items<T, F>(
        &self,
        query: &str,
        context_lines: u32,
        needed: usize,
        flatten: F,
        estimate: fn(&SearchStats) -> u64,
    ) -> Result<Collected<T>, Error>
    where
        F: Fn(&RankedFile) -> Vec<T>,
    {
        let w = self.window(query, context_lines, needed, flatten).await?;
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
        Ok(Collected {
            items: w.items,
            total,
            warnings,
        })
    }

    /// The growing window fetch of one query (see `engine/window.rs`).
    pub async fn window<T, F>(
        &self,
        query: &str,
        context_lines: u32,
        needed: usize,
        flatten: F,
    ) -> Result<Window<T>, Error>
    where
        F: Fn(&RankedFile) -> Vec<T>,
    {
        let spec = WindowSpec {
            query,
            effort: self.cfg.effort,
            context_lines,
            needed,
            max_files: self.cfg.max_window,
        };
        Ok(window::fetch(&self.backend, &spec, flatten).await?)
    }

    /// Adds the reasons a window's answer may be partial.
    pub fn warn<T>(&self, w: &Window<T>, warnings: &mut Vec<String>) {
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
            warnings.push(crashed(s.crashes));
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

    /// Validates the limit and reads the cursor against this request.
    fn slice(&self, key: &RequestKey, args: &PageArgs) -> Result<Slice, Error> {
        let limit = args.limit.unwrap_or(self.cfg.default_limit);
        if limit == 0 || limit > self.cfg.max_limit {
            return Err(ArgumentError::Limit {
                given: limit,
                default: self.cfg.default_limit,
                max: self.cfg.max_limit,
            }
            .into());
        }
        // An empty cursor is no cursor: models often send "" for an absent optional argument.
        let offset = match args.cursor.as_deref().map(str::trim) {
            Some(c) if !c.is_empty() => key.offset_of(c, self.cfg.max_offset)?,
            _ => 0,
        };
        Ok(Slice { offset, limit })
    }
}

/// The warning for shards that crashed or are still loading.
pub(crate) fn crashed(crashes: u64) -> String {
    format!("{crashes} shard(s) crashed or are still loading")
}
