//! `search`: one item per matching line of a raw Zoekt query.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Deserialize;

use super::declare::{file_item, paged_args};
use super::shared::{AFTER, BEFORE, COLUMN, TEXT, ToolInfo, count, lines, text};
use super::shared::{LineQuery, context_lines, first_match_column};
use crate::engine::backend::RankedFile;
use crate::engine::config::PagerConfig;
use crate::engine::error::Error;
use crate::engine::text::{Snippet, clip_text};
use crate::engine::tool::{CensusQuery, Found, Shaped, Source, Tool};
use crate::form::{CellKind, Column, Grouping, ItemRow};
use crate::zoekt::query;
use serde_json::Value;

/// The `search` tool.
pub struct Search;

paged_args! {
    snippets;
    narrows query;
    /// Arguments of `search`.
    #[derive(Debug, Clone, Default, Deserialize, JsonSchema, clap::Args)]
    #[serde(deny_unknown_fields)]
    pub struct SearchArgs {
        /// A Zoekt query, e.g. `ctx.Done lang:go -file:_test`. Terms are RE2 regexes over
        /// content or path, and terms separated by spaces must all match, anywhere in the file:
        /// quote a phrase (`"import os"`). `( ) * . [` stay regex syntax inside quotes too:
        /// write a literal one `\(` outside quotes (a space `\ `), `\\(` inside:
        /// `func\ \(s\ \*Server\)` or `"func \\(s \\*Server\\)"`. Also `content:`, `file:`,
        /// `repo:`, `lang:`, `sym:`, `case:`, `or`, `-`.
        pub query: String,
        /// Lines of context before and after each matching line.
        #[serde(default)]
        #[arg(long, visible_alias = "context")]
        pub context_lines: Option<u32>,
    }
}

file_item! {
    line;
    /// One matching line. Line 0 means the file's path matched: its text is the path, and
    /// it has no column or context.
    pub struct LineItem {}
}

impl ToolInfo for Search {
    const NAME: &'static str = "search";
    const TITLE: &'static str = "Search code lines";
    const DESCRIPTION: &'static str = "Run a raw Zoekt query; one item per matching line \
        (line 0 = the path matched), optionally with context lines. Paged by item; continue \
        with cursor=next_cursor.";
    const SUMMARY: &'static str = "returns matching lines for a raw Zoekt query";
}

impl Tool for Search {
    const SCOPE_ID: u8 = 1;
    type Args = SearchArgs;
    type Item = LineItem;
    type Plan = LineQuery;

    fn plan(args: &SearchArgs, cfg: &PagerConfig) -> Result<LineQuery, Error> {
        LineQuery::new(query::search_query(&args.query)?, args.context_lines, cfg)
    }

    fn key(plan: &LineQuery) -> Vec<&str> {
        vec![&plan.query]
    }

    fn source(plan: &LineQuery) -> Source<'_> {
        plan.source()
    }

    fn items(_plan: &LineQuery, found: Found<'_>) -> Vec<LineItem> {
        found.file().map_or_else(Vec::new, lines_of)
    }

    /// The files whose content or path matched: each holds its lines (a path match is line 0).
    fn census(plan: &LineQuery) -> Option<CensusQuery> {
        Some(CensusQuery::files(&plan.query, true))
    }
}

impl ItemRow for LineItem {
    const COLUMNS: &'static [Column] = &[
        Column::new(
            "line",
            CellKind::Count,
            "1-based line number; 0: the file's path matched (text is the path)",
        ),
        COLUMN,
        TEXT,
        BEFORE,
        AFTER,
    ];
    const GROUPING: Grouping = Grouping::File;
    const NUMBERED_WHEN_REPEATED: Option<&'static str> = Some(TEXT.name);

    fn cells(&self) -> Vec<Option<Value>> {
        vec![
            count(self.line),
            count(self.column),
            text(&self.text),
            lines(&self.before),
            lines(&self.after),
        ]
    }
}

impl LineItem {
    /// The item's own line of text, which its context lines (if any) surround.
    fn write_line(&self, out: &mut String) {
        if self.line == 0 {
            out.push_str("(path match)");
        } else if self.text.is_empty() {
            let _ = write!(out, "{}:{}", self.line, self.column);
        } else {
            let _ = write!(out, "{}:{}: {}", self.line, self.column, self.text);
        }
    }
}

impl Shaped for LineItem {
    /// A path match's text is its path, not a source line (and it has no context): it stays
    /// whole.
    fn shape(&mut self, snippet: &Snippet) {
        if self.line > 0 {
            self.shape_lines(snippet);
        }
    }
}

/// One item per matching line, in line order; a path match is item line 0, first.
fn lines_of(file: &RankedFile) -> Vec<LineItem> {
    let path_match = file.path_matched.then(|| LineItem {
        repo: file.repo.clone(),
        path: file.path.clone(),
        branches: file.branches.clone(),
        line: 0,
        column: 1,
        text: clip_text(&file.path),
        before: Vec::new(),
        after: Vec::new(),
    });
    let mut out: Vec<LineItem> = path_match
        .into_iter()
        .chain(file.lines.iter().map(|l| LineItem {
            repo: file.repo.clone(),
            path: file.path.clone(),
            branches: file.branches.clone(),
            line: l.number,
            column: first_match_column(l),
            text: clip_text(&l.text),
            before: context_lines(l.before.as_deref()),
            after: context_lines(l.after.as_deref()),
        }))
        .collect();
    out.sort_by_key(|m| m.line);
    out.dedup_by_key(|m| m.line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::search_symbols::tests::{file, line};

    #[test]
    fn one_item_per_line_in_line_order_with_the_path_first() {
        let mut f = file(vec![
            line(9, "b b", vec![(2, None), (0, None)]),
            line(3, "a", vec![(0, None)]),
            line(9, "b b", vec![(0, None)]),
        ]);
        f.path_matched = true;
        let items = lines_of(&f);
        let lines: Vec<(u32, u32)> = items.iter().map(|i| (i.line, i.column)).collect();
        assert_eq!(lines, [(0, 1), (3, 1), (9, 1)]);
        assert_eq!(items[0].text, "a.go");
    }
}
