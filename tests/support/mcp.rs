//! Helpers for driving zoekt-pager through rmcp's MCP client (any transport): calls, walks
//! validated against each tool's output schema, and tool-error checks. Raw Zoekt, the
//! independent oracle, is in `oracle`.

use std::collections::HashSet;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};

pub type Client = RunningService<RoleClient, ()>;

/// The environment of a server whose census may take as long as its pages
/// (`--census-wall-time-ms` at the default `--max-wall-time-ms`). Tests that compare the
/// whole pages of two servers need it: under a loaded machine one census could be cut at
/// its own 3 s bound and the other not, and their suggestions would then differ for a
/// reason the comparison is not about.
pub const CENSUS_AS_LONG_AS_PAGES: (&str, &str) = ("ZOEKT_PAGER_CENSUS_WALL_TIME_MS", "10000");

/// Spawns `zoekt-pager serve` (stdio) against `url` and runs `initialize`. Any ZOEKT_PAGER_*
/// setting of the test environment is dropped, so the server runs with its defaults plus
/// `env`.
///
/// End with `client.cancel().await`: it closes the server's stdin and waits for it to exit.
/// A client merely dropped kills the server as the test's runtime ends, which can cut short
/// the coverage profile it writes on exit (seen in CI: tarpaulin failing to read one).
pub async fn spawn_stdio(url: &str, env: &[(&str, &str)]) -> Client {
    let cmd = super::pager_command(url).configure(|cmd| {
        cmd.arg("serve")
            .env("ZOEKT_PAGER_LOG", "warn")
            .envs(env.iter().copied());
    });
    let transport = TokioChildProcess::new(cmd).expect("spawn zoekt-pager serve");
    ().serve(transport).await.expect("MCP initialize")
}

pub async fn try_call(
    client: &Client,
    tool: &str,
    args: Value,
) -> Result<CallToolResult, ServiceError> {
    let args = args
        .as_object()
        .cloned()
        .expect("arguments must be an object");
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
    client.call_tool(params).await
}

/// One tools/call that must not be a protocol error.
pub async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    try_call(client, tool, args.clone())
        .await
        .unwrap_or_else(|e| panic!("{tool} {args}: protocol error {e}"))
}

/// The first content block, which must be text.
pub fn text(r: &CallToolResult) -> String {
    let block = r.content.first().expect("a content block");
    block.as_text().expect("a text block").text.clone()
}

pub async fn output_schema(client: &Client, tool: &str) -> Value {
    let tools = client.list_all_tools().await.expect("tools/list");
    let t = tools.iter().find(|t| t.name == tool).expect("tool listed");
    Value::Object((**t.output_schema.as_ref().expect("output schema")).clone())
}

/// Walks `tool` by passing `next_cursor` back as `cursor`, with limits taken in turn from
/// `limits` (the last repeats). Every page must validate against the tool's output schema and
/// end its text with the right footer. Returns each page's structured content.
pub async fn walk(client: &Client, tool: &str, args: Value, limits: &[u32]) -> Vec<Value> {
    let schema = output_schema(client, tool).await;
    let validator = jsonschema::validator_for(&schema).expect("output schema compiles");
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut a = args.clone();
        a["limit"] = json!(limits.get(pages.len()).unwrap_or(limits.last().unwrap()));
        if let Some(c) = &cursor {
            a["cursor"] = json!(c);
        }
        let r = call(client, tool, a.clone()).await;
        let body = text(&r);
        assert_ne!(r.is_error, Some(true), "{tool} {a}: {body}");
        let structured = r.structured_content.clone().expect("structured content");
        let errors: Vec<String> = validator
            .iter_errors(&structured)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{tool} page {}: {errors:?}", pages.len());
        let sc = flat_page(&structured);
        // The footer is the last line before the warnings, if any.
        let last = body
            .lines()
            .rfind(|l| !l.starts_with("Warning: "))
            .unwrap_or_default()
            .to_string();
        cursor = sc
            .get("next_cursor")
            .and_then(Value::as_str)
            .map(String::from);
        // The structured page's `next` says what the text's footer says.
        assert!(
            last.ends_with(structured["next"].as_str().expect("next")),
            "{tool}"
        );
        match &cursor {
            Some(c) => {
                let more = format!("Next: call {tool} with cursor={c}");
                assert!(last.ends_with(&more), "{tool}: footer {last:?}");
            }
            // A last page with warnings ends without claiming the results are whole; an
            // empty one (a backend missing gave the page before a cursor: it may hold more)
            // says only that there is nothing at its offset.
            None if sc["warnings"].as_array().is_some_and(|w| !w.is_empty())
                && sc["items"].as_array().is_some_and(Vec::is_empty) =>
            {
                assert!(
                    last.starts_with(&format!("No items at offset {}", sc["offset"])),
                    "{tool}: footer {last:?}"
                );
            }
            None if sc["warnings"].as_array().is_some_and(|w| !w.is_empty()) => {
                assert!(
                    last.contains("No further pages (see warnings)"),
                    "{tool}: footer {last:?}"
                );
            }
            None => {
                assert!(last.contains("End of results"), "{tool}: footer {last:?}");
            }
        }
        pages.push(sc);
        assert!(pages.len() < 100, "{tool}: runaway walk");
        if cursor.is_none() {
            return pages;
        }
    }
}

/// A structured page read back into the flat page a program rebuilds from it
/// (docs/contract.md, "The structured page"): `items`, each whole (its group's repository,
/// path and branches, its part's role, and its row's cells by name, an absent one left out),
/// and the page's facts by plain names: `count`, `offset`, `has_more`, `next_cursor`,
/// `total` as `{value, exact}`, `complete` (no warnings), `warnings`, `size_capped`,
/// `resynced`, `pages`. Written from the contract, not from the code that renders it.
pub fn flat_page(sc: &Value) -> Value {
    let mut items = Vec::new();
    let parts = [(None, sc)].into_iter().chain(
        [("definition", "definitions"), ("reference", "references")]
            .into_iter()
            .filter_map(|(role, key)| sc.get(key).map(|p| (Some(role), p))),
    );
    for (role, part) in parts {
        let Some(fields) = part.get("fields").and_then(Value::as_array) else {
            continue;
        };
        let first_of_part = items.len();
        let item_of = |place: &serde_json::Map<String, Value>, names: &[Value], row: &Value| {
            let mut item = place.clone();
            if let Some(role) = role {
                item.insert("role".into(), json!(role));
            }
            for (name, cell) in names.iter().zip(row.as_array().expect("a row is a list")) {
                if !cell.is_null() {
                    item.insert(name.as_str().expect("a field name").into(), cell.clone());
                }
            }
            Value::Object(item)
        };
        // Groups are lists under `fields` that mirror them: a name per entry, and the inner
        // list of names for the entry that holds the rows.
        for key in ["files", "repos"] {
            for group in part
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let mut place = serde_json::Map::new();
                let mut rows = None;
                for (name, entry) in fields
                    .iter()
                    .zip(group.as_array().expect("a group is a list"))
                {
                    match name {
                        Value::Array(row_names) => rows = Some((row_names, entry)),
                        // A group's cells hold for each of its rows; null: none.
                        _ if entry.is_null() => {}
                        _ => {
                            place
                                .insert(name.as_str().expect("a field name").into(), entry.clone());
                        }
                    }
                }
                let (row_names, rows) = rows.expect("a group has rows");
                for row in rows.as_array().expect("rows") {
                    items.push(item_of(&place, row_names, row));
                }
            }
        }
        for row in part
            .get("rows")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            items.push(item_of(&serde_json::Map::new(), fields, row));
        }
        // `<column>_by_number`: the values of the column that recur in the part, said once;
        // a cell of that column that is a number n is entry n of the list.
        for (key, said) in part.as_object().into_iter().flatten() {
            let (Some(column), Some(said)) = (key.strip_suffix("_by_number"), said.as_array())
            else {
                continue;
            };
            for item in &mut items[first_of_part..] {
                if let Some(n) = item.get(column).and_then(Value::as_u64) {
                    item[column] = said
                        .get(n as usize)
                        .unwrap_or_else(|| panic!("{key} has no entry {n}"))
                        .clone();
                }
            }
        }
        // `<column>_by_extension`: the column's value for each file extension on the page,
        // for the rows (of this part) that leave it out.
        for (key, by_extension) in part.as_object().into_iter().flatten() {
            let (Some(column), Some(map)) =
                (key.strip_suffix("_by_extension"), by_extension.as_object())
            else {
                continue;
            };
            for item in &mut items[first_of_part..] {
                let path = item["path"]
                    .as_str()
                    .expect("an item with an extension has a path");
                let name = path.rsplit('/').next().unwrap_or(path);
                let ext = name
                    .rfind('.')
                    .filter(|&dot| dot > 0)
                    .map(|dot| &name[dot..]);
                if let (None, Some(value)) = (item.get(column), ext.and_then(|e| map.get(e))) {
                    item[column] = value.clone();
                }
            }
        }
    }
    let mut page = json!({
        "count": items.len(),
        "offset": sc.get("offset").cloned().unwrap_or(json!(0)),
        "has_more": sc.get("next_cursor").is_some(),
        "total": match sc.get("total") {
            Some(exact) => json!({"value": exact, "exact": true}),
            None => json!({"value": sc["total_estimate"], "exact": false}),
        },
        "complete": sc.get("warnings").is_none(),
        "items": items,
    });
    for key in [
        "next_cursor",
        "warnings",
        "size_capped",
        "resynced",
        "pages",
        "next",
    ] {
        if let Some(v) = sc.get(key) {
            page[key] = v.clone();
        }
    }
    page
}

/// One suggested way to narrow a page (`narrow`), as the call it stands for.
#[derive(Debug, Clone)]
pub struct Way {
    /// The argument to set (`query`, `filters`).
    pub arg: String,
    /// The part every way's value starts with.
    pub base: String,
    /// What this way adds to it.
    pub added: String,
    /// The argument's value: the base, a space, what it adds (either alone when the other
    /// is empty), as the schema's description says a model writes it.
    pub value: String,
    /// How much of the result it holds.
    pub count: u64,
    /// What the count is: `results`, `files`, with `_about` or `_at_least`.
    pub kind: String,
}

/// The ways to narrow `sc` suggests, best first; `None` when it has none.
pub fn narrow_ways(sc: &Value) -> Option<Vec<Way>> {
    let narrow = sc.get("narrow")?.as_object().expect("narrow is an object");
    let uncounted = usize::from(narrow.contains_key("uncounted"));
    assert_eq!(
        narrow.len(),
        3 + uncounted,
        "one argument, add and count (and uncounted): {narrow:?}"
    );
    let (arg, base) = narrow_arg(narrow);
    let kind = narrow["count"].as_str().expect("count").to_string();
    let ways = narrow["add"].as_array().expect("add");
    Some(
        ways.iter()
            .map(|w| {
                let added = w[0].as_str().expect("a filter").to_string();
                let value = call_value(&base, &added);
                Way {
                    arg: arg.clone(),
                    base: base.clone(),
                    added,
                    value,
                    count: w[1].as_u64().expect("a count"),
                    kind: kind.clone(),
                }
            })
            .collect(),
    )
}

/// A narrowed call's value, as the schema tells a model to write it: the base, a space and
/// what the way adds (either alone when the other is empty).
fn call_value(base: &str, added: &str) -> String {
    match (base.is_empty(), added.is_empty()) {
        (true, _) => added.to_string(),
        (false, true) => base.to_string(),
        (false, false) => format!("{base} {added}"),
    }
}

/// The argument `narrow` says each narrowed call sets, and what its value starts with.
fn narrow_arg(narrow: &serde_json::Map<String, Value>) -> (String, String) {
    narrow
        .iter()
        .find(|(k, _)| !matches!(k.as_str(), "add" | "count" | "uncounted"))
        .map(|(k, v)| (k.clone(), v.as_str().expect("the base").to_string()))
        .expect("the argument to set")
}

/// The ways into what the census did not reach (`narrow.uncounted`): each the value
/// of the argument to set, as `narrow_ways` writes it. Empty when there are none.
pub fn uncounted_ways(sc: &Value) -> Vec<String> {
    let Some(narrow) = sc.get("narrow").and_then(Value::as_object) else {
        return Vec::new();
    };
    let (_, base) = narrow_arg(narrow);
    (narrow
        .get("uncounted")
        .and_then(Value::as_array)
        .into_iter()
        .flatten())
    .map(|w| call_value(&base, w.as_str().expect("a filter")))
    .collect()
}

pub fn page_sizes(pages: &[Value]) -> Vec<usize> {
    pages
        .iter()
        .map(|p| p["items"].as_array().unwrap().len())
        .collect()
}

pub fn page_items(pages: &[Value]) -> Vec<Value> {
    pages
        .iter()
        .flat_map(|p| p["items"].as_array().unwrap().clone())
        .collect()
}

pub fn unique(items: &[Value]) -> usize {
    items
        .iter()
        .map(Value::to_string)
        .collect::<HashSet<_>>()
        .len()
}

/// The default page budget: 10,000 tokens at 4 characters each, for each form on its own
/// (the text block, the structured content).
pub const BUDGET_CHARS: usize = 40_000;

/// Characters of `value` as JSON: what a client handing it to a model passes on.
pub fn json_chars(value: &impl serde::Serialize) -> usize {
    serde_json::to_string(value).unwrap().chars().count()
}

/// Asserts a tool-level error with `code`, in structured content and text; returns the text.
pub async fn expect_error(client: &Client, tool: &str, args: Value, code: &str) -> String {
    let r = call(client, tool, args.clone()).await;
    let body = text(&r);
    assert_eq!(r.is_error, Some(true), "{tool} {args}: {body}");
    // structuredContent would have to match the page outputSchema: errors carry none, and
    // put the machine-readable error in _meta instead.
    assert!(
        r.structured_content.is_none(),
        "{tool} {args}: error with structuredContent"
    );
    let meta = r.meta.expect("_meta on an error result");
    let sc = meta
        .0
        .get(zoekt_pager::ERROR_META_KEY)
        .cloned()
        .expect("error in _meta");
    let keys: HashSet<&str> = sc.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, HashSet::from(["code", "message", "hint"]), "{sc}");
    assert_eq!(sc["code"], json!(code), "{tool} {args}: {sc}");
    assert!(!sc["message"].as_str().unwrap().is_empty());
    assert!(!sc["hint"].as_str().unwrap().is_empty());
    assert!(body.starts_with(&format!("Error {code}: ")), "{body}");
    body
}

/// (repo, path, line, name) of symbol items, the keys `support::oracle::symbols` gives.
pub fn symbol_keys(items: &[Value]) -> Vec<(String, String, u32, String)> {
    items
        .iter()
        .map(|i| {
            (
                i["repo"].as_str().unwrap().to_string(),
                i["path"].as_str().unwrap().to_string(),
                i["line"].as_u64().unwrap() as u32,
                i["name"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}
