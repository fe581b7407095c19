//! The page cut and its totals: from the ordered items of a request to one page of them.

use schemars::JsonSchema;
use serde::Serialize;

use super::config::PagerConfig;
use super::cursor::RequestKey;
use super::order::{Position, seek};

/// A count of items: exact when Zoekt returned every matching file, otherwise an estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Total {
    /// The number of items.
    pub value: u64,
    /// `false`: an estimate from Zoekt's match/file counts (may over- or under-count items),
    /// because Zoekt's answer was cut or the window did not reach the end.
    pub exact: bool,
}

/// One page of items and everything needed to get the next one.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// How many items the whole result holds.
    pub total: Total,
    /// `false` when Zoekt's answer was partial (timeouts, skipped shards or files, crashes,
    /// caps reached) or the page had to resync: `warnings` says why.
    pub complete: bool,
    /// `true` when the page holds fewer than `limit` items only because of the response size
    /// bound (e.g. many context lines); `next_cursor` continues right after it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub size_capped: bool,
    /// `true` when the results changed since the cursor was minted (the index changed, or
    /// Zoekt cut its answer differently): the page still starts right after the last item
    /// served, so nothing repeats, but `offset` is where that item is now.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resynced: bool,
    /// Why the result may be partial, one sentence each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Where a walk is: the page size and the cursor, as a caller gives them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageArgs {
    /// Items per page (`None`: the configured default).
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page (`None`: the first page).
    pub cursor: Option<String>,
}

/// What a tool is asked to collect for one page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Want {
    /// Items from position 0 up to here (the page's end plus one) are needed.
    pub needed: usize,
    /// The last item served, when resuming: a tool may skip a whole section before it.
    pub after: Option<Position>,
}

/// Every item a request needs for one page, in page order, with what is known of the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct Collected<T> {
    /// Items in page order: from number `first` up to at least the wanted end, when they
    /// exist.
    pub items: Vec<T>,
    /// Each item's place in the total order.
    pub positions: Vec<Position>,
    /// The number of `items[0]` in the whole result (0 unless a tool left out a section
    /// that lies wholly before the page).
    pub first: u64,
    /// The items are in the total order of `engine/order.rs` (every ranked result), so a
    /// cursor whose item is gone can still find the place it stood. `false` for a listing in
    /// another order (repositories by name).
    pub ranked: bool,
    /// The items end where the backend's answer ends: no more items exist in it.
    pub ran_out: bool,
    /// The answer was cut in a way that depends on timing or loading: asking again later
    /// may find more.
    pub transient_cut: bool,
    /// How many items the whole result holds.
    pub total: Total,
    /// Why the result may be partial.
    pub warnings: Vec<String>,
}

/// Where a page starts and how big it is, once validated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Slice {
    /// The cursor's offset (0 without one): where the page starts if nothing moved.
    pub(crate) offset: u64,
    pub(crate) limit: u32,
    /// The last item served before this page.
    pub(crate) after: Option<Position>,
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

/// Finds the page's start: right after the cursor's last item (see `order::seek`), or at the
/// cursor's offset when that item cannot be found in a listing that is not ranked.
pub(crate) fn locate<T>(slice: &Slice, collected: &Collected<T>) -> Start {
    let by_offset = slice.offset.saturating_sub(collected.first) as usize;
    match &slice.after {
        None => Start {
            local: by_offset,
            resynced: false,
        },
        Some(after) => match seek(&collected.positions, after, collected.ranked) {
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

/// Cuts the page at `start`, `limit` items long, shortened to the byte bound, and mints the
/// next cursor: it points right after the last item returned, so a page ended early by the
/// bound still never skips anything.
pub(crate) fn cut<T: Serialize>(
    key: &RequestKey,
    slice: Slice,
    start: Start,
    collected: Collected<T>,
    cfg: &PagerConfig,
) -> Page<T> {
    let Collected {
        items,
        positions,
        first,
        ranked: _,
        ran_out,
        transient_cut,
        total,
        mut warnings,
    } = collected;
    let begin = start.local.min(items.len());
    let end = begin.saturating_add(slice.limit as usize).min(items.len());
    let total_items = items.len();
    let mut page: Vec<T> = items.into_iter().skip(begin).take(end - begin).collect();
    let kept = fitting_prefix(&page, cfg.max_page_bytes);
    let size_capped = kept < page.len();
    page.truncate(kept);
    let offset = first + begin as u64;
    if start.resynced {
        warnings.push(format!(
            "the results changed since the cursor was made (the index changed, or Zoekt cut \
             its answer differently): this page continues right after the last item served, \
             which is now item {offset} (the cursor said {})",
            slice.offset
        ));
    }
    let next_offset = offset + page.len() as u64;
    let more_items = total_items > begin + page.len();
    // Zoekt's answer ended here but was cut by time or loading: the same cursor may find more.
    let retry = !more_items && ran_out && transient_cut && !page.is_empty();
    let last = page.len().checked_sub(1).map(|i| positions[begin + i]);
    let next_cursor = match last {
        Some(last) if (more_items || retry) && next_offset <= cfg.max_offset => {
            Some(key.cursor(next_offset, &last))
        }
        _ => None,
    };
    if more_items && next_cursor.is_none() && !page.is_empty() {
        warnings.push(format!(
            "paging stops at item {}; narrow the query to see the rest",
            cfg.max_offset
        ));
    }
    if retry && next_cursor.is_some() {
        warnings.push(
            "Zoekt's answer ended early (time ran out or shards were loading): next_cursor asks \
             again from here and may find more"
                .into(),
        );
    }
    let complete = warnings.is_empty();
    Page {
        count: page.len(),
        items: page,
        offset,
        limit: slice.limit,
        has_more: next_cursor.is_some(),
        next_cursor,
        total,
        complete,
        size_capped,
        resynced: start.resynced,
        warnings,
    }
}

/// How many leading items fit in `max_bytes` of JSON (always at least one, so a walk moves).
/// Items are measured as they serialise, never built: the MCP layer serialises the page once.
fn fitting_prefix<T: Serialize>(items: &[T], max_bytes: usize) -> usize {
    let mut used = 0usize;
    for (i, item) in items.iter().enumerate() {
        let mut counter = ByteCounter(0);
        let size = serde_json::to_writer(&mut counter, item).map_or(0, |()| counter.0) + 1;
        used += size;
        if used > max_bytes && i > 0 {
            return i;
        }
    }
    items.len()
}

/// A writer that only counts the bytes written to it.
struct ByteCounter(usize);

impl std::io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
