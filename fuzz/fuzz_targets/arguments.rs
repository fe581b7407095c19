//! The argument parser and every check behind it: any JSON object as any tool's arguments
//! gives a result (a page or a coded error), never a panic. Input: `{"tool": ..., "args":
//! {...}}`; other JSON is tried as the arguments of every tool.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};
use zoekt_pager::backend::{
    Fragment, MatchedLine, RankedFile, RankedFiles, RepoListing, SearchStats, Symbol,
};

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let every = zoekt_pager::tools::names();
    let (tools, args): (Vec<&str>, Map<String, Value>) =
        match (value.get("tool").and_then(Value::as_str), value.get("args")) {
            (Some(tool), Some(Value::Object(args))) => (vec![tool], args.clone()),
            _ => match value {
                Value::Object(args) => (every.clone(), args),
                _ => return,
            },
        };
    for tool in tools {
        if every.contains(&tool) {
            common::call(backend(), tool, args.clone());
        }
    }
});

/// Two files, one with a symbol definition and a plain line.
fn backend() -> common::Fixed {
    let line = |number: u32, text: &str, symbol: bool| MatchedLine {
        number,
        text: text.into(),
        before: Some("// before".into()),
        after: None,
        fragments: vec![Fragment {
            byte_offset: 3,
            symbol: symbol.then(|| Symbol {
                name: "get".into(),
                kind: "function".into(),
                parent: String::new(),
                parent_kind: String::new(),
            }),
        }],
    };
    let file = |repo: &str, path: &str, score: f64| RankedFile {
        repo: repo.into(),
        path: path.into(),
        language: "Go".into(),
        branches: vec!["HEAD".into()],
        score,
        path_matched: false,
        lines: vec![line(3, "fn get() {}", true), line(9, "get()", false)],
        content: Some("a\nb\nfn get() {}\n".into()),
    };
    common::Fixed {
        files: RankedFiles {
            files: vec![file("r1", "a.go", 2.0), file("r2", "b/c.go", 1.0)],
            stats: SearchStats {
                file_count: 2,
                match_count: 4,
                ..SearchStats::default()
            },
            cut_at_bytes: false,
        },
        repos: RepoListing::default(),
    }
}
