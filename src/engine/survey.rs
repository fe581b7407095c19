//! Taking a census of a result (`census.rs`): the one request it costs, bounded in files,
//! bytes and time, and never retried.
//!
//! The request asks the backend for the names of every file the tool's census query matches
//! ([`Shape::NamesOnly`]), up to [`CENSUS_FILES`], with its own wall time
//! (`--census-wall-time-ms`, at most the pages' own): a census that meets the backend's time
//! gives what it counted by then, as lower bounds. It goes through the window cache, so the
//! walk's `count_only` and a first page asked again find it there, and concurrent identical
//! first pages share it. An answer too big to read counts the files read before the bound,
//! as lower bounds. An error (a fan-out's answer too big among them), or an answer later than
//! the wall time and [`GRACE`], leaves no census: a census only adds suggestions, so it never
//! fails a page, and holds one at most its wall time and the grace.
//!
//! A census may carry the tool's first search ([`CensusQuery::carries`],
//! [`Shape::NamesCarryingLines`]): that search's files come with their lines, exactly as the
//! search alone returns them. Whole, it holds every one of them, so a first page reads that
//! search's window from it ([`Taken::first_search`], `collect.rs`) and sends one request fewer
//! (`find_references`: usages and census, not definitions too). The page then waits for its
//! census whatever its size, and asks the search on its own after a census it could not use:
//! one cut by the backend's time (or too late) puts that request after it, so such a page
//! takes the census's wall time and then the search's own time. A count counts with names
//! alone ([`CensusQuery::names_only`]): it does not take the first page's census from the
//! cache, but costs the backend less.
//!
//! [`Shape::NamesOnly`]: super::backend::Shape::NamesOnly
//! [`Shape::NamesCarryingLines`]: super::backend::Shape::NamesCarryingLines

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use super::answer::Answer;
use super::backend::{Backend, BackendError, RankedFile, Shape};
use super::cache::AnswerKey;
use super::census::{CENSUS_FILES, CensusPart, CensusQuery};
use super::config::Effort;
use super::cursor::RequestKey;
use super::fetch::WindowSpec;
use super::tool::{Found, Tool};
use super::window::Cut;
use super::{BoxedFuture, Pager};

/// How long past its wall time a census may still arrive: the backend's answer is sent and
/// read after its search stops (tens of thousands of file names take a few hundred
/// milliseconds to read), and a backend that ignores the wall time is not waited for.
pub const GRACE: Duration = Duration::from_secs(2);

/// A census taken: its counts, and the answer of the tool's first search it carried.
#[derive(Debug)]
pub(crate) struct Taken<T> {
    /// The census's counts.
    pub part: Arc<CensusPart>,
    /// The first search's answer, whole: every file that search matches, with its items, as
    /// a request of its own for every file would return them. `None` when the census carries
    /// no search, or was not whole (cut by the backend's time or caps, or too big to read).
    pub first_search: Option<Arc<Answer<T>>>,
}

impl<T> Clone for Taken<T> {
    fn clone(&self) -> Self {
        Taken {
            part: Arc::clone(&self.part),
            first_search: self.first_search.clone(),
        }
    }
}

impl<B: Backend> Pager<B> {
    /// The census of `census`'s query for `request`, from the window cache or one request
    /// (counted in `requests`); `None` when it failed or came too late (an answer too big to
    /// read counts the files read, as lower bounds).
    /// A census that carries tool `T`'s first search turns that search's files into items
    /// as the search would.
    pub(crate) async fn take_census<T: Tool>(
        &self,
        plan: &T::Plan,
        census: &CensusQuery,
        request: &RequestKey,
        requests: &AtomicU32,
    ) -> Option<Taken<T::Item>> {
        let effort = self.census_effort();
        let spec = WindowSpec {
            query: &census.query,
            effort,
            context_lines: census.carries.as_ref().map_or(0, |c| c.context_lines),
            shape: match census.carries {
                Some(_) => Shape::NamesCarryingLines,
                None => Shape::NamesOnly,
            },
            needed: usize::MAX,
            probe: usize::MAX,
            max_files: CENSUS_FILES,
            count: false,
        };
        // Only a carried search's files come with lines; every other file, by name, holds
        // no item. (The cache keys answers by shape too: this one, flattened into the tool's
        // items, never serves a page's window.)
        let carries = census.carries.is_some();
        let flatten = |file: &RankedFile| match carries && !file.lines.is_empty() {
            true => T::items(plan, Found::File { search: 0, file }),
            false => Vec::new(),
        };
        // On the heap, its type erased: the census runs inside a page's future, which the
        // compiler would otherwise lay out with every future this one holds.
        let answer: BoxedFuture<'_, Result<Arc<Answer<T::Item>>, BackendError>> = Box::pin(async {
            match &self.cache {
                Some(cache) => {
                    let key = AnswerKey::new::<T::Item>(request, &spec);
                    cache
                        .answer(
                            self.backend.as_ref(),
                            &key,
                            &spec,
                            CENSUS_FILES,
                            &flatten,
                            requests,
                        )
                        .await
                }
                None => {
                    requests.fetch_add(1, Ordering::Relaxed);
                    // As through the cache: an answer too big to read whole is counted
                    // as far as it was read, one request either way.
                    self.backend
                        .search_window(&spec.search(CENSUS_FILES))
                        .await
                        .map(|ranked| Arc::new(Answer::new(&ranked, CENSUS_FILES, flatten)))
                }
            }
        });
        let within = Duration::from_millis(effort.max_wall_time_ms) + GRACE;
        match tokio::time::timeout(within, answer).await {
            Ok(Ok(answer)) => {
                // The start of an answer too big to read counts some files of the result:
                // a lower bound, like an answer Zoekt cut.
                let zoekts = Cut::of(&answer.stats, &effort);
                let cut = !zoekts.is_none() || answer.cut_at_bytes();
                // Zoekt stops handing out shards at its cross-shard cap without counting the
                // rest as skipped: either way, the shards after those searched were not.
                let shards_unsearched = zoekts.shards_skipped > 0 || zoekts.total_cap.is_some();
                // Whole, it holds every file of the carried search, which a file of the census
                // with lines is (`zoekt::query::census_carrying`). A file two backends of a
                // fan-out both returned is counted in Zoekt's statistics as a page's own
                // search would not be: that search is asked on its own then.
                let whole = !cut && answer.ran_out() && answer.stats.shared_backends == 0;
                let first_search = (carries && whole).then(|| answer.files_with_lines());
                Some(Taken {
                    part: answer.census(cut, shards_unsearched, census),
                    first_search,
                })
            }
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "the census failed: suggestions count the page's items");
                None
            }
            Err(_) => {
                tracing::debug!(
                    ms = within.as_millis() as u64,
                    "the census came too late: suggestions count the page's items"
                );
                None
            }
        }
    }

    /// The effort of a census: the pages' own caps, and its own wall time, never longer than
    /// theirs.
    fn census_effort(&self) -> Effort {
        Effort {
            max_wall_time_ms: self
                .cfg
                .census_wall_time_ms
                .min(self.cfg.effort.max_wall_time_ms)
                .max(1),
            ..self.cfg.effort
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::engine::Pager;
    use crate::engine::backend::{BackendErrorKind, RankedFile, SearchStats, Shape};
    use crate::engine::census::{CENSUS_FILES, CountKind, CountUnit};
    use crate::engine::config::PagerConfig;
    use crate::engine::page::Page;
    use crate::engine::testing::{FakeBackend, LineArgs, LineItem, LineTool, line};

    const Q: &str = "census";

    /// `n` files of one line each, spread over three repositories, scores falling (ties in
    /// fours).
    fn backend(n: usize) -> FakeBackend {
        let files = (0..n)
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

    fn args(count_only: bool) -> LineArgs {
        LineArgs {
            query: Q.into(),
            limit: Some(30),
            count_only,
            ..Default::default()
        }
    }

    fn ways(p: &Page<LineItem>) -> Vec<String> {
        let n = p.narrowing.as_ref().expect("ways to narrow");
        n.ways
            .iter()
            .map(|w| format!("{:?} {}", w.by, w.items))
            .collect()
    }

    #[tokio::test]
    async fn a_broad_first_page_sends_one_census_of_names_beside_its_own_window() {
        let p = Pager::new(backend(3000), PagerConfig::default());
        let page = p.page::<LineTool>(&args(false)).await.unwrap();
        // The page's own window, and one census of every file's name.
        assert_eq!(p.backend().files_asked(Q), [34]);
        assert_eq!(p.backend().censuses_asked(Q), 1);
        let census = p
            .backend()
            .requests()
            .into_iter()
            .find(|s| s.shape == Shape::NamesOnly)
            .unwrap();
        assert_eq!((census.max_files, census.context_lines), (CENSUS_FILES, 0));
        assert_eq!(
            census.effort.max_wall_time_ms,
            PagerConfig::default().census_wall_time_ms
        );
        assert_eq!(page.zoekt_requests, 2);
        let n = page.narrowing.as_ref().unwrap();
        assert_eq!(
            (n.counts, n.unit, n.files_read, n.files_total),
            (CountKind::Exact, CountUnit::Files, 3000, 3000)
        );
        assert!(
            ways(&page).contains(&r#"Repo("r1") 1000"#.to_string()),
            "{:?}",
            ways(&page)
        );
        // Without suggestions, the page asks for its own window only.
        let plain = PagerConfig {
            suggest_filters: false,
            ..PagerConfig::default()
        };
        let p = Pager::new(backend(3000), plain);
        let page = p.page::<LineTool>(&args(false)).await.unwrap();
        assert_eq!(
            (p.backend().files_asked(Q), p.backend().censuses_asked(Q)),
            (vec![34], 0)
        );
        assert!(page.narrowing.is_none());
    }

    /// A result that fits on a page never waits for its census: the page is back when its own
    /// window is, and the census is dropped.
    #[tokio::test(start_paused = true)]
    async fn a_result_that_fits_on_a_page_does_not_wait_for_its_census() {
        let p = Pager::new(backend(20), PagerConfig::default());
        p.backend().slow_census(Duration::from_secs(2));
        let started = tokio::time::Instant::now();
        let page = p.page::<LineTool>(&args(false)).await.unwrap();
        assert_eq!(started.elapsed(), Duration::ZERO);
        assert_eq!(page.count, 20);
        assert!(page.narrowing.is_none());
        // A broad one waits for it: the slower of the two.
        let p = Pager::new(backend(3000), PagerConfig::default());
        p.backend().slow_census(Duration::from_secs(2));
        let started = tokio::time::Instant::now();
        let page = p.page::<LineTool>(&args(false)).await.unwrap();
        assert_eq!(started.elapsed(), Duration::from_secs(2));
        assert_eq!(page.narrowing.as_ref().unwrap().counts, CountKind::Exact);
    }

    /// A census later than its wall time and the grace is not waited for, one too big to
    /// read is not asked again smaller: the page counts its own items instead, as lower
    /// bounds, after at most the wall time and the grace.
    #[tokio::test(start_paused = true)]
    async fn a_census_too_late_or_too_big_leaves_the_page_to_count_its_own_items() {
        let p = Pager::new(backend(3000), PagerConfig::default());
        p.backend().slow_census(Duration::from_secs(60));
        let started = tokio::time::Instant::now();
        let page = p.page::<LineTool>(&args(false)).await.unwrap();
        let bound =
            Duration::from_millis(PagerConfig::default().census_wall_time_ms) + super::GRACE;
        assert_eq!(started.elapsed(), bound);
        let n = page.narrowing.as_ref().expect("the page's own counts");
        assert_eq!((n.counts, n.unit), (CountKind::AtLeast, CountUnit::Results));
        assert_eq!(page.count, 30);
        let b = backend(3000);
        b.fail(BackendErrorKind::TooBig, 1000);
        let p = Pager::new(b, PagerConfig::default());
        let page = p.page::<LineTool>(&args(false)).await.unwrap();
        assert_eq!(
            p.backend().censuses_asked(Q),
            1,
            "never asked again smaller"
        );
        assert_eq!(page.count, 30);
        assert_eq!(page.narrowing.as_ref().unwrap().counts, CountKind::AtLeast);
    }

    #[tokio::test]
    async fn a_census_zoekt_cut_counts_lower_bounds() {
        let b = backend(3000);
        b.cut(
            Q,
            SearchStats {
                shards_skipped: 2,
                ..SearchStats::default()
            },
        );
        b.set_ready(true);
        let p = Pager::new(b, PagerConfig::default());
        let page = p.page::<LineTool>(&args(false)).await.unwrap();
        assert_eq!(page.narrowing.as_ref().unwrap().counts, CountKind::AtLeast);
    }

    /// A census under the pages' own effort (their wall time no longer than the census's)
    /// has the key of their windows but for its shape: kept in the cache, it never serves a
    /// page, whose items it does not hold.
    #[tokio::test]
    async fn a_census_kept_in_the_cache_never_serves_a_pages_window() {
        use crate::engine::cache::WindowCache;
        use crate::engine::config::CacheConfig;
        let mut cfg = PagerConfig::default();
        cfg.effort.max_wall_time_ms = cfg.census_wall_time_ms;
        let p = Pager::new(backend(3000), cfg).with_cache(WindowCache::new(&CacheConfig::DEFAULT));
        let first = p.page::<LineTool>(&args(false)).await.unwrap();
        assert_eq!(first.count, 30);
        assert!(first.narrowing.is_some());
        let second = p
            .page::<LineTool>(&LineArgs {
                cursor: first.next_cursor.clone(),
                ..args(false)
            })
            .await
            .unwrap();
        assert_eq!(second.count, 30);
        assert!(second.items.iter().all(|i| !first.items.contains(i)));
    }

    #[tokio::test]
    async fn a_count_of_a_result_within_reach_reads_every_file_after_the_first_window() {
        use crate::engine::cache::WindowCache;
        use crate::engine::config::CacheConfig;
        use crate::engine::warning::Warning;
        // Without the window cache, and through it: the cache sizes a walk's next step bigger
        // than asked, and a count's window of every file is not a step of a walk.
        for cache in [CacheConfig::OFF, CacheConfig::DEFAULT] {
            let pager =
                |b| Pager::new(b, PagerConfig::default()).with_cache(WindowCache::new(&cache));
            let p = pager(backend(3000));
            let page = p.page::<LineTool>(&args(true)).await.unwrap();
            // The walk's first window, whose statistics say 3,000 files were searched whole,
            // then every one of them (and one more, to see Zoekt run out); the census beside.
            assert_eq!(p.backend().files_asked(Q), [34, 3001]);
            assert_eq!(p.backend().censuses_asked(Q), 1);
            assert!(page.total.exact);
            assert_eq!(page.total.value, 3000);
            assert!(page.narrowing.is_some());
            // The whole window too big to read: the census's files are the count, a lower
            // bound, with no smaller retry and no second try at the same files.
            let b = backend(3000);
            b.fail(BackendErrorKind::TooBig, 2000);
            b.heal_census();
            let p = pager(b);
            let page = p.page::<LineTool>(&args(true)).await.unwrap();
            assert_eq!(p.backend().files_asked(Q), [34, 3001]);
            assert!(!page.total.exact && page.total.at_least);
            assert_eq!(page.total.value, 3000);
            assert!(
                page.warnings
                    .iter()
                    .any(|w| matches!(w, Warning::TooBigToCount { .. })),
                "{:?}",
                page.warnings
            );
            // Zoekt counted as many files as --max-window: no window shows it ran out, so the
            // first window's statistics are the count.
            let p = pager(backend(PagerConfig::default().max_window as usize));
            let page = p.page::<LineTool>(&args(true)).await.unwrap();
            assert_eq!(p.backend().files_asked(Q), [34]);
            assert!(!page.total.exact);
        }
    }

    #[tokio::test]
    async fn a_count_without_suggestions_asks_its_census_only_for_a_window_too_big() {
        let plain = PagerConfig {
            suggest_filters: false,
            ..PagerConfig::default()
        };
        // The windows count the result: no census.
        let p = Pager::new(backend(3000), plain.clone());
        let page = p.page::<LineTool>(&args(true)).await.unwrap();
        assert_eq!(p.backend().files_asked(Q), [34, 3001]);
        assert_eq!(p.backend().censuses_asked(Q), 0);
        assert!(page.total.exact && page.narrowing.is_none());
        // A window too big to read: the census's files are the count, a lower bound.
        let b = backend(3000);
        b.fail(BackendErrorKind::TooBig, 2000);
        b.heal_census();
        let p = Pager::new(b, plain.clone());
        let page = p.page::<LineTool>(&args(true)).await.unwrap();
        // Asked after the window, once it was too big.
        let shapes: Vec<Shape> = p.backend().requests().iter().map(|s| s.shape).collect();
        assert_eq!(shapes, [Shape::Lines, Shape::Lines, Shape::NamesOnly]);
        assert!(page.total.at_least);
        assert_eq!(page.total.value, 3000);
        assert!(
            page.warnings
                .iter()
                .any(|w| matches!(w, crate::engine::warning::Warning::TooBigToCount { .. })),
            "{:?}",
            page.warnings
        );
        // Any other error is the count's: no census.
        let b = backend(3000);
        b.fail(BackendErrorKind::ServerError, 0);
        let p = Pager::new(b, plain);
        assert!(p.page::<LineTool>(&args(true)).await.is_err());
        assert_eq!(p.backend().censuses_asked(Q), 0);
    }

    #[tokio::test]
    async fn a_count_of_a_result_out_of_reach_is_zoekts_estimate_from_the_first_window() {
        use crate::engine::warning::Warning;
        // More files than --max-window: the walk stops at the cap, and no window could count
        // every file, so Zoekt's statistics from the first window are the count.
        let cfg = PagerConfig {
            max_window: 1000,
            ..PagerConfig::default()
        };
        let p = Pager::new(backend(3000), cfg);
        let page = p.page::<LineTool>(&args(true)).await.unwrap();
        assert_eq!(p.backend().files_asked(Q), [34]);
        assert!(!page.total.exact && !page.total.at_least);
        assert_eq!(page.total.value, 3000);
        assert!(
            page.warnings.contains(&Warning::WindowCap { files: 1000 }),
            "{:?}",
            page.warnings
        );
        // Zoekt left files unsearched (its per-shard cap): no window holds the result.
        let b = backend(2000);
        b.cut(
            Q,
            SearchStats {
                files_skipped: 700,
                ..SearchStats::default()
            },
        );
        let p = Pager::new(b, PagerConfig::default());
        let page = p.page::<LineTool>(&args(true)).await.unwrap();
        assert_eq!(p.backend().files_asked(Q), [34]);
        assert!(!page.total.exact);
        assert_eq!(page.total.value, 2000);
        assert!(
            page.warnings
                .iter()
                .any(|w| matches!(w, Warning::ShardCap { .. })),
            "{:?}",
            page.warnings
        );
    }
}
