//! What the window cache weighs an answer at ([`answer_weight`], [`raw_weight`]): bytes,
//! estimated without building anything. A page's size as a reader gets it is the page's
//! form's measure (`src/form`), not this.

use serde::Serialize;

use super::answer::Answer;
use super::backend::RankedFiles;
use super::order::Position;

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
///
/// A census that carries a search's lines (`carries`) holds its items twice once a first
/// page has asked for them: in the answer, and in the carried search's own answer worked out
/// from it and kept beside it (`Answer::files_with_lines`). Its only items are that search's.
pub(crate) fn answer_weight<T: Serialize>(answer: &Answer<T>, carries: bool) -> u32 {
    let list = answer.list();
    let fixed = std::mem::size_of::<T>() + std::mem::size_of::<Position>();
    let items: usize = list.items.iter().map(|i| json_len(i) + fixed).sum();
    let items = if carries { items * 2 } else { items };
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

    #[test]
    fn json_len_counts_bytes_as_written() {
        // 95 é of 2 bytes each and two quotes.
        assert_eq!(json_len(&"é".repeat(95)), 2 * 95 + 2);
        assert_eq!(json_len(&vec![1, 22, 333]), "[1,22,333]".len());
    }

    #[test]
    fn a_census_carrying_lines_weighs_its_items_twice() {
        use super::super::backend::RankedFile;
        let files = (0..3)
            .map(|i| RankedFile {
                repo: "r".into(),
                path: format!("f{i}.go"),
                score: 1.0,
                ..Default::default()
            })
            .collect();
        let ranked = RankedFiles {
            files,
            ..Default::default()
        };
        let answer = Answer::new(&ranked, 3, |f: &RankedFile| vec![f.path.repeat(50)]);
        let once = answer_weight(&answer, false);
        let items = 3 * (json_len(&"f0.go".repeat(50)) + std::mem::size_of::<String>())
            + 3 * std::mem::size_of::<Position>();
        assert_eq!(answer_weight(&answer, true) - once, items as u32);
    }
}
