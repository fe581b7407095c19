//! Tests of `zoekt::wire`, kept beside it so the module reads as what it does.

use super::*;

#[test]
fn reads_a_search_answer_with_nulls_and_base64() {
    let body = r#"{"Result":{"FileCount":2,"MatchCount":3,"Crashes":0,"Duration":1500000,
      "Files":[{"FileName":"a.go","Repository":"r","Language":"Go","Score":12.5,
        "Branches":null,"LineMatches":[{"Line":"ZnVuYyBnZXQoKQo=","LineNumber":3,
          "LineStart":10,"LineEnd":21,"Before":null,"After":null,"FileName":false,"Score":1,
          "LineFragments":[{"LineOffset":5,"Offset":15,"MatchLength":3,
            "SymbolInfo":{"Sym":"get","Kind":"function","Parent":"","ParentKind":""}}]}],
        "ChunkMatches":null}]}}"#;
    let r: SearchResponse = serde_json::from_str(body).unwrap();
    let f = &r.result.files[0];
    assert_eq!(r.result.file_count, 2);
    assert_eq!(r.result.duration, 1_500_000);
    assert!(f.branches.is_empty());
    assert_eq!(f.line_matches[0].line.as_str(), "func get()\n");
    let sym = f.line_matches[0].line_fragments[0]
        .symbol_info
        .as_ref()
        .unwrap();
    assert_eq!((sym.sym.as_str(), sym.kind.as_str()), ("get", "function"));
}

/// A search answer with `extra` as one more key of its first line match.
fn with_line_key(extra: &str) -> Result<SearchResponse, serde_json::Error> {
    serde_json::from_str(&format!(
        r#"{{"Result":{{"FileCount":1,"MatchCount":1,"Files":[{{"FileName":"a",
          "Repository":"r","LineMatches":[{{"Line":"eAo=","LineNumber":2,{extra}}}]}}]}}}}"#
    ))
}

#[test]
fn unread_keys_are_skipped_but_may_not_nest_without_limit() {
    // Keys the pager does not read, of every kind Zoekt sends, and escaped keys.
    let r = with_line_key(
        r#""Score":7000.9,"LineStart":44,"DebugScore":"","Extra":{"a":[1,[null,true]]},
           "\u0042efore":"eQo=""#,
    )
    .unwrap();
    let line = &r.result.files[0].line_matches[0];
    assert_eq!((line.line.as_str(), line.line_number), ("x\n", 2));
    assert_eq!(line.before.as_ref().map(B64Text::as_str), Some("y\n"));
    // As deep as a skipped value may go, and one level more.
    let nest = |n: usize| format!(r#""Extra":{}1{}"#, "[".repeat(n), "]".repeat(n));
    assert!(with_line_key(&nest(16)).is_ok());
    let err = with_line_key(&nest(17)).unwrap_err().to_string();
    assert!(err.contains("nests more than 16 levels deep"), "{err}");
    // Junk 100,000 deep beside counts of 0 is refused, not read as an empty answer (the
    // skip that serde derives has no depth limit).
    let deep = format!(
        r#"{{"Result":{{"FileCount":0,"MatchCount":0,"Junk":{}{}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert!(serde_json::from_str::<SearchResponse>(&deep).is_err());
    let deep = format!(
        r#"{{"List":{{"Repos":null,"Junk":{}{}}}}}"#,
        "{\"a\":".repeat(100_000),
        "}".repeat(100_000)
    );
    assert!(serde_json::from_str::<ListResponse>(&deep).is_err());
}

#[test]
fn keys_read_are_typed_required_and_given_once() {
    let err = with_line_key(r#""LineNumber":3"#).unwrap_err().to_string();
    assert!(err.contains("duplicate field `LineNumber`"), "{err}");
    let err = with_line_key(r#""Before":[["x"]]"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("invalid type"), "{err}");
    let err = serde_json::from_str::<SearchResponse>(r#"{"Result":{"FileCount":0}}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing field `MatchCount`"), "{err}");
    let err = serde_json::from_str::<SearchResponse>(r#"{"Result":{"MatchCount":0}}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing field `FileCount`"), "{err}");
    assert!(serde_json::from_str::<SearchResponse>("{}").is_err());
    assert!(serde_json::from_str::<ListResponse>("{}").is_err());
    // An array where an object belongs is refused (serde's derived readers took
    // `[0,0]` as FileCount 0 and MatchCount 0: a clean, empty answer).
    assert!(serde_json::from_str::<SearchResponse>(r#"{"Result":[0,0]}"#).is_err());
    assert!(serde_json::from_str::<ListResponse>(r#"{"List":[null,0]}"#).is_err());
    // Left out, a key keeps its zero value; `null` lists read empty.
    let r: ListResponse = serde_json::from_str(
        r#"{"List":{"Repos":[{"Repository":{"Name":"r","URL":"u",
          "Branches":null}}]}}"#,
    )
    .unwrap();
    let repo = &r.list.repos[0].repository;
    assert_eq!((repo.name.as_str(), repo.url.as_str()), ("r", "u"));
    assert!(repo.branches.is_empty() && !repo.has_symbols);
}

#[test]
fn every_list_reads_null_as_empty() {
    let r: SearchResponse = serde_json::from_str(
        r#"{"Result":{"FileCount":1,"MatchCount":1,"Files":[{"FileName":"a",
          "Repository":"r","Branches":null,"ChunkMatches":[{"Ranges":null,
          "SymbolInfo":null}],"LineMatches":[{"LineFragments":null}]}]}}"#,
    )
    .unwrap();
    let f = &r.result.files[0];
    assert!(f.branches.is_empty());
    assert!(f.chunk_matches[0].ranges.is_empty() && f.chunk_matches[0].symbol_info.is_empty());
    assert!(f.line_matches[0].line_fragments.is_empty());
    let r: ListResponse = serde_json::from_str(r#"{"List":{"Repos":null}}"#).unwrap();
    assert!(r.list.repos.is_empty());
}

#[test]
fn a_repository_with_submodules_is_read() {
    // `SubRepoMap`, unread, is Zoekt's deepest value: repositories holding branch lists,
    // four levels below the key.
    let r: ListResponse = serde_json::from_str(
        r#"{"List":{"Repos":[{"Repository":{"Name":"r","SubRepoMap":{"vendor/x":
          {"Name":"x","Branches":[{"Name":"main","Version":"abc"}],"RawConfig":null}},
          "Branches":[{"Name":"main","Version":"def"}]},"Stats":{"Documents":3}}],
          "ReposMap":{"1":{"HasSymbols":true,"Branches":[{"Name":"main"}]}},
          "Stats":{"Repos":1}}}"#,
    )
    .unwrap();
    let entry = &r.list.repos[0];
    assert_eq!(entry.repository.name, "r");
    assert_eq!(entry.repository.branches[0].version, "def");
    assert_eq!((entry.stats.documents, r.list.stats.repos), (3, 1));
}

#[test]
fn files_null_and_non_utf8_content_are_tolerated() {
    let r: SearchResponse =
        serde_json::from_str(r#"{"Result":{"FileCount":0,"MatchCount":0,"Files":null}}"#).unwrap();
    assert!(r.result.files.is_empty());
    // 0xff 0x41 is not UTF-8: decoded lossily, never an error.
    let t: B64Text = serde_json::from_str(r#""/0E=""#).unwrap();
    assert_eq!(t.as_str(), "\u{fffd}A");
    // Text that is not base64 is kept, its escapes read; bytes that are not UTF-8 in
    // the JSON itself are replaced, not refused.
    let t: B64Text = serde_json::from_str(r#""a \"b\" \u00e9""#).unwrap();
    assert_eq!(t.as_str(), "a \"b\" \u{e9}");
    let t: B64Text = serde_json::from_slice(b"\"x\xffy\"").unwrap();
    assert_eq!(t.as_str(), "x\u{fffd}y");
    let t: Option<B64Text> = serde_json::from_str("null").unwrap();
    assert_eq!(t.unwrap_or_default().as_str(), "");
}

#[test]
fn scores_are_read_to_the_exact_float_zoekt_wrote() {
    // Go writes a float64 as the shortest text that reads back to it; the pager orders,
    // merges and cuts windows by these numbers, so they must read back to the same float
    // Zoekt sorted by. This score, from a real answer over the fixture corpus, read one
    // unit in the last place low with serde_json's default (faster, inexact) parsing.
    let r: SearchResponse = serde_json::from_str(
        r#"{"Result":{"FileCount":2,"MatchCount":2,"Files":[
          {"FileName":"a","Score":58500000001.276596},
          {"FileName":"b","Score":58500000001.27659}]}}"#,
    )
    .unwrap();
    let scores: Vec<f64> = r.result.files.iter().map(|f| f.score).collect();
    assert_eq!(scores, [58500000001.276596, 58500000001.27659]);
    assert!(scores[0] > scores[1]);
}

#[test]
fn request_omits_zero_options_and_uses_go_names() {
    let req = SearchRequest {
        q: "sym:foo".into(),
        opts: SearchOptions {
            max_doc_display_count: 31,
            shard_max_match_count: 10_000,
            total_max_match_count: 100_000,
            max_wall_time: 5_000_000_000,
            ..Default::default()
        },
    };
    let v = serde_json::to_value(&req).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"Q":"sym:foo","Opts":{"MaxDocDisplayCount":31,
            "ShardMaxMatchCount":10000,"TotalMaxMatchCount":100000,"MaxWallTime":5000000000u64}})
    );
}
