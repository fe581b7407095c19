//! A tool result read back as a reader of it sees it: the page's items, each whole, and the
//! page's other facts, from the structured page as `docs/output.md` describes it (parts,
//! groups, rows, cells said once per group, per extension or by number). `check` compares
//! these, so that a change reads as the items it changed, not as the cells of a layout that
//! shifted around them.

use serde_json::{Map, Value};

/// Keys of a page that lay its items out (read into items) or carry a cursor (which embeds
/// positions, so differs between runs by nature): not facts of their own.
fn is_layout_or_cursor(key: &str, value: &Value) -> bool {
    match key {
        "fields" | "rows" | "next" | "next_cursor" => true,
        // `files` and `repos` are groups when lists (`health` has a count of repositories).
        "files" | "repos" => value.is_array(),
        "definitions" | "references" => value.is_object(),
        _ => key.ends_with("_by_extension") || key.ends_with("_by_number"),
    }
}

/// The items of a result, in page order (definitions before references), each an object of
/// its fields by name (`role` added in `find_references`); none for a result with no page.
pub fn items(result: &Value) -> Vec<Map<String, Value>> {
    let Some(page) = result.get("structuredContent") else {
        return Vec::new();
    };
    let mut out = part_items(page, None);
    for (key, role) in [("definitions", "definition"), ("references", "reference")] {
        if let Some(part) = page.get(key).filter(|p| p.is_object()) {
            out.extend(part_items(part, Some(role)));
        }
    }
    out
}

/// The facts of a result besides its items and cursors: the page's totals, warnings,
/// suggestions and the like, a non-paged tool's answer, and an error's code and message.
pub fn facts(result: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(page) = result.get("structuredContent").and_then(Value::as_object) {
        for (k, v) in page {
            if !is_layout_or_cursor(k, v) {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    if let Some(meta) = result.get("_meta").and_then(Value::as_object) {
        for (k, v) in meta {
            out.insert(k.clone(), v.clone());
        }
    }
    if result.get("isError") == Some(&Value::Bool(true)) {
        out.insert("isError".into(), Value::Bool(true));
    }
    out
}

/// The items of one part: its groups (`files`, `repos`) or its flat `rows`, each row's
/// cells named by `fields`, a group's own cells added to each of its rows, then the cells
/// said once per extension or by number filled in.
fn part_items(part: &Value, role: Option<&str>) -> Vec<Map<String, Value>> {
    let Some(fields) = part.get("fields").and_then(Value::as_array) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let start = |place: &Map<String, Value>| {
        let mut item = Map::new();
        if let Some(role) = role {
            item.insert("role".into(), Value::from(role));
        }
        item.extend(place.clone());
        item
    };
    for key in ["files", "repos"] {
        for group in part
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let mut place = Map::new();
            let mut rows: Option<(&Vec<Value>, &Value)> = None;
            for (name, cell) in fields.iter().zip(group.as_array().into_iter().flatten()) {
                match name {
                    Value::Array(names) => rows = Some((names, cell)),
                    Value::String(name) if !cell.is_null() => {
                        place.insert(name.clone(), cell.clone());
                    }
                    _ => {}
                }
            }
            let Some((names, rows)) = rows else { continue };
            for row in rows.as_array().into_iter().flatten() {
                let mut item = start(&place);
                named_cells(&mut item, names, row);
                out.push(item);
            }
        }
    }
    for row in part
        .get("rows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let mut item = start(&Map::new());
        named_cells(&mut item, fields, row);
        out.push(item);
    }
    if let Some(part) = part.as_object() {
        said_once(&mut out, part);
    }
    out
}

fn named_cells(item: &mut Map<String, Value>, names: &[Value], row: &Value) {
    for (name, cell) in names.iter().zip(row.as_array().into_iter().flatten()) {
        if let (Some(name), false) = (name.as_str(), cell.is_null()) {
            item.insert(name.to_string(), cell.clone());
        }
    }
}

/// `<column>_by_number`: a cell of that column that is a number is that entry of the list;
/// `<column>_by_extension`: the column's value for an item without one, by its path's
/// extension.
fn said_once(items: &mut [Map<String, Value>], part: &Map<String, Value>) {
    for (key, said) in part {
        if let (Some(column), Some(list)) = (key.strip_suffix("_by_number"), said.as_array()) {
            for item in items.iter_mut() {
                let entry = item
                    .get(column)
                    .and_then(Value::as_u64)
                    .and_then(|n| list.get(n as usize));
                if let Some(entry) = entry {
                    item.insert(column.to_string(), entry.clone());
                }
            }
        }
    }
    for (key, said) in part {
        if let (Some(column), Some(map)) = (key.strip_suffix("_by_extension"), said.as_object()) {
            for item in items.iter_mut() {
                if item.contains_key(column) {
                    continue;
                }
                let value = item
                    .get("path")
                    .and_then(Value::as_str)
                    .and_then(crate::form::extension)
                    .and_then(|ext| map.get(ext))
                    .cloned();
                if let Some(value) = value {
                    item.insert(column.to_string(), value);
                }
            }
        }
    }
}

/// An item on one line: where it is (`repo/path:line:column`, as far as it has them), then
/// its other fields as `name=value`, by name.
pub fn one_line(item: &Map<String, Value>) -> String {
    let text = |k: &str| {
        item.get(k)
            .map(|v| v.as_str().map_or(v.to_string(), String::from))
    };
    let mut place = String::new();
    if let Some(role) = text("role") {
        place.push_str(&role);
        place.push(' ');
    }
    match (text("repo"), text("path")) {
        (Some(repo), Some(path)) => place.push_str(&format!("{repo}/{path}")),
        (Some(repo), None) => place.push_str(&repo),
        (None, Some(path)) => place.push_str(&path),
        (None, None) => {}
    }
    // `:line:column` only with a line: a column alone (a file's first match, whose line is
    // `first_line`) would read as a line number.
    let mut placed = vec!["role", "repo", "path"];
    if let Some(line) = text("line") {
        place.push_str(&format!(":{line}"));
        placed.push("line");
        if let Some(column) = text("column") {
            place.push_str(&format!(":{column}"));
            placed.push("column");
        }
    }
    // Sorted here: serde_json's map keeps insertion order when a dependency turns its
    // `preserve_order` on, and a report must not depend on that.
    let mut rest: Vec<String> = item
        .iter()
        .filter(|(k, _)| !placed.contains(&k.as_str()))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    rest.sort();
    let mut out = place.trim().to_string();
    for r in rest {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&r);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn groups_cells_said_once_and_parts_become_whole_items() {
        let result = json!({"structuredContent": {
            "fields": ["repo", "path", ["line", "name", "text"], "kind"],
            "files": [["r", "a.go", [[5, "f", 0], [9, "g", "h()"]], "func"]],
            "text_by_number": ["f()"],
            "total": 2,
            "next_cursor": "X",
            "next": "Items 1-2 of 2. Next: call x with cursor=X"
        }});
        let got: Vec<String> = items(&result).iter().map(one_line).collect();
        assert_eq!(
            got,
            [
                r#"r/a.go:5 kind="func" name="f" text="f()""#,
                r#"r/a.go:9 kind="func" name="g" text="h()""#
            ]
        );
        assert_eq!(Value::Object(facts(&result)), json!({"total": 2}));

        let first = json!({"structuredContent": {
            "fields": ["repo", "path", "first_line", "column"],
            "rows": [["r", "a.go", 5, 37]]
        }});
        let got: Vec<String> = items(&first).iter().map(one_line).collect();
        assert_eq!(got, ["r/a.go column=37 first_line=5"]);

        let listing = json!({"structuredContent": {
            "fields": ["repo", ["path"]],
            "language_by_extension": {".go": "Go"},
            "repos": [["r", [["a.go"], ["Makefile"]]]]
        }});
        let got: Vec<String> = items(&listing).iter().map(one_line).collect();
        assert_eq!(got, [r#"r/a.go language="Go""#, "r/Makefile"]);

        let refs = json!({"structuredContent": {
            "definitions": {"fields": ["repo", "path", "line"], "rows": [["r", "a.go", 1]]},
            "references": {"fields": ["repo", "path", "line"], "rows": [["r", "b.go", 2]]},
            "total": 2
        }});
        let got: Vec<String> = items(&refs).iter().map(one_line).collect();
        assert_eq!(got, ["definition r/a.go:1", "reference r/b.go:2"]);
    }

    #[test]
    fn an_error_is_its_code_and_message() {
        let result = json!({"isError": true, "content": [{"type": "text", "text": "Error X"}],
            "_meta": {"zoekt-pager/error": {"code": "X", "message": "m"}}});
        assert!(items(&result).is_empty());
        assert_eq!(
            Value::Object(facts(&result)),
            json!({"isError": true, "zoekt-pager/error": {"code": "X", "message": "m"}})
        );
    }
}
