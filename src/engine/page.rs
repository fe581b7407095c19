//! The page cut and its totals: from the ordered items of a request to one page of them.

use super::census::CensusPart;
use super::suggest::{self, Narrowing};
use schemars::JsonSchema;
use serde::Serialize;

use super::config::PagerConfig;
use super::cursor::RequestKey;
use super::item::{ItemRow, ItemText};
use super::order::Position;
use super::size::fitting_prefix;
use super::text::Snippet;
use super::tool::{Collected, Total};

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
    /// `true` when the page holds fewer than `limit` items only because they would not fit
    /// the page's token budget (large `snippet_length` or `context_lines`); `next_cursor`
    /// continues right after it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub size_capped: bool,
    /// With `count_only`: how many pages of `limit` items a walk takes (up to the paging
    /// ceiling); `items` is empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<u64>,
    /// `true` when the results changed since the cursor was minted (the index changed, or
    /// Zoekt cut its answer differently): the page still starts right after the last item
    /// served, so nothing repeats, but `offset` is where that item is now.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resynced: bool,
    /// Why the result may be partial, one sentence each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Requests this page made to the backend (not part of the page: for metrics).
    #[serde(skip)]
    pub zoekt_requests: u32,
    /// Ways to narrow a broad result (first pages and `count_only`, when on): not part of
    /// the page's items, which never depend on it.
    #[serde(skip)]
    pub narrowing: Option<Narrowing>,
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

/// Cuts the page at `start`, `limit` items long, shows its items' source lines as asked,
/// shortens it to the token budget, and mints the next cursor: it points right after the last
/// item returned, so a page ended early by the budget still never skips anything.
pub(crate) fn cut<T: Serialize + Clone + ItemText + ItemRow>(
    key: &RequestKey,
    slice: Slice,
    start: Start,
    collected: Collected<T>,
    census: &[std::sync::Arc<CensusPart>],
    cfg: &PagerConfig,
) -> Page<T> {
    let total_items = collected.len();
    let begin = start.local.min(total_items);
    let end = begin.saturating_add(slice.limit as usize).min(total_items);
    let mut page: Vec<T> = Vec::with_capacity(end - begin);
    let mut positions: Vec<Position> = Vec::with_capacity(end - begin);
    for i in begin..end {
        let (item, position) = collected.get(i).expect("i < len");
        let mut item = item.clone();
        item.shape(&slice.snippet);
        page.push(item);
        positions.push(position);
    }
    let offset_here = collected.first + begin as u64;
    let ceiling_here = offset_here.saturating_add(u64::from(slice.limit)) >= cfg.max_offset;
    let narrowing = (cfg.suggest_filters
        && (offset_here == 0 || ceiling_here)
        && suggest::is_broad(collected.total.value, slice.limit, cfg.max_offset))
    .then(|| collected.narrowing(census, slice.needed()))
    .flatten();
    let Collected {
        first,
        ran_out,
        cut,
        total,
        mut warnings,
        ..
    } = collected;
    // Suggestions take their room out of the page's token budget, in either form.
    let reserved = if narrowing.is_some() {
        suggest::MAX_CHARS
    } else {
        0
    };
    let kept = fitting_prefix(&page, cfg.page_chars().saturating_sub(reserved));
    let size_capped = kept < page.len();
    page.truncate(kept);
    // Zoekt's answer, cut by time or by crashed shards, ended before this page's place in
    // the walk (or, on a first page, held nothing): the page is empty because of the cut,
    // not because the walk is over or its place moved. It holds that place: its cursor asks
    // again from there, and it does not claim the results changed.
    let before_place = match slice.after {
        None => true,
        Some(_) => first + (begin as u64) < slice.offset,
    };
    let held = ran_out && cut.is_transient() && begin >= total_items && before_place;
    let offset = if held {
        slice.offset
    } else {
        first + begin as u64
    };
    let resynced = start.resynced && !held;
    if resynced {
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
    let retry = !more_items && ran_out && cut.is_transient() && !page.is_empty();
    let last = match page.len().checked_sub(1) {
        Some(i) => Some(positions[i]),
        None if held => Some(slice.after.unwrap_or(Position::START)),
        None => None,
    };
    let next_cursor = match last {
        Some(last) if (more_items || retry || held) && next_offset <= cfg.max_offset => {
            Some(key.cursor(next_offset, &last))
        }
        _ => None,
    };
    if more_items && next_cursor.is_none() && !page.is_empty() {
        warnings.push(ceiling_warning(cfg.max_offset, narrowing.as_ref()));
    }
    if retry && next_cursor.is_some() {
        warnings.push(
            "Zoekt's answer ended early (time ran out or shards crashed): next_cursor asks \
             again from here and may find more"
                .into(),
        );
    }
    if held {
        warnings.push(
            "this page is empty because Zoekt's answer ended early (time ran out or shards \
             crashed), before the place this walk has reached: call again with next_cursor, \
             which asks again from the same place"
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
        pages: None,
        resynced,
        warnings,
        zoekt_requests: 0,
        // Shown on first pages; on others it only named the best way in the ceiling warning.
        narrowing: narrowing.filter(|_| offset == 0),
    }
}

/// Said when results go on past the paging ceiling (`--max-offset`).
pub(crate) fn ceiling_warning(max_offset: u64, narrowing: Option<&Narrowing>) -> String {
    match narrowing.and_then(|n| n.ways.first().map(|w| (n, w))) {
        Some((n, best)) => format!(
            "paging stops at item {max_offset}; narrow the query to see the rest, for \
             example to {} ({}{} items)",
            best.by,
            n.counts.words(),
            best.items,
        ),
        None => format!("paging stops at item {max_offset}; narrow the query to see the rest"),
    }
}
