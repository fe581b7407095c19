//! `files_with_matches`: one item per file whose CONTENT matches a Zoekt query, with how many
//! of its lines matched and the first of them. Like `rg --files-with-matches`: the answer to
//! "which files mention this?" in a fraction of the tokens of every matching line.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Deserialize;

use super::declare::{file_item, paged_args};
use super::shared::{BRANCHES, LANGUAGE, PATH, ToolInfo, count, text};
use super::shared::{files_source, first_match_column};
use crate::engine::backend::RankedFile;
use crate::engine::config::PagerConfig;
use crate::engine::error::Error;
use crate::engine::text::{Snippet, clip_text};
use crate::engine::tool::{CensusQuery, Found, Shaped, Source, Tool};
use crate::form::{CellKind, Column, Grouping, ItemRow, ItemText, Location};
use crate::zoekt::query;
use serde_json::Value;

/// The `files_with_matches` tool.
pub struct FilesWithMatches;

paged_args! {
    snippets;
    narrows query;
    /// Arguments of `files_with_matches`.
    #[derive(Debug, Clone, Default, Deserialize, JsonSchema, clap::Args)]
    #[serde(deny_unknown_fields)]
    pub struct FilesWithMatchesArgs {
        /// A Zoekt query, as for `search` (e.g. `ctx.Done lang:go -file:_test`). Files that match
        /// only by their path are not listed.
        pub query: String,
    }
}

file_item! {
    file;
    /// One file whose content matched.
    pub struct MatchingFileItem {
        /// How many lines of the file matched (as Zoekt returned them).
        pub matching_lines: u32,
        /// 1-based number of the first matching line.
        pub first_line: u32,
        /// 1-based character column of the first match on that line.
        pub column: u32,
        /// The first matching line, trimmed and shortened.
        pub text: String,
    }
}

impl ToolInfo for FilesWithMatches {
    const NAME: &'static str = "files_with_matches";
    const TITLE: &'static str = "Files whose content matches";
    const DESCRIPTION: &'static str = "Run a raw Zoekt query; one item per file whose CONTENT \
        matches, with the number of matching lines and the first one. Cheaper than search when \
        you need which files, not every line. Paged by item; continue with \
        cursor=next_cursor.";
    const SUMMARY: &'static str = "lists the files whose content matches";
}

impl Tool for FilesWithMatches {
    const SCOPE_ID: u8 = 7;
    type Args = FilesWithMatchesArgs;
    type Item = MatchingFileItem;
    /// The Zoekt query.
    type Plan = String;

    fn plan(args: &FilesWithMatchesArgs, _cfg: &PagerConfig) -> Result<String, Error> {
        Ok(query::search_query(&args.query)?)
    }

    fn key(plan: &String) -> Vec<&str> {
        vec![plan]
    }

    fn source(plan: &String) -> Source<'_> {
        files_source(plan)
    }

    fn items(_plan: &String, found: Found<'_>) -> Vec<MatchingFileItem> {
        found.file().map_or_else(Vec::new, matching_file)
    }

    /// The files with a matching line, each one result: the query and one of its terms in
    /// content (`zoekt::query::content_files_query`). A query that cannot be read so is
    /// counted by every file it matches, path matches included: about.
    fn census(plan: &String) -> Option<CensusQuery> {
        Some(match query::content_files_query(plan) {
            Some(query) => CensusQuery::results(&query),
            None => CensusQuery {
                every_file_holds_items: false,
                ..CensusQuery::results(plan)
            },
        })
    }
}

/// The first matching line of a file.
const FIRST_LINE_TEXT: Column = Column::new(
    "text",
    CellKind::Text,
    "the first matching line, trimmed and shortened",
);

impl ItemRow for MatchingFileItem {
    const COLUMNS: &'static [Column] = &[
        PATH,
        BRANCHES,
        Column::new(
            "matching_lines",
            CellKind::Count,
            "how many lines of the file matched",
        ),
        Column::new(
            "first_line",
            CellKind::Count,
            "1-based number of the first matching line",
        ),
        Column::new(
            "column",
            CellKind::Count,
            "1-based character column of the first match on that line",
        ),
        FIRST_LINE_TEXT,
        // Last, so that a row whose language its extension says ends before it.
        LANGUAGE,
    ];
    const GROUPING: Grouping = Grouping::Repo;
    const NUMBERED_WHEN_REPEATED: Option<&'static str> = Some(FIRST_LINE_TEXT.name);
    const BY_EXTENSION: Option<&'static str> = Some(LANGUAGE.name);

    fn group(&self) -> Location<'_> {
        self.location()
    }

    fn cells(&self) -> Vec<Option<Value>> {
        self.listed_cells([
            count(self.matching_lines),
            count(self.first_line),
            count(self.column),
            text(&self.text),
        ])
    }
}

impl ItemText for MatchingFileItem {
    fn write_text(&self, out: &mut String) {
        let lines = if self.matching_lines == 1 {
            "line"
        } else {
            "lines"
        };
        let location = self.location();
        let language = if self.language.is_empty() {
            String::new()
        } else {
            format!("{}, ", self.language)
        };
        let _ = write!(
            out,
            "{location} ({language}{} {lines}) :{}:{}",
            self.matching_lines, self.first_line, self.column,
        );
        if !self.text.is_empty() {
            let _ = write!(out, ": {}", self.text);
        }
    }
}

impl Shaped for MatchingFileItem {
    fn shape(&mut self, snippet: &Snippet) {
        snippet.apply(&mut self.text);
    }
}

/// The file as one item when some line of its content matched; nothing otherwise.
fn matching_file(file: &RankedFile) -> Vec<MatchingFileItem> {
    let mut lines: Vec<_> = file.lines.iter().filter(|l| l.number > 0).collect();
    lines.sort_by_key(|l| l.number);
    lines.dedup_by_key(|l| l.number);
    let Some(first) = lines.first() else {
        return Vec::new();
    };
    vec![MatchingFileItem {
        repo: file.repo.clone(),
        path: file.path.clone(),
        branches: file.branches.clone(),
        language: file.language.clone(),
        matching_lines: lines.len() as u32,
        first_line: first.number,
        column: first_match_column(first),
        text: clip_text(&first.text),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::search_symbols::tests::{file, line};

    #[test]
    fn one_item_per_file_with_its_first_line_and_count() {
        let f = file(vec![
            line(9, "x b", vec![(2, None)]),
            line(3, "  a", vec![(2, None)]),
            line(9, "x b", vec![(2, None)]),
        ]);
        let items = matching_file(&f);
        assert_eq!(items.len(), 1);
        let i = &items[0];
        assert_eq!((i.matching_lines, i.first_line, i.column), (2, 3, 3));
        assert_eq!(i.text, "a");
    }

    #[test]
    fn a_path_only_match_is_not_a_content_match() {
        let mut f = file(vec![]);
        f.path_matched = true;
        assert!(matching_file(&f).is_empty());
    }
}
