//! `search_files`: one item per file whose PATH matches (never by content).

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Deserialize;

use super::declare::{file_item, paged_args};
use super::shared::{BRANCHES, LANGUAGE, PATH, ToolInfo, files_source};
use crate::engine::backend::RankedFile;
use crate::engine::config::PagerConfig;
use crate::engine::error::Error;
use crate::engine::tool::{CensusQuery, Found, Shaped, Source, Tool};
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

impl Tool for SearchFiles {
    const SCOPE_ID: u8 = 3;
    type Args = SearchFilesArgs;
    type Item = FileItem;
    /// The Zoekt query.
    type Plan = String;

    fn plan(args: &SearchFilesArgs, _cfg: &PagerConfig) -> Result<String, Error> {
        Ok(query::files_query(&args.query)?)
    }

    fn key(plan: &String) -> Vec<&str> {
        vec![plan]
    }

    fn source(plan: &String) -> Source<'_> {
        files_source(plan)
    }

    fn items(_plan: &String, found: Found<'_>) -> Vec<FileItem> {
        found.file().map_or_else(Vec::new, files_of)
    }

    /// The files whose path matched: the files listed, each one result.
    fn census(plan: &String) -> Option<CensusQuery> {
        Some(CensusQuery::results(plan))
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

    /// A file listing counts with its census alone: every matching file's name, in one
    /// request, exact where Zoekt searched everything, however many files that is.
    #[tokio::test]
    async fn a_count_of_files_is_its_census_alone() {
        use crate::engine::Pager;
        use crate::engine::census::CountUnit;
        use crate::engine::config::PagerConfig;
        use crate::engine::testing::FakeBackend;
        let files: Vec<RankedFile> = (0..9000)
            .map(|i| RankedFile {
                repo: format!("r{}", i % 4),
                path: format!("src/d{}/widget{i}.go", i % 7),
                path_matched: true,
                score: 1.0,
                ..Default::default()
            })
            .collect();
        let q = query::files_query("widget").unwrap();
        let p = Pager::new(FakeBackend::new().with(&q, files), PagerConfig::default());
        let args = SearchFilesArgs {
            query: "widget".into(),
            count_only: Some(true),
            ..Default::default()
        };
        let page = p.page::<SearchFiles>(&args).await.unwrap();
        assert_eq!(p.backend().censuses_asked(&q), 1);
        assert!(p.backend().files_asked(&q).is_empty(), "no search of lines");
        assert_eq!(page.zoekt_requests, 1);
        assert!(page.total.exact, "{:?}", page.warnings);
        assert_eq!(page.total.value, 9000);
        let n = page.narrowing.as_ref().unwrap();
        assert_eq!(n.unit, CountUnit::Results);
        assert_eq!(n.ways[0].items, 2250, "a repository's quarter");
    }
}
