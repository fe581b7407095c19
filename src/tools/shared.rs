//! What every tool shares: its face for the MCP layer and the CLI ([`ToolInfo`],
//! [`ToolArgs`]), the two kinds of tool the table lists ([`PagedTool`], [`AnswerTool`]), the
//! request of a line tool ([`LineQuery`]), the columns and cells of items, and the helpers
//! that read matches (character columns, context blocks). The macros that declare arguments
//! and items are `tools/declare.rs`; the table itself is `tools/mod.rs`; the seam a paged
//! tool implements is the engine's (`engine::tool::Tool`).

use std::future::Future;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::engine::Pager;
use crate::engine::backend::{Backend, MatchedLine};
use crate::engine::config::PagerConfig;
use crate::engine::error::{ArgumentError, Error};
use crate::engine::text::clip_text_keep_indent;
use crate::engine::tool::{Estimate, Search, Source, Tool};
use crate::form::{CellKind, Column, ItemRow, ItemText};

/// What every tool has: a name and the words that present it.
pub trait ToolInfo: Send + Sync + 'static {
    /// The name everywhere: MCP tool, CLI subcommand, metrics label, error texts.
    const NAME: &'static str;
    /// A short human title.
    const TITLE: &'static str;
    /// What the tool does and how to call it, for a model choosing tools.
    const DESCRIPTION: &'static str;
    /// What the tool does, as the end of "NAME ...", for the server's instructions.
    const SUMMARY: &'static str;
}

/// What a tool's arguments are for the MCP layer and the CLI: the MCP input schema (serde +
/// schemars) and the CLI subcommand (clap).
pub trait ToolArgs: DeserializeOwned + JsonSchema + clap::Args + Send + Sync + 'static {}

impl<A: DeserializeOwned + JsonSchema + clap::Args + Send + Sync + 'static> ToolArgs for A {}

/// A paged tool with its face: the engine's seam ([`Tool`]: scope, plan, key, collect), the
/// words and arguments the MCP layer and the CLI present ([`ToolInfo`], [`ToolArgs`]), and
/// items that read as text and as rows ([`ItemText`], [`ItemRow`]). Every type that has all
/// of these is one.
pub trait PagedTool: ToolInfo + Tool<Args: ToolArgs, Item: ItemText + ItemRow> {}

impl<T: ToolInfo + Tool<Args: ToolArgs, Item: ItemText + ItemRow>> PagedTool for T {}

/// A tool that answers with one value rather than pages.
pub trait AnswerTool: ToolInfo {
    /// The arguments.
    type Args: ToolArgs;
    /// The answer (the output schema).
    type Output: Serialize + JsonSchema + Send + Sync + 'static;

    /// Runs the call.
    fn answer<B: Backend>(
        pager: &Pager<B>,
        args: &Self::Args,
    ) -> impl Future<Output = Result<Self::Output, Error>> + Send;
    /// The answer as text for a model to read.
    fn text(output: &Self::Output) -> String;
}

/// The 1-based line number of an item in a file.
pub const LINE: Column = Column::new("line", CellKind::Count, "1-based line number");
/// The 1-based character column of the match on its line.
pub const COLUMN: Column = Column::new(
    "column",
    CellKind::Count,
    "1-based character column of the match on the line",
);
/// The item's source line.
pub const TEXT: Column = Column::new(
    "text",
    CellKind::Text,
    "the line, trimmed and shortened to snippet_length",
);
/// Context lines before an item's line.
pub const BEFORE: Column = Column::new(
    "before",
    CellKind::Lines,
    "lines before it, oldest first (with context_lines)",
);
/// Context lines after an item's line.
pub const AFTER: Column = Column::new(
    "after",
    CellKind::Lines,
    "lines after it (with context_lines)",
);
/// A symbol's ctags kind.
pub const KIND: Column = Column::new(
    "kind",
    CellKind::Text,
    "ctags kind, e.g. function, method, struct",
);
/// A symbol's name.
pub const NAME: Column = Column::new("name", CellKind::Text, "the symbol's name");
/// The scope a symbol is defined in.
pub const PARENT: Column = Column::new(
    "parent",
    CellKind::Text,
    "enclosing scope (class, impl, module, package), when ctags knows it and the page does \
     not already show it",
);
/// The kind of that scope.
pub const PARENT_KIND: Column = Column::new(
    "parent_kind",
    CellKind::Text,
    "ctags kind of the enclosing scope",
);
/// A file's path inside its repository.
pub const PATH: Column = Column::new("path", CellKind::Text, "path inside the repository");
/// The branches holding a version of a file or a repository.
pub const BRANCHES: Column = Column::new(
    "branches",
    CellKind::Lines,
    "branches holding this version (indexes with branches only)",
);
/// The language Zoekt detected.
pub const LANGUAGE: Column = Column::new("language", CellKind::Text, "language Zoekt detected");

/// A cell holding `n`.
pub fn count(n: impl Into<u64>) -> Option<serde_json::Value> {
    Some(serde_json::Value::from(n.into()))
}

/// A cell holding `s`, or none when it is empty.
pub fn text(s: &str) -> Option<serde_json::Value> {
    (!s.is_empty()).then(|| serde_json::Value::from(s))
}

/// A cell holding `lines`, or none when there are none.
pub fn lines(lines: &[String]) -> Option<serde_json::Value> {
    (!lines.is_empty()).then(|| serde_json::Value::from(lines.to_vec()))
}

/// The request of a tool whose items are matching lines of one Zoekt query (`search`,
/// `search_symbols`): the query, and the context lines the caller asked for (checked against
/// `--max-context-lines`). Context lines change what an item shows, not which items there
/// are, so only the query names the request for the cursor.
#[derive(Debug, Clone)]
pub struct LineQuery {
    /// The Zoekt query.
    pub(crate) query: String,
    /// Lines of context before and after each matching line.
    pub(crate) context_lines: u32,
}

impl LineQuery {
    /// `query` with the caller's `context_lines`, refused when over the server's bound.
    pub(crate) fn new(
        query: String,
        context_lines: Option<u32>,
        cfg: &PagerConfig,
    ) -> Result<LineQuery, Error> {
        let context_lines = checked_context_lines(context_lines, cfg)?;
        Ok(LineQuery {
            query,
            context_lines,
        })
    }

    /// The one search behind the tool's items: the query, with the caller's context lines,
    /// its items estimated by Zoekt's match count.
    pub(crate) fn source(&self) -> Source<'_> {
        Source::Search(Search {
            query: &self.query,
            context_lines: self.context_lines,
            estimate: Estimate::Matches,
        })
    }
}

/// The one search of a tool whose items are the files `query` matches, one each: no context
/// lines, its total estimated by Zoekt's file count (`search_files`, `files_with_matches`).
pub(crate) fn files_source(query: &str) -> Source<'_> {
    Source::Search(Search {
        query,
        context_lines: 0,
        estimate: Estimate::Files,
    })
}

/// The `context_lines` argument of a tool, checked against `--max-context-lines`.
pub(crate) fn checked_context_lines(given: Option<u32>, cfg: &PagerConfig) -> Result<u32, Error> {
    let context_lines = given.unwrap_or(0);
    if context_lines > cfg.max_context_lines {
        return Err(ArgumentError::ContextLines {
            given: context_lines,
            max: cfg.max_context_lines,
        }
        .into());
    }
    Ok(context_lines)
}

/// 1-based character column of a byte offset into `line` (clamped, never panics on a
/// non-boundary offset).
pub(crate) fn column(line: &str, byte_offset: u32) -> u32 {
    let mut off = (byte_offset as usize).min(line.len());
    while !line.is_char_boundary(off) {
        off -= 1;
    }
    line[..off].chars().count() as u32 + 1
}

/// 1-based character column of the first match on `line` (column 1 when it has no fragment).
pub(crate) fn first_match_column(line: &MatchedLine) -> u32 {
    let first = line.fragments.iter().map(|f| f.byte_offset).min();
    column(&line.text, first.unwrap_or(0))
}

/// A context block (newline-separated lines) as clipped lines; none when absent or empty.
pub(crate) fn context_lines(block: Option<&str>) -> Vec<String> {
    block
        .filter(|b| !b.is_empty())
        .map(|b| {
            b.strip_suffix('\n')
                .unwrap_or(b)
                .split('\n')
                .map(clip_text_keep_indent)
                .collect()
        })
        .unwrap_or_default()
}

/// Writes a source line between its context lines, each context line marked `| ` (a blank
/// one just `|`).
pub(crate) fn write_in_context(
    out: &mut String,
    before: &[String],
    line: impl FnOnce(&mut String),
    after: &[String],
) {
    let context = |out: &mut String, l: &str| {
        out.push('|');
        if !l.is_empty() {
            out.push(' ');
            out.push_str(l);
        }
    };
    for b in before {
        context(out, b);
        out.push('\n');
    }
    line(out);
    for a in after {
        out.push('\n');
        context(out, a);
    }
}

/// The text of an argument a suggestion adds a filter to: a query, or filters that may be
/// left out.
pub trait ArgText {
    /// The text the caller gave (empty when left out).
    fn arg_text(&self) -> &str;
}

impl ArgText for String {
    fn arg_text(&self) -> &str {
        self
    }
}

impl ArgText for Option<String> {
    fn arg_text(&self) -> &str {
        self.as_deref().unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_blocks_keep_indentation() {
        assert_eq!(context_lines(Some("  a\n\tb\n")), ["  a", "\tb"]);
        assert!(context_lines(Some("")).is_empty());
        assert!(context_lines(None).is_empty());
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(column("éé x", 4), 3);
        assert_eq!(column("é", 1), 1); // inside a char: clamped, no panic
    }
}
