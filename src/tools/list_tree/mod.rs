//! `list_tree`: the directories and files under a path of one repository, to a depth, each
//! directory with how many files it holds and its main languages, from the index alone.
//!
//! The entries come from a listing of names ([`Source::Names`]): every file under the path,
//! by name only, which the engine asks for in parts and keeps in its cache. This module
//! turns the listing into entries: one per directory of the tree, each listed under its
//! parent, depth first, a directory's entries (subdirectories first, then files, each by
//! name) being its `per_directory` largest, and one `more` entry standing for the rest.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Deserialize;

mod build;
mod entry;

use super::declare::paged_args;
use super::shared::ToolInfo;
use crate::engine::config::PagerConfig;
use crate::engine::error::{ArgumentError, Error};
use crate::engine::tool::{Found, Names, NamesQuery, Source, Tool};
use crate::zoekt::query::{self, QueryError};
pub use entry::{EntryKind, TreeEntry};

/// The `list_tree` tool.
pub struct ListTree;

/// Levels below the path shown when the caller does not say.
pub const DEFAULT_DEPTH: u32 = 2;
/// Most levels below the path one call shows.
pub const MAX_DEPTH: u32 = 10;
/// Entries shown per directory when the caller does not say.
pub const DEFAULT_PER_DIRECTORY: u32 = 10;
/// Most entries shown per directory.
pub const MAX_PER_DIRECTORY: u32 = 1_000;

paged_args! {
    /// Arguments of `list_tree`.
    #[derive(Debug, Clone, Default, Deserialize, JsonSchema, clap::Args)]
    #[serde(deny_unknown_fields)]
    pub struct ListTreeArgs {
        /// Repository name, exact (as list_repos shows it).
        pub repo: String,
        /// Directory inside the repository, exact and case-sensitive (default: its top).
        #[serde(default)]
        pub path: Option<String>,
        /// Levels shown below the path, 1 to 10 (default 2): 1 lists its entries only.
        #[serde(default)]
        #[arg(long)]
        pub depth: Option<u32>,
        /// Entries shown per directory, its largest by file count (default 10); one `more`
        /// entry counts the rest.
        #[serde(default)]
        #[arg(long)]
        pub per_directory: Option<u32>,
    }
}

/// What a call asks for, checked.
#[derive(Debug)]
pub struct TreePlan {
    repo: String,
    /// The directory, ending in `/`, or empty for the top.
    dir: String,
    depth: u32,
    per_directory: u32,
    /// Depth and entries per directory, for the cursor's key.
    shape: String,
}

impl NamesQuery for TreePlan {
    fn under(&self, dir: &str, except: &[String]) -> String {
        // Case-sensitive: paths are exact; the repository anchored at both ends.
        let mut q = format!("case:yes repo:^{}$", query::readable_regex(&self.repo));
        if !dir.is_empty() {
            let _ = write!(q, " file:^{}", query::readable_regex(dir));
        }
        for e in except {
            let _ = write!(q, " -file:^{}", query::readable_regex(e));
        }
        q
    }
}

impl ToolInfo for ListTree {
    const NAME: &'static str = "list_tree";
    const TITLE: &'static str = "List a directory tree";
    const DESCRIPTION: &'static str = "The directories and files under a path of one \
        repository, to a depth (default 2), from the index alone (no checkout): each \
        directory with its file count and main languages, its largest entries first chosen \
        (per_directory, default 10) and a `more` entry counting the rest. Paged by entry; \
        continue with cursor=next_cursor.";
    const SUMMARY: &'static str = "shows a directory tree with file counts";
}

impl Tool for ListTree {
    const SCOPE_ID: u8 = 8;
    type Args = ListTreeArgs;
    type Item = TreeEntry;
    type Plan = TreePlan;

    fn plan(args: &ListTreeArgs, _cfg: &PagerConfig) -> Result<TreePlan, Error> {
        let depth = in_range("depth", args.depth, DEFAULT_DEPTH, MAX_DEPTH)?;
        let per_directory = in_range(
            "per_directory",
            args.per_directory,
            DEFAULT_PER_DIRECTORY,
            MAX_PER_DIRECTORY,
        )?;
        let repo = args.repo.trim();
        let dir = directory(args.path.as_deref().unwrap_or(""));
        for v in [repo, dir.as_str()] {
            if v.chars().any(char::is_control) {
                return Err(QueryError::ControlCharacter.into());
            }
        }
        if repo.is_empty() {
            return Err(QueryError::Empty.into());
        }
        Ok(TreePlan {
            repo: repo.to_string(),
            dir,
            depth,
            per_directory,
            shape: format!("{depth}/{per_directory}"),
        })
    }

    fn key(plan: &TreePlan) -> Vec<&str> {
        vec![&plan.repo, &plan.dir, &plan.shape]
    }

    fn source(plan: &TreePlan) -> Source<'_> {
        Source::Names(Names {
            dir: &plan.dir,
            query: plan,
        })
    }

    fn items(plan: &TreePlan, found: Found<'_>) -> Vec<TreeEntry> {
        match found {
            Found::Names(list) => {
                let tree = build::Tree {
                    repo: &plan.repo,
                    dir: &plan.dir,
                    depth: plan.depth,
                    per_directory: plan.per_directory,
                };
                build::entries(&tree, list)
            }
            Found::File { .. } | Found::Repository(_) => Vec::new(),
        }
    }

    fn listed_key(item: &TreeEntry) -> Option<String> {
        // A directory's `more` entry has the directory's path: a kind keeps them apart.
        Some(format!("{}\u{0}{}", item.kind.name(), item.path))
    }

    fn nothing_found(plan: &TreePlan) -> Option<Error> {
        Some(Error::NoSuchDirectory {
            repo: plan.repo.clone(),
            path: if plan.dir.is_empty() {
                "/".into()
            } else {
                plan.dir.clone()
            },
        })
    }
}

/// `given`, or `default`, if from 1 to `max`.
fn in_range(name: &'static str, given: Option<u32>, default: u32, max: u32) -> Result<u32, Error> {
    match given.unwrap_or(default) {
        n @ 1.. if n <= max => Ok(n),
        n => Err(ArgumentError::OutOfRange {
            name,
            given: n,
            min: 1,
            max,
        }
        .into()),
    }
}

/// `path` as a directory of the listing: no leading `/` or `./`, ending in `/` unless empty.
fn directory(path: &str) -> String {
    let mut p = path.trim();
    loop {
        if let Some(rest) = p.strip_prefix("./") {
            p = rest;
        } else if let Some(rest) = p.strip_prefix('/') {
            p = rest;
        } else {
            break;
        }
    }
    let p = p.trim_end_matches('/');
    if p.is_empty() || p == "." {
        String::new()
    } else {
        format!("{p}/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Pager;
    use crate::engine::backend::{RankedFile, SearchStats};
    use crate::engine::testing::FakeBackend;
    use crate::engine::tool::{PageArgs, PagedArgs};

    fn file(path: &str, language: &str) -> RankedFile {
        RankedFile {
            repo: "r".into(),
            path: path.into(),
            language: language.into(),
            path_matched: true,
            score: 1.0,
            ..RankedFile::default()
        }
    }

    fn args(path: &str, depth: u32, per_directory: u32, limit: u32) -> ListTreeArgs {
        ListTreeArgs {
            repo: "r".into(),
            path: Some(path.into()),
            depth: Some(depth),
            per_directory: Some(per_directory),
            limit: Some(limit),
            ..ListTreeArgs::default()
        }
    }

    /// An engine with the window cache, as the server runs it.
    fn pager(fake: FakeBackend) -> Pager<FakeBackend> {
        use crate::engine::cache::WindowCache;
        use crate::engine::config::CacheConfig;
        Pager::new(fake, PagerConfig::default()).with_cache(WindowCache::new(&CacheConfig::DEFAULT))
    }

    fn plan(path: &str) -> TreePlan {
        ListTree::plan(&args(path, 2, 10, 10), &PagerConfig::default()).unwrap()
    }

    fn tree() -> Vec<RankedFile> {
        vec![
            file("a/x.go", "Go"),
            file("a/b/y.go", "Go"),
            file("a/b/c/z.go", "Go"),
            file("a/b/c/w.rs", "Rust"),
            file("d.md", "Markdown"),
            file("e/f.txt", "Text"),
        ]
    }

    /// `(path, kind, files, at least)` of each entry.
    fn shown(entries: &[TreeEntry]) -> Vec<(&str, &str, u64, bool)> {
        entries
            .iter()
            .map(|e| (e.path.as_str(), e.kind.name(), e.files, e.files_at_least))
            .collect()
    }

    #[test]
    fn a_path_is_a_directory_of_the_listing() {
        for (given, dir) in [
            ("", ""),
            ("/", ""),
            ("./a", "a/"),
            ("/a/b/", "a/b/"),
            (".", ""),
        ] {
            assert_eq!(directory(given), dir, "{given}");
        }
        assert_eq!(plan("").under("", &[]), "case:yes repo:^r$");
        assert_eq!(
            plan("").under("a.b/", &["a.b/c/".into()]),
            r"case:yes repo:^r$ file:^a\.b/ -file:^a\.b/c/"
        );
    }

    #[test]
    fn depth_and_entries_per_directory_are_checked() {
        let cfg = PagerConfig::default();
        for (depth, per) in [
            (0, 10),
            (MAX_DEPTH + 1, 10),
            (2, 0),
            (2, MAX_PER_DIRECTORY + 1),
        ] {
            let e = ListTree::plan(&args("", depth, per, 10), &cfg).unwrap_err();
            assert!(
                matches!(e, Error::Argument(ArgumentError::OutOfRange { .. })),
                "{e}"
            );
        }
        let mut no_repo = args("", 2, 10, 10);
        no_repo.repo = " ".into();
        assert!(ListTree::plan(&no_repo, &cfg).is_err());
    }

    #[tokio::test]
    async fn each_directory_counts_every_file_below_it_to_the_depth_asked() {
        let q = plan("").under("", &[]);
        let p = pager(FakeBackend::new().with(&q, tree()));
        let page = p.page::<ListTree>(&args("", 2, 10, 100)).await.unwrap();
        assert_eq!(
            shown(&page.items),
            [
                ("", "dir", 6, false),
                ("a/", "dir", 4, false),
                ("e/", "dir", 1, false),
                ("d.md", "file", 1, false),
                ("a/b/", "dir", 3, false),
                ("a/x.go", "file", 1, false),
                ("e/f.txt", "file", 1, false),
            ]
        );
        assert_eq!(page.items[1].languages, ["Go", "Rust"]);
        assert!(page.total.exact && page.total.value == 7);
        assert_eq!(page.zoekt_requests, 1);
        // A directory inside the listing, to another depth: from the cache.
        let inner = p.page::<ListTree>(&args("a/b", 1, 10, 100)).await.unwrap();
        assert_eq!(
            shown(&inner.items),
            [
                ("a/b/", "dir", 3, false),
                ("a/b/c/", "dir", 2, false),
                ("a/b/y.go", "file", 1, false)
            ]
        );
        assert_eq!(inner.zoekt_requests, 0);
    }

    #[tokio::test]
    async fn the_largest_entries_are_shown_and_one_more_entry_counts_the_rest() {
        let q = plan("").under("", &[]);
        let p = pager(FakeBackend::new().with(&q, tree()));
        let page = p.page::<ListTree>(&args("", 1, 1, 100)).await.unwrap();
        assert_eq!(
            shown(&page.items),
            [
                ("", "dir", 6, false),
                ("a/", "dir", 4, false),
                ("", "more", 2, false)
            ]
        );
        let more = &page.items[2];
        assert_eq!((more.more_dirs, more.more_files), (1, 1));
        let mut text = String::new();
        crate::form::write_items(&page.items, &mut text);
        assert_eq!(
            text,
            "r/\n  ./  6 files  Go, Markdown, Rust\n  a/  4 files  Go, Rust\n  … and 1 dir and 1 file more, holding 2 files\n"
        );
    }

    #[tokio::test]
    async fn a_walk_by_pages_serves_every_entry_once_and_asks_zoekt_once() {
        let q = plan("").under("", &[]);
        let p = pager(FakeBackend::new().with(&q, tree()));
        let whole = p
            .page::<ListTree>(&args("", 3, 10, 100))
            .await
            .unwrap()
            .items;
        let mut walked = Vec::new();
        let mut a = args("", 3, 10, 2);
        let mut requests = 0;
        loop {
            let page = p.page::<ListTree>(&a).await.unwrap();
            requests += page.zoekt_requests;
            walked.extend(page.items);
            match page.next_cursor {
                Some(c) => a.set_paging(PageArgs {
                    limit: Some(2),
                    cursor: Some(c),
                    ..PageArgs::default()
                }),
                None => break,
            }
        }
        assert_eq!(walked, whole);
        assert_eq!(requests, 0, "the first call kept the listing");
        assert_eq!(p.backend().censuses_asked(&q), 1);
    }

    #[tokio::test]
    async fn nothing_under_the_path_is_not_found_and_a_cut_listing_splits_by_directory() {
        let q = plan("").under("", &[]);
        let fake = FakeBackend::new().with(&q, tree());
        let p = pager(fake);
        let e = p
            .page::<ListTree>(&args("nope", 2, 10, 10))
            .await
            .unwrap_err();
        assert!(matches!(e, Error::NoSuchDirectory { .. }), "{e}");
        // The top's answer comes back cut: it is asked again by the directories it shows.
        let q = plan("").under("", &[]);
        let fake = FakeBackend::new().with(&q, tree()[..2].to_vec());
        fake.cut(
            &q,
            SearchStats {
                files_skipped: 4,
                ..SearchStats::default()
            },
        );
        let a = plan("").under("a/", &[]);
        let rest = plan("").under("", &["a/".into()]);
        let fake = fake
            .with(&a, tree()[..4].to_vec())
            .with(&rest, tree()[4..5].to_vec());
        fake.cut(
            &rest,
            SearchStats {
                files_skipped: 1,
                ..SearchStats::default()
            },
        );
        let p = pager(fake);
        let page = p.page::<ListTree>(&args("", 1, 10, 100)).await.unwrap();
        // The rest comes back cut again, showing no directory to split by: it stays cut, and
        // counts over it are lower bounds (`e/f.txt` is not listed).
        assert_eq!(page.zoekt_requests, 3, "{:?}", p.backend().requests());
        let top = &page.items[0];
        assert_eq!((top.files, top.files_at_least), (5, true));
        assert_eq!(shown(&page.items[1..2]), [("a/", "dir", 4, false)]);
        assert!(!page.total.exact && page.total.at_least);
    }
}
