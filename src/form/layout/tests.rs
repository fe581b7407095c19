//! Tests of `form::layout`, kept beside it so the module reads as what it does.

use super::*;
use crate::form::item::{CellKind, Column, ItemText, Location};
use crate::form::testing::Hit;

/// A symbol-like item in a file: one row of `line`, `kind`, `parent`.
struct Sym {
    path: &'static str,
    line: u64,
    kind: &'static str,
    parent: &'static str,
}

impl ItemText for Sym {
    fn write_text(&self, out: &mut String) {
        out.push_str(self.kind);
    }
}

impl ItemRow for Sym {
    const COLUMNS: &'static [Column] = &[
        Column::new("line", CellKind::Count, "line"),
        Column::new("kind", CellKind::Text, "kind"),
        Column::new("parent", CellKind::Text, "parent"),
    ];
    const GROUPING: Grouping = Grouping::File;
    const SAID_PER_GROUP: &'static [&'static str] = &["kind", "parent"];

    fn group(&self) -> Location<'_> {
        Location {
            repo: "r",
            branches: &[],
            path: self.path,
        }
    }

    fn cells(&self) -> Vec<Option<Value>> {
        let text = |s: &str| (!s.is_empty()).then(|| json!(s));
        vec![Some(json!(self.line)), text(self.kind), text(self.parent)]
    }
}

fn sym(path: &'static str, line: u64, kind: &'static str, parent: &'static str) -> Sym {
    Sym {
        path,
        line,
        kind,
        parent,
    }
}

#[test]
fn a_cell_every_row_of_each_group_shares_follows_the_rows_once() {
    let items = [
        sym("a.go", 1, "func", "pkg"),
        sym("a.go", 9, "func", "pkg"),
        sym("a.go", 20, "func", "pkg"),
        sym("b.py", 3, "function", ""),
        sym("b.py", 7, "function", ""),
    ];
    let part = part_view(&items);
    assert_eq!(
        json!(part),
        json!({
            "fields": ["repo", "path", ["line"], "kind", "parent"],
            "files": [
                ["r", "a.go", [[1], [9], [20]], "func", "pkg"],
                ["r", "b.py", [[3], [7]], "function"],
            ],
        })
    );
}

#[test]
fn a_column_two_rows_of_one_group_differ_in_stays_in_the_rows() {
    let items = [
        sym("a.go", 1, "func", "pkg"),
        sym("a.go", 9, "method", "pkg"),
        sym("a.go", 20, "func", "pkg"),
    ];
    let part = part_view(&items);
    assert_eq!(
        json!(part),
        json!({
            "fields": ["repo", "path", ["line", "kind"], "parent"],
            "files": [["r", "a.go", [[1, "func"], [9, "method"], [20, "func"]], "pkg"]],
        })
    );
}

/// A listed file: `path` and `language`, by repository.
struct Listed {
    path: &'static str,
    language: &'static str,
}

impl ItemText for Listed {
    fn write_text(&self, out: &mut String) {
        out.push_str(self.path);
    }
}

impl ItemRow for Listed {
    const COLUMNS: &'static [Column] = &[
        Column::new("path", CellKind::Text, "path"),
        Column::new("language", CellKind::Text, "language"),
    ];
    const GROUPING: Grouping = Grouping::Repo;
    const BY_EXTENSION: Option<&'static str> = Some("language");

    fn group(&self) -> Location<'_> {
        Location::repo("r")
    }

    fn path(&self) -> &str {
        self.path
    }

    fn cells(&self) -> Vec<Option<Value>> {
        vec![
            Some(json!(self.path)),
            (!self.language.is_empty()).then(|| json!(self.language)),
        ]
    }
}

#[test]
fn a_language_its_extension_gives_is_said_once_unless_a_file_of_it_differs() {
    let listed = |path, language| Listed { path, language };
    // Eight Go files: enough for the map to pay for its own key.
    let go = [
        "a/1.go", "a/2.go", "3.go", "4.go", "5.go", "6.go", "7.go", "8.go",
    ];
    let items: Vec<Listed> = go
        .iter()
        .map(|p| listed(p, "Go"))
        .chain([
            // One `.py` file has no language: `.py` must not be said for it.
            listed("x.py", "Python"),
            listed("y.py", "Python"),
            listed("z.py", ""),
            listed("Makefile", "Makefile"),
        ])
        .collect();
    let part = part_view(&items);
    assert_eq!(
        part["language_by_extension"],
        json!({".go": "Go"}),
        "{part:?}"
    );
    let rows = part["repos"][0][1].as_array().unwrap();
    assert_eq!(rows[0], json!(["a/1.go"]));
    assert_eq!(rows[8], json!(["x.py", "Python"]));
    assert_eq!(rows[10], json!(["z.py"]));
    assert_eq!(rows[11], json!(["Makefile", "Makefile"]));
}

#[test]
fn a_map_that_would_not_pay_for_itself_is_left_out() {
    // Four rows save 4 x `,"Go"`; `"language_by_extension":{".go":"Go"},` costs more.
    let items: Vec<Listed> = ["a.go", "b.go", "c.go", "d.go"]
        .into_iter()
        .map(|path| Listed {
            path,
            language: "Go",
        })
        .collect();
    let part = part_view(&items);
    assert!(part.get("language_by_extension").is_none(), "{part:?}");
    assert_eq!(part["repos"][0][1][0], json!(["a.go", "Go"]));
}

/// The engine's test item: a matching `line` and its `text`, in file `path` of repo `r`.
fn hit(path: &str, line: u32, text: &str) -> Hit {
    Hit {
        repo: "r".into(),
        path: path.into(),
        line,
        text: text.into(),
    }
}

const IMPORT: &str = "import { logEvent } from \"../observability/log_event\";";
const CALL: &str = "logEvent(ctx, \"order.created\", { id: req.id });";

#[test]
fn a_line_that_recurs_is_said_once_and_its_rows_give_its_number() {
    let items = [
        hit("a.ts", 1, IMPORT),
        hit("a.ts", 7, CALL),
        hit("b.ts", 1, IMPORT),
        hit("b.ts", 9, "}"),
        hit("c.ts", 1, IMPORT),
        hit("c.ts", 4, CALL),
        hit("c.ts", 5, "}"),
    ];
    let part = part_view(&items);
    // `}` recurs too, but its number would cost as much as it saves.
    assert_eq!(
        json!(part),
        json!({
            "fields": ["repo", "path", ["line", "text"]],
            "files": [
                ["r", "a.ts", [[1, 0], [7, 1]]],
                ["r", "b.ts", [[1, 0], [9, "}"]]],
                ["r", "c.ts", [[1, 0], [4, 1], [5, "}"]]],
            ],
            "text_by_number": [IMPORT, CALL],
        })
    );
}

#[test]
fn a_line_that_would_save_little_stays_in_its_row() {
    // `"x = 1;"` twice: 16 characters in the rows, 8 + 1 + 2 x 1 numbered, 5 saved.
    let items = [
        hit("a.ts", 1, IMPORT),
        hit("b.ts", 1, IMPORT),
        hit("c.ts", 1, IMPORT),
        hit("d.ts", 1, "x = 1;"),
        hit("e.ts", 1, "x = 1;"),
    ];
    let part = part_view(&items);
    assert_eq!(part["text_by_number"], json!([IMPORT]), "{part:?}");
    assert_eq!(part["rows"][0], json!(["r", "a.ts", 1, 0]));
    assert_eq!(part["rows"][4], json!(["r", "e.ts", 1, "x = 1;"]));
}

#[test]
fn a_list_that_would_not_pay_for_its_key_is_left_out() {
    // Twice `"value = cache.get(key)"` (24 characters): 48 in the rows, 24 + 1 + 2 x 1
    // numbered, 21 saved; the key (`,"text_by_number":[]`, 19) would leave 2 of them.
    let line = "value = cache.get(key)";
    let part = part_view(&[hit("a.ts", 1, line), hit("b.ts", 1, line)]);
    assert!(part.get("text_by_number").is_none(), "{part:?}");
    assert_eq!(
        part["rows"][0],
        json!(["r", "a.ts", 1, "value = cache.get(key)"])
    );
}
