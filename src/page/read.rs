//! `read_file`: a bounded range of lines of one indexed file.
//!
//! Zoekt has no "get file" endpoint; the file is fetched with a search that can match only it
//! (repository and path anchored, escaped and case-sensitive) and `Whole: true`. The answer is
//! still checked by name, so a path can never pull in another file's content.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Backend, ErrorCode, PageError, Pager};
use crate::zoekt::query;
use crate::zoekt::wire::{SearchOptions, SearchRequest};

/// Bounds of one answer; a range beyond them comes back cut, with `truncated`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    pub max_lines: u32,
    pub max_bytes: usize,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_lines: 400,
            max_bytes: 32_000,
        }
    }
}

/// Lines `start_line..=end_line` of one file.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct FileSlice {
    pub repo: String,
    pub path: String,
    pub language: String,
    /// Branches holding this version of the file (empty for plain-folder indexes).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<String>,
    /// First line returned (1-based).
    pub start_line: u32,
    /// Last line returned (inclusive); `start_line - 1` when no line was returned.
    pub end_line: u32,
    /// Lines in the whole file.
    pub total_lines: u32,
    /// The lines, each with its newline (the last line of a file may lack one).
    pub content: String,
    /// `true` when the range asked for was cut by the line or byte bound.
    pub truncated: bool,
    /// Where to continue when `truncated`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_start_line: Option<u32>,
}

impl<B: Backend> Pager<B> {
    /// Reads lines `start_line..=end_line` (1-based, inclusive; defaults: 1 and as far as the
    /// bounds allow) of `path` in `repo`.
    pub async fn read_file(
        &self,
        repo: &str,
        path: &str,
        start_line: Option<u32>,
        end_line: Option<u32>,
    ) -> Result<FileSlice, PageError> {
        let start = start_line.unwrap_or(1);
        if start == 0 {
            return Err(PageError::invalid_argument(
                "start_line is 0",
                "Lines are numbered from 1.",
            ));
        }
        if let Some(end) = end_line
            && end < start
        {
            return Err(PageError::invalid_argument(
                format!("end_line {end} is before start_line {start}"),
                "Give end_line >= start_line, or omit it to read as far as the bounds allow.",
            ));
        }
        let q = query::exact_file_query(repo, path)?;
        let req = SearchRequest {
            q,
            opts: SearchOptions {
                whole: true,
                // Anchoring makes one file the only candidate; a few more leave room for a
                // second branch of the same file without ever fetching much.
                ..self.cfg.effort.options(4)
            },
        };
        let result = self.backend.search(&req).await?;
        // One document per distinct version: with several branches holding different
        // content, always the same one (first by branch names), so reads that continue with
        // next_start_line never stitch two versions together.
        let mut candidates: Vec<_> = result
            .files
            .into_iter()
            .filter(|f| f.repository == repo && f.file_name == path)
            .collect();
        candidates.sort_by(|a, b| a.branches.cmp(&b.branches));
        let Some(file) = candidates.into_iter().next() else {
            return Err(PageError {
                code: ErrorCode::NotFound,
                message: format!("no file `{path}` in repository `{repo}`"),
                hint: "Names are exact and case-sensitive: find the path with search_files and \
                       the repository with list_repos."
                    .into(),
            });
        };
        let content = file.content.map(|c| c.0).unwrap_or_default();
        let mut slice = slice_lines(
            &content,
            start,
            end_line,
            self.cfg.read,
            (file.repository, file.file_name, file.language),
        )?;
        slice.branches = file.branches;
        Ok(slice)
    }
}

/// Cuts the lines out of the whole content, within the bounds.
fn slice_lines(
    content: &str,
    start: u32,
    end_line: Option<u32>,
    limits: ReadLimits,
    (repo, path, language): (String, String, String),
) -> Result<FileSlice, PageError> {
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    let total = lines.len() as u32;
    if start > total.max(1) {
        return Err(PageError::invalid_argument(
            format!("start_line {start} is past the end of the file ({total} lines)"),
            format!("Use a start_line from 1 to {}.", total.max(1)),
        ));
    }
    // What was asked, clipped to the file: asking past the end is not a truncation.
    let wanted_end = end_line.unwrap_or(u32::MAX).min(total);
    let bound_end = start.saturating_add(limits.max_lines.max(1) - 1);
    let mut out = String::new();
    let mut end = start - 1;
    let mut cut_inside_line = false;
    for n in start..=wanted_end.min(bound_end) {
        let line = lines[(n - 1) as usize];
        if out.len() + line.len() > limits.max_bytes {
            if n == start {
                // A single line over the byte bound: give its head rather than nothing.
                let mut cut = limits.max_bytes.min(line.len());
                while !line.is_char_boundary(cut) {
                    cut -= 1;
                }
                out.push_str(&line[..cut]);
                end = n;
                cut_inside_line = true;
            }
            break;
        }
        out.push_str(line);
        end = n;
    }
    let truncated = end < wanted_end || cut_inside_line;
    let next_start_line = (truncated && end < total).then_some(end + 1);
    Ok(FileSlice {
        repo,
        path,
        language,
        branches: Vec::new(),
        start_line: start,
        end_line: end,
        total_lines: total,
        content: out,
        truncated,
        next_start_line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> (String, String, String) {
        ("r".into(), "p".into(), "Go".into())
    }

    fn limits(max_lines: u32, max_bytes: usize) -> ReadLimits {
        ReadLimits {
            max_lines,
            max_bytes,
        }
    }

    #[test]
    fn ranges_are_inclusive_and_clipped_to_the_file() {
        let text = "a\nb\nc\nd";
        let s = slice_lines(text, 2, Some(3), limits(10, 100), names()).unwrap();
        assert_eq!(
            (s.content.as_str(), s.start_line, s.end_line),
            ("b\nc\n", 2, 3)
        );
        assert_eq!(
            (s.total_lines, s.truncated, s.next_start_line),
            (4, false, None)
        );
        let s = slice_lines(text, 3, Some(99), limits(10, 100), names()).unwrap();
        assert_eq!(
            (s.content.as_str(), s.end_line, s.truncated),
            ("c\nd", 4, false)
        );
        assert!(slice_lines(text, 5, None, limits(10, 100), names()).is_err());
    }

    #[test]
    fn bounds_cut_the_range_and_say_where_to_continue() {
        let text = "one\ntwo\nthree\nfour\n";
        let s = slice_lines(text, 1, None, limits(2, 100), names()).unwrap();
        assert_eq!((s.content.as_str(), s.truncated), ("one\ntwo\n", true));
        assert_eq!(s.next_start_line, Some(3));
        // 8 bytes hold "one\ntwo\n" exactly; "three\n" would not fit.
        let s = slice_lines(text, 1, Some(4), limits(10, 8), names()).unwrap();
        assert_eq!((s.end_line, s.next_start_line), (2, Some(3)));
        // One line longer than the byte bound: its head, cut on a char boundary.
        let s = slice_lines("ééééé\n", 1, None, limits(10, 5), names()).unwrap();
        assert_eq!((s.content.as_str(), s.truncated), ("éé", true));
        assert_eq!(s.next_start_line, None);
    }

    #[test]
    fn an_empty_file_reads_as_no_lines() {
        let s = slice_lines("", 1, None, limits(10, 100), names()).unwrap();
        assert_eq!((s.total_lines, s.end_line, s.truncated), (0, 0, false));
    }
}
