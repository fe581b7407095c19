//! `search_symbols`: one item per symbol definition whose name matches a regex.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::declare::{file_item, paged_args};
use super::shared::{AFTER, BEFORE, COLUMN, KIND, LINE, NAME, PARENT, PARENT_KIND, TEXT, ToolInfo};
use super::shared::{LineQuery, column, context_lines};
use super::shared::{count, lines, text};
use crate::engine::backend::RankedFile;
use crate::engine::config::PagerConfig;
use crate::engine::error::{ArgumentError, Error};
use crate::engine::text::{Snippet, clip_text};
use crate::engine::tool::{CensusQuery, Found, Shaped, Source, Tool};
use crate::form::{Column, Grouping, ItemRow};
use crate::zoekt::query;
use serde_json::Value;

/// The `search_symbols` tool.
pub struct SearchSymbols;

paged_args! {
    snippets;
    narrows query;
    /// Arguments of `search_symbols`.
    #[derive(Debug, Clone, Default, Deserialize, JsonSchema, clap::Args)]
    #[serde(deny_unknown_fields)]
    pub struct SearchSymbolsArgs {
        /// A symbol name regex (RE2), optionally with filters: `lang:go`, `repo:REGEX`,
        /// `file:REGEX`, `case:yes`, and negations like `-file:_test`. Example: `Handler$ lang:go`.
        pub query: String,
        /// Keep only these ctags kinds, e.g. ["function", "method"].
        #[serde(default)]
        #[arg(long, value_delimiter = ',')]
        pub kinds: Option<Vec<String>>,
        /// Lines of context before and after each defining line.
        #[serde(default)]
        #[arg(long, visible_alias = "context")]
        pub context_lines: Option<u32>,
    }
}

file_item! {
    line;
    /// One symbol definition found by ctags (a `sym:` match): its line is the defining line.
    pub struct SymbolItem {
        /// What ctags says of the symbol.
        #[serde(flatten)]
        pub definition: Definition,
    }
}

/// What ctags says of one definition: its kind, name and scope. A symbol item and an
/// outline item each carry one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Definition {
    /// ctags kind, e.g. `function`, `method`, `struct`.
    pub kind: String,
    /// The symbol's name.
    pub name: String,
    /// Enclosing scope (class, impl, module), when ctags knows it and the item's page does
    /// not already show it (an outline item nested under its scope has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// ctags kind of that scope, when `parent` is given and ctags knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_kind: Option<String>,
}

impl Definition {
    /// The cells of KIND, NAME, TEXT (`text`), then the scope's two columns: the order both
    /// items' columns give them.
    pub(crate) fn cells(&self, text_cell: &str) -> [Option<Value>; 5] {
        [
            text(&self.kind),
            text(&self.name),
            text(text_cell),
            self.parent.as_deref().and_then(text),
            self.parent_kind.as_deref().and_then(text),
        ]
    }

    /// Appends what a symbol's line says after its name: its scope (` (in KIND PARENT)`, or
    /// ` (in PARENT)` without a kind) and its source line `text` (` | TEXT`), each when there
    /// is one.
    pub(crate) fn write_scope_and_text(&self, text: &str, out: &mut String) {
        match (&self.parent, &self.parent_kind) {
            (Some(parent), Some(kind)) => {
                let _ = write!(out, " (in {kind} {parent})");
            }
            (Some(parent), None) => {
                let _ = write!(out, " (in {parent})");
            }
            _ => {}
        }
        if !text.is_empty() {
            let _ = write!(out, " | {text}");
        }
    }
}

/// The request behind a `search_symbols` call.
#[derive(Debug, Clone)]
pub struct Plan {
    lines: LineQuery,
    kinds: Kinds,
}

impl ToolInfo for SearchSymbols {
    const NAME: &'static str = "search_symbols";
    const TITLE: &'static str = "Search symbol definitions";
    const DESCRIPTION: &'static str = "Find symbol DEFINITIONS (functions, methods, types...) \
        whose name matches a regex, one item per definition with kind, parent, location and \
        the defining line. Paged by item; continue with cursor=next_cursor.";
    const SUMMARY: &'static str = "finds definitions";
}

impl Tool for SearchSymbols {
    const SCOPE_ID: u8 = 2;
    type Args = SearchSymbolsArgs;
    type Item = SymbolItem;
    type Plan = Plan;

    fn plan(args: &SearchSymbolsArgs, cfg: &PagerConfig) -> Result<Plan, Error> {
        let query = query::symbols_query(&args.query)?;
        let lines = LineQuery::new(query, args.context_lines, cfg)?;
        let kinds = Kinds::new(args.kinds.as_deref())?;
        Ok(Plan { lines, kinds })
    }

    fn key(plan: &Plan) -> Vec<&str> {
        vec![&plan.lines.query, &plan.kinds.key]
    }

    fn source(plan: &Plan) -> Source<'_> {
        plan.lines.source()
    }

    fn items(plan: &Plan, found: Found<'_>) -> Vec<SymbolItem> {
        found
            .file()
            .map_or_else(Vec::new, |file| symbols_of(file, &plan.kinds.set))
    }

    /// The files holding matching definitions: exactly those with items, unless `kinds`
    /// keeps only some of their symbols.
    fn census(plan: &Plan) -> Option<CensusQuery> {
        Some(CensusQuery::files(
            &plan.lines.query,
            plan.kinds.set.is_empty(),
        ))
    }
}

impl ItemRow for SymbolItem {
    const COLUMNS: &'static [Column] = &[
        LINE,
        COLUMN,
        KIND,
        NAME,
        TEXT,
        PARENT,
        PARENT_KIND,
        BEFORE,
        AFTER,
    ];
    const GROUPING: Grouping = Grouping::File;
    const NUMBERED_WHEN_REPEATED: Option<&'static str> = Some(TEXT.name);
    const SAID_PER_GROUP: &'static [&'static str] = &["kind", "parent", "parent_kind"];

    fn cells(&self) -> Vec<Option<Value>> {
        let mut cells = vec![count(self.line), count(self.column)];
        cells.extend(self.definition.cells(&self.text));
        cells.extend([lines(&self.before), lines(&self.after)]);
        cells
    }
}

impl SymbolItem {
    /// The item's own line of text, which its context lines (if any) surround.
    fn write_line(&self, out: &mut String) {
        let _ = write!(
            out,
            "{}:{} {} {}",
            self.line, self.column, self.definition.kind, self.definition.name
        );
        self.definition.write_scope_and_text(&self.text, out);
    }
}

impl Shaped for SymbolItem {
    fn shape(&mut self, snippet: &Snippet) {
        self.shape_lines(snippet);
    }
}

/// The symbol items of one file: only fragments carrying a symbol (a `sym:` match on a
/// ctags-indexed repository), optionally of some ctags kinds only, in position order (line,
/// then column): the backend orders matches by score, which would make numbering depend on
/// scoring details.
pub(crate) fn symbols_of(file: &RankedFile, kinds: &BTreeSet<String>) -> Vec<SymbolItem> {
    let mut out: Vec<SymbolItem> = Vec::new();
    for line in file.lines.iter().filter(|l| l.number > 0) {
        for frag in &line.fragments {
            let Some(sym) = &frag.symbol else {
                continue;
            };
            if !kinds.is_empty() && !kinds.contains(&sym.kind.to_lowercase()) {
                continue;
            }
            out.push(SymbolItem {
                definition: Definition {
                    name: sym.name.clone(),
                    kind: sym.kind.clone(),
                    parent: Some(sym.parent.clone()).filter(|p| !p.is_empty()),
                    parent_kind: Some(sym.parent_kind.clone()).filter(|p| !p.is_empty()),
                },
                repo: file.repo.clone(),
                path: file.path.clone(),
                branches: file.branches.clone(),
                line: line.number,
                column: column(&line.text, frag.byte_offset),
                text: clip_text(&line.text),
                before: context_lines(line.before.as_deref()),
                after: context_lines(line.after.as_deref()),
            });
        }
    }
    out.sort_by(|a, b| position(a).cmp(&position(b)));
    out.dedup_by(|a, b| position(a) == position(b));
    out
}

/// Where a symbol item stands in its file, then its name: the order of a file's items.
fn position(s: &SymbolItem) -> (u32, u32, &str) {
    (s.line, s.column, &s.definition.name)
}

/// Most ctags kinds one `kinds` filter may list.
pub const MAX_KINDS: usize = 20;

/// The ctags kinds a call keeps (none: every kind), as its plan holds them.
#[derive(Debug, Clone)]
pub(crate) struct Kinds {
    /// Normalised, lowercase.
    pub(crate) set: BTreeSet<String>,
    /// Sorted and joined: part of the cursor's hash.
    pub(crate) key: String,
}

impl Kinds {
    /// The `kinds` argument, checked and normalised.
    pub(crate) fn new(kinds: Option<&[String]>) -> Result<Kinds, ArgumentError> {
        let set = normalise_kinds(kinds.unwrap_or_default())?;
        let key = set.iter().cloned().collect::<Vec<_>>().join(",");
        Ok(Kinds { set, key })
    }
}

/// Lower-cases, dedups and bounds the `kinds` filter.
fn normalise_kinds(kinds: &[String]) -> Result<BTreeSet<String>, ArgumentError> {
    if kinds.len() > MAX_KINDS {
        return Err(ArgumentError::TooManyKinds { count: kinds.len() });
    }
    let mut set = BTreeSet::new();
    for k in kinds {
        let k = k.trim().to_lowercase();
        if k.is_empty()
            || k.len() > 40
            || !k
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ' ')
        {
            return Err(ArgumentError::NotAKind { kind: k });
        }
        set.insert(k);
    }
    Ok(set)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::backend::{Fragment, MatchedLine, Symbol};
    pub(crate) use crate::engine::testing::file;

    /// A matching line whose fragments start at the given byte offsets, each a definition
    /// of the given symbol (a `function`) or a plain match.
    pub(crate) fn line(n: u32, text: &str, frags: Vec<(u32, Option<&str>)>) -> MatchedLine {
        MatchedLine {
            text: format!("{text}\n"),
            number: n,
            fragments: frags
                .into_iter()
                .map(|(off, sym)| Fragment {
                    byte_offset: off,
                    symbol: sym.map(|s| Symbol {
                        name: s.into(),
                        kind: "function".into(),
                        ..Default::default()
                    }),
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn symbols_are_ordered_by_position_not_by_zoekt_score() {
        let f = file(vec![
            line(9, "func b() {}", vec![(5, Some("b"))]),
            line(2, "func a() {} // x", vec![(5, Some("a")), (14, None)]),
        ]);
        let s = symbols_of(&f, &BTreeSet::new());
        assert_eq!(
            s.iter()
                .map(|s| s.definition.name.as_str())
                .collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!((s[0].line, s[0].column), (2, 6));
    }

    #[test]
    fn kinds_filter_and_missing_symbol_info() {
        let f = file(vec![line(1, "get()", vec![(0, None)])]);
        assert!(symbols_of(&f, &BTreeSet::new()).is_empty());
        let f = file(vec![line(1, "func a()", vec![(5, Some("a"))])]);
        let only_structs = BTreeSet::from(["struct".to_string()]);
        assert!(symbols_of(&f, &only_structs).is_empty());
    }

    #[test]
    fn kinds_are_normalised_and_bounded() {
        let kinds = normalise_kinds(&[" Method".into(), "method".into()]).unwrap();
        assert_eq!(kinds.into_iter().collect::<Vec<_>>(), ["method"]);
        assert_eq!(
            normalise_kinds(&vec!["f".to_string(); 21]),
            Err(ArgumentError::TooManyKinds { count: 21 })
        );
        assert!(matches!(
            normalise_kinds(&["a;b".into()]),
            Err(ArgumentError::NotAKind { .. })
        ));
    }
}
