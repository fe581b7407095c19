//! What the bytes say: lines on stdin that are not messages, and the command line's `--json`
//! against the structured content MCP sends.

use super::*;

/// Lines that are not messages each get a JSON-RPC error reply at once (rmcp alone drops
/// them, and the client waits for its own timeout), and the server goes on: a tool call after
/// them answers from the real Zoekt. Written as raw bytes, since rmcp's client cannot send
/// such lines.
#[tokio::test]
async fn malformed_stdio_lines_each_get_an_error_reply() {
    let url = support::fixture_zoekt("malformed_stdio_lines_each_get_an_error_reply");
    let mut server = support::raw_stdio::RawStdio::spawn(&url, &[]);
    server.initialize().await;
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{}{}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let cases: Vec<(&str, Vec<u8>, i64, Value)> = vec![
        (
            "invalid UTF-8",
            b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}".to_vec(),
            -32700,
            Value::Null,
        ),
        (
            "a lone surrogate",
            br#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"\ud800"}}"#.to_vec(),
            -32700,
            Value::Null,
        ),
        (
            "NaN",
            br#"{"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":NaN}}"#.to_vec(),
            -32700,
            Value::Null,
        ),
        ("100,000-deep nesting", deep.into_bytes(), -32700, Value::Null),
        ("not JSON", b"hello".to_vec(), -32700, Value::Null),
        (
            "no method",
            br#"{"jsonrpc":"2.0","id":7}"#.to_vec(),
            -32600,
            json!(7),
        ),
        (
            "non-object arguments",
            br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"health","arguments":[1]}}"#.to_vec(),
            -32602,
            json!(6),
        ),
    ];
    for (what, line, code, id) in cases {
        let reply = server.exchange(&line).await;
        assert_eq!(reply["error"]["code"], json!(code), "{what}: {reply}");
        assert_eq!(
            reply.get("id").cloned().unwrap_or(Value::Null),
            id,
            "{what}: {reply}"
        );
        assert!(reply.to_string().len() < 300, "{what}: {reply}");
    }
    let call = json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {
        "name": "search_symbols", "arguments": {"query": r"pagerItem\d+", "limit": 3}}});
    let reply = server.exchange(call.to_string().as_bytes()).await;
    assert_eq!(reply["id"], json!(10), "{reply}");
    assert_eq!(
        flat_page(&reply["result"]["structuredContent"])["items"]
            .as_array()
            .map(Vec::len),
        Some(3),
        "{reply}"
    );
}

/// One page shape for programs: the command line's `--json` prints, for each page, exactly
/// the `structuredContent` MCP sends for the same call, byte for byte (the compact JSON a
/// client receives). Every paged tool's first page, and a page resumed from a cursor.
#[tokio::test]
async fn the_command_lines_json_is_the_structured_content_byte_for_byte() {
    let url =
        support::fixture_zoekt("the_command_lines_json_is_the_structured_content_byte_for_byte");
    let client = spawn(&url).await;
    let cli = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_zoekt-pager"))
            .args(["--zoekt-url", url.as_str()])
            .args(args)
            .arg("--json")
            .env("ZOEKT_PAGER_ZOEKT_TRANSPORT", support::test_transport())
            .env("ZOEKT_PAGER_LOG", "warn")
            .output()
            .expect("run the command line");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .expect("UTF-8")
            .lines()
            .next()
            .expect("one JSON page a line")
            .to_string()
    };
    let calls: [(&str, Value, Vec<&str>); 7] = [
        (
            "search_symbols",
            json!({"query": "pagerItem", "limit": 7}),
            vec!["search_symbols", "pagerItem", "--limit", "7"],
        ),
        (
            "search_files",
            json!({"query": "widgetry", "limit": 3}),
            vec!["search_files", "widgetry", "--limit", "3"],
        ),
        (
            "find_references",
            json!({"symbol": "get", "limit": 9}),
            vec!["find_references", "get", "--limit", "9"],
        ),
        (
            "search",
            json!({"query": "pagerLineMark", "context_lines": 1, "limit": 5}),
            vec![
                "search",
                "pagerLineMark",
                "--context-lines",
                "1",
                "--limit",
                "5",
            ],
        ),
        (
            "files_with_matches",
            json!({"query": "pagerLineMark", "limit": 4}),
            vec!["files_with_matches", "pagerLineMark", "--limit", "4"],
        ),
        (
            "list_repos",
            json!({"limit": 2}),
            vec!["list_repos", "--limit", "2"],
        ),
        (
            "outline_file",
            json!({"repo": "alpha-rs", "path": "src/registry.rs", "limit": 7}),
            vec![
                "outline_file",
                "alpha-rs",
                "src/registry.rs",
                "--limit",
                "7",
            ],
        ),
    ];
    for (tool, args, line) in calls {
        let sent = call(&client, tool, args).await;
        let structured = sent.structured_content.clone().expect("structured content");
        let printed = cli(&line);
        assert_eq!(
            printed,
            serde_json::to_string(&structured).unwrap(),
            "{tool}"
        );
        // The next page too, from the cursor both gave.
        if let Some(cursor) = structured["next_cursor"].as_str() {
            let mut args = match tool {
                "find_references" => json!({"symbol": "get", "limit": 9}),
                "list_repos" => json!({"limit": 2}),
                "outline_file" => {
                    json!({"repo": "alpha-rs", "path": "src/registry.rs", "limit": 7})
                }
                _ => {
                    json!({"query": line[1], "limit": line[line.len() - 1].parse::<u32>().unwrap()})
                }
            };
            if tool == "search" {
                args["context_lines"] = json!(1);
            }
            args["cursor"] = json!(cursor);
            let next = call(&client, tool, args).await;
            let mut next_line = line.clone();
            next_line.extend(["--cursor", cursor]);
            assert_eq!(
                cli(&next_line),
                serde_json::to_string(&next.structured_content.unwrap()).unwrap(),
                "{tool}, page 2"
            );
        }
    }
    client.cancel().await.unwrap();
}
