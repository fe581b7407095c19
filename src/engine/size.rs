//! Size accounting, in one place: what each item adds to a page in the forms a client hands
//! a model (the page budget, [`fitting_prefix`]), and the bytes the window cache weighs an
//! answer at ([`answer_weight`], [`raw_weight`]). The page cut (`page.rs`) and the cache
//! (`cache.rs`) both measure here.

use serde::Serialize;

use super::answer::Answer;
use super::backend::RankedFiles;
use super::item::{Grouping, ItemRow, ItemText, text_lens};
use super::order::Position;

/// How many leading items fit in `max_chars`, in each of the forms a client may hand a model:
/// the page's text and the items' JSON, measured apart (a client passes one or the other).
/// Always at least one, so a walk moves. Items are measured, never built: the MCP layer
/// writes the page once.
pub(crate) fn fitting_prefix<T: ItemText + ItemRow>(items: &[T], max_chars: usize) -> usize {
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

/// How many characters each item adds to the structured page's compact JSON, as
/// `mcp::view` writes it: its row with every column present (a cell the page leaves out
/// would only make it shorter; an absent one in a listed column is `null`), and its group's
/// opening when it starts a new group or part. What the page's budget measures.
pub fn row_lens<T: ItemRow>(items: &[T]) -> impl Iterator<Item = usize> + '_ {
    let mut previous: Option<&T> = None;
    items.iter().map(move |item| {
        let cells = item.cells();
        // `[` `]` and a comma after each cell but the last, plus the comma between rows.
        let mut len = 2 + cells.len();
        for cell in &cells {
            len += cell.as_ref().map_or(4, json_chars);
        }
        let new_part = previous.is_none_or(|p| p.part() != item.part());
        let new_group = new_part || previous.is_some_and(|p| p.group() != item.group());
        if new_group && T::GROUPING != Grouping::None {
            // `{"repo":"…","path":"…","branches":[…],"rows":[` `]},`
            let g = item.group();
            len += 12 + json_chars(&serde_json::Value::from(g.repo)) + 9;
            if T::GROUPING == Grouping::File {
                len += 8 + json_chars(&serde_json::Value::from(g.path));
                if !g.branches.is_empty() {
                    len += 12 + json_chars(&serde_json::Value::from(g.branches.to_vec()));
                }
            }
        }
        if new_part {
            // The part's name and its `fields` list: every column, at most.
            len += 40 + T::COLUMNS.iter().map(|c| c.name.len() + 3).sum::<usize>();
        }
        previous = Some(item);
        len
    })
}

/// Characters of `value`'s compact JSON: what a cell costs a model in the structured page
/// (the MCP view weighs what it may say once with it too).
pub fn json_chars(value: &serde_json::Value) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.chars().count())
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

/// Bytes an answer holds, estimated: each item's JSON size (close to its heap size) plus its
/// fixed parts, and the per-file bookkeeping.
pub(crate) fn answer_weight<T: Serialize>(answer: &Answer<T>) -> u32 {
    let list = answer.list();
    let fixed = std::mem::size_of::<T>() + std::mem::size_of::<Position>();
    let items: usize = list.items.iter().map(|i| json_len(i) + fixed).sum();
    clamp_weight(items + answer.file_count() * 24 + 256)
}

/// Bytes a raw answer holds, estimated from its strings.
pub(crate) fn raw_weight(ranked: &RankedFiles) -> u32 {
    let files: usize = ranked
        .files
        .iter()
        .map(|f| {
            let lines: usize = f
                .lines
                .iter()
                .map(|l| {
                    l.text.len()
                        + l.before.as_ref().map_or(0, String::len)
                        + l.after.as_ref().map_or(0, String::len)
                        + l.fragments.len() * 96
                        + 96
                })
                .sum();
            f.repo.len()
                + f.path.len()
                + f.language.len()
                + f.branches.iter().map(|b| b.len() + 24).sum::<usize>()
                + f.content.as_ref().map_or(0, String::len)
                + lines
                + 160
        })
        .sum();
    clamp_weight(files + 256)
}

fn clamp_weight(bytes: usize) -> u32 {
    u32::try_from(bytes).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::item::{CellKind, Column, Location};

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
