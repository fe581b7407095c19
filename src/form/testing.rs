//! Items for this room's own tests, so that they name no tool: a matching line in a file
//! ([`Hit`]) and a name alone ([`Name`]).

use serde_json::Value;

use super::item::{CellKind, Column, Grouping, ItemRow, ItemText, Location};

/// A matching line of a file: grouped by file, its text numbered when it recurs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hit {
    pub(crate) repo: String,
    pub(crate) path: String,
    pub(crate) line: u32,
    pub(crate) text: String,
}

impl Hit {
    pub(crate) fn new(path: &str, line: u32, text: &str) -> Hit {
        Hit {
            repo: "r".into(),
            path: path.into(),
            line,
            text: text.into(),
        }
    }
}

impl ItemText for Hit {
    fn file(&self) -> Option<Location<'_>> {
        Some(self.group())
    }
    fn write_text(&self, out: &mut String) {
        out.push_str(&format!("{}: {}", self.line, self.text));
    }
}

impl ItemRow for Hit {
    const COLUMNS: &'static [Column] = &[
        Column::new("line", CellKind::Count, "line number"),
        Column::new("text", CellKind::Text, "the line"),
    ];
    const GROUPING: Grouping = Grouping::File;
    const NUMBERED_WHEN_REPEATED: Option<&'static str> = Some("text");

    fn group(&self) -> Location<'_> {
        Location {
            repo: &self.repo,
            branches: &[],
            path: &self.path,
        }
    }
    fn cells(&self) -> Vec<Option<Value>> {
        vec![Some(self.line.into()), Some(self.text.clone().into())]
    }
}

/// A name alone, in no file: a row of one cell, no groups.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Name(pub(crate) String);

impl ItemText for Name {
    fn write_text(&self, out: &mut String) {
        out.push_str(&self.0);
    }
}

impl ItemRow for Name {
    const COLUMNS: &'static [Column] = &[Column::new("name", CellKind::Text, "a name")];
    const GROUPING: Grouping = Grouping::None;

    fn group(&self) -> Location<'_> {
        Location::NOWHERE
    }
    fn cells(&self) -> Vec<Option<Value>> {
        vec![Some(self.0.clone().into())]
    }
}
