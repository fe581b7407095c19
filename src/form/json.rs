//! The structured page: what Claude Code, VS Code and Copilot CLI hand a model (they pass
//! `JSON.stringify(structuredContent)` and drop the text block), so it is written for a model
//! that never sees the schema, and stays a typed contract for programs.
//!
//! Written here from the engine's plain [`Page`], beside the text block (`text.rs`):
//! - each part of the page (`find_references` keeps definitions and references apart, no
//!   per-item label) is laid out by `layout.rs`: its `fields`, its rows in groups or flat;
//! - no empty, null or default-valued field: a flag is there only when true, a list only when
//!   it holds something;
//! - `total`, `total_estimate` or `total_at_least`, one name of the three, so a model reading
//!   the number reads whether it is exact, estimated, or what Zoekt counted before it stopped
//!   short (out of time, crashed shards);
//! - `next` says in words where the walk is and how to go on, exactly as the text's footer;
//!   `next_cursor` holds the cursor alone, for programs;
//! - the suggested ways to narrow, as `narrow.rs` writes them.
//!
//! `schema.rs` states that shape as the tool's `outputSchema`.

use serde_json::{Map, Value, json};

use super::item::ItemRow;
use super::layout::part_view;
use super::narrow::Suggestions;
use super::text::walk_sentence;
use super::warning::page_warnings;
use crate::engine::page::Page;

/// The structured page of `tool`.
pub fn page_view<T: ItemRow>(tool: &str, page: &Page<T>, narrow: Option<&Suggestions>) -> Value {
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
    let total = match (page.total.exact, page.total.at_least) {
        (true, _) => "total",
        (false, true) => "total_at_least",
        (false, false) => "total_estimate",
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
    if let Some(narrow) = narrow {
        out.extend(narrow.json().map(|(k, v)| (k.to_string(), v)));
    }
    if !page.warnings.is_empty() {
        out.insert("warnings".into(), json!(page_warnings(page)));
    }
    Value::Object(out)
}
