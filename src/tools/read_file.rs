//! `read_file`: a bounded range of lines of one indexed file.
//!
//! Zoekt has no "get file" endpoint; the file is fetched with a search that can match only it
//! (repository and path anchored, escaped and case-sensitive) and `Whole: true`. The answer is
//! still checked by name, so a path can never pull in another file's content.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::shared::{AnswerTool, ToolInfo};
use crate::engine::Pager;
use crate::engine::backend::{Backend, FileSearch, Shape};
use crate::engine::config::ReadLimits;
use crate::engine::error::{ArgumentError, Error};
use crate::zoekt::query;

/// The `read_file` tool.
pub struct ReadFile;

/// Arguments of `read_file`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// Repository name exactly as list_repos or a search result gives it.
    pub repo: String,
    /// Path inside the repository exactly as a search result gives it (case-sensitive).
    pub path: String,
    /// First line to return, 1-based (default 1).
    #[serde(default)]
    #[arg(long)]
    pub start_line: Option<u32>,
    /// Last line to return, inclusive (default: as far as the size bounds allow).
    #[serde(default)]
    #[arg(long)]
    pub end_line: Option<u32>,
}

/// Lines `start_line..=end_line` of one file.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct FileSlice {
    /// Repository name.
    pub repo: String,
    /// Path inside the repository.
    pub path: String,
    /// Language Zoekt detected (may be empty).
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

impl ToolInfo for ReadFile {
    const NAME: &'static str = "read_file";
    const TITLE: &'static str = "Read lines of a file";
    const DESCRIPTION: &'static str = "Return a range of lines of one indexed file (repo and \
        path exactly as search results give them), bounded in lines and bytes; truncated \
        answers say where to continue with start_line.";
    const SUMMARY: &'static str = "returns a bounded range of lines of one file";
}

impl AnswerTool for ReadFile {
    type Args = ReadFileArgs;
    type Output = FileSlice;

    async fn answer<B: Backend>(pager: &Pager<B>, args: &ReadFileArgs) -> Result<FileSlice, Error> {
        read_file(
            pager,
            &args.repo,
            &args.path,
            args.start_line,
            args.end_line,
        )
        .await
    }

    /// A header line, then the numbered lines, then where to continue.
    fn text(f: &FileSlice) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}/{} lines {}-{} of {}:",
            f.repo, f.path, f.start_line, f.end_line, f.total_lines
        );
        for (i, line) in f.content.split_inclusive('\n').enumerate() {
            let _ = write!(out, "{:>5}  {line}", f.start_line as usize + i);
        }
        if !out.ends_with('\n') {
            out.push('\n');
        }
        match f.next_start_line {
            Some(n) => {
                let _ = write!(
                    out,
                    "Truncated by the size bounds. More: call read_file with start_line={n}"
                );
            }
            None if f.truncated => {
                out.push_str("Truncated: the line is longer than the byte bound.")
            }
            None => out.push_str("End of range."),
        }
        out
    }
}

/// Reads lines `start_line..=end_line` (1-based, inclusive; defaults: 1 and as far as the
/// bounds allow) of `path` in `repo`.
///
/// Zoekt has no "get file" endpoint; the file is fetched with a search that can match
/// only it, and the answer is still checked by name.
pub async fn read_file<B: Backend>(
    pager: &Pager<B>,
    repo: &str,
    path: &str,
    start_line: Option<u32>,
    end_line: Option<u32>,
) -> Result<FileSlice, Error> {
    let start = start_line.unwrap_or(1);
    if start == 0 {
        return Err(ArgumentError::StartLineZero.into());
    }
    if let Some(end) = end_line
        && end < start
    {
        return Err(ArgumentError::EndBeforeStart { start, end }.into());
    }
    let search = FileSearch {
        query: query::exact_file_query(repo, path)?,
        effort: pager.config().effort,
        // Anchoring makes one file the only candidate; a few more leave room for a
        // second branch of the same file without ever fetching much.
        max_files: 4,
        context_lines: 0,
        shape: Shape::WholeContent,
    };
    let result = pager.backend().search(&search).await?;
    let stats = result.stats;
    // One document per distinct version: with several branches holding different
    // content, always the same one (first by branch names), so reads that continue with
    // next_start_line never stitch two versions together.
    let mut candidates: Vec<_> = result
        .files
        .into_iter()
        .filter(|f| f.repo == repo && f.path == path)
        .collect();
    candidates.sort_by(|a, b| a.branches.cmp(&b.branches));
    let Some(file) = candidates.into_iter().next() else {
        // Not found says nothing about the file while a backend is missing (it may hold the
        // file) or shards load.
        pager.check_empty_answer(&stats).await?;
        return Err(Error::NoSuchFile {
            repo: repo.to_string(),
            path: path.to_string(),
        });
    };
    let content = file.content.unwrap_or_default();
    let mut slice = slice_lines(
        &content,
        start,
        end_line,
        pager.config().read,
        (file.repo, file.path, file.language),
    )?;
    slice.branches = file.branches;
    Ok(slice)
}

/// Cuts the lines out of the whole content, within the bounds.
fn slice_lines(
    content: &str,
    start: u32,
    end_line: Option<u32>,
    limits: ReadLimits,
    (repo, path, language): (String, String, String),
) -> Result<FileSlice, ArgumentError> {
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    let total = lines.len() as u32;
    if start > total.max(1) {
        return Err(ArgumentError::StartPastEnd { start, total });
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
    use crate::engine::backend::{BackendErrorKind, RankedFile};
    use crate::{engine::testing::FakeBackend, fanout::testing::fan_with_b_away};

    #[tokio::test]
    async fn a_file_not_found_while_a_backend_is_missing_names_that_backend() {
        let query = query::exact_file_query("r", "p").unwrap();
        let file = RankedFile {
            repo: "r".into(),
            path: "p".into(),
            content: Some("one\ntwo\n".into()),
            ..Default::default()
        };
        let pager = fan_with_b_away(
            FakeBackend::new(),
            FakeBackend::new().with(&query, vec![file]),
        );
        let e = read_file(&pager, "r", "p", None, None).await.unwrap_err();
        let Error::Backend(e) = e else {
            panic!("not a backend error: {e}")
        };
        assert_eq!(e.kind, BackendErrorKind::Unreachable);
        assert!(e.message.contains("and b did not answer"), "{}", e.message);
        // Back: the file is read; a file on no backend is no such file.
        pager.backend().members()[1].backend.heal();
        let slice = read_file(&pager, "r", "p", None, None).await.unwrap();
        assert_eq!(slice.content, "one\ntwo\n");
        assert!(matches!(
            read_file(&pager, "r", "q", None, None).await,
            Err(Error::NoSuchFile { .. })
        ));
    }

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
