//! An entry of a tree, and how it reads: as a line under its directory in the page's text,
//! and as a row of the structured page.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::engine::tool::Shaped;
use crate::form::{CellKind, Column, Grouping, ItemRow, ItemText, Location};
use crate::tools::shared::{count, lines, text};

/// What an entry of the tree is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// A directory: its files below it, at every depth, are counted.
    Dir,
    /// A file.
    File,
    /// The entries of a directory not shown (past `per_directory`), counted.
    More,
}

impl EntryKind {
    pub(super) fn name(self) -> &'static str {
        match self {
            EntryKind::Dir => "dir",
            EntryKind::File => "file",
            EntryKind::More => "more",
        }
    }
}

/// One entry of the tree.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct TreeEntry {
    /// Repository name.
    pub repo: String,
    /// Path inside the repository: a directory's ends with `/`; a `more` entry's is the
    /// directory whose entries it counts.
    pub path: String,
    /// Dir, file, or more.
    pub kind: EntryKind,
    /// Levels below the path asked for (the path itself is 0).
    pub depth: u32,
    /// Files below a directory, or below the entries a `more` entry counts; 1 for a file.
    pub files: u64,
    /// `files` is a lower bound: Zoekt's answer was cut under this directory.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub files_at_least: bool,
    /// A directory's main languages, most files first; a file's language.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub languages: Vec<String>,
    /// A `more` entry: the directories it counts.
    #[serde(skip_serializing_if = "is_zero")]
    pub more_dirs: u64,
    /// A `more` entry: the files directly in the directory it counts.
    #[serde(skip_serializing_if = "is_zero")]
    pub more_files: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl TreeEntry {
    /// The directory the entry is listed under (itself, for the path asked for).
    fn parent(&self) -> &str {
        if self.depth == 0 || self.kind == EntryKind::More {
            return &self.path;
        }
        let end = self
            .path
            .trim_end_matches('/')
            .rfind('/')
            .map_or(0, |i| i + 1);
        &self.path[..end]
    }

    /// The entry's name under its parent.
    fn name(&self) -> &str {
        &self.path[self.parent().len()..]
    }
}

/// The columns of a tree's rows.
const COLUMNS: &[Column] = &[
    Column::new(
        "path",
        CellKind::Text,
        "path inside the repository: a directory's ends with `/`; a `more` entry's is the \
         directory whose other entries it counts",
    ),
    Column::new("kind", CellKind::Text, "dir, file, or more"),
    Column::new(
        "files",
        CellKind::Count,
        "files below a directory at every depth (a `more` entry: below the entries it counts)",
    ),
    Column::new(
        "files_at_least",
        CellKind::Flag,
        "true: `files` is a lower bound, as Zoekt's answer was cut under it",
    ),
    Column::new(
        "languages",
        CellKind::Lines,
        "a directory's main languages, most files first; a file's language",
    ),
    Column::new(
        "more_dirs",
        CellKind::Count,
        "a `more` entry: the directories it counts",
    ),
    Column::new(
        "more_files",
        CellKind::Count,
        "a `more` entry: the files directly in the directory it counts",
    ),
];

impl ItemRow for TreeEntry {
    const COLUMNS: &'static [Column] = COLUMNS;
    const GROUPING: Grouping = Grouping::None;

    fn cells(&self) -> Vec<Option<Value>> {
        vec![
            text(&self.path),
            text(self.kind.name()),
            (self.kind != EntryKind::File)
                .then(|| count(self.files))
                .flatten(),
            self.files_at_least.then_some(Value::Bool(true)),
            lines(&self.languages),
            (self.more_dirs > 0)
                .then(|| count(self.more_dirs))
                .flatten(),
            (self.more_files > 0)
                .then(|| count(self.more_files))
                .flatten(),
        ]
    }
}

impl ItemText for TreeEntry {
    /// The directory the entry is in: the page's text names it once over its entries.
    fn file(&self) -> Option<Location<'_>> {
        Some(Location {
            repo: &self.repo,
            branches: &[],
            path: self.parent(),
        })
    }

    fn write_text(&self, out: &mut String) {
        let files = |out: &mut String, files: u64| {
            let plus = if self.files_at_least { "+" } else { "" };
            let unit = if files == 1 { "file" } else { "files" };
            let _ = write!(out, "{files}{plus} {unit}");
        };
        match self.kind {
            EntryKind::Dir => {
                let name = if self.depth == 0 { "./" } else { self.name() };
                let _ = write!(out, "{name}  ");
                files(out, self.files);
                if !self.languages.is_empty() {
                    let _ = write!(out, "  {}", self.languages.join(", "));
                }
            }
            EntryKind::File => out.push_str(self.name()),
            EntryKind::More => {
                let counted = |n: u64, one: &str, many: &str| {
                    (n > 0).then(|| format!("{n} {}", if n == 1 { one } else { many }))
                };
                let parts: Vec<String> = [
                    counted(self.more_dirs, "dir", "dirs"),
                    counted(self.more_files, "file", "files"),
                ]
                .into_iter()
                .flatten()
                .collect();
                let _ = write!(out, "… and {} more", parts.join(" and "));
                // Files alone are their own count; directories hold more.
                if self.more_dirs > 0 {
                    out.push_str(", holding ");
                    files(out, self.files);
                }
            }
        }
    }
}

impl Shaped for TreeEntry {}
