//! The tools, one module each, and the table that lists them.
//!
//! A tool module declares everything about its tool in one place: its name and cursor scope,
//! its arguments (the MCP input schema and the CLI subcommand both derive from them), its item
//! type (the output schema), how its arguments become a backend query, how a file becomes
//! items, and how an item reads as one line of text. The MCP layer, the CLI and the
//! regression harness all read [`visit_all`]; none of them names a tool, and the engine knows
//! none (it calls the seam it declares, `engine::tool::Tool`). What the tools share is
//! [`shared`]; this file is the table.
//!
//! Adding a paged tool: write `src/tools/<name>.rs` with a type implementing the engine's
//! `Tool` and [`ToolInfo`] (so it is a [`PagedTool`]), declare the module below, and add one
//! line to [`visit_all`]. See `docs/tools.md`.

mod declare;
pub mod error;
pub mod files_with_matches;
pub mod find_references;
pub mod health;
pub mod list_repos;
pub mod list_tree;
pub mod outline_file;
pub mod read_file;
pub mod search;
pub mod search_files;
pub mod search_symbols;
pub mod shared;

use crate::engine::cursor::Scope;
pub use shared::{AnswerTool, PagedTool, ToolArgs, ToolInfo};

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
    v.paged::<list_tree::ListTree>();
    v.paged::<outline_file::OutlineFile>();
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

/// The name of the paged tool whose cursors have this scope, if any has it.
pub(crate) fn tool_of_scope(scope: Scope) -> Option<&'static str> {
    struct Find(Scope, Option<&'static str>);
    impl ToolVisitor for Find {
        fn paged<T: PagedTool>(&mut self) {
            if T::SCOPE == self.0 {
                self.1 = Some(T::NAME);
            }
        }
        fn answer<T: AnswerTool>(&mut self) {}
    }
    let mut v = Find(scope, None);
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
        let mut s = Scopes(vec![list_repos::REPO_LISTING.id]);
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
