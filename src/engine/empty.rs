//! What a ranked search's files say beyond their items, for a tool that asks
//! ([`Tool::TELLS_FILES_WITHOUT_ITEMS`], [`Tool::nothing_found`]).
//!
//! A tool whose query finds a file whether or not it holds items (`outline_file` asks for one
//! file by its name, and for its symbols beside) reads three answers from one request: no
//! file at all, a file that holds no item, and items. The first two both make an empty
//! page, which alone would read as the same thing; so the engine says which it was, as a
//! value for the tool's declaration: the error the tool names, or a warning that the form
//! words for the tool. It names no tool, and no other tool's page changes.

use super::error::Error;
use super::tool::Tool;
use super::warning::Warning;
use super::window::Window;

/// The error a window stands for when it found no file at all and the tool names one, else
/// the warning naming the window's files that hold no item, when the tool tells them.
pub(crate) fn told<T: Tool>(plan: &T::Plan, w: &Window<T::Item>) -> Result<Option<Warning>, Error> {
    let files = &w.answer().list().files;
    // Only a whole answer: files a cut answer left out may hold what was asked for.
    if files.is_empty()
        && w.exhausted()
        && let Some(e) = T::nothing_found(plan)
    {
        return Err(e);
    }
    if !T::TELLS_FILES_WITHOUT_ITEMS {
        return Ok(None);
    }
    let mut empty = Vec::new();
    let mut start = 0;
    for f in files {
        // A file with no item is in the window when an item of the window follows it, or
        // when the window holds every file Zoekt returned.
        let in_window = f.item_end < w.len() || w.ran_out;
        if f.item_end == start && in_window {
            empty.push((f.repo.clone(), f.path.clone()));
        }
        start = f.item_end;
    }
    Ok((!empty.is_empty()).then_some(Warning::FilesWithoutItems { files: empty }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Pager;
    use crate::engine::backend::{RankedFile, SearchStats};
    use crate::engine::config::PagerConfig;
    use crate::engine::testing::{FakeBackend, LineArgs, LineItem, LineTool, file, line};
    use crate::engine::tool::{Found, Source};

    /// [`LineTool`] whose file found by name alone holds no item, and that tells such files
    /// and names the search that finds none.
    struct NamedFile;

    impl Tool for NamedFile {
        const SCOPE_ID: u8 = 201;
        type Args = LineArgs;
        type Item = LineItem;
        type Plan = String;
        const TELLS_FILES_WITHOUT_ITEMS: bool = true;

        fn plan(args: &LineArgs, cfg: &PagerConfig) -> Result<String, Error> {
            LineTool::plan(args, cfg)
        }
        fn key(plan: &String) -> Vec<&str> {
            LineTool::key(plan)
        }
        fn source(plan: &String) -> Source<'_> {
            LineTool::source(plan)
        }
        fn items(plan: &String, found: Found<'_>) -> Vec<LineItem> {
            let mut items = LineTool::items(plan, found);
            items.retain(|i| i.line > 0);
            items
        }
        fn nothing_found(plan: &String) -> Option<Error> {
            Some(Error::NoSuchFile {
                repo: "r".into(),
                path: plan.clone(),
            })
        }
    }

    fn named(path: &str, lines: Vec<crate::engine::backend::MatchedLine>) -> RankedFile {
        RankedFile {
            path: path.into(),
            ..file(lines)
        }
    }

    fn args(query: &str) -> LineArgs {
        LineArgs {
            query: query.into(),
            ..LineArgs::default()
        }
    }

    #[tokio::test]
    async fn no_file_is_the_tools_error_and_a_file_without_items_is_told() {
        let backend = FakeBackend::new()
            .with("one", vec![named("a.txt", vec![])])
            .with("two", vec![named("b.go", vec![line(3, "x")])]);
        let pager = Pager::new(backend, PagerConfig::default());
        let e = pager.page::<NamedFile>(&args("none")).await.unwrap_err();
        assert!(matches!(e, Error::NoSuchFile { .. }), "{e}");
        // The same empty answer is an empty page for a tool that names no error.
        let p = pager.page::<LineTool>(&args("none")).await.unwrap();
        assert!(p.items.is_empty() && p.warnings.is_empty());

        let p = pager.page::<NamedFile>(&args("one")).await.unwrap();
        assert!(p.items.is_empty());
        assert_eq!(
            p.warnings,
            [Warning::FilesWithoutItems {
                files: vec![("r".into(), "a.txt".into())]
            }]
        );
        // Counted, the same.
        let count = LineArgs {
            count_only: true,
            ..args("one")
        };
        let c = pager.page::<NamedFile>(&count).await.unwrap();
        assert_eq!((c.total.value, c.warnings.len()), (0, 1));
        let p = pager.page::<NamedFile>(&args("two")).await.unwrap();
        assert_eq!((p.items.len(), p.warnings.len()), (1, 0));
    }

    #[tokio::test]
    async fn an_answer_cut_short_finds_nothing_missing() {
        let backend = FakeBackend::new();
        backend.cut(
            "none",
            SearchStats {
                shards_skipped: 1,
                ..SearchStats::default()
            },
        );
        let pager = Pager::new(backend, PagerConfig::default());
        let p = pager.page::<NamedFile>(&args("none")).await.unwrap();
        assert!(p.items.is_empty());
        assert!(
            !p.warnings.is_empty()
                && !p
                    .warnings
                    .iter()
                    .any(|w| matches!(w, Warning::FilesWithoutItems { .. })),
            "{:?}",
            p.warnings
        );
    }

    #[tokio::test]
    async fn only_the_files_without_items_are_told() {
        // Scores 3, 2, 1: `b`, between two files with items, holds none; it alone is told.
        let scored = |path: &str, score: f64, lines| RankedFile {
            score,
            ..named(path, lines)
        };
        let backend = FakeBackend::new().with(
            "q",
            vec![
                scored("a.go", 3.0, vec![line(1, "x")]),
                scored("b.txt", 2.0, vec![]),
                scored("c.go", 1.0, vec![line(2, "y")]),
            ],
        );
        let pager = Pager::new(backend, PagerConfig::default());
        let p = pager.page::<NamedFile>(&args("q")).await.unwrap();
        assert_eq!(p.items.len(), 2);
        assert_eq!(
            p.warnings,
            [Warning::FilesWithoutItems {
                files: vec![("r".into(), "b.txt".into())]
            }]
        );
    }
}
