//! The page cut and its totals: from the ordered items of a request to one page of them.

use schemars::JsonSchema;
use serde::Serialize;

use super::config::PagerConfig;
use super::cursor::RequestKey;

/// A count of items: exact when Zoekt was exhausted, otherwise Zoekt's own estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Total {
    /// The number of items.
    pub value: u64,
    /// `false`: an estimate from Zoekt's match/file counts (may over- or under-count items).
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
    /// caps reached): `warnings` says why.
    pub complete: bool,
    /// `true` when the page holds fewer than `limit` items only because of the response size
    /// bound (e.g. many context lines); `next_cursor` continues right after it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub size_capped: bool,
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

/// Every item a request needs for one page, in page order, with what is known of the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct Collected<T> {
    /// Items from position 0 up to at least the end of the page plus one, when they exist.
    pub items: Vec<T>,
    /// How many items the whole result holds.
    pub total: Total,
    /// Why the result may be partial.
    pub warnings: Vec<String>,
}

/// Where a page starts and how big it is, once validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slice {
    pub(crate) offset: u64,
    pub(crate) limit: u32,
}

impl Slice {
    /// offset + limit + 1: the items that decide this page and whether another follows.
    pub(crate) fn needed(&self) -> usize {
        (self.offset as usize)
            .saturating_add(self.limit as usize)
            .saturating_add(1)
    }
}

/// Cuts `items[offset .. offset+limit]`, shortened to the byte bound, and mints the next
/// cursor: it points right after the last item returned, so a page ended early by the
/// bound still never skips anything.
pub(crate) fn cut<T: Serialize>(
    key: &RequestKey,
    slice: Slice,
    collected: Collected<T>,
    cfg: &PagerConfig,
) -> Page<T> {
    let Collected {
        items,
        total,
        mut warnings,
    } = collected;
    let start = (slice.offset as usize).min(items.len());
    let end = (slice.offset as usize)
        .saturating_add(slice.limit as usize)
        .min(items.len());
    let total_items = items.len();
    let mut page: Vec<T> = items.into_iter().skip(start).take(end - start).collect();
    let kept = fitting_prefix(&page, cfg.max_page_bytes);
    let size_capped = kept < page.len();
    page.truncate(kept);
    let more_items = total_items > start + page.len();
    let next_offset = slice.offset + page.len() as u64;
    let next_cursor = if more_items && next_offset <= cfg.max_offset {
        Some(key.cursor(next_offset))
    } else {
        None
    };
    if more_items && next_cursor.is_none() {
        warnings.push(format!(
            "paging stops at item {}; narrow the query to see the rest",
            cfg.max_offset
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
