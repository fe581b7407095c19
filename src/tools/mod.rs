//! The tools, one module each, and the table that lists them.
//!
//! A tool module declares everything about its tool in one place: its name and cursor scope,
//! its arguments (the MCP input schema and the CLI subcommand both derive from them), its item
//! type (the output schema), how its arguments become a backend query, how a file becomes
//! items, and how an item reads as one line of text. The paging engine, the MCP layer, the CLI
//! and the regression harness all read [`visit_all`]; none of them names a tool.
//!
//! Adding a paged tool: write `src/tools/<name>.rs` with a type implementing [`PagedTool`],
//! declare the module below, and add one line to [`visit_all`]. See `docs/tools.md`.

pub mod files_with_matches;
pub mod find_references;
pub mod health;
pub mod list_repos;
pub mod read_file;
pub mod search;
pub mod search_files;
pub mod search_symbols;

use std::fmt::Write as _;
use std::future::Future;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::engine::Pager;
use crate::engine::backend::Backend;
use crate::engine::config::PagerConfig;
use crate::engine::cursor::Scope;
use crate::engine::error::{ArgumentError, Error};
use crate::engine::page::{Collected, PageArgs, Want};
use crate::engine::text::Snippet;

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
    /// The arguments: the MCP input schema (serde + schemars) and the CLI subcommand (clap).
    type Args: DeserializeOwned + JsonSchema + clap::Args + Send + Sync + 'static;
}

/// The page size and cursor every paged tool's arguments carry (as `limit` and `cursor`).
pub trait PagedArgs {
    /// The page size and cursor.
    fn paging(&self) -> PageArgs;
    /// Replaces the page size and cursor (a walk moves the cursor).
    fn set_paging(&mut self, paging: PageArgs);
}

/// Declares the arguments struct of a paged tool: the tool's own fields, then the `limit`,
/// `cursor` and `count_only` every paged tool takes (the same names, docs and flags
/// everywhere), and its [`PagedArgs`]. A tool whose items show source lines starts with
/// `snippets;` and also takes `include_snippet` and `snippet_length`.
macro_rules! paged_args {
    (
        snippets;
        $(#[$meta:meta])*
        pub struct $name:ident {
            $($(#[$field_meta:meta])* pub $field:ident: $ty:ty,)*
        }
    ) => {
        paged_args! {
            @build [include_snippet snippet_length]
            $(#[$meta])*
            pub struct $name {
                $($(#[$field_meta])* pub $field: $ty,)*
                /// Show the source lines (default true); false leaves only where each item is.
                #[serde(default)]
                #[arg(long)]
                pub include_snippet: Option<bool>,
                /// Most characters of each source line shown, `…` included when cut (default:
                /// the server's `--snippet-length`, 120 unless set). Changes what items show,
                /// never which item comes next.
                #[serde(default)]
                #[arg(long)]
                pub snippet_length: Option<u32>,
            }
        }
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $($(#[$field_meta:meta])* pub $field:ident: $ty:ty,)*
        }
    ) => {
        paged_args! {
            @build []
            $(#[$meta])*
            pub struct $name {
                $($(#[$field_meta])* pub $field: $ty,)*
            }
        }
    };
    (
        @build [$($snippet:ident)*]
        $(#[$meta:meta])*
        pub struct $name:ident {
            $($(#[$field_meta:meta])* pub $field:ident: $ty:ty,)*
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $($(#[$field_meta])* pub $field: $ty,)*
            /// Items per page.
            #[serde(default)]
            #[arg(long)]
            pub limit: Option<u32>,
            /// `next_cursor` from the previous page of the same call.
            #[serde(default)]
            #[arg(long)]
            pub cursor: Option<String>,
            /// Return no items, only the total (exact, or an estimate with its reason) and the
            /// number of pages at `limit`. Counts the whole result (a cursor is ignored) with
            /// one Zoekt request per query.
            #[serde(default)]
            #[arg(long)]
            pub count_only: Option<bool>,
        }

        impl $crate::tools::PagedArgs for $name {
            // The update fills the snippet fields of tools without them; with them it is empty.
            #[allow(clippy::needless_update)]
            fn paging(&self) -> $crate::engine::page::PageArgs {
                $crate::engine::page::PageArgs {
                    limit: self.limit,
                    cursor: self.cursor.clone(),
                    count_only: self.count_only.unwrap_or(false),
                    $($snippet: self.$snippet,)*
                    ..Default::default()
                }
            }
            fn set_paging(&mut self, paging: $crate::engine::page::PageArgs) {
                self.limit = paging.limit;
                self.cursor = paging.cursor;
                self.count_only = Some(paging.count_only).filter(|c| *c);
                $(self.$snippet = paging.$snippet;)*
            }
        }
    };
}
use paged_args;

/// A tool that answers with pages of items.
pub trait PagedTool: ToolInfo<Args: PagedArgs> {
    /// The cursor scope id: written into every cursor, so never reused for another tool.
    const SCOPE_ID: u8;
    /// The cursor scope: this tool's id and name.
    const SCOPE: Scope = Scope {
        id: Self::SCOPE_ID,
        name: Self::NAME,
    };
    /// One item of a page: a row of the structured page ([`ItemRow`]), a line of its text
    /// ([`ItemText`]).
    type Item: Serialize + JsonSchema + ItemText + ItemRow + Clone + Send + Sync + 'static;
    /// The validated, canonical request the arguments stand for.
    type Plan: Send + Sync;

    /// Validates the arguments and builds the request; refuses what cannot be searched.
    fn plan(args: &Self::Args, cfg: &PagerConfig) -> Result<Self::Plan, Error>;
    /// The parts of the plan that decide WHICH items come out, in order: the cursor's hash.
    fn key(plan: &Self::Plan) -> Vec<&str>;
    /// The argument to set, and its new value, for this call narrowed by `filter` (a Zoekt
    /// query atom, from [`crate::zoekt::query::narrowing_filter`]): how a suggested way to
    /// narrow reads as a ready call. `None`: the tool suggests none.
    fn narrowed(_args: &Self::Args, _filter: &str) -> Option<(&'static str, String)> {
        None
    }
    /// Every item from position 0 up to `want.needed` (or all there are), in page order,
    /// with their positions. A tool with sections may start at the section holding
    /// `want.after` (see [`Collected::first`]).
    fn collect<B: Backend>(
        pager: &Pager<B>,
        plan: &Self::Plan,
        want: &Want<'_>,
    ) -> impl Future<Output = Result<Collected<Self::Item>, Error>> + Send;
}

/// A tool that answers with one value rather than pages.
pub trait AnswerTool: ToolInfo {
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

/// `repo/path`, or `repo@branch,branch/path` when the index has branches: where an item is,
/// as the text of every tool writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location<'a> {
    /// Repository name.
    pub repo: &'a str,
    /// The file's branches (may be empty).
    pub branches: &'a [String],
    /// Path inside the repository.
    pub path: &'a str,
}

impl<'a> Location<'a> {
    /// No place: the group of items that are not in a file ([`Grouping::None`]).
    pub const NOWHERE: Location<'static> = Location {
        repo: "",
        branches: &[],
        path: "",
    };

    /// A repository alone: the group of files listed by repository ([`Grouping::Repo`]).
    pub fn repo(repo: &'a str) -> Location<'a> {
        Location {
            repo,
            branches: &[],
            path: "",
        }
    }
}

impl std::fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.branches.is_empty() {
            write!(f, "{}/{}", self.repo, self.path)
        } else {
            write!(f, "{}@{}/{}", self.repo, self.branches.join(","), self.path)
        }
    }
}

/// An item as text: one line (or a few, for context), no trailing newline.
///
/// Items inside a file name it with [`ItemText::file`] and leave it out of their own line:
/// the page's text writes the file once, as a header over the run of its items, instead of
/// on every line (a page of symbols often holds several per file).
pub trait ItemText {
    /// The file the item lies in, written once above consecutive items of that file; `None`
    /// for an item that is not a place in a file (a file of a listing, a repository).
    fn file(&self) -> Option<Location<'_>> {
        None
    }
    /// Appends the item's text to `out`, without the file [`ItemText::file`] names.
    fn write_text(&self, out: &mut String);
    /// Shows the item's source lines as a page asks (`include_snippet`, `snippet_length`);
    /// nothing to do for an item without source lines.
    fn shape(&mut self, _snippet: &Snippet) {}
}

/// How an item reads in the structured page, which the MCP layer renders (`mcp::view`) for
/// hosts that hand a model `structuredContent` rather than the text: one row of cells under
/// the page's list of column names, inside a group that says once what consecutive items
/// share (their file, or their repository), so nothing is written twice.
pub trait ItemRow {
    /// Every column an item of this tool may have, in row order. A page lists only the
    /// columns some item on it has.
    const COLUMNS: &'static [Column];
    /// What consecutive items share and the page says once.
    const GROUPING: Grouping;
    /// The parts of the result, in order, when it has several (`find_references`:
    /// definitions, then references): each is its own list of groups with its own columns.
    /// Empty: one part.
    const PARTS: &'static [&'static str] = &[];

    /// The file (or repository) the item belongs to; consecutive items with the same one
    /// share a group. Ignored with [`Grouping::None`].
    fn group(&self) -> Location<'_>;
    /// Which of [`ItemRow::PARTS`] the item is in (0 with one part).
    fn part(&self) -> usize {
        0
    }
    /// The item's cells, one per column of [`ItemRow::COLUMNS`]: `None` where it has no
    /// value (an empty text, no parent, no context lines).
    fn cells(&self) -> Vec<Option<serde_json::Value>>;
}

/// One column of a tool's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The name a page lists in `fields`.
    pub name: &'static str,
    /// The JSON type of its cells.
    pub kind: CellKind,
    /// What it holds, for the output schema.
    pub about: &'static str,
}

/// The JSON type of a column's cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellKind {
    /// A whole number, at least 0.
    Count,
    /// A string.
    Text,
    /// `true` or `false`.
    Flag,
    /// A list of strings.
    Lines,
}

/// What consecutive items share in the structured page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouping {
    /// Their file: `files: [{repo, path, branches?, rows}]`.
    File,
    /// Their repository: `repos: [{repo, rows}]` (each row a file of it).
    Repo,
    /// Nothing: `rows` (each row a repository).
    None,
}

/// The 1-based line number of an item in a file.
pub const LINE: Column = Column {
    name: "line",
    kind: CellKind::Count,
    about: "1-based line number",
};
/// The 1-based character column of the match on its line.
pub const COLUMN: Column = Column {
    name: "column",
    kind: CellKind::Count,
    about: "1-based character column of the match on the line",
};
/// The item's source line.
pub const TEXT: Column = Column {
    name: "text",
    kind: CellKind::Text,
    about: "the line, trimmed and shortened to snippet_length",
};
/// Context lines before an item's line.
pub const BEFORE: Column = Column {
    name: "before",
    kind: CellKind::Lines,
    about: "lines before it, oldest first (with context_lines)",
};
/// Context lines after an item's line.
pub const AFTER: Column = Column {
    name: "after",
    kind: CellKind::Lines,
    about: "lines after it (with context_lines)",
};
/// A file's path inside its repository.
pub const PATH: Column = Column {
    name: "path",
    kind: CellKind::Text,
    about: "path inside the repository",
};
/// The branches holding a version of a file or a repository.
pub const BRANCHES: Column = Column {
    name: "branches",
    kind: CellKind::Lines,
    about: "branches holding this version (indexes with branches only)",
};
/// The language Zoekt detected.
pub const LANGUAGE: Column = Column {
    name: "language",
    kind: CellKind::Text,
    about: "language Zoekt detected",
};

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

/// How many characters each item adds to the structured page's compact JSON, as
/// `mcp::view` writes it: its row with every column present (a cell the page leaves out
/// would only make it shorter; an absent one in a listed column is `null`), and its group's
/// opening when it starts a new group or part. What the page's budget measures.
pub fn row_lens<T: ItemRow>(items: &[T]) -> impl Iterator<Item = usize> + '_ {
    let mut previous: Option<&T> = None;
    items.iter().map(move |item| {
        let cells = item.cells();
        // `[` `]` and a comma after each cell but the last, plus the comma between rows.
        let mut len = 2 + cells.len();
        for cell in &cells {
            len += cell.as_ref().map_or(4, json_chars);
        }
        let new_part = previous.is_none_or(|p| p.part() != item.part());
        let new_group = new_part || previous.is_some_and(|p| p.group() != item.group());
        if new_group && T::GROUPING != Grouping::None {
            // `["…","…",[` `],[…branches]],` (mcp::view's group lists), counted with room
            // to spare: the budget stays an upper bound on what is sent.
            let g = item.group();
            len += 12 + json_chars(&serde_json::Value::from(g.repo)) + 9;
            if T::GROUPING == Grouping::File {
                len += 8 + json_chars(&serde_json::Value::from(g.path));
                if !g.branches.is_empty() {
                    len += 12 + json_chars(&serde_json::Value::from(g.branches.to_vec()));
                }
            }
        }
        if new_part {
            // The part's name and its `fields` list: every column, at most.
            len += 40 + T::COLUMNS.iter().map(|c| c.name.len() + 3).sum::<usize>();
        }
        previous = Some(item);
        len
    })
}

/// Characters of `value`'s compact JSON.
fn json_chars(value: &serde_json::Value) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.chars().count())
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

/// The items as a page's text: a line each (or a few, with context). Consecutive items of one
/// file go under one header line naming it, indented by two spaces, so a path is written once
/// per run rather than once per item.
pub fn write_items<T: ItemText>(items: &[T], out: &mut String) {
    let mut line = String::new();
    let mut current = None;
    for item in items {
        write_item(item, current, &mut line, out);
        current = item.file();
    }
}

/// How many characters each item adds to [`write_items`]' text (its file's header included
/// when it starts a run): what the page's budget measures.
pub fn text_lens<T: ItemText>(items: &[T]) -> impl Iterator<Item = usize> + '_ {
    let mut line = String::new();
    let mut out = String::new();
    let mut current = None;
    items.iter().map(move |item| {
        out.clear();
        write_item(item, current, &mut line, &mut out);
        current = item.file();
        out.chars().count()
    })
}

/// Appends one item of [`write_items`], after an item of file `current`.
fn write_item<'a, T: ItemText>(
    item: &'a T,
    current: Option<Location<'a>>,
    line: &mut String,
    out: &mut String,
) {
    line.clear();
    item.write_text(line);
    match item.file() {
        Some(f) => {
            if current != Some(f) {
                let _ = writeln!(out, "{f}");
            }
            for l in line.split('\n') {
                let _ = writeln!(out, "  {l}");
            }
        }
        None => {
            out.push_str(line);
            out.push('\n');
        }
    }
}

/// Something that wants to know every tool, with its type.
pub trait ToolVisitor {
    /// Called once for each paged tool.
    fn paged<T: PagedTool>(&mut self);
    /// Called once for each tool that answers with one value.
    fn answer<T: AnswerTool>(&mut self);
}

/// Every tool, in the order `tools/list` shows them. A new tool is one line here.
pub fn visit_all(v: &mut impl ToolVisitor) {
    v.paged::<search_symbols::SearchSymbols>();
    v.paged::<search_files::SearchFiles>();
    v.paged::<find_references::FindReferences>();
    v.paged::<search::Search>();
    v.paged::<files_with_matches::FilesWithMatches>();
    v.paged::<list_repos::ListRepos>();
    v.answer::<read_file::ReadFile>();
    v.answer::<health::Health>();
}

/// The names of every tool, in table order.
pub fn names() -> Vec<&'static str> {
    struct Names(Vec<&'static str>);
    impl ToolVisitor for Names {
        fn paged<T: PagedTool>(&mut self) {
            self.0.push(T::NAME);
        }
        fn answer<T: AnswerTool>(&mut self) {
            self.0.push(T::NAME);
        }
    }
    let mut v = Names(Vec::new());
    visit_all(&mut v);
    v.0
}

/// The cursor scope of the paged tool with this id.
pub(crate) fn scope_of(id: u8) -> Option<Scope> {
    struct Find(u8, Option<Scope>);
    impl ToolVisitor for Find {
        fn paged<T: PagedTool>(&mut self) {
            if T::SCOPE.id == self.0 {
                self.1 = Some(T::SCOPE);
            }
        }
        fn answer<T: AnswerTool>(&mut self) {}
    }
    let mut v = Find(id, None);
    visit_all(&mut v);
    v.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_cursor_scopes_are_unique() {
        struct Scopes(Vec<u8>);
        impl ToolVisitor for Scopes {
            fn paged<T: PagedTool>(&mut self) {
                self.0.push(T::SCOPE.id);
            }
            fn answer<T: AnswerTool>(&mut self) {}
        }
        let mut s = Scopes(vec![Scope::REPO_LISTING.id]);
        visit_all(&mut s);
        let mut ids = s.0.clone();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), s.0.len(), "{:?}", s.0);
        let mut names = names();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count);
    }
}
