//! An item as a page shows it: its line of text ([`ItemText`]) and its row of the structured
//! page ([`ItemRow`]), with the columns, groups and parts a tool declares for its rows. Tools
//! implement both for their items; the rest of this room writes pages from them.

use std::fmt::Write as _;

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
    /// What starts each line of the item's text under its file's header: two spaces. An item
    /// whose own indentation says something (an outline's depth) starts flush instead, so
    /// that the indentation is its own.
    const UNDER_FILE: &'static str = "  ";
    /// The file the item lies in, written once above consecutive items of that file; `None`
    /// for an item that is not a place in a file (a file of a listing, a repository).
    fn file(&self) -> Option<Location<'_>> {
        None
    }
    /// Appends the item's text to `out`, without the file [`ItemText::file`] names.
    fn write_text(&self, out: &mut String);
    /// Appends the item's text after `previous`, the item written just before it under the
    /// same file header on the same page (`None`: the first there). An item may leave out
    /// what `previous` has just said (an outline says a kind once for a run of siblings of
    /// that kind), never what a page would not hold: a page's first item says all. By
    /// default, [`ItemText::write_text`].
    fn write_text_after(&self, _previous: Option<&Self>, out: &mut String)
    where
        Self: Sized,
    {
        self.write_text(out);
    }
}

/// How an item reads in the structured page (`json.rs` writes it) for hosts that hand a
/// model `structuredContent` rather than the text: one row of cells under the page's list of
/// column names, inside a group that says once what consecutive items share (their file, or
/// their repository), so nothing is written twice. Every item reads as text too: an item
/// in a file is grouped by the file its text names.
pub trait ItemRow: ItemText {
    /// Every column an item of this tool may have, in row order. A page lists only the
    /// columns some item on it has.
    const COLUMNS: &'static [Column];
    /// What consecutive items share and the page says once.
    const GROUPING: Grouping;
    /// The parts of the result, in order, when it has several (`find_references`:
    /// definitions, then references): each is its own list of groups with its own columns.
    /// Empty: one part.
    const PARTS: &'static [&'static str] = &[];
    /// The column (a name in [`ItemRow::COLUMNS`]) whose value follows from the extension of
    /// the item's file, as a language does: a page may say it once per extension instead of
    /// on every row. `None`: no such column.
    const BY_EXTENSION: Option<&'static str> = None;
    /// Columns that tend to hold one value for every item of a group (a symbol's kind and
    /// parent, in a file of one package): a page may say such a cell once for the group
    /// instead of on each of its rows. Facts of one item (its line, its column) are never
    /// listed, even when they happen to repeat, so a group reads as plainly as the file it
    /// names.
    const SAID_PER_GROUP: &'static [&'static str] = &[];
    /// A column of long strings that recur across the items of a part of a page (a source
    /// line: the same import in many files): a page may say each recurring value once, in a
    /// list, and give the cells that hold it its number in that list. It must be a
    /// [`CellKind::Text`] column (so a number in it can only be such a reference) and not one
    /// of [`ItemRow::SAID_PER_GROUP`]. `None`: no such column.
    const NUMBERED_WHEN_REPEATED: Option<&'static str> = None;
    /// What the items are, plural, as a warning names them (`symbols`): a file the search
    /// found that holds none (`Tool::TELLS_FILES_WITHOUT_ITEMS`) is "in the index, but the
    /// index holds no symbols for it".
    const ITEMS_ARE: &'static str = "items";

    /// Where the item is: consecutive items with the same file (with [`Grouping::Repo`], the
    /// same repository) share a group. Ignored with [`Grouping::None`]. By default the file
    /// its text names ([`ItemText::file`]).
    fn group(&self) -> Location<'_> {
        self.file().unwrap_or(Location::NOWHERE)
    }
    /// The path of the item's file, whose extension [`ItemRow::BY_EXTENSION`] reads.
    fn path(&self) -> &str {
        self.group().path
    }
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

impl Column {
    /// A column named `name`, of cells of `kind`, that holds what `about` says.
    pub const fn new(name: &'static str, kind: CellKind, about: &'static str) -> Column {
        Column { name, kind, about }
    }
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

/// The items as a page's text: a line each (or a few, with context). Consecutive items of one
/// file go under one header line naming it, indented by two spaces, so a path is written once
/// per run rather than once per item.
pub fn write_items<T: ItemText>(items: &[T], out: &mut String) {
    let mut line = String::new();
    let mut previous: Option<&T> = None;
    for item in items {
        write_item(item, previous, &mut line, out);
        previous = Some(item);
    }
}

/// Appends one item of [`write_items`], after `previous`.
fn write_item<'a, T: ItemText>(
    item: &'a T,
    previous: Option<&'a T>,
    line: &mut String,
    out: &mut String,
) {
    line.clear();
    let current = previous.and_then(ItemText::file);
    let same_file = current.is_some() && current == item.file();
    item.write_text_after(previous.filter(|_| same_file), line);
    match item.file() {
        Some(f) => {
            if !same_file {
                let _ = writeln!(out, "{f}");
            }
            for l in line.split('\n') {
                let _ = writeln!(out, "{}{l}", T::UNDER_FILE);
            }
        }
        None => {
            out.push_str(line);
            out.push('\n');
        }
    }
}
