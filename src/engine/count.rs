//! `count_only`: the total of a tool's result, with no items, and the ways to narrow it.
//! Counting asks the fewest windows that say the total: the census alone for a tool whose
//! items are files, else the walk's first window of each query (and one of every file only
//! when that makes the count exact), whose answers the walk that follows starts from.

use std::sync::atomic::{AtomicU32, Ordering};

use super::Pager;
use super::backend::{Backend, BackendErrorKind};
use super::census::{CensusQuery, CountUnit};
use super::cursor::RequestKey;
use super::error::Error;
use super::page::Page;
use super::paging::narrowing_of;
use super::suggest;
use super::tool::{Tool, Total, Want};
use super::warning::{BestWay, Warning};

impl<B: Backend> Pager<B> {
    /// `count_only`: the total alone, with the result's census. A tool whose items are files
    /// counts with its census alone (every matching file, in one request of names only). The
    /// others send, beside the census, the walk's first window of each query (`find_references`
    /// its usages first, [`Pager::sections`]): Zoekt's statistics for it are those of every
    /// window of the query, so a result bigger than `--max-window` files, or one Zoekt left
    /// files of unsearched, is estimated from them with no more requests (asking for
    /// `--max-window` files instead took twice raw Zoekt's census time on 2 CPUs, where that
    /// window could not be whole either). Only when they say every matching file was searched,
    /// fewer than `--max-window`, does one more window ask for all of them: the count is then
    /// exact. Those answers stay in the cache, where the walk that usually follows starts from
    /// them. An answer too big to read is not asked for again smaller: the census's files are
    /// then the count, a lower bound. With suggestions off, a tool whose items are not files
    /// asks for its census only then.
    pub(super) async fn count<T: Tool>(
        &self,
        plan: &T::Plan,
        key: &RequestKey,
        limit: u32,
        requests: &AtomicU32,
    ) -> Result<Page<T::Item>, Error> {
        // Counting only: a census carrying a search's lines would cost more for nothing.
        let census_query = T::census(plan).map(CensusQuery::names_only);
        let census = async {
            match &census_query {
                Some(q) => self
                    .take_census::<T>(plan, q, key, requests)
                    .await
                    .map(|taken| taken.part),
                None => None,
            }
        };
        let counts_results = census_query
            .as_ref()
            .is_some_and(|q| q.unit == CountUnit::Results && q.every_file_holds_items);
        let want = Want {
            needed: usize::MAX,
            after: None,
            request: key,
            // The walk's first window comes first: its answer, kept, serves the walk's page 1.
            lookahead: limit as usize,
            requests,
            count: true,
            first_search: None,
        };
        let (collected, census) = if counts_results {
            match census.await {
                Some(census) => (None, Some(census)),
                None => (Some(self.collect_settled::<T>(plan, &want).await), None),
            }
        } else if !self.cfg.suggest_filters {
            // No ways to suggest: the census is then only the count of a result whose window
            // is too big to read, asked for that alone.
            let collected = self.collect_settled::<T>(plan, &want).await;
            let too_big = matches!(
                &collected,
                Err(Error::Backend(e)) if e.kind == BackendErrorKind::TooBig
            );
            let census = if too_big { census.await } else { None };
            (Some(collected), census)
        } else {
            let (collected, census) = tokio::join!(
                Box::pin(self.collect_settled::<T>(plan, &want)),
                Box::pin(census)
            );
            (Some(collected), census)
        };
        let (total, mut warnings, collected) = match (collected, &census) {
            (None, Some(census)) => {
                let total = Total {
                    value: census.files_total,
                    exact: census.complete,
                    at_least: !census.complete,
                };
                let warnings = if census.complete {
                    Vec::new()
                } else {
                    vec![Warning::CensusCut]
                };
                (total, warnings, None)
            }
            (Some(Ok(collected)), _) => {
                let mut warnings = collected.warnings.clone();
                let total = collected.total;
                if !total.exact && !total.at_least {
                    warnings.push(Warning::Estimate);
                }
                (total, warnings, Some(collected))
            }
            (Some(Err(Error::Backend(e))), Some(census)) if e.kind == BackendErrorKind::TooBig => {
                let total = Total {
                    value: census.total(),
                    exact: false,
                    at_least: true,
                };
                let unit = census.unit;
                (total, vec![Warning::TooBigToCount { unit }], None)
            }
            (Some(Err(e)), _) => return Err(e),
            (None, None) => unreachable!("a count by census falls back to the windows"),
        };
        let narrowing = if self.suggests(0, limit, Some(total.value)) {
            match &collected {
                Some(collected) => narrowing_of(census, collected, 0),
                None => census.and_then(|c| suggest::narrowing(&c, &[])),
            }
        } else {
            None
        };
        // Pages a walk can reach: the cursor stops at --max-offset.
        let reachable = total.value.min(self.cfg.max_offset);
        if total.value > self.cfg.max_offset {
            warnings.push(Warning::Ceiling {
                max_offset: self.cfg.max_offset,
                best: BestWay::of(narrowing.as_ref()),
            });
        }
        Ok(Page {
            items: Vec::new(),
            count: 0,
            offset: 0,
            limit,
            has_more: false,
            next_cursor: None,
            total,
            complete: warnings.is_empty(),
            size_capped: false,
            pages: Some(reachable.div_ceil(u64::from(limit))),
            resynced: false,
            warnings,
            zoekt_requests: requests.load(Ordering::Relaxed),
            narrowing,
            ends: None,
        })
    }
}
