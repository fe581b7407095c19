//! The Zoekt wire decoder, and whatever it lets through into the engine: any bytes as a
//! search or list answer are refused as malformed or paged by every tool, never a panic.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use zoekt_pager::backend::{RankedFiles, RepoListing};
use zoekt_pager::zoekt::backend::{listing, ranked_files};
use zoekt_pager::zoekt::wire::{ListResponse, SearchResponse};

fuzz_target!(|data: &[u8]| {
    if let Ok(answer) = serde_json::from_slice::<SearchResponse>(data) {
        let files = ranked_files(answer.result);
        for (tool, args) in [
            ("search_symbols", json!({"query": "x", "limit": 3})),
            ("search_files", json!({"query": "x", "limit": 3})),
            ("find_references", json!({"symbol": "x", "limit": 3})),
            (
                "search",
                json!({"query": "x", "limit": 3, "context_lines": 1}),
            ),
            ("files_with_matches", json!({"query": "x", "limit": 3})),
            ("search", json!({"query": "x", "count_only": true})),
            ("read_file", json!({"repo": "r", "path": "p"})),
        ] {
            let backend = common::Fixed {
                files: files.clone(),
                repos: RepoListing::default(),
            };
            common::call(backend, tool, object(args));
        }
    }
    if let Ok(answer) = serde_json::from_slice::<ListResponse>(data) {
        let backend = common::Fixed {
            files: RankedFiles::default(),
            repos: listing(answer.list),
        };
        common::call(backend, "list_repos", object(json!({"limit": 3})));
    }
});

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!(),
    }
}
