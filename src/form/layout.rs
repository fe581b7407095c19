//! How one part of the structured page is laid out, from what each tool says of its items
//! ([`ItemRow`]), choosing whichever of the allowed layouts is shortest:
//! - consecutive items of one file (or, for file listings, one repository) share one group
//!   that names it once, unless that makes the part longer (one item per file): then each
//!   row is led by where its item is; each item is a row of cells under the part's `fields`,
//!   which lists only the columns some item of it has, and a row ends at its last present
//!   cell (a cell an item lacks, in a column others have, is `null`);
//! - a cell that every row of each group shares (a symbol's kind and parent, for the columns
//!   a tool names in [`ItemRow::SAID_PER_GROUP`]) is said once in the group, after its rows;
//!   a language that a file's extension gives is said once per extension
//!   (`language_by_extension`), and left out of the rows it holds for;
//! - a source line that recurs in a part (one import in many files) is said once, in the
//!   list `text_by_number`, and the cells that hold it give its number there instead
//!   ([`ItemRow::NUMBERED_WHEN_REPEATED`]), when that saves enough to be worth a lookup;
//! - a program rebuilds each flat item from its group, its part and its row.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::item::{Grouping, ItemRow};

/// One part's `fields` and its rows: in groups, or flat when groups would make it longer.
pub(super) fn part_view<T: ItemRow>(items: &[T]) -> Map<String, Value> {
    let mut cells: Vec<Vec<Option<Value>>> = items.iter().map(ItemRow::cells).collect();
    let by_extension = T::BY_EXTENSION.and_then(|name| {
        let c = T::COLUMNS.iter().position(|c| c.name == name)?;
        let said = said_by_extension(items, &mut cells, c);
        (!said.is_empty()).then(|| (format!("{name}_by_extension"), Value::Object(said)))
    });
    // Before the layout is chosen: a numbered cell is written once per item in rows and in
    // groups alike, so it saves the same in either and leaves the choice as it was.
    let numbered = T::NUMBERED_WHEN_REPEATED.and_then(|name| {
        let c = T::COLUMNS.iter().position(|c| c.name == name)?;
        let said = said_once_when_repeated(&mut cells, c, name);
        (!said.is_empty()).then(|| (by_number_key(name), Value::Array(said)))
    });
    let mut out = part_rows(items, cells);
    out.extend(by_extension);
    out.extend(numbered);
    out
}

/// Where a part says the recurring values of column `name` once: `text_by_number`, named
/// like `language_by_extension` so that a model reads what a number in that column stands for.
pub(super) fn by_number_key(name: &str) -> String {
    format!("{name}_by_number")
}

/// The least a value must save to be numbered: a number in place of a line costs a model a
/// lookup, worth it for a long line said many times, not for a few characters.
const LEAST_SAVING: usize = 20;

/// The strings of column `c` that recur in this part (the same import line in many files),
/// each said once in a list, in order of first appearance; each cell that held one holds its
/// number in the list instead. Only the values that save at least [`LEAST_SAVING`]
/// characters, and none when the list's own key would cost more than they save. A program
/// reads a cell that is a number as that entry of the list (the column holds strings only).
fn said_once_when_repeated(cells: &mut [Vec<Option<Value>>], c: usize, name: &str) -> Vec<Value> {
    // Each distinct string cell and the rows that hold it, in order of first appearance.
    let mut rows_by_value: Vec<(&Value, Vec<usize>)> = Vec::new();
    let mut index_of: HashMap<&str, usize> = HashMap::new();
    for (r, row) in cells.iter().enumerate() {
        let Some(cell @ Value::String(s)) = &row[c] else {
            continue;
        };
        match index_of.get(s.as_str()) {
            Some(&i) => rows_by_value[i].1.push(r),
            None => {
                index_of.insert(s, rows_by_value.len());
                rows_by_value.push((cell, vec![r]));
            }
        }
    }
    let mut numbered: Vec<(Value, Vec<usize>)> = Vec::new();
    let mut saved = 0;
    for (value, rows) in rows_by_value {
        let len = json_chars(value);
        let number_len = numbered.len().to_string().len();
        // Each row's cell shrinks to the number; the list pays the value and a comma.
        let (inline, said) = (rows.len() * len, len + 1 + rows.len() * number_len);
        if inline >= said + LEAST_SAVING {
            saved += inline - said;
            numbered.push((value.clone(), rows));
        }
    }
    // The list's key (`,"text_by_number":[]`), less the comma its last entry does not need.
    let key_len = by_number_key(name).len() + 5;
    if saved < key_len + LEAST_SAVING {
        return Vec::new();
    }
    numbered
        .into_iter()
        .enumerate()
        .map(|(number, (value, rows))| {
            for r in rows {
                cells[r][c] = Some(json!(number));
            }
            value
        })
        .collect()
}

/// The values of column `c` that follow from their file's extension on this page (every item
/// with that extension has the same one), as `{".py": "Python"}`, taken out of the rows that
/// they hold for; only the extensions that this makes shorter. A program reads an item's
/// cell from its row, else from this map by its path's extension.
fn said_by_extension<T: ItemRow>(
    items: &[T],
    cells: &mut [Vec<Option<Value>>],
    c: usize,
) -> Map<String, Value> {
    // Per extension: the cell its first item has (absent included), whether another item
    // with that extension has a different one (or none), and how many items have it. An item
    // without a value must keep the extension out of the map, or a reader would give it one.
    let mut seen: Vec<(&str, Option<&Value>, bool, usize)> = Vec::new();
    let exts: Vec<Option<&str>> = items.iter().map(|i| extension(i.path())).collect();
    for (ext, row) in exts.iter().zip(cells.iter()) {
        let Some(ext) = ext else { continue };
        let cell = row[c].as_ref();
        match seen.iter_mut().find(|(e, ..)| e == ext) {
            Some((_, first, conflict, n)) => {
                *conflict |= *first != cell;
                *n += 1;
            }
            None => seen.push((ext, cell, false, 1)),
        }
    }
    let mut said = Map::new();
    let mut saved = 0;
    for (ext, value, conflict, n) in seen {
        let (Some(value), false) = (value, conflict) else {
            continue;
        };
        let value_len = json_chars(value);
        // Each row saves its cell and a comma; the map pays `"ext":value,`.
        let entry_len = ext.chars().count() + 4 + value_len;
        if n * (value_len + 1) > entry_len {
            said.insert(ext.to_owned(), value.clone());
            saved += n * (value_len + 1) - entry_len;
        }
    }
    // The map's own key and braces (`,"language_by_extension":{}`): worth it only when the
    // rows save more.
    let name_len = T::COLUMNS[c].name.len() + "_by_extension".len();
    if saved <= name_len + 6 {
        return Map::new();
    }
    for (ext, row) in exts.iter().zip(cells.iter_mut()) {
        if ext.is_some_and(|e| said.contains_key(e)) {
            row[c] = None;
        }
    }
    said
}

/// `.py` of `a/b/c.py`; `None` for a file name without one (`Makefile`, `.gitignore`):
/// what a page's `<column>_by_extension` is keyed by (its readers find values by it too).
pub(crate) fn extension(path: &str) -> Option<&str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rfind('.') {
        Some(0) | None => None,
        Some(dot) => Some(&name[dot..]),
    }
}

/// One part's `fields` and its rows, from each item's cells.
fn part_rows<T: ItemRow>(items: &[T], cells: Vec<Vec<Option<Value>>>) -> Map<String, Value> {
    let used: Vec<usize> = (0..T::COLUMNS.len())
        .filter(|&c| cells.iter().any(|row| row[c].is_some()))
        .collect();
    let fields: Vec<&str> = used.iter().map(|&c| T::COLUMNS[c].name).collect();
    let rows: Vec<Vec<Value>> = cells
        .into_iter()
        .map(|mut row| {
            used.iter()
                .map(|&c| row[c].take().unwrap_or(Value::Null))
                .collect()
        })
        .collect();
    let by_file = match T::GROUPING {
        Grouping::None => return part(&fields, "rows", rows.into_iter().map(row).collect()),
        Grouping::File => true,
        Grouping::Repo => false,
    };
    let key = if by_file { "files" } else { "repos" };
    let grouped = grouped_part(items, &fields, key, rows.clone(), by_file);
    let flat = flat(items, &fields, rows, by_file);
    if json_len(&flat) < json_len(&grouped) {
        flat
    } else {
        grouped
    }
}

/// `{fields, KEY: values}`.
fn part(fields: &[&str], key: &str, values: Vec<Value>) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("fields".into(), json!(fields));
    out.insert(key.into(), Value::Array(values));
    out
}

/// A row: its cells, less the absent ones at its end.
fn row(mut cells: Vec<Value>) -> Value {
    while cells.last().is_some_and(Value::is_null) {
        cells.pop();
    }
    Value::Array(cells)
}

/// Runs of items with the same group, each a list `[repo, path, rows, shared cells...,
/// branches]` (`[repo, rows, shared cells...]` for file listings), under `fields` that mirror
/// it: `["repo", "path", [row fields], shared names..., "branches"]`. A list, not an object,
/// because a group's keys would cost a model about 20 characters a file, more than the text's
/// header line; the list reads as plainly under its named fields.
///
/// A column the tool lists in [`ItemRow::SAID_PER_GROUP`] whose cell is the same in every row
/// of each group (a symbol's parent and kind in a file of one package, say) leaves the rows and is said once per group, after them,
/// when that makes the part shorter: the group's cell holds for each of its rows. `branches`
/// comes last, and a group simply ends early at its last present entry.
fn grouped_part<T: ItemRow>(
    items: &[T],
    fields: &[&str],
    key: &str,
    rows: Vec<Vec<Value>>,
    by_file: bool,
) -> Map<String, Value> {
    // Runs of consecutive items with one place: (first item, number of items).
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (at, item) in items.iter().enumerate() {
        match runs.last_mut() {
            Some((first, len)) if same_group(&items[*first], item) => *len += 1,
            _ => runs.push((at, 1)),
        }
    }
    let layout = Layout {
        items,
        fields,
        key,
        rows: &rows,
        runs: &runs,
        by_file,
    };
    // A column may be said once per group only when no group has two values in it.
    let same_in_each_group = |c: usize| {
        runs.iter().all(|&(first, len)| {
            rows[first + 1..first + len]
                .iter()
                .all(|r| r[c] == rows[first][c])
        })
    };
    let mut shared = Vec::new();
    let mut best = layout.render(&shared);
    let mut best_len = json_len(&best);
    let candidates = (0..fields.len())
        .filter(|&c| T::SAID_PER_GROUP.contains(&fields[c]) && same_in_each_group(c));
    for c in candidates {
        shared.push(c);
        let tried = layout.render(&shared);
        let tried_len = json_len(&tried);
        if tried_len < best_len {
            (best, best_len) = (tried, tried_len);
        } else {
            shared.pop();
        }
    }
    best
}

/// What [`grouped_part`] writes groups from.
struct Layout<'a, T> {
    items: &'a [T],
    fields: &'a [&'a str],
    key: &'a str,
    rows: &'a [Vec<Value>],
    runs: &'a [(usize, usize)],
    by_file: bool,
}

impl<T: ItemRow> Layout<'_, T> {
    /// The part with the columns `shared` (indexes into `fields`, ascending) said once per
    /// group.
    fn render(&self, shared: &[usize]) -> Map<String, Value> {
        let in_rows: Vec<usize> = (0..self.fields.len())
            .filter(|c| !shared.contains(c))
            .collect();
        let branches = self.by_file
            && self
                .runs
                .iter()
                .any(|&(first, _)| !self.items[first].group().branches.is_empty());
        let groups = self
            .runs
            .iter()
            .map(|&(first, len)| {
                let place = self.items[first].group();
                let mut group = vec![json!(place.repo)];
                if self.by_file {
                    group.push(json!(place.path));
                }
                let rows = self.rows[first..first + len]
                    .iter()
                    .map(|cells| row(in_rows.iter().map(|&c| cells[c].clone()).collect()))
                    .collect();
                group.push(Value::Array(rows));
                group.extend(shared.iter().map(|&c| self.rows[first][c].clone()));
                if branches && !place.branches.is_empty() {
                    group.push(json!(place.branches));
                }
                row(group)
            })
            .collect();
        let mut names = vec![json!("repo")];
        if self.by_file {
            names.push(json!("path"));
        }
        let row_names: Vec<&str> = in_rows.iter().map(|&c| self.fields[c]).collect();
        names.push(json!(row_names));
        names.extend(shared.iter().map(|&c| json!(self.fields[c])));
        if branches {
            names.push(json!("branches"));
        }
        let mut out = Map::new();
        out.insert("fields".into(), Value::Array(names));
        out.insert(self.key.into(), Value::Array(groups));
        out
    }
}

/// Every row flat, each led by where its item is (`repo`, and `path` and `branches` for items
/// in files): shorter than groups when runs are short (one item per file).
fn flat<T: ItemRow>(
    items: &[T],
    fields: &[&str],
    rows: Vec<Vec<Value>>,
    by_file: bool,
) -> Map<String, Value> {
    let branches = by_file && items.iter().any(|i| !i.group().branches.is_empty());
    let mut names = vec!["repo"];
    if by_file {
        names.push("path");
    }
    if branches {
        names.push("branches");
    }
    names.extend_from_slice(fields);
    let rows = items
        .iter()
        .zip(rows)
        .map(|(item, cells)| {
            let place = item.group();
            let mut lead = vec![json!(place.repo)];
            if by_file {
                lead.push(json!(place.path));
            }
            if branches {
                lead.push(if place.branches.is_empty() {
                    Value::Null
                } else {
                    json!(place.branches)
                });
            }
            lead.extend(cells);
            row(lead)
        })
        .collect();
    part(&names, "rows", rows)
}

/// Characters of `map`'s compact JSON.
fn json_len(map: &Map<String, Value>) -> usize {
    serde_json::to_string(map).map_or(usize::MAX, |s| s.chars().count())
}

/// Whether two items fall in one group: the same file, or for file listings the same
/// repository.
fn same_group<T: ItemRow>(a: &T, b: &T) -> bool {
    let (a, b) = (a.group(), b.group());
    match T::GROUPING {
        Grouping::Repo => a.repo == b.repo,
        Grouping::File | Grouping::None => a == b,
    }
}

/// Characters of `value`'s compact JSON: what a cell costs a model in the structured page.
pub(super) fn json_chars(value: &Value) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.chars().count())
}

#[cfg(test)]
mod tests;
