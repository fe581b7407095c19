//! Sidecar mode end to end: the real `zoekt-pager serve --http` binary, driven over real HTTP
//! by rmcp's streamable-HTTP client (and by plain reqwest for the operator endpoints and the
//! guards), against the real, pinned zoekt-webserver serving fixtures/corpus
//! (`ZOEKT_PAGER_LIVE_URL`; without it these tests fail, saying how to start one). The tests of
//! a restart (`restarts`) start and kill their own zoekt-webserver
//! (`ZOEKT_PAGER_LIVE_WEBSERVER`, over the fixture index in `ZOEKT_PAGER_LIVE_INDEX_DIR`) on a
//! free port; the HTTP guards are tested in `guards`. Expected values are fixture
//! facts (fixtures/README.md) or files on disk. wiremock stands in for Zoekt only where a real
//! one cannot be made to misbehave on demand (a slow answer, for the SIGTERM drain).

use crate::support;

use std::collections::HashSet;
use std::time::Duration;

use rmcp::model::{ErrorCode, PaginatedRequestParams, ReadResourceRequestParams, ResourceContents};
use rmcp::{ServiceError, model::CallToolResult};
use serde_json::{Value, json};

use support::mcp::*;
use support::sidecar::{Sidecar, http, sample};

mod guards;
mod restarts;

fn fixture_text(repo: &str, path: &str) -> String {
    std::fs::read_to_string(support::fixtures_corpus().join(repo).join(path)).unwrap()
}

/// The page of a successful result, read back flat (`support::mcp::flat_page`).
fn structured(r: &CallToolResult) -> Value {
    support::mcp::flat_page(&answer(r))
}

/// The structured content of a successful result, as sent.
fn answer(r: &CallToolResult) -> Value {
    assert_ne!(r.is_error, Some(true), "{}", text(r));
    r.structured_content.clone().expect("structured content")
}

#[tokio::test]
async fn every_tool_works_over_http() {
    let url = support::fixture_zoekt("every_tool_works_over_http");
    let sidecar = Sidecar::start(&url, &[]).await;
    let client = sidecar.client().await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), zoekt_pager::tools::names().len(), "{url}");

    let syms = page_items(
        &walk(
            &client,
            "search_symbols",
            json!({"query": r"pagerItem\d+"}),
            &[30],
        )
        .await,
    );
    assert_eq!((syms.len(), unique(&syms)), (100, 100), "{url}");
    let files =
        page_items(&walk(&client, "search_files", json!({"query": "widgetry"}), &[3]).await);
    assert_eq!((files.len(), unique(&files)), (4, 4), "{url}");
    let refs = page_items(&walk(&client, "find_references", json!({"symbol": "get"}), &[10]).await);
    assert_eq!((refs.len(), unique(&refs)), (37, 37), "{url}");
    let lines =
        page_items(&walk(&client, "search", json!({"query": "pagerLineMark"}), &[25]).await);
    assert_eq!((lines.len(), unique(&lines)), (75, 75), "{url}");
    let repos = page_items(&walk(&client, "list_repos", json!({}), &[2]).await);
    assert_eq!(repos.len(), 5, "{url}");

    // read_file: exactly the lines on disk.
    let disk = fixture_text("alpha-rs", "src/lib.rs");
    let want: String = disk.split_inclusive('\n').skip(1).take(3).collect();
    let r = call(
        &client,
        "read_file",
        json!({"repo": "alpha-rs", "path": "src/lib.rs", "start_line": 2, "end_line": 4}),
    )
    .await;
    let f = answer(&r);
    assert_eq!(f["content"], json!(want), "{url}");
    assert_eq!(
        (f["start_line"].clone(), f["end_line"].clone()),
        (json!(2), json!(4))
    );
    assert_eq!(f["total_lines"], json!(disk.split_inclusive('\n').count()));
    assert_eq!(f["truncated"], json!(false));

    let h = answer(&call(&client, "health", json!({})).await);
    assert_eq!(
        (h["reachable"].clone(), h["ready"].clone()),
        (json!(true), json!(true)),
        "{url}: {h}"
    );
    assert_eq!(h["repos"], json!(5), "{url}: {h}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn read_file_names_are_exact_and_bounded() {
    let url = support::fixture_zoekt("read_file_names_are_exact_and_bounded");
    let sidecar = Sidecar::start(&url, &[("ZOEKT_PAGER_MAX_READ_LINES", "4")]).await;
    let client = sidecar.client().await;
    // A case change, a prefix, a regex that would match, another repo: never a file.
    for (repo, path) in [
        ("alpha-rs", "src/LIB.rs"),
        ("alpha-rs", "src/lib.r"),
        ("alpha-rs", "src/lib.rs "),
        ("alpha-rs", "src/li..rs"),
        ("alpha-rs", ".*"),
        ("alpha", "src/lib.rs"),
        ("beta-go", "src/lib.rs"),
    ] {
        let args = json!({"repo": repo, "path": path});
        expect_error(&client, "read_file", args, "NOT_FOUND").await;
    }
    expect_error(
        &client,
        "read_file",
        json!({"repo": "alpha-rs", "path": "src/lib.rs", "start_line": 0}),
        "INVALID_ARGUMENT",
    )
    .await;
    expect_error(
        &client,
        "read_file",
        json!({"repo": "alpha-rs", "path": "src/lib.rs", "start_line": 5, "end_line": 2}),
        "INVALID_ARGUMENT",
    )
    .await;
    expect_error(
        &client,
        "read_file",
        json!({"repo": "alpha-rs", "path": "src/lib.rs", "start_line": 999}),
        "INVALID_ARGUMENT",
    )
    .await;

    // The line bound cuts the range and says where to go on; following it reads the file.
    let disk = fixture_text("alpha-rs", "src/lib.rs");
    let mut text_read = String::new();
    let mut start = 1;
    loop {
        let r = call(
            &client,
            "read_file",
            json!({"repo": "alpha-rs", "path": "src/lib.rs", "start_line": start}),
        )
        .await;
        let f = answer(&r);
        text_read.push_str(f["content"].as_str().unwrap());
        match f.get("next_start_line").and_then(Value::as_u64) {
            Some(n) => {
                assert_eq!(f["truncated"], json!(true));
                assert_eq!(n, f["end_line"].as_u64().unwrap() + 1);
                assert!(text(&r).contains(&format!("start_line={n}")));
                start = n;
            }
            None => break,
        }
    }
    assert_eq!(text_read, disk, "{url}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn resources_are_repositories_paged_with_mcp_cursors_and_files_by_template() {
    let url = support::fixture_zoekt(
        "resources_are_repositories_paged_with_mcp_cursors_and_files_by_template",
    );
    let sidecar = Sidecar::start(&url, &[("ZOEKT_PAGER_DEFAULT_LIMIT", "2")]).await;
    let client = sidecar.client().await;
    let mut names = Vec::new();
    let mut cursor = None;
    let mut pages = Vec::new();
    loop {
        let r = client
            .list_resources(Some(
                PaginatedRequestParams::default().with_cursor(cursor.clone()),
            ))
            .await
            .unwrap();
        pages.push(r.resources.len());
        names.extend(r.resources.iter().map(|x| x.name.clone()));
        cursor = r.next_cursor.clone();
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(pages, vec![2, 2, 1], "{url}");
    assert_eq!(
        names,
        ["alpha-rs", "beta-go", "delta-ts", "gamma-py", "twin-go"]
    );

    for bad in ["garbage", "AQUAAAAAAAAAAAAAAAAAAAAAAAAA"] {
        let params = PaginatedRequestParams::default().with_cursor(Some(bad.into()));
        match client.list_resources(Some(params)).await {
            Err(ServiceError::McpError(e)) => {
                assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{e:?}")
            }
            other => panic!("bad cursor {bad} gave {other:?}"),
        }
    }
    // A list_repos cursor is not a resources/list cursor.
    let lr = structured(&call(&client, "list_repos", json!({})).await);
    let params =
        PaginatedRequestParams::default().with_cursor(lr["next_cursor"].as_str().map(String::from));
    assert!(
        matches!(client.list_resources(Some(params)).await, Err(ServiceError::McpError(e)) if e.code == ErrorCode::INVALID_PARAMS)
    );

    let templates = client.list_resource_templates(None).await.unwrap();
    assert_eq!(
        templates.resource_templates[0].uri_template,
        "zoekt://{repo}/{+path}"
    );

    let uri = "zoekt://beta-go/render/pipeline.go";
    let read = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap();
    match &read.contents[0] {
        ResourceContents::TextResourceContents { text, uri: u, .. } => {
            assert_eq!(u, uri);
            assert_eq!(
                text,
                &fixture_text("beta-go", "render/pipeline.go"),
                "{url}"
            );
        }
        other => panic!("{other:?}"),
    }
    let repo = client
        .read_resource(ReadResourceRequestParams::new("zoekt://gamma-py/"))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents { text, .. } = &repo.contents[0] else {
        panic!()
    };
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap()["name"],
        json!("gamma-py")
    );
    match client
        .read_resource(ReadResourceRequestParams::new("zoekt://beta-go/no/such.go"))
        .await
    {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code, ErrorCode::RESOURCE_NOT_FOUND, "{e:?}")
        }
        other => panic!("missing file gave {other:?}"),
    }
    match client
        .read_resource(ReadResourceRequestParams::new("file:///etc/passwd"))
        .await
    {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{e:?}")
        }
        other => panic!("foreign URI gave {other:?}"),
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_walk_continues_on_another_replica() {
    let url = support::fixture_zoekt("a_walk_continues_on_another_replica");
    let a = Sidecar::start(&url, &[]).await;
    let b = Sidecar::start(&url, &[]).await;
    assert_ne!(a.base, b.base);
    let (ca, cb) = (a.client().await, b.client().await);
    let q = r"pagerItem\d+";
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for turn in 0..15 {
        let client = if turn % 2 == 0 { &ca } else { &cb };
        let mut args = json!({"query": q, "limit": 7});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = structured(&call(client, "search_symbols", args).await);
        items.extend(page["items"].as_array().unwrap().clone());
        cursor = page
            .get("next_cursor")
            .and_then(Value::as_str)
            .map(String::from);
        if cursor.is_none() {
            assert!(turn >= 14, "15 pages of 7 for 100 items");
            break;
        }
    }
    assert!(
        cursor.is_none(),
        "15 pages of 7 for 100 items, then no cursor"
    );
    let one = structured(&call(&cb, "search_symbols", json!({"query": q, "limit": 100})).await);
    assert_eq!(
        Value::Array(items.clone()),
        one["items"],
        "{url}: A/B walk == one page"
    );
    assert_eq!(unique(&items), 100);
    // The order is the one raw Zoekt gives, sorted by the contract's rule (not the pager's own).
    assert_eq!(
        support::mcp::symbol_keys(&items),
        support::oracle::symbols(&url, r"sym:pagerItem\d+").await,
        "{url}: A/B walk == the independent truth"
    );
    // fixtures/README.md section 4: exactly pagerItem001 .. pagerItem100.
    let names: HashSet<String> = items
        .iter()
        .map(|i| i["name"].as_str().unwrap().to_string())
        .collect();
    let want: HashSet<String> = (1..=100).map(|n| format!("pagerItem{n:03}")).collect();
    assert_eq!(names, want, "{url}");
    ca.cancel().await.unwrap();
    cb.cancel().await.unwrap();
}

#[tokio::test]
async fn metrics_counters_move_after_calls() {
    let url = support::fixture_zoekt("metrics_counters_move_after_calls");
    let sidecar = Sidecar::start(&url, &[]).await;
    let client = sidecar.client().await;
    let ok = r#"zoekt_pager_tool_calls_total{tool="search_symbols",outcome="ok"}"#;
    let bad = r#"zoekt_pager_tool_calls_total{tool="search_symbols",outcome="INVALID_CURSOR"}"#;
    let cursor_errors = r#"zoekt_pager_cursor_errors_total{code="INVALID_CURSOR"}"#;
    let pages = r#"zoekt_pager_pages_total{tool="search_symbols"}"#;
    let items = r#"zoekt_pager_items_total{tool="search_symbols"}"#;
    let zoekt = &format!(
        r#"zoekt_pager_zoekt_request_seconds_count{{endpoint="search",outcome="ok",backend="{url}"}}"#
    );
    let before = sidecar.get("/metrics").await.1;
    call(
        &client,
        "search_symbols",
        json!({"query": r"pagerItem\d+", "limit": 30}),
    )
    .await;
    call(
        &client,
        "search_symbols",
        json!({"query": r"pagerItem\d+", "limit": 5}),
    )
    .await;
    expect_error(
        &client,
        "search_symbols",
        json!({"query": "x", "cursor": "garbage"}),
        "INVALID_CURSOR",
    )
    .await;
    let bad_cursor = PaginatedRequestParams::default().with_cursor(Some("garbage".into()));
    assert!(client.list_resources(Some(bad_cursor)).await.is_err());
    let (status, after) = sidecar.get("/metrics").await;
    assert_eq!(status, 200);
    assert_eq!(sample(&after, ok) - sample(&before, ok), 2.0, "{after}");
    assert_eq!(sample(&after, bad) - sample(&before, bad), 1.0);
    // One from the tool call, one from resources/list.
    assert_eq!(
        sample(&after, cursor_errors) - sample(&before, cursor_errors),
        2.0
    );
    assert_eq!(sample(&after, pages) - sample(&before, pages), 2.0);
    assert_eq!(sample(&after, items) - sample(&before, items), 35.0);
    // The first call's window and, the result being broad (100 definitions), its census
    // beside it; the second call's page and census come from the cache. One more may come
    // from the first call's fetch ahead of the next page, which races with the second call.
    let zoekt_requests = sample(&after, zoekt) - sample(&before, zoekt);
    assert!((2.0..=3.0).contains(&zoekt_requests), "{after}");
    assert!(after.contains("# TYPE zoekt_pager_zoekt_request_seconds histogram"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn logs_are_json_and_never_hold_cursors_or_tokens() {
    let zoekt = support::fixture_zoekt("logs_are_json_and_never_hold_cursors_or_tokens");
    let token = "tok-3c1f9a0b";
    let sidecar = Sidecar::start(
        &zoekt,
        &[
            ("ZOEKT_PAGER_AUTH_TOKEN", token),
            ("ZOEKT_PAGER_LOG", "trace"),
            ("ZOEKT_PAGER_LOG_FORMAT", "json"),
        ],
    )
    .await;
    let client = sidecar.client_with(Some(token)).await;
    let pages = walk(
        &client,
        "search_symbols",
        json!({"query": r"pagerItem\d+"}),
        &[30],
    )
    .await;
    let cursors: HashSet<String> = pages
        .iter()
        .filter_map(|p| {
            p.get("next_cursor")
                .and_then(Value::as_str)
                .map(String::from)
        })
        .collect();
    assert_eq!(cursors.len(), 3);
    expect_error(
        &client,
        "search_symbols",
        json!({"query": "x", "cursor": "Zm9vYmFyYmF6cXV4"}),
        "INVALID_CURSOR",
    )
    .await;
    let _ = http()
        .post(sidecar.url("/mcp"))
        .header("Authorization", "Bearer tok-wrong-77")
        .send()
        .await;
    client.cancel().await.unwrap();
    let log = sidecar.log_text();
    assert!(log.lines().count() > 5, "{log}");
    for line in log.lines() {
        let v: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert!(v.get("level").is_some(), "{line}");
    }
    for secret in
        cursors
            .iter()
            .map(String::as_str)
            .chain([token, "tok-wrong-77", "Zm9vYmFyYmF6cXV4"])
    {
        assert!(!log.contains(secret), "the log holds {secret}");
    }
    assert!(log.contains("page served") && log.contains("without a valid bearer token"));
}
