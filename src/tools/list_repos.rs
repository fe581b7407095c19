//! `list_repos`: the indexed repositories, sorted by name. Also the repository listing the
//! MCP layer serves as resources ([`repo_listing`]) and the lookup of one repository
//! by name ([`repo`]).

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::declare::paged_args;
use super::shared::{BRANCHES, ToolInfo, count, lines, text};
use crate::engine::Pager;
use crate::engine::backend::{Backend, IndexedRepo, SearchStats};
use crate::engine::config::PagerConfig;
use crate::engine::cursor::Scope;
use crate::engine::error::Error;
use crate::engine::page::Page;
use crate::engine::tool::{Found, PageArgs, PagedArgs, Shaped, Source, Tool};
use crate::form::{CellKind, Column, Grouping, ItemRow, ItemText, Location};
use crate::zoekt::query;
use serde_json::Value;

/// The `list_repos` tool.
pub struct ListRepos;

paged_args! {
    /// Arguments of `list_repos`.
    #[derive(Debug, Clone, Default, Deserialize, JsonSchema, clap::Args)]
    #[serde(deny_unknown_fields)]
    pub struct ListReposArgs {
        /// Optional Zoekt query to filter repositories, e.g. `repo:^services/`.
        #[serde(default)]
        pub query: Option<String>,
    }
}

/// One indexed repository.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RepoItem {
    /// Repository name.
    pub name: String,
    /// Number of indexed documents.
    pub files: u64,
    /// Whether it was indexed with ctags (needed by search_symbols/find_references).
    pub has_symbols: bool,
    /// When it was indexed (RFC 3339), if Zoekt says.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub index_time: String,
    /// Indexed branches (absent for plain-folder indexes).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<String>,
}

impl ToolInfo for ListRepos {
    const NAME: &'static str = "list_repos";
    const TITLE: &'static str = "List indexed repositories";
    const DESCRIPTION: &'static str = "List the indexed repositories (name, file count, \
        whether symbols are indexed), sorted by name. Paged; continue with cursor=next_cursor.";
    const SUMMARY: &'static str = "lists repositories";
}

impl Tool for ListRepos {
    const SCOPE_ID: u8 = 5;
    type Args = ListReposArgs;
    type Item = RepoItem;
    /// The Zoekt query (empty: every repository).
    type Plan = String;

    fn plan(args: &ListReposArgs, _cfg: &PagerConfig) -> Result<String, Error> {
        let text = args.query.as_deref().unwrap_or("");
        if text.trim().is_empty() {
            Ok(String::new())
        } else {
            Ok(query::search_query(text)?)
        }
    }

    fn key(plan: &String) -> Vec<&str> {
        vec![plan]
    }

    fn source(plan: &String) -> Source<'_> {
        Source::Repositories(plan)
    }

    fn items(_plan: &String, found: Found<'_>) -> Vec<RepoItem> {
        match found {
            Found::Repository(r) => vec![repo_item(r)],
            Found::File { .. } | Found::Names(_) => Vec::new(),
        }
    }
}

impl ItemRow for RepoItem {
    const COLUMNS: &'static [Column] = &[
        Column::new("name", CellKind::Text, "repository name"),
        Column::new("files", CellKind::Count, "indexed documents"),
        Column::new(
            "has_symbols",
            CellKind::Flag,
            "indexed with ctags (needed by search_symbols and find_references)",
        ),
        Column::new(
            "index_time",
            CellKind::Text,
            "when it was indexed (RFC 3339)",
        ),
        BRANCHES,
    ];
    const GROUPING: Grouping = Grouping::None;

    fn group(&self) -> Location<'_> {
        Location::NOWHERE
    }

    fn cells(&self) -> Vec<Option<Value>> {
        vec![
            text(&self.name),
            count(self.files),
            Some(Value::Bool(self.has_symbols)),
            text(&self.index_time),
            lines(&self.branches),
        ]
    }
}

impl ItemText for RepoItem {
    fn write_text(&self, out: &mut String) {
        let _ = write!(
            out,
            "{} ({} files, symbols: {}",
            self.name,
            self.files,
            if self.has_symbols { "yes" } else { "no" }
        );
        if !self.index_time.is_empty() {
            let _ = write!(out, ", indexed {}", self.index_time);
        }
        if !self.branches.is_empty() {
            let _ = write!(out, ", branches {}", self.branches.join(","));
        }
        out.push(')');
    }
}

impl Shaped for RepoItem {}

/// The cursor scope of every indexed repository by name, paged apart from `list_repos`
/// (the MCP layer serves it as resources). Part of the wire format, like a tool's id.
pub const REPO_LISTING: Scope = Scope { id: 6 };

/// Every repository, in the pages of `list_repos` without a query, with cursors of
/// their own ([`REPO_LISTING`]).
pub async fn repo_listing<B: Backend>(
    pager: &Pager<B>,
    paging: &PageArgs,
) -> Result<Page<RepoItem>, Error> {
    let mut args = ListReposArgs::default();
    args.set_paging(paging.clone());
    pager.page_in::<ListRepos>(REPO_LISTING, &args).await
}

/// One repository by exact name, or `None`.
pub async fn repo<B: Backend>(pager: &Pager<B>, name: &str) -> Result<Option<RepoItem>, Error> {
    // No page: the anchored query selects one repository, which needs no cursor.
    let args = ListReposArgs {
        query: Some(format!("repo:^{}$", query::escape_token_regex(name))),
        ..ListReposArgs::default()
    };
    let plan = ListRepos::plan(&args, pager.config())?;
    let list = pager.listing(&plan).await?;
    let (missing_backends, crashes) = (list.missing_backends, list.crashes);
    let found = list
        .repos
        .into_iter()
        .find(|r| r.name == name)
        .map(|r| repo_item(&r));
    if found.is_none() {
        // Not there says nothing of the repository while a backend that may serve it did not
        // answer, or while shards load: as for a file, that is an error, never "no such".
        let stats = SearchStats {
            missing_backends,
            crashes,
            ..SearchStats::default()
        };
        pager.check_empty_answer(&stats).await?;
    }
    Ok(found)
}

/// A repository as `list_repos` shows it.
fn repo_item(r: &IndexedRepo) -> RepoItem {
    RepoItem {
        name: r.name.clone(),
        files: r.documents,
        has_symbols: r.has_symbols,
        index_time: r.index_time.clone(),
        branches: r.branches.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::backend::BackendErrorKind;
    use crate::fanout::FanOut;
    use crate::{engine::testing::FakeBackend, fanout::testing::fan_with_b_away};

    #[tokio::test]
    async fn a_repository_not_found_while_a_backend_is_missing_names_that_backend() {
        let indexed = |name: &str| IndexedRepo {
            name: name.into(),
            documents: 3,
            ..IndexedRepo::default()
        };
        let pager = fan_with_b_away(
            FakeBackend::new().with_repos(vec![indexed("r")]),
            FakeBackend::new().with_repos(vec![indexed("s")]),
        );
        // One the backend that answered serves is found all the same.
        assert_eq!(repo_names(repo_of(&pager, "r").await), ["r"]);
        let Err(Error::Backend(e)) = repo(&pager, "s").await else {
            panic!("not a backend error")
        };
        assert_eq!(e.kind, BackendErrorKind::Unreachable);
        assert!(e.message.contains("and b did not answer"), "{}", e.message);
        // Back: it is found; a repository on no backend is not there.
        pager.backend().members()[1].backend.heal();
        assert_eq!(repo_names(repo_of(&pager, "s").await), ["s"]);
        assert_eq!(repo_of(&pager, "t").await, None);
    }

    async fn repo_of(pager: &Pager<FanOut<FakeBackend>>, name: &str) -> Option<RepoItem> {
        repo(pager, name).await.expect("a listing")
    }

    fn repo_names(found: Option<RepoItem>) -> Vec<String> {
        found.into_iter().map(|r| r.name).collect()
    }
}
