//! `find_references`: every definition of an exact identifier (from `sym:`), then every line
//! using it (whole word, case-sensitive).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::declare::{file_item, paged_args};
use super::search_symbols::symbols_of;
use super::shared::{AFTER, BEFORE, COLUMN, LINE, TEXT, ToolInfo, count, lines, text};
use super::shared::{column, context_lines};
use crate::engine::backend::RankedFile;
use crate::engine::config::PagerConfig;
use crate::engine::error::Error;
use crate::engine::text::{Snippet, clip_text};
use crate::engine::tool::{CensusQuery, Estimate, Found, Search, Shaped, Source, Tool};
use crate::form::{CellKind, Column, Grouping, ItemRow};
use crate::zoekt::query;
use serde_json::Value;

/// The `find_references` tool.
pub struct FindReferences;

paged_args! {
    snippets;
    narrows filters;
    /// Arguments of `find_references`.
    #[derive(Debug, Clone, Default, Deserialize, JsonSchema, clap::Args)]
    #[serde(deny_unknown_fields)]
    pub struct FindReferencesArgs {
        /// The exact identifier, matched as a whole word, case-sensitively (`get` never matches
        /// `forget` or `getUser`).
        pub symbol: String,
        /// Optional filters only: `lang:go repo:core -file:_test`.
        #[serde(default)]
        #[arg(long)]
        pub filters: Option<String>,
        /// Lines of context before and after each line.
        #[serde(default)]
        #[arg(long, visible_alias = "context")]
        pub context_lines: Option<u32>,
    }
}

/// Whether a reference item defines the symbol or uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReferenceRole {
    /// A definition (from ctags).
    Definition,
    /// A line using the symbol.
    Reference,
}

file_item! {
    line;
    /// One definition or one usage of a symbol.
    pub struct ReferenceItem {
        /// Definition or usage.
        pub role: ReferenceRole,
        /// ctags kind, for definitions.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub kind: Option<String>,
    }
}

/// The two queries behind a `find_references` call.
#[derive(Debug, Clone)]
pub struct Plan {
    symbol: String,
    definitions: String,
    usages: String,
    /// The usages without their `sym:` atom, for the census ([`query::census_carrying`]).
    words: String,
    context_lines: u32,
}

impl ToolInfo for FindReferences {
    const NAME: &'static str = "find_references";
    const TITLE: &'static str = "Find references to a symbol";
    const DESCRIPTION: &'static str = "List every definition of an exact identifier, then \
        every line using it (whole word, case-sensitive), labelled definition/reference. Paged \
        by item; continue with cursor=next_cursor.";
    const SUMMARY: &'static str = "lists a symbol's definitions then its usages";
}

impl Tool for FindReferences {
    const SCOPE_ID: u8 = 4;
    type Args = FindReferencesArgs;
    type Item = ReferenceItem;
    type Plan = Plan;

    fn plan(args: &FindReferencesArgs, cfg: &PagerConfig) -> Result<Plan, Error> {
        let qs = query::references_queries(&args.symbol, args.filters.as_deref().unwrap_or(""))?;
        Ok(Plan {
            symbol: args.symbol.trim().to_string(),
            definitions: qs.definitions,
            usages: qs.usages,
            words: qs.words,
            context_lines: super::shared::checked_context_lines(args.context_lines, cfg)?,
        })
    }

    fn key(plan: &Plan) -> Vec<&str> {
        vec![&plan.definitions, &plan.usages]
    }

    /// Definitions (section 0) come first and are counted before any usage (section 1) is
    /// numbered, so a usage's position never depends on the page asked. Zoekt's match count
    /// for the usages query counts each definition line once too (its `sym:` atom).
    fn source(plan: &Plan) -> Source<'_> {
        Source::Sections(vec![
            Search {
                query: &plan.definitions,
                context_lines: plan.context_lines,
                estimate: Estimate::Matches,
            },
            Search {
                query: &plan.usages,
                context_lines: plan.context_lines,
                estimate: Estimate::MatchesAfterEarlierSections,
            },
        ])
    }

    fn items(plan: &Plan, found: Found<'_>) -> Vec<ReferenceItem> {
        match found {
            Found::File { search: 0, file } => definitions_of(file, &plan.symbol),
            Found::File { file, .. } => usages_of(file, &plan.symbol),
            Found::Repository(_) | Found::Names(_) => Vec::new(),
        }
    }

    /// The files holding a definition or a usage: the usages query, which holds the
    /// definitions' `sym:` atom too. It carries the definitions with their lines, so a first
    /// page takes them from the census and asks Zoekt twice, not three times: the definitions,
    /// or the usages without `sym:` (the usages' files, with `sym:` evaluated once).
    fn census(plan: &Plan) -> Option<CensusQuery> {
        let carrying = query::census_carrying(&plan.definitions, &plan.words);
        Some(
            CensusQuery::files(&plan.usages, true)
                .carrying_first_search(carrying, plan.context_lines),
        )
    }
}

impl ItemRow for ReferenceItem {
    const COLUMNS: &'static [Column] = &[
        LINE,
        COLUMN,
        Column::new("kind", CellKind::Text, "ctags kind of a definition"),
        TEXT,
        BEFORE,
        AFTER,
    ];
    const GROUPING: Grouping = Grouping::File;
    const NUMBERED_WHEN_REPEATED: Option<&'static str> = Some(TEXT.name);
    const PARTS: &'static [&'static str] = &["definitions", "references"];
    const SAID_PER_GROUP: &'static [&'static str] = &["kind"];

    fn part(&self) -> usize {
        match self.role {
            ReferenceRole::Definition => 0,
            ReferenceRole::Reference => 1,
        }
    }

    fn cells(&self) -> Vec<Option<Value>> {
        vec![
            count(self.line),
            count(self.column),
            self.kind.as_deref().and_then(text),
            text(&self.text),
            lines(&self.before),
            lines(&self.after),
        ]
    }
}

impl ReferenceItem {
    /// The item's own line of text, which its context lines (if any) surround.
    fn write_line(&self, out: &mut String) {
        let role = match self.role {
            ReferenceRole::Definition => " def",
            ReferenceRole::Reference => "",
        };
        let _ = write!(out, "{}:{}{role}", self.line, self.column);
        if !self.text.is_empty() {
            let _ = write!(out, ": {}", self.text);
        }
    }
}

impl Shaped for ReferenceItem {
    fn shape(&mut self, snippet: &Snippet) {
        self.shape_lines(snippet);
    }
}

/// Definition items of exactly `symbol` (the `sym:^symbol$` query may still carry other
/// symbol fragments on the same line), one per line.
fn definitions_of(file: &RankedFile, symbol: &str) -> Vec<ReferenceItem> {
    let mut out: Vec<ReferenceItem> = symbols_of(file, &BTreeSet::new())
        .into_iter()
        .filter(|s| s.definition.name == symbol)
        .map(|s| ReferenceItem {
            role: ReferenceRole::Definition,
            repo: s.repo,
            path: s.path,
            branches: s.branches,
            line: s.line,
            column: s.column,
            text: s.text,
            kind: Some(s.definition.kind),
            before: s.before,
            after: s.after,
        })
        .collect();
    out.dedup_by_key(|d| d.line);
    out
}

/// Usage items: one per line holding `symbol` as a whole, case-sensitive word, except the
/// lines where Zoekt marked a definition of `symbol` (the usages query also asks `sym:`): a
/// definition is never listed as a usage, whether or not the definition list reached it.
fn usages_of(file: &RankedFile, symbol: &str) -> Vec<ReferenceItem> {
    let mut out = Vec::new();
    for line in file.lines.iter().filter(|l| l.number > 0) {
        let defines = line
            .fragments
            .iter()
            .any(|f| f.symbol.as_ref().is_some_and(|s| s.name == symbol));
        if defines {
            continue;
        }
        let Some(at) = find_word(&line.text, symbol) else {
            continue;
        };
        out.push(ReferenceItem {
            role: ReferenceRole::Reference,
            repo: file.repo.clone(),
            path: file.path.clone(),
            branches: file.branches.clone(),
            line: line.number,
            column: column(&line.text, at as u32),
            text: clip_text(&line.text),
            kind: None,
            before: context_lines(line.before.as_deref()),
            after: context_lines(line.after.as_deref()),
        });
    }
    out.sort_by_key(|r| r.line);
    out.dedup_by_key(|r| r.line);
    out
}

/// Byte offset of the first whole-word occurrence of `word` in `line`.
fn find_word(line: &str, word: &str) -> Option<usize> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let word_start = word.chars().next().is_some_and(is_word);
    let word_end = word.chars().last().is_some_and(is_word);
    let mut from = 0;
    while let Some(pos) = line[from..].find(word) {
        let start = from + pos;
        let end = start + word.len();
        let before_ok = !word_start || !line[..start].chars().next_back().is_some_and(is_word);
        let after_ok = !word_end || !line[end..].chars().next().is_some_and(is_word);
        if before_ok && after_ok {
            return Some(start);
        }
        from = start + word.chars().next().map_or(1, char::len_utf8);
    }
    None
}

#[cfg(test)]
mod tests;
