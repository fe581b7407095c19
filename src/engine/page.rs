//! The page cut and its totals: from the ordered items of a request to one page of them.

use super::suggest::Narrowing;
use super::warning::{BestWay, Warning};

use super::config::PagerConfig;
use super::cursor::RequestKey;
use super::order::Position;
use super::text::Snippet;
use super::tool::{Collected, Shaped, Total};

/// One page of items and everything needed to get the next one.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The items of this page, in page order.
    pub items: Vec<T>,
    /// Number of items on this page.
    pub count: usize,
    /// Position of the first item in the whole result (0-based).
    pub offset: u64,
    /// The page size asked for (or the default).
    pub limit: u32,
    /// Whether another page follows (then `next_cursor` is set).
    pub has_more: bool,
    /// Pass it back as `cursor` for the next page; absent on the last page.
    pub next_cursor: Option<String>,
    /// How many items the whole result holds.
    pub total: Total,
    /// `false` when Zoekt's answer was partial (timeouts, skipped shards or files, crashes,
    /// caps reached) or the page had to resync: `warnings` says why.
    pub complete: bool,
    /// `true` when the page holds fewer than `limit` items only because they would not fit
    /// the page's token budget (large `snippet_length` or `context_lines`); `next_cursor`
    /// continues right after it.
    pub size_capped: bool,
    /// With `count_only`: how many pages of `limit` items a walk takes (up to the paging
    /// ceiling); `items` is empty.
    pub pages: Option<u64>,
    /// `true` when the results changed since the cursor was minted (the index changed, or
    /// Zoekt cut its answer differently): the page still starts right after the last item
    /// served, so nothing repeats, but `offset` is where that item is now.
    pub resynced: bool,
    /// Why the result may be partial (worded by the page's form).
    pub warnings: Vec<Warning>,
    /// Requests this page made to the backend (not part of the page: for metrics).
    pub zoekt_requests: u32,
    /// Ways to narrow a broad result (first pages and `count_only`, when on): not part of
    /// the page's items, which never depend on it.
    pub narrowing: Option<Narrowing>,
    /// How the page was cut, so that it can be ended earlier ([`Page::shortened`]); `None`
    /// for a count, which has no items to end.
    pub ends: Option<PageEnds>,
}

/// Where a page starts, how big it is and how its items show, once validated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Slice {
    /// The cursor's offset (0 without one): where the page starts if nothing moved.
    pub(crate) offset: u64,
    pub(crate) limit: u32,
    /// The last item served before this page.
    pub(crate) after: Option<Position>,
    /// How the page's source lines show.
    pub(crate) snippet: Snippet,
}

impl Slice {
    /// offset + limit + 1: the items that decide this page and whether another follows.
    pub(crate) fn needed(&self) -> usize {
        (self.offset as usize)
            .saturating_add(self.limit as usize)
            .saturating_add(1)
    }
}

/// Where, inside collected items, a page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Start {
    /// Index into `Collected::items`.
    pub(crate) local: usize,
    /// The start is not where the cursor's offset said.
    pub(crate) resynced: bool,
}

/// Finds the page's start: right after the cursor's last item (see [`Collected::seek`]), or
/// at the cursor's offset when that item cannot be found in a listing that is not ranked.
pub(crate) fn locate<T>(slice: &Slice, collected: &Collected<T>) -> Start {
    let by_offset = slice.offset.saturating_sub(collected.first) as usize;
    match &slice.after {
        None => Start {
            local: by_offset,
            resynced: false,
        },
        Some(after) => match collected.seek(after) {
            Some(local) => Start {
                local,
                resynced: collected.first + local as u64 != slice.offset,
            },
            None => Start {
                local: by_offset,
                resynced: true,
            },
        },
    }
}

/// Cuts the page at `start`, `limit` items long, and shows its items' source lines as asked.
/// The page's form (`src/form`) may then end it earlier, to fit its token budget, with
/// [`Page::shortened`]: the cursor always points right after the last item a page returns,
/// so a page ended early still never skips anything.
pub(crate) fn cut<T: Clone + Shaped>(
    key: &RequestKey,
    slice: Slice,
    start: Start,
    collected: Collected<T>,
    narrowing: Option<Narrowing>,
    cfg: &PagerConfig,
) -> Page<T> {
    let total_items = collected.len();
    let begin = start.local.min(total_items);
    let end = begin.saturating_add(slice.limit as usize).min(total_items);
    let mut items: Vec<T> = Vec::with_capacity(end - begin);
    let mut positions: Vec<Position> = Vec::with_capacity(end - begin);
    for i in begin..end {
        let (item, position) = collected.get(i).expect("i < len");
        let mut item = item.clone();
        item.shape(&slice.snippet);
        items.push(item);
        positions.push(position);
    }
    let Collected {
        first,
        ran_out,
        cut,
        total,
        warnings,
        ..
    } = collected;
    let ends = Ends {
        key: *key,
        slice,
        begin,
        total_items,
        first,
        ran_out,
        transient: cut.is_transient(),
        total,
        warnings,
        narrowing,
        resynced_start: start.resynced,
        max_offset: cfg.max_offset,
        positions,
        full: items.len(),
    };
    std::sync::Arc::new(ends).page(items)
}

/// What decides how a cut page ends, kept with it so that its form can end it earlier
/// ([`Page::shortened`]): where it stands in the collected items, how Zoekt's answer ended,
/// and each item's position, from which the cursor after it is minted.
#[derive(Debug)]
pub struct Ends {
    key: RequestKey,
    slice: Slice,
    /// Index of the page's first item in the collected items.
    begin: usize,
    /// How many items were collected.
    total_items: usize,
    /// Position of the first collected item in the whole result.
    first: u64,
    ran_out: bool,
    /// Zoekt's answer was cut by time or loading (another try may find more).
    transient: bool,
    total: Total,
    /// The collected warnings, before the page adds its own.
    warnings: Vec<Warning>,
    narrowing: Option<Narrowing>,
    resynced_start: bool,
    max_offset: u64,
    /// Each item's position, in page order.
    positions: Vec<Position>,
    /// How many items the page holds at its full length (`limit`, or fewer at the end).
    full: usize,
}

impl Ends {
    /// The page of `items`, the first `items.len()` of the cut.
    fn page<T>(self: std::sync::Arc<Self>, items: Vec<T>) -> Page<T> {
        let e = &*self;
        let count = items.len();
        // Zoekt's answer, cut by time or by crashed shards, ended before this page's place in
        // the walk (or, on a first page, held nothing): the page is empty because of the cut,
        // not because the walk is over or its place moved. It holds that place: its cursor
        // asks again from there, and it does not claim the results changed.
        let before_place = match e.slice.after {
            None => true,
            Some(_) => e.first + (e.begin as u64) < e.slice.offset,
        };
        let held = e.ran_out && e.transient && e.begin >= e.total_items && before_place;
        let offset = if held {
            e.slice.offset
        } else {
            e.first + e.begin as u64
        };
        let mut warnings = e.warnings.clone();
        let resynced = e.resynced_start && !held;
        if resynced {
            warnings.push(Warning::Resynced {
                offset,
                cursor_offset: e.slice.offset,
            });
        }
        let next_offset = offset + count as u64;
        let more_items = e.total_items > e.begin + count;
        // Zoekt's answer ended here but was cut by time or loading: the same cursor may find
        // more.
        let retry = !more_items && e.ran_out && e.transient && count > 0;
        let last = match count.checked_sub(1) {
            Some(i) => Some(e.positions[i]),
            None if held => Some(e.slice.after.unwrap_or(Position::START)),
            None => None,
        };
        let next_cursor = match last {
            Some(last) if (more_items || retry || held) && next_offset <= e.max_offset => {
                Some(e.key.cursor(next_offset, &last))
            }
            _ => None,
        };
        if more_items && next_cursor.is_none() && count > 0 {
            warnings.push(Warning::Ceiling {
                max_offset: e.max_offset,
                best: BestWay::of(e.narrowing.as_ref()),
            });
        }
        if retry && next_cursor.is_some() {
            warnings.push(Warning::EndedEarly);
        }
        if held {
            warnings.push(Warning::HeldPlace);
        }
        let complete = warnings.is_empty();
        Page {
            count,
            items,
            offset,
            limit: e.slice.limit,
            has_more: next_cursor.is_some(),
            next_cursor,
            total: e.total,
            complete,
            size_capped: count < e.full,
            pages: None,
            resynced,
            warnings,
            zoekt_requests: 0,
            // Shown on first pages; on others it only named the best way in the ceiling
            // warning.
            narrowing: e.narrowing.clone().filter(|_| offset == 0),
            ends: Some(PageEnds(self.clone())),
        }
    }
}

/// A page's [`Ends`], shared by the page and the shorter pages made from it. Not part of
/// what a page says, so every page equals another whatever its ends.
#[derive(Debug, Clone)]
pub struct PageEnds(std::sync::Arc<Ends>);

impl PartialEq for PageEnds {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T: Clone> Page<T> {
    /// The page ended after its first `kept` items (at least one when it has any), as the
    /// engine would have cut it: its cursor right after the last item kept, `size_capped`
    /// set, its warnings and its place in the walk as for that length. What the page's form
    /// calls to fit a page to its token budget. A page that is not a cut (a count) or is no
    /// longer than `kept` comes back as it is.
    pub fn shortened(&self, kept: usize) -> Page<T> {
        match &self.ends {
            Some(PageEnds(ends)) if kept < self.items.len() => {
                let mut page = ends.clone().page(self.items[..kept.max(1)].to_vec());
                page.zoekt_requests = self.zoekt_requests;
                page
            }
            _ => self.clone(),
        }
    }
}
