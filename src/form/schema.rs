//! The `outputSchema` of a paged tool: exactly the shape `json.rs` and `layout.rs` write,
//! stated with only what JSON Schema 2020-12 defines, and bounds instead of formats.

use crate::engine::suggest::{MAX_UNCOUNTED, MAX_WAYS};
use serde_json::{Map, Value, json};

use super::item::{CellKind, Column, Grouping, ItemRow};
use super::layout::by_number_key;

/// The `outputSchema` of a paged tool whose items are `T`: exactly the shape
/// [`page_view`](super::json::page_view)
/// writes.
pub fn page_schema<T: ItemRow>() -> Map<String, Value> {
    // A tool's table names its own columns: a slip there is caught when the tool list is
    // built, not on some page.
    let named = T::SAID_PER_GROUP.iter().chain(T::BY_EXTENSION.iter());
    for name in named.chain(T::NUMBERED_WHEN_REPEATED.iter()) {
        assert!(
            T::COLUMNS.iter().any(|c| c.name == *name),
            "`{name}` is not a column of the tool"
        );
    }
    // A number in a numbered column must mean an entry of its list, and its cell must be
    // written once per item for the saving to hold.
    if let Some(name) = T::NUMBERED_WHEN_REPEATED {
        assert!(
            T::COLUMNS
                .iter()
                .any(|c| c.name == name && c.kind == CellKind::Text)
                && !T::SAID_PER_GROUP.contains(&name),
            "`{name}` cannot be numbered: not a text column, or said once per group"
        );
    }
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
        "total_at_least".into(),
        count("Items Zoekt had found when it stopped short (out of time, crashed shards): the whole result holds at least this many (see warnings)."),
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
        "narrow".into(),
        json!({"type": "object",
            "properties": {
                "query": {"type": "string", "description": "What each narrowed call's `query` \
                    starts with (maybe empty): call the same tool with `query` set to this, a \
                    space, and the first element of one entry of `add`."},
                "filters": {"type": "string", "description": "What each narrowed call's \
                    `filters` starts with (maybe empty): call the same tool with `filters` set \
                    to this, a space, and the first element of one entry of `add`."},
                "add": {"type": "array", "minItems": 1, "maxItems": MAX_WAYS,
                    "items": {"type": "array", "minItems": 2, "maxItems": 2,
                        "items": {"anyOf": [{"type": "string"},
                            {"type": "integer", "minimum": 1}]}},
                    "description": "The ways, best first: each `[added, count]`, what the \
                        narrowed call adds (its filter, with any of the caller's that another \
                        way replaces) and how much of the result it holds."},
                "count": {"enum": ["results", "results_about", "results_at_least", "files",
                    "files_about", "files_at_least"],
                    "description": "What each way's count is: the narrowed call's results, or \
                        the files holding them (each holds one or more); exact, about, or at \
                        least those counted (see narrow_note)."},
                "uncounted": {"type": "array", "minItems": 1, "maxItems": MAX_UNCOUNTED,
                    "items": {"type": "string"},
                    "description": "Ways into parts of the result (repositories, or all but \
                        some directories) no file of which was counted (Zoekt stopped counting \
                        early), with no count: each what the narrowed \
                        call adds, as the first element of an entry of `add`."},
            },
            "required": ["add", "count"],
            "oneOf": [{"required": ["query"]}, {"required": ["filters"]}],
            "minProperties": 3,
            "maxProperties": 4,
            "additionalProperties": false,
            "description": "On a broad result's first page (and with count_only): ways to \
                narrow it, each a ready call of the same tool, with how much of the result it \
                holds: its results, or the files holding them."}),
    );
    properties.insert(
        "narrow_note".into(),
        json!({"type": "string", "description": "What the counts of `narrow` are: results \
            or files, exact, about, or lower bounds, and why."}),
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
        "oneOf": [
            {"required": ["total"]},
            {"required": ["total_estimate"]},
            {"required": ["total_at_least"]},
        ],
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
    described.extend(T::COLUMNS.iter().map(|c| {
        let numbered = T::NUMBERED_WHEN_REPEATED == Some(c.name);
        describe(c, numbered)
    }));
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
    // Cells are not typed one by one: a validator would descend into every cell of every
    // row, which made checking a page cost a Python host twice what the earlier flat page
    // did (docs/bench/schema-check.md). Each column's type is in `fields`' description; a
    // group's trailing entries (cells said once for the group, and branches) get one type
    // check each.
    let entry_types: Vec<&str> = [
        CellKind::Count,
        CellKind::Text,
        CellKind::Flag,
        CellKind::Lines,
    ]
    .into_iter()
    .filter(|k| {
        T::COLUMNS.iter().any(|c| c.kind == *k)
            || (T::GROUPING != Grouping::None && matches!(k, CellKind::Text | CellKind::Lines))
            || (T::NUMBERED_WHEN_REPEATED.is_some() && matches!(k, CellKind::Count))
    })
    .map(json_type)
    .chain(["null"])
    .collect();
    let rows = json!({
        "type": "array",
        "items": {"type": "array"},
        "description": "One row per item, in page order: its cells, as `fields` names them \
            (with their types).",
    });
    // What a group may hold after its leading entries: cells said once for the group, and
    // branches (a list of strings). Rows are allowed too (their type is a list), because
    // validators of JSON Schema draft 7 (the TypeScript SDK's Ajv) skip `prefixItems` and
    // apply `items` to every entry of a group, its repo, path and rows included.
    let group_entry = json!({"type": entry_types, "minimum": 0});
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
                "prefixItems": [text, text, rows],
                "items": group_entry,
                "minItems": 3,
            }),
            "Runs of consecutive items of one file, each `[repo, path, rows, ...]`: after \
             its rows, a group may hold cells that are the same for every one of its rows \
             (each named in `fields` after the inner list, and left out of the rows), then \
             `branches`; a group ends at its last present entry. Or, when that is shorter, \
             `rows` alone, each led by repo and path.",
        ),
        Grouping::Repo => (
            "repos",
            json!({
                "type": "array",
                "prefixItems": [text, rows],
                "items": group_entry,
                "minItems": 2,
            }),
            "Runs of consecutive files of one repository, each `[repo, rows, ...]`, a row \
             per file; after its rows, a group may hold cells that are the same for every one \
             of its rows (named in `fields` after the inner list, and left out of the rows). \
             Or, when that is shorter, `rows` alone, each led by repo.",
        ),
    };
    let mut schema = json!({
        "type": "object",
        "properties": {
            "fields": fields,
            key: {"type": "array", "items": group, "description": about},
            "rows": rows,
        },
        "required": ["fields"],
        "oneOf": [{"required": [key]}, {"required": ["rows"]}],
        "additionalProperties": false,
    });
    if let Some(name) = T::BY_EXTENSION {
        let kind = T::COLUMNS
            .iter()
            .find(|c| c.name == name)
            .map_or(CellKind::Text, |c| c.kind);
        schema["properties"][format!("{name}_by_extension")] = json!({
            "type": "object",
            "additionalProperties": cell_schema(&kind),
            "minProperties": 1,
            "description": format!(
                "The {name} of every file on this page with each extension (`.py`), said \
                 once: a row without a {name} cell has the one its path's extension maps to."
            ),
        });
    }
    if let Some(name) = T::NUMBERED_WHEN_REPEATED {
        schema["properties"][by_number_key(name)] = json!({
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "description": format!(
                "Each {name} that recurs on this part of the page (the same line in many \
                 files), said once: a {name} cell that is a number n stands for entry n \
                 (from 0) of this list."
            ),
        });
    }
    schema
}

/// `name (type): what it holds`; `numbered`: a cell may instead hold its value's number in
/// the part's list of recurring values.
fn describe(c: &Column, numbered: bool) -> String {
    let kind = match c.kind {
        CellKind::Count => "integer",
        CellKind::Text => "string",
        CellKind::Flag => "boolean",
        CellKind::Lines => "list of strings",
    };
    if numbered {
        let list = by_number_key(c.name);
        return format!("{} ({kind}, or its number in {list}): {}", c.name, c.about);
    }
    format!("{} ({kind}): {}", c.name, c.about)
}

/// The JSON type of a column's cells.
fn json_type(kind: CellKind) -> &'static str {
    match kind {
        CellKind::Count => "integer",
        CellKind::Text => "string",
        CellKind::Flag => "boolean",
        CellKind::Lines => "array",
    }
}

fn cell_schema(kind: &CellKind) -> Value {
    match kind {
        CellKind::Count => json!({"type": "integer", "minimum": 0}),
        CellKind::Text => json!({"type": "string"}),
        CellKind::Flag => json!({"type": "boolean"}),
        CellKind::Lines => json!({"type": "array", "items": {"type": "string"}}),
    }
}
