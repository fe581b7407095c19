//! The words of everything a reader is told about a page besides its items: why it may be
//! partial ([`Warning`], which the engine gives as values), and how a way to narrow and its
//! count read ([`way_words`], [`count_words`]). One place, for the text block, the structured
//! page, the count, the repository listing and `health` alike, as `tools/error.rs` words
//! errors. Each warning says what happened and what to do about it.

use crate::engine::census::{CountKind, CountUnit};
use crate::engine::page::Page;
use crate::engine::suggest::{Initial, NarrowBy};
use crate::engine::warning::Warning;

use super::item::ItemRow;

/// The warnings of `page`, worded; a sectioned page's sections named by its items'
/// [`ItemRow::PARTS`].
pub fn page_warnings<T: ItemRow>(page: &Page<T>) -> Vec<String> {
    page.warnings
        .iter()
        .map(|w| match w {
            // A file without items is named in the tool's word for its items (`symbols`).
            Warning::FilesWithoutItems { files } => without_items(files, T::ITEMS_ARE),
            _ => warning_text(w, T::PARTS),
        })
        .collect()
}

/// Most files a warning names; the rest are counted.
const NAMED_FILES: usize = 3;

/// Files the search found that hold no `items`, with up to [`NAMED_FILES`] named and the rest
/// counted, said so that the empty page does not read as no file, nor as an empty one.
fn without_items(files: &[(String, String)], items: &str) -> String {
    let mut names: Vec<String> = files
        .iter()
        .take(NAMED_FILES)
        .map(|(repo, path)| format!("{repo}/{path}"))
        .collect();
    if files.len() > NAMED_FILES {
        names.push(format!("{} more file(s)", files.len() - NAMED_FILES));
    }
    let (is, them, file) = match files.len() {
        1 => ("is", "it", "a missing file, nor an empty one"),
        _ => ("are", "them", "missing files, nor empty ones"),
    };
    format!(
        "{} {is} in the index, but the index holds no {items} for {them}: not {file}",
        names.join(", ")
    )
}

/// One warning in words. `sections` names the sections of a sectioned result (empty for
/// others).
pub fn warning_text(w: &Warning, sections: &[&str]) -> String {
    let section = |n: u8| sections.get(usize::from(n)).copied().unwrap_or("items");
    match w {
        Warning::OutOfTime {
            wall_time_ms,
            shards_skipped,
        } => {
            let skipped = match shards_skipped {
                0 => String::new(),
                n => format!(" and skipped {n} shard(s)"),
            };
            format!(
                "Zoekt ran out of time (--max-wall-time-ms {wall_time_ms}){skipped} before it \
                 finished searching: these items are what it found by then, results are \
                 missing, and the total is only what it had counted; narrow the query with \
                 repo:, file: or lang:, or make it cheaper (a literal rather than a regular \
                 expression)"
            )
        }
        Warning::ShardCap { cap, files_skipped } => format!(
            "Zoekt stopped at its per-shard match cap (--shard-max-match-count {cap}) and left \
             out {files_skipped} file(s): results are missing; narrow the query with repo:, \
             file: or lang:"
        ),
        Warning::Crashed { shards } => format!(
            "{shards} shard(s) of Zoekt's index crashed while it answered: results from them \
             are missing; calling again may find them"
        ),
        Warning::MissingBackends { names } => format!(
            "Zoekt backend(s) {} did not answer: results from them are missing and the total \
             is not exact; calling again (with this cursor) once they are back finds them",
            names.join(", ")
        ),
        Warning::SharedFiles { names } => format!(
            "Zoekt backends {} returned the same files (a repository served by more than \
             one): each file is shown once, but the total may count such files more than \
             once; give each repository to one backend",
            names.join(", ")
        ),
        Warning::SharedRepository { repo, backends } => format!(
            "repository {repo} is served by two backends ({} and {}): counted once; its files \
             may show up from either, so give each repository to one backend",
            backends[0], backends[1]
        ),
        Warning::TotalCap { cap } => format!(
            "Zoekt passed the total match cap (--total-max-match-count {cap}) and stopped \
             searching shards at a point that depends on timing: results are missing and may \
             differ between calls; narrow the query, or set the cap to 0"
        ),
        Warning::TooBigToRead { files } => format!(
            "Zoekt's answer for more than {files} files was too big to read \
             (--max-answer-bytes): results beyond those files are not reachable from here, and \
             files tied in score with the last of them may be missing; narrow the query, or \
             ask for fewer context lines"
        ),
        Warning::WindowCap { files } => format!(
            "results beyond the first {files} files (--max-window) are not reachable, and \
             files tied in score with the last of them are in the pager's order and may be \
             missing; narrow the query"
        ),
        Warning::SectionBeyondWindow { section: n } => format!(
            "the {} beyond the window are not listed, as {} or as {}",
            section(*n),
            section(*n),
            section(n + 1)
        ),
        Warning::EarlierSectionCut { section: n } => format!(
            "the {} listed before these {} were incomplete (Zoekt's answer was cut or the list \
             reached --max-window); see the first pages' warnings",
            section(n.saturating_sub(1)),
            section(*n)
        ),
        Warning::Resynced {
            offset,
            cursor_offset,
        } => format!(
            "the results changed since the cursor was made (the index changed, or Zoekt cut \
             its answer differently): this page continues right after the last item served, \
             which is now item {offset} (the cursor said {cursor_offset})"
        ),
        Warning::Ceiling {
            max_offset,
            best: Some(best),
        } => {
            let unit = match best.unit {
                CountUnit::Results => "items",
                CountUnit::Files => "files holding items",
            };
            format!(
                "paging stops at item {max_offset}; narrow the query to see the rest, for \
                 example to {} ({}{} {unit})",
                way_words(&best.by),
                count_words(best.counts),
                best.items,
            )
        }
        Warning::Ceiling {
            max_offset,
            best: None,
        } => format!("paging stops at item {max_offset}; narrow the query to see the rest"),
        Warning::EndedEarly => "Zoekt's answer ended early (time ran out or shards crashed): \
             next_cursor asks again from here and may find more"
            .into(),
        Warning::HeldPlace => "this page is empty because Zoekt's answer ended early (time ran \
             out or shards crashed), before the place this walk has reached: call again with \
             next_cursor, which asks again from the same place"
            .into(),
        Warning::Estimate => "the total is an estimate from Zoekt's match count, since Zoekt \
             did not return every matching file (see the other warnings)"
            .into(),
        Warning::CensusCut => "Zoekt stopped before it had counted every matching file (the \
             census's wall time, --census-wall-time-ms, or its per-shard match cap): the total \
             is what it had counted, a lower bound; narrow the query with repo:, file: or \
             lang: for an exact count"
            .into(),
        Warning::ListingCut { parts, files } => format!(
            "Zoekt could not list every file here: {parts} part(s) of the listing stayed cut \
             (a directory directly holding more files than one request lists, or the most \
             requests one listing makes), so the {files} file(s) listed are a lower bound and \
             counts marked at least may be higher; list a directory further down for exact \
             counts"
        ),
        Warning::TooBigToCount { unit } => {
            let counted = match unit {
                CountUnit::Results => "the results Zoekt's census counted",
                CountUnit::Files => "the files holding results (each holds one or more)",
            };
            format!(
                "Zoekt's answer for every matching line was too big to read \
                 (--max-answer-bytes): the total is {counted}, a lower bound; narrow the query \
                 for an exact count"
            )
        }
        Warning::FilesWithoutItems { files } => without_items(files, "items"),
        Warning::NotCounted { names } => format!(
            "Zoekt backend(s) {} did not answer: their repositories, documents and shards are \
             not counted above",
            names.join(", ")
        ),
    }
}

/// A way to narrow in words: `repository gen-py-b`, `language Go`, `directory src/net/ of
/// tokio`, `the files directly in c-include/`.
pub fn way_words(by: &NarrowBy) -> String {
    let of = |repo: &Option<String>| match repo {
        Some(r) => format!(" of {r}"),
        None => String::new(),
    };
    match by {
        NarrowBy::Repo(r) => format!("repository {r}"),
        NarrowBy::Language(l) => format!("language {l}"),
        NarrowBy::Directory { repo, dir } => format!("directory {dir}{}", of(repo)),
        NarrowBy::Files { repo, dir } if dir.is_empty() => {
            format!("the files at the top{}", of(repo))
        }
        NarrowBy::Files { repo, dir } => format!("the files directly in {dir}{}", of(repo)),
        NarrowBy::Rest(parts) => {
            let parts: Vec<String> = parts.iter().map(way_words).collect();
            format!("all but {}", parts.join(" and "))
        }
        NarrowBy::Group(run) => {
            let start = &run.start;
            let first = match run.initial {
                Initial::End => format!("named {start}"),
                Initial::Char(c) => format!("starting {start}{c}"),
                Initial::Digits(lo, hi) | Initial::Letters(lo, hi) if lo == hi => {
                    format!("starting {start}{lo}")
                }
                Initial::Digits(lo, hi) | Initial::Letters(lo, hi) => {
                    format!("starting {start}{lo} to {start}{hi}")
                }
            };
            match &run.dir {
                None => format!("repositories {first}"),
                Some(dir) if dir.is_empty() => {
                    format!("entries at the top {first}{}", of(&run.repo))
                }
                Some(dir) => format!("entries of {dir} {first}{}", of(&run.repo)),
            }
        }
    }
}

/// What goes before a count in words: `""`, `"about "` or `"at least "`.
pub fn count_words(kind: CountKind) -> &'static str {
    match kind {
        CountKind::Exact => "",
        CountKind::About => "about ",
        CountKind::AtLeast => "at least ",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_without_items_are_named_up_to_three_then_counted() {
        let file = |p: &str| ("r".to_string(), p.to_string());
        let w = Warning::FilesWithoutItems {
            files: vec![file("a"), file("b"), file("c"), file("d"), file("e")],
        };
        assert_eq!(
            warning_text(&w, &[]),
            "r/a, r/b, r/c, 2 more file(s) are in the index, but the index holds no items for \
             them: not missing files, nor empty ones"
        );
        assert_eq!(
            without_items(&[file("x.toml")], "symbols"),
            "r/x.toml is in the index, but the index holds no symbols for it: not a missing \
             file, nor an empty one"
        );
    }
}
