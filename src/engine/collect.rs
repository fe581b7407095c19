//! Collecting what a page needs, as its tool declared it (`tool.rs`, [`Source`]): the items
//! of a ranked search through the growing window fetch (and the window cache when it is on),
//! sections one after another (`sections.rs`), a listing of repositories (`listing.rs`), or
//! a listing of file names (`names.rs`);
//! and the warnings for what the backend's answer left out, as values
//! ([`Warning`], worded by the page's form).

use std::sync::Arc;

use super::BoxedFuture;
use super::Pager;
use super::answer::{Answer, Collectable, Flatten};
use super::backend::{Backend, RankedFile, Shape};
use super::cache::AnswerKey;
use super::error::Error;
use super::fetch::{self, WindowSpec};
use super::tool::{Collected, Found, Search, Source, Tool, Total, Want};
use super::warning::Warning;
use super::window::Window;

impl<B: Backend> Pager<B> {
    /// Every item of tool `T`'s request from position 0 up to `want.needed` (or all there
    /// are), in page order, with what is known of the rest: from the source the tool
    /// declares.
    ///
    /// On the heap, its type erased: a page's future holds it, and the compiler would lay
    /// out every future this one holds in every future that holds the page.
    pub(crate) fn collect<'a, T: Tool>(
        &'a self,
        plan: &'a T::Plan,
        want: &'a Want<'a>,
    ) -> BoxedFuture<'a, Result<Collected<T::Item>, Error>> {
        Box::pin(async move {
            match T::source(plan) {
                Source::Search(search) => self.ranked::<T>(plan, want, &search).await,
                Source::Sections(searches) => self.sections::<T>(plan, want, &searches).await,
                Source::Repositories(query) => self.repositories::<T>(plan, query).await,
                Source::Names(names) => self.names::<T>(plan, names, want).await,
            }
        })
    }

    /// The items of one ranked search, flattened file by file: as many as `want.needed` when
    /// they exist, every one when the backend ran out of files.
    async fn ranked<T: Tool>(
        &self,
        plan: &T::Plan,
        want: &Want<'_>,
        search: &Search<'_>,
    ) -> Result<Collected<T::Item>, Error> {
        let w = self.window::<T>(plan, want, 0, search, want.needed).await?;
        let mut warnings = self.warnings(&w);
        warnings.extend(super::empty::told::<T>(plan, &w)?);
        let total = if w.exhausted() {
            Total {
                value: w.len() as u64,
                exact: true,
                at_least: false,
            }
        } else {
            Total {
                value: search.estimate.of(w.stats(), 0).max(w.len() as u64),
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

    /// The growing window fetch (see `engine/fetch.rs`) of search number `number` of tool
    /// `T`'s source, for `needed` items, each file turned into items by the tool.
    pub(crate) async fn window<T: Tool>(
        &self,
        plan: &T::Plan,
        want: &Want<'_>,
        number: usize,
        search: &Search<'_>,
        needed: usize,
    ) -> Result<Window<T::Item>, Error> {
        let spec = WindowSpec {
            query: search.query,
            effort: self.cfg.effort,
            context_lines: search.context_lines,
            shape: Shape::Lines,
            needed,
            probe: want.lookahead.saturating_add(1),
            max_files: self.cfg.max_window,
            count: want.count,
        };
        let flatten = |file: &RankedFile| {
            T::items(
                plan,
                Found::File {
                    search: number,
                    file,
                },
            )
        };
        // The first search's answer, whole, from a census that carried it: its window is
        // read from there as from an answer of Zoekt's (the same files, lines and scores),
        // without a request of its own. Not when it holds --max-window files or more: a
        // window at that cap serves the tied files at its edge from Zoekt's answer for exactly
        // that many files, which a bigger answer does not hold.
        if number == 0
            && let Some(first) = &want.first_search
            && let Some(answer) = first.answer().await
        {
            let answer = answer.downcast::<Answer<T::Item>>();
            debug_assert!(
                answer.is_ok(),
                "a census carries the answer of its own tool"
            );
            if let Ok(answer) = answer
                && answer.file_count() < spec.max_files as usize
            {
                let read = |_| std::future::ready(Ok(Arc::clone(&answer)));
                return Ok(fetch::fetch(&spec, read).await?);
            }
        }
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
        // A count reads no page: nothing to fetch ahead of it.
        if spec.count {
            return Ok(w);
        }
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

    /// The reasons a window's answer may be partial.
    pub(crate) fn warnings<T>(&self, w: &Window<T>) -> Vec<Warning> {
        let mut warnings = self.cut_warnings(&w.cut, w.stats().shared_backends);
        if w.bytes_bound {
            warnings.push(Warning::TooBigToRead {
                files: w.files_asked,
            });
        } else if w.capped {
            warnings.push(Warning::WindowCap {
                files: w.files_asked,
            });
        }
        warnings
    }

    /// The reasons an answer the backend `cut` may be partial, and the backends of a fan-out
    /// found to serve the same files (a bit each, in `shared`).
    pub(crate) fn cut_warnings(&self, cut: &super::window::Cut, shared: u64) -> Vec<Warning> {
        let mut warnings = Vec::new();
        if cut.out_of_time {
            warnings.push(Warning::OutOfTime {
                wall_time_ms: self.cfg.effort.max_wall_time_ms,
                shards_skipped: cut.shards_skipped,
            });
        } else if cut.files_skipped > 0 {
            warnings.push(Warning::ShardCap {
                cap: self.cfg.effort.shard_max_match_count,
                files_skipped: cut.files_skipped,
            });
        }
        if cut.crashes > 0 {
            warnings.push(Warning::Crashed {
                shards: cut.crashes,
            });
        }
        if cut.missing_backends != 0 {
            warnings.push(Warning::MissingBackends {
                names: self.backend.backend_names(cut.missing_backends),
            });
        }
        if shared != 0 {
            warnings.push(Warning::SharedFiles {
                names: self.backend.backend_names(shared),
            });
        }
        if let Some(cap) = cut.total_cap {
            warnings.push(Warning::TotalCap { cap });
        }
        warnings
    }
}

impl<T> Window<T> {
    /// The window's items as one run of a tool's [`Collected`] items.
    pub(crate) fn into_run(self) -> super::tool::Run<T> {
        let section = self.section();
        super::tool::Run::new(
            std::sync::Arc::clone(self.answer().list()),
            self.len(),
            section,
        )
    }
}
