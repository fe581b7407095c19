//! `search_files`: one item per file whose PATH matches (never by content).

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Deserialize;

use super::declare::{file_item, file_listing_tool, paged_args};
use super::shared::{BRANCHES, LANGUAGE, PATH, ToolInfo};
use crate::engine::backend::RankedFile;
use crate::engine::tool::Shaped;
use crate::form::{Column, Grouping, ItemRow, ItemText, Location};
use crate::zoekt::query;
use serde_json::Value;

/// The `search_files` tool.
pub struct SearchFiles;

paged_args! {
    narrows query;
    /// Arguments of `search_files`.
    #[derive(Debug, Clone, Default, Deserialize, JsonSchema, clap::Args)]
    #[serde(deny_unknown_fields)]
    pub struct SearchFilesArgs {
        /// Path regexes (all must match), optionally with filters: `lang:`, `repo:`, `-file:`.
        /// Example: `handler\.go$ repo:core`. Filters alone list every file they select.
        pub query: String,
    }
}

file_item! {
    file;
    /// One file whose path matched.
    pub struct FileItem {}
}

impl ToolInfo for SearchFiles {
    const NAME: &'static str = "search_files";
    const TITLE: &'static str = "Search file paths";
    const DESCRIPTION: &'static str = "Find FILES whose path matches regexes (never by \
        content), one item per file. Paged by item; continue with cursor=next_cursor.";
    const SUMMARY: &'static str = "finds paths";
}

file_listing_tool! {
    SearchFiles {
        scope: 3,
        args: SearchFilesArgs,
        item: FileItem,
        query: query::files_query,
        items_of: files_of,
    }
}

impl ItemRow for FileItem {
    // The language last, so that a row whose language its extension says ends before it.
    const COLUMNS: &'static [Column] = &[PATH, BRANCHES, LANGUAGE];
    const GROUPING: Grouping = Grouping::Repo;
    const BY_EXTENSION: Option<&'static str> = Some(LANGUAGE.name);

    fn group(&self) -> Location<'_> {
        self.location()
    }

    fn cells(&self) -> Vec<Option<Value>> {
        self.listed_cells([])
    }
}

impl ItemText for FileItem {
    fn write_text(&self, out: &mut String) {
        let _ = write!(out, "{}", self.location());
        if !self.language.is_empty() {
            let _ = write!(out, " ({})", self.language);
        }
    }
}

impl Shaped for FileItem {}

/// A file counts only if its PATH matched, or if Zoekt sent no match lines at all (a pure
/// filter query). A file that matched by content only is never listed.
fn files_of(file: &RankedFile) -> Vec<FileItem> {
    let no_matches = file.lines.is_empty();
    if !(file.path_matched || no_matches) {
        return Vec::new();
    }
    vec![FileItem {
        repo: file.repo.clone(),
        path: file.path.clone(),
        language: file.language.clone(),
        branches: file.branches.clone(),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::search_symbols::tests::{file, line};

    #[test]
    fn files_skip_content_only_matches() {
        let content_only = file(vec![line(3, "widgetry", vec![(0, None)])]);
        assert!(files_of(&content_only).is_empty());
        let mut by_name = file(vec![]);
        by_name.path_matched = true;
        assert_eq!(files_of(&by_name).len(), 1);
        let mut both = content_only.clone();
        both.path_matched = true;
        assert_eq!(files_of(&both).len(), 1);
        // A pure filter query: no match lines at all.
        assert_eq!(files_of(&file(vec![])).len(), 1);
    }
}
