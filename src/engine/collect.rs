//! What the engine offers a tool while it collects ([`Tool::collect`]): the growing window
//! fetch of one ranked query (through the window cache when it is on), its items as one run,
//! and the warnings for what Zoekt's answer left out.
//!
//! [`Tool::collect`]: super::tool::Tool::collect

use super::Pager;
use super::answer::{Collectable, Flatten};
use super::backend::{Backend, SearchStats, Shape};
use super::cache::AnswerKey;
use super::error::Error;
use super::fetch::{self, WindowSpec};
use super::tool::{Collected, Run, Total, Want};
use super::window::Window;
use super::{crashed, missing_warning, shared_warning};

impl<B: Backend> Pager<B> {
    /// Items of one ranked query, flattened file by file: as many as `needed` when they
    /// exist, every one when the backend ran out of files. `estimate` reads the total from
    /// the backend's counts when the window does not reach the end.
    pub async fn ranked_items<T: Collectable>(
        &self,
        want: &Want<'_>,
        query: &str,
        context_lines: u32,
        flatten: impl Flatten<T>,
        estimate: fn(&SearchStats) -> u64,
    ) -> Result<Collected<T>, Error> {
        let needed = want.needed;
        let w = self
            .window(want, query, context_lines, needed, flatten)
            .await?;
        let mut warnings = Vec::new();
        self.warn(&w, &mut warnings);
        let total = if w.exhausted() {
            Total {
                value: w.len() as u64,
                exact: true,
                at_least: false,
            }
        } else {
            Total {
                value: estimate(w.stats()).max(w.len() as u64),
                exact: false,
                at_least: false,
            }
        };
        Ok(Collected {
            ranked: true,
            ran_out: w.ran_out,
            cut: w.cut,
            runs: vec![w.into_run()],
            first: 0,
            total,
            warnings,
        })
    }

    /// The growing window fetch of one query (see `engine/fetch.rs`), for `needed` items,
    /// through the window cache when it is on.
    pub async fn window<T: Collectable>(
        &self,
        want: &Want<'_>,
        query: &str,
        context_lines: u32,
        needed: usize,
        flatten: impl Flatten<T>,
    ) -> Result<Window<T>, Error> {
        let spec = WindowSpec {
            query,
            effort: self.cfg.effort,
            context_lines,
            shape: Shape::Lines,
            needed,
            probe: want.lookahead.saturating_add(1),
            max_files: self.cfg.max_window,
            once: want.once,
        };
        self.fetch_window(want, &spec, &flatten).await
    }

    /// The window of `spec`, through the window cache when it is on.
    async fn fetch_window<T: Collectable>(
        &self,
        want: &Want<'_>,
        spec: &WindowSpec<'_>,
        flatten: &impl Flatten<T>,
    ) -> Result<Window<T>, Error> {
        let backend = self.backend.as_ref();
        let Some(cache) = &self.cache else {
            return Ok(fetch::fetch_direct(backend, spec, flatten, want.requests).await?);
        };
        let key = AnswerKey::new::<T>(want.request, spec);
        let key = &key;
        let w = fetch::fetch(spec, |files| {
            cache.answer(backend, key, spec, files, flatten, want.requests)
        })
        .await?;
        // The page after this one needs `lookahead` more items: start its fetch now if the
        // answer at hand cannot serve it.
        let next_page = WindowSpec {
            needed: spec.needed.saturating_add(want.lookahead),
            ..spec.clone()
        };
        cache
            .prefetch(&self.backend, key, &next_page, w.answer())
            .await;
        Ok(w)
    }

    /// Adds the reasons a window's answer may be partial, each with what to do about it.
    pub fn warn<T>(&self, w: &Window<T>, warnings: &mut Vec<String>) {
        let cut = w.cut;
        if cut.out_of_time {
            let skipped = match cut.shards_skipped {
                0 => String::new(),
                n => format!(" and skipped {n} shard(s)"),
            };
            warnings.push(format!(
                "Zoekt ran out of time (--max-wall-time-ms {}){skipped} before it finished \
                 searching: these items are what it found by then, results are missing, and \
                 the total is only what it had counted; narrow the query with repo:, file: or \
                 lang:, or make it cheaper (a literal rather than a regular expression)",
                self.cfg.effort.max_wall_time_ms
            ));
        } else if cut.files_skipped > 0 {
            warnings.push(format!(
                "Zoekt stopped at its per-shard match cap (--shard-max-match-count {}) and left \
                 out {} file(s): results are missing; narrow the query with repo:, file: or lang:",
                self.cfg.effort.shard_max_match_count, cut.files_skipped
            ));
        }
        if cut.crashes > 0 {
            warnings.push(crashed(cut.crashes));
        }
        if cut.missing_backends != 0 {
            let names = self.backend.backend_names(cut.missing_backends);
            warnings.push(missing_warning(&names));
        }
        let shared = w.stats().shared_backends;
        if shared != 0 {
            let names = self.backend.backend_names(shared);
            warnings.push(shared_warning(&names));
        }
        if let Some(cap) = cut.total_cap {
            warnings.push(format!(
                "Zoekt passed the total match cap (--total-max-match-count {cap}) and stopped \
                 searching shards at a point that depends on timing: results are missing and \
                 may differ between calls; narrow the query, or set the cap to 0"
            ));
        }
        if w.bytes_bound {
            warnings.push(format!(
                "Zoekt's answer for more than {} files was too big to read \
                 (--max-answer-bytes): results beyond those files are not reachable from here, \
                 and files tied in score with the last of them may be missing; narrow the \
                 query, or ask for fewer context lines",
                w.files_asked
            ));
        } else if w.capped {
            warnings.push(format!(
                "results beyond the first {} files (--max-window) are not reachable, and files \
                 tied in score with the last of them are in the pager's order and may be \
                 missing; narrow the query",
                w.files_asked
            ));
        }
    }
}

impl<T> Window<T> {
    /// The window's items as one run of a tool's [`Collected`] items.
    pub fn into_run(self) -> Run<T> {
        let section = self.section();
        Run::new(
            std::sync::Arc::clone(self.answer().list()),
            self.len(),
            section,
        )
    }
}
