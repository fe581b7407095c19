//! One page of a tool: from its arguments to the cut page. The cursor is read ([`Slice`]),
//! the engine collects what the page needs from the source the tool declares (`collect.rs`,
//! settled against crashed shards), and the page is cut (`page.rs`); a cursor whose item
//! moved further down asks for bigger windows, a few rounds at most. A first page sends its
//! result's census (`census.rs`, `survey.rs`) beside its own window, and waits for it only
//! when the page turns out to carry ways to narrow (a result that fits on a page pays
//! nothing for it), or when it carries the tool's first search in place of that search's own
//! request (`find_references`' definitions). `count_only` is answered in `count.rs`.

use std::any::Any;
use std::sync::Arc;

use futures_util::FutureExt as _;
use std::sync::atomic::{AtomicU32, Ordering};

use super::BoxedFuture;
use super::Pager;
use super::backend::Backend;
use super::census::CensusPart;
use super::cursor::{RequestKey, Scope};
use super::error::{ArgumentError, Error};
use super::page::{self, Page, Slice, Start};
use super::suggest::{self, Narrowing};
use super::survey::Taken;
use super::text::Snippet;
use super::tool::{CarriedSearch, Collected, PageArgs, PagedArgs, Tool, Want};

/// A page's collection on the heap: its items and where the page starts among them.
type Collecting<'a, T> = BoxedFuture<'a, Result<(Collected<T>, Start), Error>>;

/// Most windows one page fetches to find where its cursor's item has moved to. Each is at
/// least twice the last and within `--max-window`, so the window stops growing well before.
const MAX_SEEK_ROUNDS: usize = 16;

impl<B: Backend> Pager<B> {
    /// One page of tool `T`: validates the arguments, reads the cursor, collects the items
    /// the page needs and cuts the page.
    pub async fn page<T: Tool>(&self, args: &T::Args) -> Result<Page<T::Item>, Error> {
        self.page_in::<T>(T::SCOPE, args).await
    }

    /// [`Pager::page`] with the cursors of another scope: the same pages, whose cursors the
    /// tool's own pages do not accept (and the other way round).
    pub async fn page_in<T: Tool>(
        &self,
        scope: Scope,
        args: &T::Args,
    ) -> Result<Page<T::Item>, Error> {
        let plan = T::plan(args, &self.cfg)?;
        let key = RequestKey::new(scope, &T::key(&plan), &self.order_settings());
        let mut paging = args.paging();
        if paging.count_only {
            // A count is of the whole result: a cursor says nothing about it, and a stale one
            // must not refuse it.
            paging.cursor = None;
        }
        let slice = self.slice(&key, &paging)?;
        let requests = AtomicU32::new(0);
        if paging.count_only {
            return self.count::<T>(&plan, &key, slice.limit, &requests).await;
        }
        // The census goes out with the page's own first window, so that a broad first page
        // waits for the slower of the two, not for both one after the other (but for a search
        // the census carries and could not give whole: `survey.rs`).
        let census_query = self
            .suggests(slice.offset, slice.limit, None)
            .then(|| T::census(&plan))
            .flatten();
        let census = async {
            match &census_query {
                Some(q) => self.take_census::<T>(&plan, q, &key, &requests).await,
                None => None,
            }
        };
        // Shared, on the heap, its type erased: a page's collection is a big future
        // (find_references awaits two searches at once) and a worker thread's stack is small,
        // and the compiler lays out every future that holds another. The collection waits
        // for it too when it carries the tool's first search.
        let census: BoxedFuture<'_, Option<Taken<T::Item>>> = Box::pin(census);
        let mut census = census.shared();
        let first_search = census_query
            .as_ref()
            .filter(|q| q.carries.is_some())
            .map(|_| FirstSearch(census.clone()));
        let mut taken = None;
        let mut collect: Collecting<'_, T::Item> = Box::pin(self.collect_page::<T>(
            &plan,
            &key,
            &slice,
            &requests,
            first_search.as_ref().map(|f| f as &dyn CarriedSearch),
        ));
        let (collected, start) = loop {
            tokio::select! {
                done = &mut collect => break done?,
                c = &mut census, if taken.is_none() => taken = Some(c),
            }
        };
        let offset_here = collected.first + start.local as u64;
        let narrowing = if self.suggests(offset_here, slice.limit, Some(collected.total.value)) {
            let census = match taken {
                Some(c) => c,
                None => census.await,
            };
            narrowing_of(census.map(|c| c.part), &collected, slice.needed())
        } else {
            // Not waited for: dropping it drops its request.
            None
        };
        let mut page = page::cut(&key, slice, start, collected, narrowing, &self.cfg);
        page.zoekt_requests = requests.load(Ordering::Relaxed);
        Ok(page)
    }

    /// Whether a page at `offset` of `limit` items carries ways to narrow: when suggestions
    /// are on, on a first page and on the page that reaches the paging ceiling (whose warning
    /// names the best way), of a broad result (`total`, once it is known; `None`: whether it
    /// may). The one place this is decided.
    pub(crate) fn suggests(&self, offset: u64, limit: u32, total: Option<u64>) -> bool {
        let first_or_last =
            offset == 0 || offset.saturating_add(u64::from(limit)) >= self.cfg.max_offset;
        self.cfg.suggest_filters
            && first_or_last
            && total.is_none_or(|t| suggest::is_broad(t, limit, self.cfg.max_offset))
    }

    /// The items the page needs, and where it starts among them. The cursor's last item may
    /// now stand further down than its offset said (the results changed): then the page
    /// needs a bigger window, at least twice the last one, since a window that ends before
    /// the item cannot tell how far down it is. It stops when the window holds the page, or
    /// cannot grow (Zoekt had no more files, or the window reached --max-window, which the
    /// page then reports).
    async fn collect_page<T: Tool>(
        &self,
        plan: &T::Plan,
        key: &RequestKey,
        slice: &Slice,
        requests: &AtomicU32,
        first_search: Option<&dyn CarriedSearch>,
    ) -> Result<(Collected<T::Item>, Start), Error> {
        let mut needed = slice.needed();
        for round in 0..MAX_SEEK_ROUNDS {
            let want = Want {
                needed,
                after: slice.after,
                request: key,
                lookahead: slice.limit as usize,
                requests,
                count: false,
                first_search,
            };
            let collected = self.collect_settled::<T>(plan, &want).await?;
            let start = page::locate(slice, &collected);
            let reached = collected.first as usize + collected.len();
            let page_end = Slice {
                offset: collected.first + start.local as u64,
                ..*slice
            }
            .needed();
            let cannot_grow = reached < needed || collected.ran_out;
            if cannot_grow || reached >= page_end || round + 1 == MAX_SEEK_ROUNDS {
                return Ok((collected, start));
            }
            needed = page_end.max(needed.saturating_mul(2));
        }
        unreachable!("the last round returns")
    }

    /// [`Pager::collect`], with answers cut by crashed or loading shards settled first.
    ///
    /// While Zoekt is loading its shards it searches those already loaded and counts the
    /// rest as a crash (`docs/zoekt.md`, "Readiness"): such an answer may lack any item,
    /// anywhere in the order, so a page cut from it could skip items for good. So an answer
    /// with crashes is never served while the backend is not ready (the retryable NotReady
    /// error, whose cursor stays valid); once it is ready, the answer is asked for once more,
    /// since the loading may have ended after that answer was made. What remains is a shard
    /// that crashed in a ready Zoekt: its answer is served, marked incomplete
    /// ([`page::cut`] keeps a cursor that asks again where it ends).
    pub(super) async fn collect_settled<T: Tool>(
        &self,
        plan: &T::Plan,
        want: &Want<'_>,
    ) -> Result<Collected<T::Item>, Error> {
        let collected = self.collect::<T>(plan, want).await?;
        if collected.cut.crashes == 0 {
            return Ok(unfinished_counts(collected));
        }
        self.settled().await?;
        // Cut answers are never kept by the cache, so this asks the backend again.
        let again = self.collect::<T>(plan, want).await?;
        if again.cut.crashes > 0 {
            self.settled().await?;
        }
        Ok(unfinished_counts(again))
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
        let resume = match args.cursor.as_deref().map(str::trim) {
            Some(c) if !c.is_empty() => Some(key.resume(c, self.cfg.max_offset)?),
            _ => None,
        };
        let snippet_length = args.snippet_length.unwrap_or(self.cfg.snippet_length);
        if snippet_length == 0 || snippet_length > self.cfg.max_snippet_length {
            return Err(ArgumentError::SnippetLength {
                given: snippet_length,
                max: self.cfg.max_snippet_length,
            }
            .into());
        }
        Ok(Slice {
            offset: resume.map_or(0, |r| r.offset),
            limit,
            after: resume.map(|r| r.after),
            snippet: Snippet {
                include: args.include_snippet.unwrap_or(true),
                max_chars: snippet_length as usize,
            },
        })
    }
}

/// The ways to narrow a result of `collected` items, counted over `census` when one was
/// taken, else over the items collected; leaving out what the first `on_page` items show.
pub(super) fn narrowing_of<T>(
    census: Option<Arc<CensusPart>>,
    collected: &Collected<T>,
    on_page: usize,
) -> Option<Narrowing> {
    let census = census.unwrap_or_else(|| Arc::new(collected.own_count()));
    suggest::narrowing(&census, &collected.leading_files(on_page))
}

/// A total Zoekt did not finish counting, whatever tool counted it, is a lower bound: at
/// least the items collected, never an estimate (a model reading "about 0" for `search '\b'`,
/// which matches everywhere, reads "no results"). Zoekt did not finish when it ran out of
/// time, or when shards crashed: `[a-z]{1,1000}x` crashed every shard of a real index, and
/// its page said "total about 0".
fn unfinished_counts<T>(mut collected: Collected<T>) -> Collected<T> {
    if collected.cut.out_of_time || collected.cut.crashes > 0 {
        collected.total.exact = false;
        collected.total.at_least = true;
        collected.total.value = collected
            .total
            .value
            .max(collected.first + collected.len() as u64);
    }
    collected
}

/// The census on its way, read for the answer of the tool's first search it carries: the
/// page's collection waits for it beside the page's own wait for the census.
struct FirstSearch<'a, I>(futures_util::future::Shared<BoxedFuture<'a, Option<Taken<I>>>>);

impl<I> std::fmt::Debug for FirstSearch<'_, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FirstSearch")
    }
}

impl<I: Send + Sync + 'static> CarriedSearch for FirstSearch<'_, I> {
    fn answer(&self) -> BoxedFuture<'_, Option<Arc<dyn Any + Send + Sync>>> {
        let census = self.0.clone();
        Box::pin(async move {
            let answer = census.await?.first_search?;
            Some(answer as Arc<dyn Any + Send + Sync>)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::backend::{self, RankedFile, SearchStats};
    use crate::engine::config::{Effort, PagerConfig};
    use crate::engine::cursor::CursorError;
    use crate::engine::testing::{FakeBackend, LineArgs, LineItem, LineTool};
    use crate::engine::warning::Warning;

    /// The fake tool over the fake backend: one item per file (they have no lines).
    const TEXT: &str = "unit";

    fn q() -> String {
        TEXT.to_string()
    }

    fn file(name: &str, score: f64) -> RankedFile {
        RankedFile {
            repo: "r".into(),
            path: name.into(),
            score,
            path_matched: true,
            ..Default::default()
        }
    }

    /// `n` files `uNN` of distinct scores, u00 best.
    fn files(n: usize) -> Vec<RankedFile> {
        (0..n)
            .map(|i| file(&format!("u{i:02}"), 100.0 - i as f64))
            .collect()
    }

    fn args(limit: u32, cursor: Option<&str>) -> LineArgs {
        LineArgs {
            query: TEXT.into(),
            limit: Some(limit),
            cursor: cursor.map(String::from),
            ..Default::default()
        }
    }

    fn paths(page: &Page<LineItem>) -> Vec<&str> {
        page.items.iter().map(|i| i.path.as_str()).collect()
    }

    async fn page(p: &Pager<FakeBackend>, limit: u32, cursor: Option<&str>) -> Page<LineItem> {
        p.page::<LineTool>(&args(limit, cursor))
            .await
            .expect("page")
    }

    #[tokio::test]
    async fn a_cursor_resumes_right_after_its_item_when_files_arrive_before_it() {
        let p = Pager::new(
            FakeBackend::new().with(&q(), files(10)),
            PagerConfig::default(),
        );
        let first = page(&p, 3, None).await;
        assert_eq!(paths(&first), ["u00", "u01", "u02"]);
        let c = first.next_cursor.clone().unwrap();
        // Nothing changed: the page starts at its offset, not resynced.
        let same = page(&p, 3, Some(&c)).await;
        assert_eq!(paths(&same), ["u03", "u04", "u05"]);
        assert!(!same.resynced && same.complete && same.offset == 3);
        // Two better files arrive: by offset the page would repeat u01 and u02.
        let mut more = files(10);
        more.push(file("new-a", 200.0));
        more.push(file("new-b", 150.0));
        p.backend().replace(&q(), more);
        let next = page(&p, 3, Some(&c)).await;
        assert_eq!(paths(&next), ["u03", "u04", "u05"]);
        assert!(next.resynced && !next.complete);
        assert_eq!(next.offset, 5, "u03 is item 5 now");
        assert!(
            next.warnings
                .iter()
                .any(|w| matches!(w, Warning::Resynced { offset: 5, .. })),
            "{:?}",
            next.warnings
        );
    }

    #[tokio::test]
    async fn a_cursor_whose_item_is_gone_resumes_where_it_stood() {
        let p = Pager::new(
            FakeBackend::new().with(&q(), files(10)),
            PagerConfig::default(),
        );
        let first = page(&p, 3, None).await;
        let c = first.next_cursor.clone().unwrap();
        // u02 (the last item served) and u01 are deleted: by offset u03 and u04 would be
        // skipped.
        let fewer: Vec<RankedFile> = files(10)
            .into_iter()
            .filter(|f| f.path != "u01" && f.path != "u02")
            .collect();
        p.backend().replace(&q(), fewer);
        let next = page(&p, 3, Some(&c)).await;
        assert_eq!(paths(&next), ["u03", "u04", "u05"]);
        assert!(next.resynced);
        assert_eq!(next.offset, 1);
    }

    #[tokio::test]
    async fn a_cursor_moved_far_down_fetches_a_bigger_window() {
        let p = Pager::new(
            FakeBackend::new().with(&q(), files(30)),
            PagerConfig::default(),
        );
        let first = page(&p, 2, None).await;
        let c = first.next_cursor.clone().unwrap();
        // 40 better files arrive: the page must now start at item 42, beyond the window a
        // cursor at offset 2 would fetch.
        let mut more = files(30);
        more.extend((0..40).map(|i| file(&format!("top{i:02}"), 1000.0 - i as f64)));
        p.backend().replace(&q(), more);
        let next = page(&p, 2, Some(&c)).await;
        assert_eq!(paths(&next), ["u02", "u03"]);
        assert_eq!(next.offset, 42);
        assert!(next.has_more);
    }

    #[tokio::test]
    async fn a_cursor_from_other_settings_is_refused() {
        let backend = FakeBackend::new().with(&q(), files(10));
        let p = Pager::new(backend, PagerConfig::default());
        let c = page(&p, 3, None).await.next_cursor.unwrap();
        for cfg in [
            PagerConfig {
                max_window: 100,
                ..PagerConfig::default()
            },
            PagerConfig {
                effort: Effort {
                    shard_max_match_count: 5,
                    ..Effort::default()
                },
                ..PagerConfig::default()
            },
            PagerConfig {
                effort: Effort {
                    total_max_match_count: 50_000,
                    ..Effort::default()
                },
                ..PagerConfig::default()
            },
        ] {
            let other = Pager::new(FakeBackend::new().with(&q(), files(10)), cfg);
            let e = other
                .page::<LineTool>(&args(3, Some(&c)))
                .await
                .unwrap_err();
            assert!(
                matches!(e, Error::Cursor(CursorError::OtherSettings)),
                "{e:?}"
            );
        }
        // The page size is not a setting of the order.
        let other = Pager::new(
            FakeBackend::new().with(&q(), files(10)),
            PagerConfig {
                default_limit: 7,
                max_limit: 50,
                ..PagerConfig::default()
            },
        );
        assert!(other.page::<LineTool>(&args(3, Some(&c))).await.is_ok());
    }

    #[tokio::test]
    async fn a_cut_answer_is_never_exact_and_a_transient_one_keeps_a_cursor() {
        // The per-shard cap: the same every time, so the walk ends, flagged.
        let p = Pager::new(
            FakeBackend::new().with(&q(), files(4)),
            PagerConfig::default(),
        );
        p.backend().cut(
            &q(),
            SearchStats {
                files_skipped: 9,
                ..Default::default()
            },
        );
        let only = page(&p, 10, None).await;
        assert_eq!(only.count, 4);
        assert!(!only.has_more && !only.complete && !only.total.exact);
        assert!(
            only.warnings
                .iter()
                .any(|w| matches!(w, Warning::ShardCap { .. })),
            "{:?}",
            only.warnings
        );
        // Time ran out, or a shard crashed in a ready Zoekt: Zoekt may hold more, so the
        // last page keeps a cursor to ask again.
        for cut in [
            SearchStats {
                shards_skipped: 2,
                ..Default::default()
            },
            SearchStats {
                crashes: 1,
                ..Default::default()
            },
        ] {
            let p = Pager::new(
                FakeBackend::new().with(&q(), files(4)),
                PagerConfig::default(),
            );
            p.backend().set_ready(true);
            p.backend().cut(&q(), cut);
            let partial = page(&p, 10, None).await;
            assert_eq!(partial.count, 4);
            assert!(partial.has_more && !partial.complete && !partial.total.exact);
            // Out of time or crashed, the total is what Zoekt had counted: a lower bound.
            let out_of_time = cut.shards_skipped > 0;
            assert!(partial.total.at_least);
            assert_eq!(
                partial
                    .warnings
                    .iter()
                    .any(|w| matches!(w, Warning::OutOfTime { .. })),
                out_of_time,
                "{:?}",
                partial.warnings
            );
            // Asked again once the answer is whole: the new files follow, none repeats.
            p.backend().cut(&q(), SearchStats::default());
            p.backend().replace(&q(), files(6));
            let again = page(&p, 10, partial.next_cursor.as_deref()).await;
            assert_eq!(paths(&again), ["u04", "u05"]);
            assert!(!again.has_more && again.complete && again.total.exact);
            // A retry that finds nothing new after the cut ends the walk rather than
            // looping: the walk's place was reached.
            p.backend().replace(&q(), files(4));
            p.backend().cut(&q(), cut);
            let empty = page(&p, 10, partial.next_cursor.as_deref()).await;
            assert_eq!(empty.count, 0);
            assert!(!empty.has_more && !empty.complete);
            assert!(!empty.resynced, "{:?}", empty.warnings);
        }
    }

    /// A page whose answer, cut by a crash or by time, ends before the walk's place holds
    /// that place: an empty page with the same cursor, not a claim that the results changed
    /// or that the walk is over. Asked again, the walk goes on exactly.
    #[tokio::test]
    async fn a_cut_answer_that_ends_before_the_page_holds_its_place() {
        for cut in [
            SearchStats {
                shards_skipped: 1,
                ..Default::default()
            },
            SearchStats {
                crashes: 1,
                ..Default::default()
            },
        ] {
            let p = Pager::new(
                FakeBackend::new().with(&q(), files(12)),
                PagerConfig::default(),
            );
            p.backend().set_ready(true);
            let first = page(&p, 4, None).await;
            let second = page(&p, 4, first.next_cursor.as_deref()).await;
            // The shard holding the rest is gone: the answer ends at item 2.
            p.backend().replace(&q(), files(2));
            p.backend().cut(&q(), cut);
            let held = page(&p, 4, second.next_cursor.as_deref()).await;
            assert_eq!(held.count, 0);
            assert_eq!(held.offset, 8);
            assert!(
                held.has_more && !held.resynced && !held.total.exact,
                "{held:?}"
            );
            assert_eq!(held.next_cursor, second.next_cursor, "the same place");
            assert!(
                held.warnings.contains(&Warning::HeldPlace),
                "{:?}",
                held.warnings
            );
            assert!(
                !held
                    .warnings
                    .iter()
                    .any(|w| matches!(w, Warning::Resynced { .. }))
            );
            // Back: the walk resumes right where it was.
            p.backend().replace(&q(), files(12));
            p.backend().cut(&q(), SearchStats::default());
            let resumed = page(&p, 4, held.next_cursor.as_deref()).await;
            assert_eq!(paths(&resumed), ["u08", "u09", "u10", "u11"]);
            assert!(resumed.complete && !resumed.resynced);
            // A first page that found nothing because of the cut asks again from the start.
            p.backend().replace(&q(), Vec::new());
            p.backend().cut(&q(), cut);
            let nothing = page(&p, 4, None).await;
            assert!(nothing.has_more && nothing.count == 0, "{nothing:?}");
            p.backend().replace(&q(), files(3));
            p.backend().cut(&q(), SearchStats::default());
            let found = page(&p, 4, nothing.next_cursor.as_deref()).await;
            assert_eq!(paths(&found), ["u00", "u01", "u02"]);
            assert!(found.complete && !found.has_more && found.total.exact);
        }
    }

    /// A backend whose readiness hangs, met by an answer with crashed shards: the page is a
    /// timeout after the readiness wait (not a call held until the client gives up, and not
    /// NotReady: nothing said the shards were loading).
    #[tokio::test(start_paused = true)]
    async fn a_hung_readiness_is_waited_for_only_so_long() {
        let p = Pager::new(
            FakeBackend::new().with(&q(), files(6)),
            PagerConfig::default(),
        );
        p.backend().hang_readiness();
        p.backend().crash_next(1);
        let started = tokio::time::Instant::now();
        let e = tokio::time::timeout(
            std::time::Duration::from_secs(3600),
            p.page::<LineTool>(&args(3, None)),
        )
        .await
        .expect("the page ends")
        .unwrap_err();
        assert!(
            matches!(&e, Error::Backend(b) if b.kind == backend::BackendErrorKind::Timeout),
            "{e:?}"
        );
        assert_eq!(started.elapsed(), crate::engine::READINESS_WAIT);
    }

    /// Crashed shards while the backend is not ready (loading) never make a page, partial or
    /// empty: the retryable NotReady error. Once ready, a crashed answer is asked for again,
    /// so one that the loading left behind never reaches a page.
    #[tokio::test]
    async fn crashed_shards_are_settled_before_a_page_is_cut() {
        let p = Pager::new(
            FakeBackend::new().with(&q(), files(6)),
            PagerConfig::default(),
        );
        p.backend().set_ready(false);
        for n in [1, 2] {
            p.backend().crash_next(n);
            let e = p.page::<LineTool>(&args(3, None)).await.unwrap_err();
            assert!(
                matches!(&e, Error::Backend(b) if b.kind == backend::BackendErrorKind::NotReady),
                "{e:?}"
            );
        }
        // Partial answers while loading are refused too.
        p.backend().crash_next(0);
        p.backend().cut(
            &q(),
            SearchStats {
                crashes: 1,
                ..Default::default()
            },
        );
        assert!(p.page::<LineTool>(&args(3, None)).await.is_err());
        p.backend().cut(&q(), SearchStats::default());
        // Ready: one crashed answer is asked for again, and the page is whole.
        p.backend().set_ready(true);
        p.backend().crash_next(1);
        let before = p.backend().line_searches();
        let whole = page(&p, 3, None).await;
        assert_eq!(paths(&whole), ["u00", "u01", "u02"]);
        assert!(whole.complete && whole.has_more);
        assert_eq!(p.backend().line_searches() - before, 2);
        // Two in a row: the page is empty, holds the walk's start, and says so.
        p.backend().crash_next(2);
        let held = page(&p, 3, None).await;
        assert!(
            held.count == 0 && held.has_more && !held.total.exact,
            "{held:?}"
        );
        let next = page(&p, 3, held.next_cursor.as_deref()).await;
        assert_eq!(paths(&next), ["u00", "u01", "u02"]);
    }

    /// At the paging ceiling a page with more items after it has no cursor, and says why.
    #[tokio::test]
    async fn the_paging_ceiling_ends_a_walk_with_a_warning() {
        let cfg = PagerConfig {
            max_offset: 5,
            ..PagerConfig::default()
        };
        let p = Pager::new(FakeBackend::new().with(&q(), files(10)), cfg);
        let first = page(&p, 3, None).await;
        assert!(first.complete && first.next_cursor.is_some());
        let last = page(&p, 3, first.next_cursor.as_deref()).await;
        assert_eq!(paths(&last), ["u03", "u04", "u05"]);
        assert!(last.next_cursor.is_none() && !last.complete);
        assert!(
            last.warnings
                .iter()
                .any(|w| matches!(w, Warning::Ceiling { max_offset: 5, .. })),
            "{:?}",
            last.warnings
        );
    }

    #[tokio::test]
    async fn a_tie_wider_than_the_largest_window_still_pages_without_repeats() {
        // 20 tied files, at most 8 files a request: the first page is full, and a walk never
        // repeats an item and only moves forward in the order.
        let tied: Vec<RankedFile> = (0..20)
            .map(|i| file(&format!("LICENSE{i:02}"), 5.0))
            .collect();
        let cfg = PagerConfig {
            max_window: 8,
            ..PagerConfig::default()
        };
        let p = Pager::new(FakeBackend::new().with(&q(), tied), cfg);
        let first = page(&p, 3, None).await;
        assert_eq!(first.count, 3);
        assert!(!first.complete);
        assert!(
            first
                .warnings
                .iter()
                .any(|w| matches!(w, Warning::WindowCap { .. }))
        );
        let mut seen = std::collections::HashSet::new();
        let mut cursor = first.next_cursor.clone();
        for i in &first.items {
            assert!(seen.insert(i.path.clone()));
        }
        let mut pages = 1;
        while let Some(c) = cursor {
            let next = page(&p, 3, Some(&c)).await;
            assert!(
                next.count > 0,
                "page {} is empty but came with a cursor",
                pages + 1
            );
            for i in &next.items {
                assert!(seen.insert(i.path.clone()), "{} twice", i.path);
            }
            cursor = next.next_cursor;
            pages += 1;
            assert!(pages <= 20, "runaway walk");
        }
        assert!(seen.len() >= 8, "{seen:?}");
    }
}
