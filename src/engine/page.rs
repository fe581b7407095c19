//! The page cut and its totals: from the ordered items of a request to one page of them.

use schemars::JsonSchema;
use serde::Serialize;

use std::cmp::Ordering;
use std::sync::Arc;

use super::config::PagerConfig;
use super::cursor::RequestKey;
use super::order::Position;
use super::suggest::{self, FileFacts, Narrowing};
use super::text::Snippet;
use super::window::{Cut, ItemList, Section};
use crate::tools::{ItemRow, ItemText, row_lens, text_lens};

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
    /// Ways to narrow a broad result (first pages and `count_only`, when on): not part of
    /// the page's items, which never depend on it.
    #[serde(skip)]
    pub narrowing: Option<Narrowing>,
    /// Requests this page made to the backend (not part of the page: for metrics).
    #[serde(skip)]
    pub zoekt_requests: u32,
}

/// Where a walk is and how its page shows, as a caller gives them: the arguments every
/// paged tool shares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageArgs {
    /// Items per page (`None`: the configured default).
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page (`None`: the first page).
    pub cursor: Option<String>,
    /// No items, only the total and the number of pages at `limit`.
    pub count_only: bool,
    /// Show source lines (`None`: yes).
    pub include_snippet: Option<bool>,
    /// Most characters of a source line shown (`None`: the configured default).
    pub snippet_length: Option<u32>,
}

/// What a tool is asked to collect for one page.
#[derive(Debug, Clone, Copy)]
pub struct Want<'a> {
    /// Items from position 0 up to here (the page's end plus one) are needed.
    pub needed: usize,
    /// The last item served, when resuming: a tool may skip a whole section before it.
    pub after: Option<Position>,
    /// The request, as the cursor knows it: with the query and context lines of a window,
    /// it names that window's items in the cache.
    pub request: &'a RequestKey,
    /// Items the page after this one will need beyond `needed` (its limit): what the
    /// cache may fetch ahead.
    pub lookahead: usize,
    /// Counts the requests to the backend this page makes.
    pub(crate) requests: &'a std::sync::atomic::AtomicU32,
}

/// Every item a request needs for one page, in page order, with what is known of the rest.
#[derive(Debug, Clone)]
pub struct Collected<T> {
    /// Items in page order, run after run: from number `first` up to at least the wanted
    /// end, when they exist.
    pub runs: Vec<Run<T>>,
    /// The number of the first item in the whole result (0 unless a tool left out a section
    /// that lies wholly before the page).
    pub first: u64,
    /// The items are in the total order of `engine/order.rs` (every ranked result), so a
    /// cursor whose item is gone can still find the place it stood. `false` for a listing in
    /// another order (repositories by name).
    pub ranked: bool,
    /// The items end where the backend's answer ends: no more items exist in it.
    pub ran_out: bool,
    /// What Zoekt's answers (every query's) left out: whether asking again later may find
    /// more ([`Cut::is_transient`]), and whether shards were still loading.
    pub cut: Cut,
    /// How many items the whole result holds.
    pub total: Total,
    /// Why the result may be partial.
    pub warnings: Vec<String>,
}

/// Leading items of a shared list, placed in a section of the order. Pages of a cached
/// answer share its list; a page copies only its own items out of it.
#[derive(Debug, Clone)]
pub struct Run<T> {
    list: Arc<ItemList<T>>,
    len: usize,
    section: Section,
}

impl<T> Run<T> {
    /// The first `len` items of `list`, in `section`.
    pub fn new(list: Arc<ItemList<T>>, len: usize, section: Section) -> Run<T> {
        debug_assert!(len <= list.items.len() && list.items.len() == list.positions.len());
        Run { list, len, section }
    }

    /// Every item of `list`, in section 0.
    pub fn all(list: ItemList<T>) -> Run<T> {
        let len = list.items.len();
        Run::new(Arc::new(list), len, Section::default())
    }

    fn position(&self, i: usize) -> Position {
        self.section.relabel(self.list.positions[i])
    }

    /// The files of the run's items, in order, each with how many of them it gave.
    fn files(&self) -> impl Iterator<Item = (&FileFacts, usize)> {
        let mut start = 0;
        self.list
            .files
            .iter()
            .take_while(move |_| start < self.len)
            .map(move |f| {
                let end = f.item_end.min(self.len);
                let items = end - start;
                start = end;
                (f, items)
            })
    }

    /// How many of the run's items come at or before `after` in `order`.
    fn not_after(&self, after: &Position) -> usize {
        self.list.positions[..self.len]
            .partition_point(|p| self.section.relabel(*p).order(after) != Ordering::Greater)
    }
}

impl<T> Collected<T> {
    /// Ways to narrow the result, counted over its first `max_items` items (see
    /// `engine/suggest.rs`): exact when they are the whole result.
    ///
    /// A number of items, not the window: the items are the same whatever window (or cached
    /// answer) served them, so the suggestions are too, with the cache on or off.
    pub fn narrowing(&self, max_items: usize) -> Option<Narrowing> {
        let mut left = max_items;
        let mut files: Vec<(&FileFacts, usize)> = Vec::new();
        for (f, items) in self.runs.iter().flat_map(Run::files) {
            if left == 0 {
                break;
            }
            files.push((f, items.min(left)));
            left -= items.min(left);
        }
        let taken = max_items - left;
        let exact =
            self.total.exact && self.ran_out && self.first == 0 && taken as u64 == self.total.value;
        suggest::narrowing(&files, exact)
    }

    /// How many items were collected.
    pub fn len(&self) -> usize {
        self.runs.iter().map(|r| r.len).sum()
    }

    /// No items were collected.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Item `i` (counted from `first`) and its position.
    fn get(&self, mut i: usize) -> Option<(&T, Position)> {
        for run in &self.runs {
            if i < run.len {
                return Some((&run.list.items[i], run.position(i)));
            }
            i -= run.len;
        }
        None
    }

    /// Where the first item after `after` is (counted from `first`).
    ///
    /// Ranked items are in `engine/order.rs`'s order, so the answer is the first one past
    /// `after` even when the item itself is gone. A listing in another order (repositories
    /// by name) can only find the item itself; `None` when that fails.
    pub fn seek(&self, after: &Position) -> Option<usize> {
        if self.ranked {
            return Some(self.runs.iter().map(|r| r.not_after(after)).sum());
        }
        let mut before = 0;
        for run in &self.runs {
            if let Some(i) = (0..run.len).position(|i| run.position(i).same_place(after)) {
                return Some(before + i + 1);
            }
            before += run.len;
        }
        None
    }
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
    .then(|| collected.narrowing(slice.needed()))
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
        // Shown on first pages; on others it only named the best way in the ceiling warning.
        narrowing: narrowing.filter(|_| offset == 0),
        zoekt_requests: 0,
    }
}

/// Said when results go on past the paging ceiling (`--max-offset`).
pub(crate) fn ceiling_warning(max_offset: u64, narrowing: Option<&Narrowing>) -> String {
    match narrowing.and_then(|n| n.ways.first().map(|w| (n, w))) {
        Some((n, best)) => format!(
            "paging stops at item {max_offset}; narrow the query to see the rest, for \
             example to {} ({}{} items)",
            best.by,
            if n.exact { "" } else { "about " },
            best.items
        ),
        None => format!("paging stops at item {max_offset}; narrow the query to see the rest"),
    }
}

/// How many leading items fit in `max_chars`, in each of the forms a client may hand a model:
/// the page's text and the items' JSON, measured apart (a client passes one or the other).
/// Always at least one, so a walk moves. Items are measured, never built: the MCP layer
/// writes the page once.
fn fitting_prefix<T: ItemText + ItemRow>(items: &[T], max_chars: usize) -> usize {
    let (mut text, mut json) = (0usize, 0usize);
    for (i, (text_len, row_len)) in text_lens(items).zip(row_lens(items)).enumerate() {
        text += text_len;
        json += row_len;
        if (text > max_chars || json > max_chars) && i > 0 {
            return i;
        }
    }
    items.len()
}

/// Bytes of `value`'s JSON, counted as it serialises (nothing is built): what the cache
/// weighs for every item it keeps.
pub(crate) fn json_len<T: Serialize>(value: &T) -> usize {
    let mut counter = ByteCounter(0);
    serde_json::to_writer(&mut counter, value).map_or(0, |()| counter.0)
}

/// A writer that only counts the bytes written to it.
#[derive(Debug)]
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{CellKind, Column, Grouping, Location};

    fn at(score: f64, file: u64, index: u32) -> Position {
        Position {
            section: 0,
            section_start: 0,
            earlier_cut: false,
            score,
            file,
            index,
        }
    }

    fn collected(runs: Vec<Run<u32>>, ranked: bool) -> Collected<u32> {
        Collected {
            runs,
            first: 0,
            ranked,
            ran_out: true,
            cut: Cut::default(),
            total: Total {
                value: 0,
                exact: false,
            },
            warnings: vec![],
        }
    }

    fn run(positions: Vec<Position>, len: usize, section: Section) -> Run<u32> {
        let items = (0..positions.len() as u32).collect();
        Run::new(
            Arc::new(ItemList {
                items,
                positions,
                files: Vec::new(),
            }),
            len,
            section,
        )
    }

    #[test]
    fn seek_starts_after_the_item_or_after_where_it_was() {
        let ps = vec![at(9.0, 1, 0), at(9.0, 1, 1), at(5.0, 4, 0), at(2.0, 2, 0)];
        let c = collected(vec![run(ps, 4, Section::default())], true);
        assert_eq!(c.seek(&at(9.0, 1, 1)), Some(2));
        // Gone from the window: the next one past where it stood.
        assert_eq!(c.seek(&at(5.0, 3, 0)), Some(2));
        assert_eq!(c.seek(&at(5.0, 5, 0)), Some(3));
        assert_eq!(c.seek(&at(1.0, 0, 0)), Some(4));
        assert_eq!(c.seek(&at(99.0, 0, 0)), Some(0));
        // A listing in another order: only the item itself can be found, even when the
        // listing happens to be in key order.
        let listing = collected(
            vec![Run::all(ItemList {
                items: vec![0, 1],
                positions: vec![at(0.0, 3, 0), at(0.0, 7, 0)],
                files: Vec::new(),
            })],
            false,
        );
        assert_eq!(listing.seek(&at(0.0, 3, 0)), Some(1));
        assert_eq!(listing.seek(&at(0.0, 5, 0)), None);
        // In a listing of two runs, an item of the second counts the first run's items.
        let two = collected(
            vec![
                run(vec![at(0.0, 3, 0), at(0.0, 7, 0)], 2, Section::default()),
                run(vec![at(0.0, 1, 0), at(0.0, 9, 0)], 2, Section::default()),
            ],
            false,
        );
        assert_eq!(two.seek(&at(0.0, 9, 0)), Some(4));
    }

    #[test]
    fn runs_read_as_one_list_in_their_sections_and_only_up_to_their_length() {
        // Definitions (section 0), then usages stored as section 0 and placed in section 1
        // after 2 items; the usages' list holds a third item beyond the run's length.
        let defs = run(vec![at(3.0, 1, 0), at(1.0, 2, 0)], 2, Section::default());
        let usages = run(
            vec![at(9.0, 5, 0), at(4.0, 6, 0), at(2.0, 7, 0)],
            2,
            Section {
                number: 1,
                start: 2,
                earlier_cut: true,
            },
        );
        let c = collected(vec![defs, usages], true);
        assert_eq!(c.len(), 4);
        assert!(!c.is_empty());
        assert!(collected(vec![], true).is_empty());
        let (item, p) = c.get(2).unwrap();
        assert_eq!(
            (*item, p.section, p.section_start, p.earlier_cut),
            (0, 1, 2, true)
        );
        assert!(c.get(4).is_none(), "the run's length bounds it");
        // A usage scoring above every definition still comes after them.
        let mut after = at(9.0, 5, 0);
        after.section = 1;
        assert_eq!(c.seek(&after), Some(3));
        assert_eq!(c.seek(&at(1.0, 2, 0)), Some(2));
    }

    /// An item whose text is long and whose row is short (a number).
    #[derive(Serialize)]
    struct Wordy(u32);

    impl ItemText for Wordy {
        fn write_text(&self, out: &mut String) {
            out.push_str(&"w".repeat(99));
        }
    }

    impl ItemRow for Wordy {
        const COLUMNS: &'static [Column] = &[Column {
            name: "n",
            kind: CellKind::Count,
            about: "a number",
        }];
        const GROUPING: Grouping = Grouping::None;
        fn group(&self) -> Location<'_> {
            Location::NOWHERE
        }
        fn cells(&self) -> Vec<Option<serde_json::Value>> {
            vec![Some(self.0.into())]
        }
    }

    /// An item whose row is long (a string) and whose text is short.
    #[derive(Serialize)]
    struct Jsony(String);

    impl ItemText for Jsony {
        fn write_text(&self, out: &mut String) {
            out.push('j');
        }
    }

    impl ItemRow for Jsony {
        const COLUMNS: &'static [Column] = &[Column {
            name: "j",
            kind: CellKind::Text,
            about: "a string",
        }];
        const GROUPING: Grouping = Grouping::None;
        fn group(&self) -> Location<'_> {
            Location::NOWHERE
        }
        fn cells(&self) -> Vec<Option<serde_json::Value>> {
            vec![Some(self.0.clone().into())]
        }
    }

    #[test]
    fn the_text_alone_can_end_a_page() {
        // 100 characters of text each (99 and a newline), a few of JSON: the text binds.
        let items: Vec<Wordy> = (0..10).map(Wordy).collect();
        assert_eq!(fitting_prefix(&items, 250), 2);
        assert_eq!(fitting_prefix(&items, 1_000), 10);
        // Exactly at the bound still fits.
        assert_eq!(fitting_prefix(&items, 200), 2);
        // Always at least one item, so a walk moves.
        assert_eq!(fitting_prefix(&items, 10), 1);
    }

    #[test]
    fn the_json_alone_can_end_a_page() {
        // Rows of 100 characters each (95 é, 2 quotes, 2 brackets and the comma after the
        // row); the first also opens the page's `fields` (44): 144, 244, 344 ... Characters,
        // not bytes (each é is 2 bytes).
        let items: Vec<Jsony> = (0..10).map(|_| Jsony("é".repeat(95))).collect();
        let lens: Vec<usize> = row_lens(&items).take(2).collect();
        assert_eq!(lens, [144, 100]);
        assert_eq!(fitting_prefix(&items, 250), 2);
        assert_eq!(fitting_prefix(&items, 244), 2);
        assert_eq!(fitting_prefix(&items, 243), 1);
        assert_eq!(fitting_prefix(&items, 1_044), 10);
        assert_eq!(fitting_prefix(&items, 1_043), 9);
        assert_eq!(json_len(&items[0]), 2 * 95 + 2);
    }
}
