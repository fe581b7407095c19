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
    // One name or the other, so that a model reading the number reads whether it is exact.
    let total = if page.total.exact {
        "total"
    } else {
        "total_estimate"
    };
    out.insert(total.into(), json!(page.total.value));
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

/// Runs of items with the same group, each a list `[repo, path, rows, branches]` (`[repo,
/// rows]` for file listings), under `fields` that mirror it: `["repo", "path", [row fields],
/// "branches"]`. A list, not an object, because a group's keys would cost a model about 20
/// characters a file, more than the text's header line; the list reads as plainly under its
/// named fields. `branches` comes last so that a group without any simply ends early.
fn grouped_part<T: ItemRow>(
    items: &[T],
    fields: &[&str],
    key: &str,
    rows: Vec<Vec<Value>>,
    by_file: bool,
) -> Map<String, Value> {
    let mut groups: Vec<Vec<Value>> = Vec::new();
    let mut current = None;
    let mut branches = false;
    for (item, cells) in items.iter().zip(rows) {
        let place = item.group();
        if current != Some(place) {
            let mut group = vec![json!(place.repo)];
            if by_file {
                group.push(json!(place.path));
            }
            group.push(json!([]));
            if by_file && !place.branches.is_empty() {
                group.push(json!(place.branches));
                branches = true;
            }
            groups.push(group);
            current = Some(place);
        }
        let rows_at = if by_file { 2 } else { 1 };
        if let Some(Value::Array(rows)) = groups.last_mut().map(|g| &mut g[rows_at]) {
            rows.push(row(cells));
        }
    }
    let mut names = vec![json!("repo")];
    if by_file {
        names.push(json!("path"));
    }
    names.push(json!(fields));
    if branches {
        names.push(json!("branches"));
    }
    let mut out = Map::new();
    out.insert("fields".into(), Value::Array(names));
    out.insert(
        key.into(),
        Value::Array(groups.into_iter().map(Value::Array).collect()),
    );
    out
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
        count("Items in the whole result, exactly (absent when only an estimate is known)."),
    );
    properties.insert(
        "total_estimate".into(),
        count("Items in the whole result, estimated from Zoekt's counts (see warnings)."),
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
    let narrowed = |count: &str, about: &str| {
        json!({"type": "object",
            "properties": {
                "query": {"type": "string", "description": "The `query` argument to call the \
                    same tool with: the caller's query and one filter."},
                "filters": {"type": "string", "description": "The `filters` argument to call \
                    the same tool with: the caller's filters and one more."},
                count: {"type": "integer", "minimum": 1, "description": about},
            },
            "required": [count],
            "minProperties": 2,
            "maxProperties": 2,
            "additionalProperties": false})
    };
    properties.insert(
        "narrow".into(),
        json!({"type": "array", "minItems": 1, "maxItems": 8,
            "items": {"anyOf": [
                narrowed("results", "Results the narrowed call holds."),
                narrowed("results_seen", "Results the narrowed call holds among the first \
                    results of this one (see narrow_note): a count of part of the result."),
            ]},
            "description": "On a broad result's first page (and with count_only): ways to \
                narrow it, best first, each a ready call of the same tool (the argument to \
                set) with the results it holds."}),
    );
    properties.insert(
        "narrow_note".into(),
        json!({"type": "string", "description": "What the counts of `narrow` are: of the \
            whole result, or of its first results (how many, in how many files)."}),
    );
    properties.insert(
        "warnings".into(),
        json!({"type": "array", "items": {"type": "string"}, "minItems": 1,
            "description": "Why the result may be partial, each with what to do."}),
    );
    let Value::Object(schema) = json!({
        "type": "object",
        "properties": properties,
        "required": ["next"],
        "oneOf": [{"required": ["total"]}, {"required": ["total_estimate"]}],
        "additionalProperties": false,
    }) else {
        unreachable!("a literal object")
    };
    schema
}

/// The schema of one part: its `fields` and its rows, in groups or flat.
fn part_schema<T: ItemRow>() -> Value {
    let lead: &[&str] = match T::GROUPING {
        Grouping::None => &[],
        Grouping::File => &["repo", "path", "branches"],
        Grouping::Repo => &["repo"],
    };
    let columns: Vec<&str> = T::COLUMNS.iter().map(|c| c.name).collect();
    let mut described: Vec<String> = match T::GROUPING {
        Grouping::None => vec![],
        Grouping::File => vec!["repo, path, branches: where the item is".into()],
        Grouping::Repo => vec!["repo: the file's repository".into()],
    };
    described.extend(T::COLUMNS.iter().map(describe));
    let flat_names: Vec<&str> = [lead, &columns[..]].concat();
    let row_fields = json!({"type": "array", "items": {"enum": columns}, "uniqueItems": true});
    // Flat rows name every cell; groups name their entries and, in an inner list, the cells
    // of their rows.
    let fields = json!({
        "type": "array",
        "items": {"anyOf": [{"enum": flat_names}, row_fields]},
        "description": format!(
            "Names what each row (or each group) holds, in order. Flat rows: the row's cells. \
             Groups: the group's entries, with the inner list naming the cells of its rows. \
             Only columns some item on the page has are named. A row or group may end early: \
             its missing entries are absent; an absent cell before a present one is null. \
             Columns: {}.",
            described.join("; ")
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
    let text = json!({"type": "string"});
    let (key, group, about) = match T::GROUPING {
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
            json!({
                "type": "array",
                "prefixItems": [text, text, rows, {"type": "array", "items": text, "minItems": 1}],
                "minItems": 3,
                "maxItems": 4,
            }),
            "Runs of consecutive items of one file, each `[repo, path, rows, branches]` (no \
             branches: the group ends after rows); or, when that is shorter, `rows` alone, \
             each led by repo and path.",
        ),
        Grouping::Repo => (
            "repos",
            json!({
                "type": "array",
                "prefixItems": [text, rows],
                "minItems": 2,
                "maxItems": 2,
            }),
            "Runs of consecutive files of one repository, each `[repo, rows]`, a row per file; \
             or, when that is shorter, `rows` alone, each led by repo.",
        ),
    };
    json!({
        "type": "object",
        "properties": {
            "fields": fields,
            key: {"type": "array", "items": group, "description": about},
            "rows": rows,
        },
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
