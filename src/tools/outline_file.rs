//! `outline_file`: one file's symbols as a tree, nested by their ctags parent, one item per
//! symbol in tree order (by line, each symbol's children right after it).
//!
//! One Zoekt query names the file as `read_file` does (repository and path anchored, escaped,
//! case-sensitive) and asks for its symbols beside, `(sym:. or file:^PATH$)`: a file with
//! symbols comes back with them, a file without any comes back by its name alone, and a
//! missing file does not come back. The engine tells the last two apart from the first
//! (`Tool::nothing_found`: `NOT_FOUND`; `Tool::TELLS_FILES_WITHOUT_ITEMS`: a warning that the
//! file is there but the index holds no symbols for it).

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::declare::paged_args;
use super::search_symbols::{Definition, Kinds, SymbolItem, symbols_of};
use super::shared::{KIND, LINE, NAME, PARENT, PARENT_KIND, TEXT, ToolInfo, count};
use crate::engine::backend::RankedFile;
use crate::engine::config::PagerConfig;
use crate::engine::error::Error;
use crate::engine::text::Snippet;
use crate::engine::tool::{Estimate, Found, Search, Shaped, Source, Tool};
use crate::form::{CellKind, Column, Grouping, ItemRow, ItemText, Location};
use crate::zoekt::query;

/// The `outline_file` tool.
pub struct OutlineFile;

paged_args! {
    source;
    /// Arguments of `outline_file`.
    #[derive(Debug, Clone, Default, Deserialize, JsonSchema, clap::Args)]
    #[serde(deny_unknown_fields)]
    pub struct OutlineFileArgs {
        /// Repository name exactly as list_repos or a search result gives it.
        pub repo: String,
        /// Path inside the repository exactly as a search result gives it (case-sensitive).
        pub path: String,
        /// Keep only these ctags kinds, e.g. ["function", "method"]; a symbol whose parent is
        /// left out is then a root.
        #[serde(default)]
        #[arg(long, value_delimiter = ',')]
        pub kinds: Option<Vec<String>>,
    }
}

/// One symbol of a file's outline.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct OutlineItem {
    /// Depth in the tree: 0 for a symbol nested in no other symbol of the outline, its
    /// parent's depth + 1 otherwise. The parent is the nearest item before it with a lower
    /// depth.
    pub depth: u32,
    /// 1-based line of the definition.
    pub line: u32,
    /// What ctags says of the symbol. Its scope (`parent`, `parent_kind`) is given only when
    /// it is not a symbol of this outline (say, the type of a method defined in another
    /// file): an item nested under its scope has none.
    #[serde(flatten)]
    pub definition: Definition,
    /// The defining line, only with `source: true`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Repository name.
    pub repo: String,
    /// Path inside the repository.
    pub path: String,
    /// Branches holding this version of the file (absent for plain-folder indexes).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<String>,
}

/// The request behind an `outline_file` call.
#[derive(Debug, Clone)]
pub struct Plan {
    repo: String,
    path: String,
    query: String,
    kinds: Kinds,
}

impl ToolInfo for OutlineFile {
    const NAME: &'static str = "outline_file";
    const TITLE: &'static str = "Outline a file";
    const DESCRIPTION: &'static str = "List one file's symbols (repo and path exactly as \
        search results give them) as a tree nested by their enclosing scope: one item per \
        symbol with depth, line, kind and name, by line with each symbol's members after it. \
        In the text, indentation is depth, and a kind is said once for a run of siblings of \
        that kind. Source lines only with source=true. A file the index holds no symbols for \
        says so. Paged by item; continue with cursor=next_cursor.";
    const SUMMARY: &'static str = "outlines one file's symbols as a tree";
}

impl Tool for OutlineFile {
    const SCOPE_ID: u8 = 9;
    type Args = OutlineFileArgs;
    type Item = OutlineItem;
    type Plan = Plan;
    const TELLS_FILES_WITHOUT_ITEMS: bool = true;

    fn plan(args: &OutlineFileArgs, _cfg: &PagerConfig) -> Result<Plan, Error> {
        let file = query::exact_file_query(&args.repo, &args.path)?;
        let path = format!("file:^{}$", query::escape_token_regex(&args.path));
        let kinds = Kinds::new(args.kinds.as_deref())?;
        Ok(Plan {
            repo: args.repo.clone(),
            path: args.path.clone(),
            // The file by its name whether or not it holds a symbol, and its symbols.
            query: format!("{file} (sym:. or {path})"),
            kinds,
        })
    }

    fn key(plan: &Plan) -> Vec<&str> {
        vec![&plan.query, &plan.kinds.key]
    }

    fn source(plan: &Plan) -> Source<'_> {
        Source::Search(Search {
            query: &plan.query,
            context_lines: 0,
            estimate: Estimate::Matches,
        })
    }

    fn items(plan: &Plan, found: Found<'_>) -> Vec<OutlineItem> {
        found
            .file()
            .filter(|f| f.repo == plan.repo && f.path == plan.path)
            .map_or_else(Vec::new, |f| outline(f, &plan.kinds.set))
    }

    fn nothing_found(plan: &Plan) -> Option<Error> {
        Some(Error::NoSuchFile {
            repo: plan.repo.clone(),
            path: plan.path.clone(),
        })
    }
}

impl Shaped for OutlineItem {
    fn shape(&mut self, snippet: &Snippet) {
        snippet.apply(&mut self.text);
    }
}

impl OutlineItem {
    /// `LINE KIND NAME`, indented one space per depth, the kind left out when `same_kind`;
    /// a scope the outline does not hold said after it.
    fn write(&self, same_kind: bool, out: &mut String) {
        for _ in 0..self.depth {
            out.push(' ');
        }
        let definition = &self.definition;
        let _ = write!(out, "{}", self.line);
        if !same_kind {
            let _ = write!(out, " {}", definition.kind);
        }
        let _ = write!(out, " {}", definition.name);
        definition.write_scope_and_text(&self.text, out);
    }
}

impl ItemText for OutlineItem {
    /// Depth is the only indentation: a root starts flush under the file's header.
    const UNDER_FILE: &'static str = "";

    fn file(&self) -> Option<Location<'_>> {
        Some(Location {
            repo: &self.repo,
            branches: &self.branches,
            path: &self.path,
        })
    }

    fn write_text(&self, out: &mut String) {
        self.write(false, out);
    }

    /// In tree order, an item right after one of the same depth is its sibling: a run of
    /// siblings of one kind says the kind once, on its first item.
    fn write_text_after(&self, previous: Option<&Self>, out: &mut String) {
        let same_kind = previous
            .is_some_and(|p| p.depth == self.depth && p.definition.kind == self.definition.kind);
        self.write(same_kind, out);
    }
}

impl ItemRow for OutlineItem {
    const COLUMNS: &'static [Column] = &[
        Column::new(
            "depth",
            CellKind::Count,
            "depth in the tree (0: in no other symbol of the outline); the parent is the \
             nearest row before with a lower depth, and parent names only a scope outside \
             the outline",
        ),
        LINE,
        KIND,
        NAME,
        TEXT,
        PARENT,
        PARENT_KIND,
    ];
    const GROUPING: Grouping = Grouping::File;
    /// A file holds a few kinds, each many times: a page names each once.
    const NUMBERED_WHEN_REPEATED: Option<&'static str> = Some("kind");
    const ITEMS_ARE: &'static str = "symbols";

    fn cells(&self) -> Vec<Option<Value>> {
        let mut cells = vec![count(self.depth), count(self.line)];
        cells.extend(self.definition.cells(&self.text));
        cells
    }
}

/// The outline of `file`: its symbols (of `kinds` only, when given) in tree order.
fn outline(file: &RankedFile, kinds: &BTreeSet<String>) -> Vec<OutlineItem> {
    // The file's symbols as search_symbols reads them: by position, each once.
    let defs = symbols_of(file, kinds);
    let parents = parents(&defs);
    tree_order(&parents)
        .into_iter()
        .map(|(i, depth)| {
            let d = &defs[i];
            // A scope the outline holds is said by nesting, not again by name.
            let nested = parents[i].is_some_and(|(_, direct)| direct);
            let parent = d.definition.parent.clone().filter(|_| !nested);
            OutlineItem {
                depth,
                line: d.line,
                definition: Definition {
                    kind: d.definition.kind.clone(),
                    name: d.definition.name.clone(),
                    parent_kind: d
                        .definition
                        .parent_kind
                        .clone()
                        .filter(|_| parent.is_some()),
                    parent,
                },
                text: d.text.clone(),
                repo: file.repo.clone(),
                path: file.path.clone(),
                branches: file.branches.clone(),
            }
        })
        .collect()
}

/// A qualified scope name cut at its last separator: ctags writes Go's `http.conn`, C++'s
/// `a::B`, a Markdown section's `Title""Section`. `("http", "conn")`; `None` for a name
/// without one.
fn qualified(name: &str) -> Option<(&str, &str)> {
    ["::", "\"\""]
        .iter()
        .find_map(|sep| name.rsplit_once(sep))
        .or_else(|| name.rsplit_once('.'))
}

/// Where each definition of `defs` (in position order) nests: its parent there, and whether
/// that parent is its ctags scope itself.
///
/// The parent is a definition named as the scope (whole, or its last part: `conn` for
/// `http.conn`), of the scope's kind when ctags knows it; the nearest such before it, else the
/// first after it (Go declares methods before their type as often as after). A scope the file
/// does not define nests the definition under what its qualifier names (`http` for a method
/// of `http.Request` declared in another file), of any kind, not as its scope. Never a parent
/// that would make a loop: each definition is given its parent in turn, and refused one that
/// descends from it.
fn parents(defs: &[SymbolItem]) -> Vec<Option<(usize, bool)>> {
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, d) in defs.iter().enumerate() {
        by_name
            .entry(d.definition.name.as_str())
            .or_default()
            .push(i);
    }
    let mut parents: Vec<Option<(usize, bool)>> = vec![None; defs.len()];
    for (i, d) in defs.iter().enumerate() {
        let Definition {
            parent,
            parent_kind,
            ..
        } = &d.definition;
        let Some(parent) = parent.as_deref() else {
            continue;
        };
        let named = |name: &str, kind: &str| -> Vec<usize> {
            let fits = |j: &usize| *j != i && (kind.is_empty() || defs[*j].definition.kind == kind);
            by_name
                .get(name)
                .map(|c| c.iter().copied().filter(fits).collect())
                .unwrap_or_default()
        };
        let kind = match parent_kind.as_deref().unwrap_or("") {
            "unknown" => "",
            kind => kind,
        };
        let mut candidates = named(parent, kind);
        let mut direct = true;
        if let Some((outer, last)) = qualified(parent) {
            if candidates.is_empty() {
                candidates = named(last, kind);
            }
            if candidates.is_empty() {
                candidates = named(outer, "");
                direct = false;
            }
        }
        let before = candidates.iter().rev().find(|&&j| j < i);
        let Some(&p) = before.or(candidates.first()) else {
            continue;
        };
        // `p` descends from `i` (a loop): `i` stays a root.
        let mut up = Some(p);
        while let Some(a) = up {
            if a == i {
                break;
            }
            up = parents[a].map(|(a, _)| a);
        }
        if up.is_none() {
            parents[i] = Some((p, direct));
        }
    }
    parents
}

/// The definitions in tree order, each with its depth: roots by position, each followed by
/// its children by position, depth first.
fn tree_order(parents: &[Option<(usize, bool)>]) -> Vec<(usize, u32)> {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); parents.len()];
    let mut roots = Vec::new();
    for (i, p) in parents.iter().enumerate() {
        match p {
            Some((p, _)) => children[*p].push(i),
            None => roots.push(i),
        }
    }
    let mut order = Vec::with_capacity(parents.len());
    // A stack of (definition, depth), the next to visit on top.
    let mut stack: Vec<(usize, u32)> = roots.into_iter().rev().map(|r| (r, 0)).collect();
    while let Some((i, depth)) = stack.pop() {
        order.push((i, depth));
        stack.extend(children[i].iter().rev().map(|&c| (c, depth + 1)));
    }
    order
}

#[cfg(test)]
mod tests;
