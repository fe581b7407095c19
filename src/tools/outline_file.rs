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
mod tests {
    use super::*;
    use crate::engine::backend::{Fragment, MatchedLine, Symbol};
    use crate::engine::testing::file;
    use crate::form::write_items;

    /// A definition line: `(line, name, kind, parent, parent_kind)`.
    fn def(n: u32, name: &str, kind: &str, parent: &str, parent_kind: &str) -> MatchedLine {
        MatchedLine {
            text: format!("{kind} {name}\n"),
            number: n,
            fragments: vec![Fragment {
                byte_offset: 2,
                symbol: Some(Symbol {
                    name: name.into(),
                    kind: kind.into(),
                    parent: parent.into(),
                    parent_kind: parent_kind.into(),
                }),
            }],
            ..Default::default()
        }
    }

    /// The text of `items` as a page without `source` shows them.
    fn shown(items: &[OutlineItem]) -> String {
        let mut items = items.to_vec();
        let no_source = Snippet {
            include: false,
            max_chars: 120,
        };
        items.iter_mut().for_each(|i| i.shape(&no_source));
        let mut out = String::new();
        write_items(&items, &mut out);
        out
    }

    #[test]
    fn symbols_nest_under_their_scope_in_tree_order() {
        // Go: a method before its type, members, and everything in the package.
        let f = file(vec![
            def(30, "Close", "func", "http.conn", "struct"),
            def(1, "http", "package", "", ""),
            def(10, "conn", "struct", "http", "package"),
            def(11, "rwc", "member", "http.conn", "struct"),
            def(12, "werr", "member", "http.conn", "struct"),
            def(20, "Serve", "func", "http", "package"),
            def(40, "Other", "func", "http.Remote", "struct"),
            def(50, "Far", "func", "far.Away", "struct"),
            def(3, "url", "packageName", "", ""),
        ]);
        let items = outline(&f, &BTreeSet::new());
        let got: Vec<(u32, u32, &str)> = items
            .iter()
            .map(|i| (i.depth, i.line, i.definition.name.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (0, 1, "http"),
                (1, 10, "conn"),
                (2, 11, "rwc"),
                (2, 12, "werr"),
                (2, 30, "Close"),
                (1, 20, "Serve"),
                (1, 40, "Other"),
                (0, 3, "url"),
                (0, 50, "Far"),
            ]
        );
        // A scope the outline does not hold is said (`Other` nests in the package its
        // qualifier names); one it holds is the nesting.
        assert_eq!(items[6].definition.parent.as_deref(), Some("http.Remote"));
        assert_eq!(items[6].definition.parent_kind.as_deref(), Some("struct"));
        assert!(items[4].definition.parent.is_none());
        assert_eq!(
            shown(&items[..7]),
            "r/a.go\n1 package http\n 10 struct conn\n  11 member rwc\n  12 werr\n  30 func Close\n \
             20 func Serve\n 40 Other (in struct http.Remote)\n"
        );
        // The first item of a page says its kind.
        assert_eq!(shown(&items[3..4]), "r/a.go\n  12 member werr\n");
    }

    #[test]
    fn the_nearest_scope_before_is_the_parent_and_kinds_must_fit() {
        // Rust: two impl blocks of one type, and a struct of the same name.
        let f = file(vec![
            def(1, "Registry", "struct", "", ""),
            def(5, "Registry", "implementation", "", ""),
            def(6, "new", "method", "Registry", "implementation"),
            def(9, "Registry", "implementation", "", ""),
            def(10, "len", "method", "Registry", "implementation"),
            def(12, "base", "field", "Registry", "struct"),
        ]);
        let items = outline(&f, &BTreeSet::new());
        let got: Vec<(u32, u32)> = items.iter().map(|i| (i.depth, i.line)).collect();
        assert_eq!(got, [(0, 1), (1, 12), (0, 5), (1, 6), (0, 9), (1, 10)]);
        // Only methods: their scope is left out, so they are roots that name it.
        let methods = BTreeSet::from(["method".to_string()]);
        let items = outline(&f, &methods);
        assert_eq!(items.len(), 2);
        assert!(items.iter().all(|i| i.depth == 0));
        assert_eq!(items[0].definition.parent.as_deref(), Some("Registry"));
    }

    #[test]
    fn markdown_sections_nest_by_their_last_heading() {
        let f = file(vec![
            def(1, "Go", "chapter", "", ""),
            def(15, "Install", "section", "Go", "chapter"),
            def(17, "Binary v1.2", "subsection", "Go\"\"Install", "section"),
        ]);
        let depths: Vec<u32> = outline(&f, &BTreeSet::new())
            .iter()
            .map(|i| i.depth)
            .collect();
        assert_eq!(depths, [0, 1, 2]);
    }

    #[test]
    fn a_scope_naming_itself_or_a_loop_makes_no_cycle() {
        let f = file(vec![
            def(1, "a", "class", "b", "class"),
            def(2, "b", "class", "a", "class"),
            def(3, "c", "class", "c", "class"),
        ]);
        let items = outline(&f, &BTreeSet::new());
        let got: Vec<(u32, u32)> = items.iter().map(|i| (i.depth, i.line)).collect();
        // `a` takes `b` as its parent; `b` may not then take `a`. `c` is its own scope only.
        assert_eq!(got, [(0, 2), (1, 1), (0, 3)]);
    }

    #[test]
    fn the_same_definition_twice_is_one_item_and_file_name_matches_are_none() {
        let mut twice = def(4, "f", "func", "", "");
        twice.fragments.push(twice.fragments[0].clone());
        let name_match = MatchedLine {
            number: 0,
            text: "a.go".into(),
            ..Default::default()
        };
        let items = outline(&file(vec![twice, name_match]), &BTreeSet::new());
        assert_eq!(items.len(), 1);
    }

    #[test]
    fn the_query_names_the_file_and_its_symbols_and_source_is_shown_on_request() {
        let args = OutlineFileArgs {
            repo: "alpha-rs".into(),
            path: "src/lib.rs".into(),
            ..Default::default()
        };
        let plan = OutlineFile::plan(&args, &PagerConfig::default()).unwrap();
        assert_eq!(
            plan.query,
            r"case:yes repo:^alpha-rs$ file:^src/lib\.rs$ (sym:. or file:^src/lib\.rs$)"
        );
        use crate::engine::tool::PagedArgs;
        assert_eq!(args.paging().include_snippet, Some(false));
        let asked = OutlineFileArgs {
            source: Some(true),
            ..args
        };
        assert_eq!(asked.paging().include_snippet, Some(true));
        let none = OutlineFileArgs {
            path: String::new(),
            ..asked
        };
        assert!(OutlineFile::plan(&none, &PagerConfig::default()).is_err());
    }
}
