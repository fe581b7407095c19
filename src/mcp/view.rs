//! The structured page: what Claude Code, VS Code and Copilot CLI hand a model (they pass
//! `JSON.stringify(structuredContent)` and drop the text block), so it is written for a model
//! that never sees the schema, and stays a typed contract for programs.
//!
//! Rendered here from the engine's plain [`Page`], beside the text renderer
//! (`mcp::render`), from what each tool says of its items ([`ItemRow`]):
//! - consecutive items of one file (or, for file listings, one repository) share one group
//!   that names it once, unless that makes the page longer (one item per file): then each
//!   row is led by where its item is; each item is a row of cells under the page's `fields`,
//!   which lists only the columns some item on the page has, and a row ends at its last
//!   present cell;
//! - `find_references` keeps definitions and references apart as two parts, no per-item label;
//! - no empty, null or default-valued field: a flag is there only when true, a list only when
//!   it holds something (a cell an item lacks, in a column others have, is `null`);
//! - `next` says in words where the walk is and how to go on, exactly as the text's footer;
//!   `next_cursor` holds the cursor alone, for programs;
//! - a program rebuilds each flat item from its group, its part and its row.
//!
//! [`page_schema`] states that shape as the tool's `outputSchema`, with only what JSON Schema
//! 2020-12 defines.

use serde_json::{Map, Value, json};

use super::render::walk_sentence;
use crate::engine::item::{CellKind, Column, Grouping, ItemRow};
use crate::engine::page::Page;

/// The structured page of `tool`.
pub fn page_view<T: ItemRow>(tool: &str, page: &Page<T>) -> Value {
    let mut out = Map::new();
    let mut start = 0;
    while start < page.items.len() {
        let part = page.items[start].part();
        let len = page.items[start..]
            .iter()
            .take_while(|i| i.part() == part)
            .count();
        let body = part_view(&page.items[start..start + len]);
        match T::PARTS.get(part) {
            Some(name) => {
                out.insert((*name).into(), Value::Object(body));
            }
            None => out.extend(body),
        }
        start += len;
    }
    if page.offset > 0 {
        out.insert("offset".into(), json!(page.offset));
    }
    out.insert("total".into(), json!(page.total.value));
    if !page.total.exact {
        out.insert("total_estimated".into(), json!(true));
    }
    if let Some(pages) = page.pages {
        out.insert("pages".into(), json!(pages));
    }
    out.insert("next".into(), json!(walk_sentence(tool, page)));
    if let Some(cursor) = &page.next_cursor {
        out.insert("next_cursor".into(), json!(cursor));
    }
    if page.size_capped {
        out.insert("size_capped".into(), json!(true));
    }
    if page.resynced {
        out.insert("resynced".into(), json!(true));
    }
    if !page.warnings.is_empty() {
        out.insert("warnings".into(), json!(page.warnings));
    }
    Value::Object(out)
}

/// One part's `fields` and its rows: in groups, or flat when groups would make it longer.
fn part_view<T: ItemRow>(items: &[T]) -> Map<String, Value> {
    let cells: Vec<Vec<Option<Value>>> = items.iter().map(ItemRow::cells).collect();
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
    let grouped = part(&fields, key, grouped(items, rows.clone(), by_file));
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

/// Runs of items with the same group, each `{repo, path?, branches?, rows}`.
fn grouped<T: ItemRow>(items: &[T], rows: Vec<Vec<Value>>, by_file: bool) -> Vec<Value> {
    let mut groups: Vec<Value> = Vec::new();
    let mut current = None;
    for (item, cells) in items.iter().zip(rows) {
        let place = item.group();
        if current != Some(place) {
            let mut group = Map::new();
            group.insert("repo".into(), json!(place.repo));
            if by_file {
                group.insert("path".into(), json!(place.path));
                if !place.branches.is_empty() {
                    group.insert("branches".into(), json!(place.branches));
                }
            }
            group.insert("rows".into(), json!([]));
            groups.push(Value::Object(group));
            current = Some(place);
        }
        if let Some(Value::Array(rows)) = groups.last_mut().and_then(|g| g.get_mut("rows")) {
            rows.push(row(cells));
        }
    }
    groups
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

/// The `outputSchema` of a paged tool whose items are `T`: exactly the shape [`page_view`]
/// writes, with bounds instead of formats.
pub fn page_schema<T: ItemRow>() -> Map<String, Value> {
    let mut properties = Map::new();
    let part = part_schema::<T>();
    if T::PARTS.is_empty() {
        let Value::Object(part) = part else {
            unreachable!("a part's schema is an object")
        };
        let props = part["properties"].as_object().cloned().unwrap_or_default();
        properties.extend(props);
    } else {
        for name in T::PARTS {
            let mut p = part.clone();
            p["description"] = json!(format!(
                "The {name} on this page: `fields` names the cells of each row; each group \
                 says once what its rows share."
            ));
            properties.insert((*name).into(), p);
        }
    }
    let count = |about: &str| json!({"type": "integer", "minimum": 0, "description": about});
    let flag = |about: &str| json!({"type": "boolean", "const": true, "description": about});
    properties.insert(
        "offset".into(),
        count("Position of the page's first item in the whole result (absent: 0)."),
    );
    properties.insert(
        "total".into(),
        count("Items in the whole result: exact, unless total_estimated."),
    );
    properties.insert(
        "total_estimated".into(),
        flag("The total is an estimate from Zoekt's counts (see warnings)."),
    );
    properties.insert(
        "pages".into(),
        count("With count_only: pages of `limit` items a walk takes."),
    );
    properties.insert(
        "next".into(),
        json!({"type": "string", "description": "Where the walk stands and how to go on: \
            the tool to call and the cursor to pass, or that the results end here."}),
    );
    properties.insert(
        "next_cursor".into(),
        json!({"type": "string", "description": "Pass as `cursor`, with the same other \
            arguments, for the next page; absent on the last page."}),
    );
    properties.insert(
        "size_capped".into(),
        flag("The page holds fewer than `limit` items so as to fit its token budget."),
    );
    properties.insert(
        "resynced".into(),
        flag(
            "The results changed since the cursor was made; the page still starts right \
              after the last item served.",
        ),
    );
    properties.insert(
        "warnings".into(),
        json!({"type": "array", "items": {"type": "string"}, "minItems": 1,
            "description": "Why the result may be partial, each with what to do."}),
    );
    let Value::Object(schema) = json!({
        "type": "object",
        "properties": properties,
        "required": ["total", "next"],
        "additionalProperties": false,
    }) else {
        unreachable!("a literal object")
    };
    schema
}

/// The schema of one part: its `fields` and its rows, in groups or flat.
fn part_schema<T: ItemRow>() -> Value {
    let mut names: Vec<&str> = match T::GROUPING {
        Grouping::None => vec![],
        Grouping::File => vec!["repo", "path", "branches"],
        Grouping::Repo => vec!["repo"],
    };
    names.extend(T::COLUMNS.iter().map(|c| c.name));
    let mut columns: Vec<String> = match T::GROUPING {
        Grouping::None => vec![],
        Grouping::File => vec!["repo, path, branches (flat rows only): where the item is".into()],
        Grouping::Repo => vec!["repo (flat rows only): the file's repository".into()],
    };
    columns.extend(T::COLUMNS.iter().map(describe));
    let fields = json!({
        "type": "array",
        "items": {"enum": names},
        "uniqueItems": true,
        "description": format!(
            "The cells of each row, in order: only the columns some item on the page has. A \
             row may end early: its missing cells are absent; an absent cell before a present \
             one is null. Columns: {}.",
            columns.join("; ")
        ),
    });
    let cell_types: Vec<Value> = [
        CellKind::Count,
        CellKind::Text,
        CellKind::Flag,
        CellKind::Lines,
    ]
    .iter()
    .filter(|k| {
        T::COLUMNS.iter().any(|c| c.kind == **k)
            || (T::GROUPING != Grouping::None && matches!(k, CellKind::Text | CellKind::Lines))
    })
    .map(cell_schema)
    .chain(std::iter::once(json!({"type": "null"})))
    .collect();
    let rows = json!({
        "type": "array",
        "items": {"type": "array", "items": {"anyOf": cell_types}},
        "description": "One row per item, in page order: its cells, as `fields` names them.",
    });
    let group = |file: bool| {
        let mut props = Map::new();
        props.insert(
            "repo".into(),
            json!({"type": "string", "description": "Repository name."}),
        );
        let mut required = vec!["repo", "rows"];
        if file {
            props.insert(
                "path".into(),
                json!({"type": "string", "description": "Path inside the repository."}),
            );
            props.insert(
                "branches".into(),
                json!({"type": "array", "items": {"type": "string"}, "minItems": 1,
                    "description": "Branches holding this version of the file (indexes \
                        with branches only)."}),
            );
            required.push("path");
        }
        props.insert("rows".into(), rows.clone());
        json!({"type": "object", "properties": props, "required": required,
            "additionalProperties": false})
    };
    let (key, groups) = match T::GROUPING {
        Grouping::None => {
            return json!({
                "type": "object",
                "properties": {"fields": fields, "rows": rows},
                "required": ["fields", "rows"],
                "additionalProperties": false,
            });
        }
        Grouping::File => (
            "files",
            json!({"type": "array", "items": group(true),
                "description": "Runs of consecutive items of one file, each naming it once \
                    (or, when that is shorter, `rows` alone, each led by repo and path)."}),
        ),
        Grouping::Repo => (
            "repos",
            json!({"type": "array", "items": group(false),
                "description": "Runs of consecutive files of one repository, each naming it \
                    once; each row is one file (or, when that is shorter, `rows` alone, each \
                    led by repo)."}),
        ),
    };
    json!({
        "type": "object",
        "properties": {"fields": fields, key: groups, "rows": rows},
        "required": ["fields"],
        "oneOf": [{"required": [key]}, {"required": ["rows"]}],
        "additionalProperties": false,
    })
}

/// `name (type): what it holds`.
fn describe(c: &Column) -> String {
    let kind = match c.kind {
        CellKind::Count => "integer",
        CellKind::Text => "string",
        CellKind::Flag => "boolean",
        CellKind::Lines => "list of strings",
    };
    format!("{} ({kind}): {}", c.name, c.about)
}

fn cell_schema(kind: &CellKind) -> Value {
    match kind {
        CellKind::Count => json!({"type": "integer", "minimum": 0}),
        CellKind::Text => json!({"type": "string"}),
        CellKind::Flag => json!({"type": "boolean"}),
        CellKind::Lines => json!({"type": "array", "items": {"type": "string"}}),
    }
}
