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
/// taken, whole or holding as many files as the items collected, else over those items;
/// leaving out what the first `on_page` items show. A census Zoekt's time cut before it
/// found more than a few files, where the page's own search (whose time is longer) found
/// more, counts less than the window: the rest beside what a census counted (`a b
/// -file:^go-modules/ -file:^rust-crates/` on the monorepo) searches the same shards first
/// and finds nothing in them within the census's time, and its page offered no way at all.
pub(super) fn narrowing_of<T>(
    census: Option<Arc<CensusPart>>,
    collected: &Collected<T>,
    on_page: usize,
) -> Option<Narrowing> {
    let census = census
        .filter(|c| c.complete || c.files.len() >= collected.file_count())
        .unwrap_or_else(|| Arc::new(collected.own_count()));
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
mod tests;
