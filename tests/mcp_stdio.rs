mod support;

// The MCP face end to end: the real `zoekt-pager serve` binary over stdio, driven by rmcp's
// client, against the real, pinned zoekt-webserver serving fixtures/corpus
// (`ZOEKT_PAGER_LIVE_URL`; without it every test here fails, saying how to start one).
// Everything goes through JSON-RPC exactly as an assistant's client would see it. Expected
// values are fixture facts (fixtures/README.md) or Zoekt's own raw answer; only "backend
// down" uses a stand-in (a closed port), since a real Zoekt cannot be made absent on demand.

use std::collections::HashSet;

use rmcp::ServiceError;
use rmcp::model::ErrorCode;
use serde_json::{Value, json};
use support::mcp::*;

/// Spawns `zoekt-pager serve` against `url` with its defaults and runs `initialize`.
async fn spawn(url: &str) -> Client {
    spawn_stdio(url, &[]).await
}

#[tokio::test]
async fn tools_list_has_every_tool_read_only_with_limit_bounds() {
    let zoekt = support::fixture_zoekt("tools_list_has_every_tool_read_only_with_limit_bounds");
    let client = spawn(&zoekt).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: HashSet<&str> = tools.iter().map(|t| &*t.name).collect();
    // The tool table is the one list of tools: tools/list shows each exactly once.
    let table = zoekt_pager::tools::names();
    assert_eq!(tools.len(), table.len(), "{names:?}");
    assert_eq!(names, table.into_iter().collect::<HashSet<_>>());
    for t in &tools {
        let name = &t.name;
        assert_eq!(t.input_schema.get("type"), Some(&json!("object")), "{name}");
        let out = t.output_schema.as_ref().expect("output schema");
        assert_eq!(out.get("type"), Some(&json!("object")), "{name}");
        assert!(jsonschema::validator_for(&Value::Object((**out).clone())).is_ok());
        // Every field of the output (items included) says what it holds.
        let undescribed = undescribed_properties(&Value::Object((**out).clone()));
        assert!(undescribed.is_empty(), "{name}: {undescribed:?}");
        let a = t.annotations.as_ref().expect("annotations");
        assert_eq!(a.read_only_hint, Some(true), "{name}");
        assert_eq!(a.idempotent_hint, Some(true), "{name}");
        assert_eq!(a.open_world_hint, Some(false), "{name}");
        assert_eq!(a.destructive_hint, Some(false), "{name}");
        let limit = t
            .input_schema
            .get("properties")
            .and_then(|p| p.get("limit"))
            .cloned()
            .unwrap_or(Value::Null);
        if matches!(&**name, "read_file" | "health") {
            assert!(limit.is_null(), "{name} is not paged");
            continue;
        }
        assert_eq!(limit["maximum"], json!(100), "{name}: {limit}");
        assert_eq!(limit["default"], json!(30), "{name}: {limit}");
    }
    client.cancel().await.unwrap();
}

/// Names of the properties, anywhere in `schema` (its `$defs` too), that lack a description.
fn undescribed_properties(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                for (name, prop) in props {
                    if prop.get("description").and_then(Value::as_str).is_none() {
                        out.push(name.clone());
                    }
                }
            }
            map.values()
                .for_each(|v| out.extend(undescribed_properties(v)));
        }
        Value::Array(items) => items
            .iter()
            .for_each(|v| out.extend(undescribed_properties(v))),
        _ => {}
    }
    out
}

#[tokio::test]
async fn search_symbols_walk_over_mcp_is_exact() {
    let zoekt = support::fixture_zoekt("search_symbols_walk_over_mcp_is_exact");
    let client = spawn(&zoekt).await;
    let q = json!({"query": r"pagerItem\d+"});
    let pages = walk(&client, "search_symbols", q, &[30]).await;
    assert_eq!(page_sizes(&pages), vec![30, 30, 30, 10]);
    let all = page_items(&pages);
    assert_eq!(unique(&all), 100);
    let names: HashSet<&str> = all.iter().map(|i| i["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 100, "100 distinct pagerItem names");
    // fixtures/README.md section 4: exactly pagerItem001 .. pagerItem100.
    let want: HashSet<String> = (1..=100).map(|n| format!("pagerItem{n:03}")).collect();
    assert_eq!(names, want.iter().map(String::as_str).collect());
    let offsets: Vec<&Value> = pages.iter().map(|p| &p["offset"]).collect();
    assert_eq!(offsets, [&json!(0), &json!(30), &json!(60), &json!(90)]);
    assert!(pages.last().unwrap().get("next_cursor").is_none());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn every_paged_tool_walks_exactly_over_mcp() {
    let zoekt = support::fixture_zoekt("every_paged_tool_walks_exactly_over_mcp");
    let client = spawn(&zoekt).await;

    let files =
        page_items(&walk(&client, "search_files", json!({"query": "widgetry"}), &[3]).await);
    assert_eq!(files.len(), 4);
    assert_eq!(unique(&files), 4);
    assert!(
        files
            .iter()
            .all(|f| f["path"].as_str().unwrap().contains("widgetry"))
    );
    // fixtures/README.md section 6: the four name-only widgetry files.
    let found: HashSet<(&str, &str)> = files
        .iter()
        .map(|f| (f["repo"].as_str().unwrap(), f["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        found,
        HashSet::from([
            ("alpha-rs", "examples/widgetry_demo.rs"),
            ("beta-go", "config/widgetry_config.go"),
            ("gamma-py", "gamma/widgetry.py"),
            ("delta-ts", "src/widgetry-table.ts"),
        ])
    );

    let refs = walk(&client, "find_references", json!({"symbol": "get"}), &[10]).await;
    assert_eq!(page_sizes(&refs), vec![10, 10, 10, 7]);
    let refs = page_items(&refs);
    assert_eq!(unique(&refs), 37);
    let roles: Vec<&str> = refs.iter().map(|r| r["role"].as_str().unwrap()).collect();
    assert_eq!(roles[..4], ["definition"; 4]);
    assert!(roles[4..].iter().all(|r| *r == "reference"), "{roles:?}");
    // fixtures/README.md section 5: where `get` is defined.
    let defs: HashSet<(&str, &str)> = refs[..4]
        .iter()
        .map(|r| (r["repo"].as_str().unwrap(), r["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        defs,
        HashSet::from([
            ("alpha-rs", "src/cache.rs"),
            ("beta-go", "store/store.go"),
            ("gamma-py", "gamma/cache.py"),
            ("delta-ts", "src/net.ts"),
        ])
    );

    let lines = page_items(&walk(&client, "search", json!({"query": "pagerLineMark"}), &[7]).await);
    assert_eq!(lines.len(), 75);
    let marks = regex::Regex::new(r"pagerLineMark (\d\d)").unwrap();
    let nn: HashSet<String> = lines
        .iter()
        .map(|l| marks.captures(l["text"].as_str().unwrap()).expect("a mark")[1].to_string())
        .collect();
    assert_eq!(nn.len(), 75, "each mark 01..75 exactly once");

    let repos = walk(&client, "list_repos", json!({}), &[2]).await;
    assert_eq!(page_sizes(&repos), vec![2, 2, 1]);
    let names: Vec<Value> = page_items(&repos)
        .iter()
        .map(|r| r["name"].clone())
        .collect();
    assert_eq!(
        names,
        json!(["alpha-rs", "beta-go", "delta-ts", "gamma-py", "twin-go"])
            .as_array()
            .unwrap()
            .clone()
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn changing_limit_mid_walk_neither_repeats_nor_skips() {
    let zoekt = support::fixture_zoekt("changing_limit_mid_walk_neither_repeats_nor_skips");
    let client = spawn(&zoekt).await;
    let q = json!({"query": r"pagerItem\d+"});
    let pages = walk(&client, "search_symbols", q.clone(), &[30, 50]).await;
    assert_eq!(page_sizes(&pages), vec![30, 50, 20]);
    assert_eq!(
        pages[1]["offset"],
        json!(30),
        "second page starts at item 31"
    );
    let one = walk(&client, "search_symbols", q, &[100]).await;
    assert_eq!(page_sizes(&one), vec![100]);
    assert_eq!(page_items(&pages), page_items(&one));
    // And that order is the independent truth: raw Zoekt, sorted by the contract's rule.
    let keys = support::mcp::symbol_keys(&page_items(&pages));
    assert_eq!(
        keys,
        support::oracle::symbols(&zoekt, r"sym:pagerItem\d+").await
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn errors_are_tool_results_and_the_server_stays_up() {
    let zoekt = support::fixture_zoekt("errors_are_tool_results_and_the_server_stays_up");
    let client = spawn(&zoekt).await;
    let first = call(
        &client,
        "search_files",
        json!({"query": "widgetry", "limit": 1}),
    )
    .await;
    let files_cursor = first.structured_content.unwrap()["next_cursor"].clone();
    assert!(files_cursor.is_string());
    let sym = "search_symbols";
    let q = r"pagerItem\d+";
    let cases = [
        (
            json!({"query": q, "cursor": files_cursor}),
            "CURSOR_MISMATCH",
        ),
        (json!({"query": q, "cursor": "garbage"}), "INVALID_CURSOR"),
        (json!({"query": q, "limit": 0}), "INVALID_ARGUMENT"),
        (json!({"query": q, "limit": 101}), "INVALID_ARGUMENT"),
        (json!({"query": ""}), "INVALID_ARGUMENT"),
        (json!({"query": q, "curosr": "x"}), "INVALID_ARGUMENT"),
        (json!({"query": "pagerItem\nfoo"}), "INVALID_ARGUMENT"),
        (json!({"query": q, "limit": "ten"}), "INVALID_ARGUMENT"),
        (json!({}), "INVALID_ARGUMENT"),
    ];
    for (args, code) in cases {
        expect_error(&client, sym, args, code).await;
    }
    let ok = call(&client, sym, json!({"query": q, "limit": 5})).await;
    assert_ne!(ok.is_error, Some(true));
    assert_eq!(
        flat_page(&ok.structured_content.unwrap())["count"],
        json!(5)
    );

    match try_call(&client, "no_such_tool", json!({})).await {
        Err(ServiceError::McpError(e)) => assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{e:?}"),
        other => panic!("unknown tool gave {other:?}"),
    }
    let ok = call(&client, "list_repos", json!({})).await;
    assert_eq!(
        flat_page(&ok.structured_content.unwrap())["count"],
        json!(5)
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn backend_down_is_a_tool_error_and_the_server_stays_up() {
    let client = spawn("http://127.0.0.1:9").await;
    let q = json!({"query": r"pagerItem\d+"});
    expect_error(&client, "search_symbols", q, "BACKEND_UNAVAILABLE").await;
    expect_error(&client, "list_repos", json!({}), "BACKEND_UNAVAILABLE").await;
    let tools = client
        .list_all_tools()
        .await
        .expect("tools/list after errors");
    assert_eq!(tools.len(), zoekt_pager::tools::names().len());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn default_pages_of_broad_queries_fit_the_budget() {
    let zoekt = support::fixture_zoekt("default_pages_of_broad_queries_fit_the_budget");
    let client = spawn(&zoekt).await;
    // Each case has more items than a default page (30), so each page is full: 319 ctags
    // symbols and 94 files (fixtures/README.md), 37 `get` lines (section 5), 5 repositories;
    // for `func`, Zoekt's own raw answer.
    let func = support::oracle::lines(&zoekt, "func").await.len();
    assert!(func >= 30, "raw Zoekt has {func} lines for `func`");
    let cases = [
        ("search_symbols", json!({"query": "."}), 30),
        ("search_files", json!({"query": "."}), 30),
        ("search", json!({"query": "func"}), 30),
        ("find_references", json!({"symbol": "get"}), 30),
        ("list_repos", json!({}), 5),
    ];
    // A page of 100 lines with 10 context lines each would be ~2x the budget: the budget
    // ends it early. Each form a client may pass to a model (text block, structured
    // content) stays under it on its own; the result holds both.
    let r = call(
        &client,
        "search",
        json!({"query": "pagerLineMark", "context_lines": 10, "limit": 100}),
    )
    .await;
    let sc = r.structured_content.clone().unwrap();
    assert_eq!(sc["size_capped"], json!(true), "{sc}");
    let whole = json_chars(&r);
    eprintln!(
        "search with 10 context lines, limit 100: {} items, whole result {whole} chars",
        flat_page(&sc)["count"]
    );
    let text_chars = text(&r).chars().count();
    let sc_chars = json_chars(&sc);
    // The result is the two forms and little else: the text (as a JSON string, escaped) and
    // the structured content, in an envelope of a few dozen characters.
    let envelope = whole - json_chars(&text(&r)) - sc_chars;
    assert!(
        envelope < 200,
        "whole result {whole} chars, {envelope} besides its forms"
    );
    assert!(
        text_chars < BUDGET_CHARS && sc_chars < BUDGET_CHARS,
        "{text_chars} / {sc_chars}"
    );
    let count = flat_page(&sc)["count"].as_u64().unwrap();
    assert!(
        text(&r).contains(&format!(
            "Only {count} of limit 100 items: the next would pass the page's token budget"
        )),
        "{}",
        text(&r)
    );
    for (tool, args, count) in cases {
        let r = call(&client, tool, args.clone()).await;
        assert_ne!(r.is_error, Some(true), "{tool} {args}");
        let sc = r.structured_content.clone().unwrap();
        assert_eq!(
            flat_page(&sc)["count"],
            json!(count),
            "{tool}: default page size"
        );
        let text_chars = text(&r).chars().count();
        let sc_chars = json_chars(&sc);
        eprintln!("{tool} {args}: text {text_chars} chars, structured {sc_chars} chars");
        assert!(
            text_chars < BUDGET_CHARS,
            "{tool}: text is {text_chars} chars"
        );
        assert!(
            sc_chars < BUDGET_CHARS,
            "{tool}: structured is {sc_chars} chars"
        );
    }
    client.cancel().await.unwrap();
}

/// An error quotes at most an excerpt of what it was sent: a 1 MB argument must not come back
/// as a 1 MB error. A limit names its own maximum.
#[tokio::test]
async fn errors_quote_only_an_excerpt_of_huge_input() {
    let zoekt = support::fixture_zoekt("errors_quote_only_an_excerpt_of_huge_input");
    let client = spawn(&zoekt).await;
    let huge = "x".repeat(1_000_000);
    let cases = [
        ("search", json!({"query": huge}), "INVALID_ARGUMENT"),
        (
            "search",
            json!({"query": "x", "limit": huge}),
            "INVALID_ARGUMENT",
        ),
        (
            "search",
            json!({"query": "x", huge.clone(): 1}),
            "INVALID_ARGUMENT",
        ),
        (
            "read_file",
            json!({"repo": "alpha-rs", "path": "a".repeat(600)}),
            "INVALID_ARGUMENT",
        ),
        // type: atoms inside groups, as reported, and after a closed group.
        (
            "search",
            json!({"query": "(type:repo unsafe)"}),
            "INVALID_ARGUMENT",
        ),
        (
            "search",
            json!({"query": "(-type:repo x)"}),
            "INVALID_ARGUMENT",
        ),
        (
            "search",
            json!({"query": "(a)(type:repo b)"}),
            "INVALID_ARGUMENT",
        ),
    ];
    for (tool, args, code) in cases {
        let path_too_long = tool == "read_file";
        let body = expect_error(&client, tool, args, code).await;
        assert!(
            body.chars().count() < 1_000,
            "{tool}: {} chars",
            body.chars().count()
        );
        if path_too_long {
            assert!(
                body.contains("the path has 600 characters (max 500)"),
                "{body}"
            );
        }
    }
    client.cancel().await.unwrap();
}

/// The requests a stand-in Zoekt has received once no new one arrived for half a second:
/// what a dropped call asked, whatever the machine's load.
async fn settled_requests(zoekt: &wiremock::MockServer) -> usize {
    let mut seen = zoekt.received_requests().await.unwrap().len();
    for _ in 0..20 {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let now = zoekt.received_requests().await.unwrap().len();
        if now == seen {
            return now;
        }
        seen = now;
    }
    panic!("the stand-in Zoekt kept receiving requests for 10 s ({seen})");
}

/// A call that outlives `--call-timeout-ms` ends with BACKEND_TIMEOUT at the deadline, and
/// the pager asks Zoekt nothing more for it.
#[tokio::test]
async fn a_call_past_its_deadline_ends_and_stops_asking_zoekt() {
    let zoekt = support::slow_zoekt_without_symbols(600).await;
    let client = spawn_stdio(
        &zoekt.uri(),
        &[
            ("ZOEKT_PAGER_CALL_TIMEOUT_MS", "1000"),
            ("ZOEKT_PAGER_CACHE_BYTES", "0"),
            // A first page that takes a census asks for --max-window files at once: this
            // call must grow its window request by request.
            ("ZOEKT_PAGER_SUGGEST_FILTERS", "off"),
        ],
    )
    .await;
    let started = std::time::Instant::now();
    let r = call(
        &client,
        "search_symbols",
        json!({"query": "x", "count_only": false}),
    )
    .await;
    let took = started.elapsed();
    assert_eq!(r.is_error, Some(true));
    assert!(
        text(&r).starts_with("Error BACKEND_TIMEOUT"),
        "{}",
        text(&r)
    );
    assert!(text(&r).contains("--call-timeout-ms"), "{}", text(&r));
    assert!(took < std::time::Duration::from_millis(2_500), "{took:?}");
    // Requests start at about 0 and 600 ms; without the deadline, 8 would follow.
    let asked = settled_requests(&zoekt).await;
    tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
    let later = zoekt.received_requests().await.unwrap().len();
    assert!(
        (1..=3).contains(&asked),
        "{asked} requests before the deadline"
    );
    assert_eq!(later, asked, "requests after the call ended");
    client.cancel().await.unwrap();
}

/// Resource reads and listings keep the call deadline too: a file resource behind a Zoekt
/// that answers after 5 s is a JSON-RPC error naming --call-timeout-ms at the deadline.
#[tokio::test]
async fn resource_reads_end_at_the_call_deadline() {
    use rmcp::model::ReadResourceRequestParams;
    let zoekt = support::slow_zoekt_without_symbols(5_000).await;
    answer_lists_after_5_s(&zoekt).await;
    // The wall time would end the listing at 10 s; the call deadline comes first.
    let client = spawn_stdio(&zoekt.uri(), &[("ZOEKT_PAGER_CALL_TIMEOUT_MS", "300")]).await;
    let started = std::time::Instant::now();
    let err = client
        .read_resource(ReadResourceRequestParams::new("zoekt://r/f0.go"))
        .await
        .expect_err("past the deadline");
    let took = started.elapsed();
    assert!(err.to_string().contains("--call-timeout-ms"), "{err}");
    assert!(took < std::time::Duration::from_secs(3), "{took:?}");
    let err = client
        .list_resources(None)
        .await
        .expect_err("past the deadline");
    assert!(err.to_string().contains("--call-timeout-ms"), "{err}");
    client.cancel().await.unwrap();
}

/// A call the client cancels (notifications/cancelled) is dropped with its Zoekt requests:
/// the pager asks nothing more, and the server goes on serving.
#[tokio::test]
async fn a_cancelled_call_stops_asking_zoekt() {
    use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
    use rmcp::service::PeerRequestOptions;
    let zoekt = support::slow_zoekt_without_symbols(400).await;
    // Suggestions off: a first page that takes a census asks for --max-window files at once,
    // and this call must grow its window request by request.
    let client = spawn_stdio(
        &zoekt.uri(),
        &[
            ("ZOEKT_PAGER_CACHE_BYTES", "0"),
            ("ZOEKT_PAGER_SUGGEST_FILTERS", "off"),
        ],
    )
    .await;
    let args = json!({"query": "x"}).as_object().cloned().unwrap();
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("search_symbols").with_arguments(args),
    ));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1_000)).await;
    handle
        .cancel(Some("the user moved on".into()))
        .await
        .unwrap();
    let asked = settled_requests(&zoekt).await;
    tokio::time::sleep(std::time::Duration::from_millis(2_000)).await;
    let later = zoekt.received_requests().await.unwrap().len();
    // Requests start about every 400 ms; uncancelled, the walk to --max-window makes 9.
    assert!(
        (2..=5).contains(&asked),
        "{asked} requests before the cancel"
    );
    assert_eq!(later, asked, "requests after the cancel");
    let tools = client
        .list_all_tools()
        .await
        .expect("the server still serves");
    assert!(!tools.is_empty());
    client.cancel().await.unwrap();
}

/// Right after a Zoekt start, shards are still loading: an empty answer then says nothing
/// about the query, so it is a retryable BACKEND_NOT_READY, never an empty last page with an
/// exact total of 0. A stand-in Zoekt reports the loading shard (a real one only does so for
/// a moment after it starts).
#[tokio::test]
async fn an_empty_answer_while_shards_load_is_not_ready() {
    use wiremock::{Mock, MockServer, ResponseTemplate, matchers};
    let zoekt = MockServer::start().await;
    Mock::given(matchers::method("POST"))
        .and(matchers::path("/api/search"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"Result": {"FileCount": 0, "MatchCount": 0, "Crashes": 1, "Files": null}}),
        ))
        .mount(&zoekt)
        .await;
    let client = spawn_stdio(&zoekt.uri(), &[]).await;
    for (tool, args) in [
        ("search_symbols", json!({"query": "x"})),
        ("search", json!({"query": "x", "count_only": true})),
        ("find_references", json!({"symbol": "x"})),
        ("read_file", json!({"repo": "r", "path": "a.go"})),
    ] {
        expect_error(&client, tool, args, "BACKEND_NOT_READY").await;
    }
    client.cancel().await.unwrap();
}

/// An answer too big to read (`--max-answer-bytes`, here 300,000 bytes against 2.5 MB for
/// the first window of `search .` with 10 context lines on the real fixture Zoekt) no longer
/// fails the call: the window shrinks to the most files whose answer fits, the same for every
/// page, and the pages say so. The walk ends at that bound with every item once, and the
/// same items come out with the window cache on or off and at limits 100 or 37 (a bound that
/// moved from page to page would leave items out, at different places for each).
#[tokio::test]
async fn answers_too_big_to_read_shrink_the_window_and_the_page_says_so() {
    let url =
        support::fixture_zoekt("answers_too_big_to_read_shrink_the_window_and_the_page_says_so");
    let mut walks = Vec::new();
    for (cache, limit) in [("67108864", 100), ("0", 100), ("67108864", 37)] {
        let env = [
            ("ZOEKT_PAGER_MAX_ANSWER_BYTES", "300000"),
            ("ZOEKT_PAGER_CACHE_BYTES", cache),
        ];
        let client = spawn_stdio(&url, &env).await;
        let (pages, last_text) = walk_to_the_bound(&client, limit).await;
        assert!(
            last_text.contains("No further pages (see warnings)"),
            "{last_text}"
        );
        let items = page_items(&pages);
        assert!(pages.len() > 1, "{} pages", pages.len());
        assert_eq!(unique(&items), items.len(), "no item twice");
        let warned = pages
            .iter()
            .filter(|p| p["warnings"].to_string().contains("--max-answer-bytes"))
            .count();
        assert!(warned > 0, "no page says the answer size bound it");
        client.cancel().await.unwrap();
        walks.push((format!("cache {cache}, limit {limit}"), items));
    }
    for (what, items) in &walks[1..] {
        assert_eq!(
            items.len(),
            walks[0].1.len(),
            "{what} against {}",
            walks[0].0
        );
        assert!(
            items == &walks[0].1,
            "{what}: other items than {}",
            walks[0].0
        );
    }
}

/// Walks `search .` with 10 context lines to its last page: the pages and the last text.
/// (Not support::walk: that wants "End of results", and this walk ends at the bound.)
async fn walk_to_the_bound(client: &Client, limit: u32) -> (Vec<Value>, String) {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = json!({"query": ".", "context_lines": 10, "limit": limit});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let r = call(client, "search", args).await;
        let text = text(&r);
        assert_ne!(r.is_error, Some(true), "{text}");
        let page = flat_page(&r.structured_content.expect("a page"));
        cursor = page["next_cursor"].as_str().map(String::from);
        pages.push(page);
        assert!(pages.len() < 200, "runaway walk");
        if cursor.is_none() {
            return (pages, text);
        }
    }
}

/// Zoekt's list has no wall-time option, so the pager bounds a listing by the search wall
/// time itself: a list Zoekt answers only after 5 s ends at --max-wall-time-ms (here 300 ms)
/// as BACKEND_TIMEOUT, and `health`, which also lists, says the same without hanging.
/// A stand-in Zoekt: a real one cannot be made slow on demand.
#[tokio::test]
async fn a_slow_listing_ends_at_the_wall_time() {
    let zoekt = wiremock::MockServer::start().await;
    answer_lists_after_5_s(&zoekt).await;
    let client = spawn_stdio(&zoekt.uri(), &[("ZOEKT_PAGER_MAX_WALL_TIME_MS", "300")]).await;
    let started = std::time::Instant::now();
    let body = expect_error(
        &client,
        "list_repos",
        json!({"query": "(.*){1000}"}),
        "BACKEND_TIMEOUT",
    )
    .await;
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(3), "{took:?}: {body}");
    assert!(body.contains("300 ms"), "{body}");
    let started = std::time::Instant::now();
    let health = call(&client, "health", json!({})).await;
    let took = started.elapsed();
    assert!(
        took < std::time::Duration::from_secs(3),
        "health took {took:?}"
    );
    // Health still answers, and says the listing is what failed, and why.
    let said = text(&health);
    assert!(
        said.contains("listing repositories failed") && said.contains("300 ms"),
        "{said}"
    );
    assert_eq!(health.is_error, Some(false), "{said}");
    client.cancel().await.unwrap();
}

/// Makes the stand-in Zoekt answer /api/list (with no repositories) only after 5 s.
async fn answer_lists_after_5_s(zoekt: &wiremock::MockServer) {
    use wiremock::{Mock, ResponseTemplate, matchers};
    Mock::given(matchers::method("POST"))
        .and(matchers::path("/api/list"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_delay(std::time::Duration::from_secs(5))
                .set_body_json(json!({"List": {"Repos": [], "Crashes": 0}})),
        )
        .mount(zoekt)
        .await;
}

/// Lines that are not messages each get a JSON-RPC error reply at once (rmcp alone drops
/// them, and the client waits for its own timeout), and the server goes on: a tool call after
/// them answers from the real Zoekt. Written as raw bytes, since rmcp's client cannot send
/// such lines.
#[tokio::test]
async fn malformed_stdio_lines_each_get_an_error_reply() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let url = support::fixture_zoekt("malformed_stdio_lines_each_get_an_error_reply");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_zoekt-pager"))
        .arg("serve")
        .env("ZOEKT_URL", &url)
        .env("ZOEKT_PAGER_LOG", "warn")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn zoekt-pager serve");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let read_reply = async |stdout: &mut tokio::io::Lines<BufReader<_>>| -> Value {
        let reply = tokio::time::timeout(std::time::Duration::from_secs(10), stdout.next_line())
            .await
            .expect("a reply within 10 s")
            .unwrap()
            .expect("stdout still open");
        serde_json::from_str(&reply).unwrap()
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    stdin
        .write_all(format!("{init}\n").as_bytes())
        .await
        .unwrap();
    assert!(read_reply(&mut stdout).await["result"].is_object());
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .unwrap();
    let mut exchange = async |line: &[u8]| -> Value {
        stdin.write_all(line).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        read_reply(&mut stdout).await
    };
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
        let reply = exchange(&line).await;
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
    let reply = exchange(call.to_string().as_bytes()).await;
    assert_eq!(reply["id"], json!(10), "{reply}");
    assert_eq!(
        flat_page(&reply["result"]["structuredContent"])["items"]
            .as_array()
            .map(Vec::len),
        Some(3),
        "{reply}"
    );
}

/// Two requests with the same id in flight at once: rmcp alone keeps one slot per id, so one
/// of the two answers was dropped and the client waited forever. The second now gets an
/// error of its own at once (-32600, with its id), the first its answer, and the id can be
/// used again afterwards. A stand-in Zoekt answers late, to keep the first call in flight.
#[tokio::test]
async fn a_second_request_with_an_id_in_flight_gets_its_own_error() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    use wiremock::{Mock, MockServer, ResponseTemplate, matchers};
    let slow = MockServer::start().await;
    Mock::given(matchers::method("POST"))
        .and(matchers::path("/api/search"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"Result": {"FileCount": 0, "MatchCount": 0, "Files": null}}))
                .set_delay(std::time::Duration::from_millis(1500)),
        )
        .mount(&slow)
        .await;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_zoekt-pager"))
        .arg("serve")
        .env("ZOEKT_URL", slow.uri())
        // The slow stand-in speaks JSON.
        .env("ZOEKT_PAGER_ZOEKT_TRANSPORT", "json")
        .env("ZOEKT_PAGER_LOG", "warn")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn zoekt-pager serve");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut read_reply = async || -> Value {
        let reply = tokio::time::timeout(std::time::Duration::from_secs(10), stdout.next_line())
            .await
            .expect("a reply within 10 s")
            .unwrap()
            .expect("stdout still open");
        serde_json::from_str(&reply).unwrap()
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let call = json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call", "params": {
        "name": "search", "arguments": {"query": "anything"}}});
    stdin
        .write_all(format!("{init}\n").as_bytes())
        .await
        .unwrap();
    assert!(read_reply().await["result"].is_object());
    stdin
        .write_all(format!("{initialized}\n{call}\n{call}\n").as_bytes())
        .await
        .unwrap();
    let refused = read_reply().await;
    assert_eq!(refused["id"], json!(20), "{refused}");
    assert_eq!(refused["error"]["code"], json!(-32600), "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("id 20 is already in flight"),
        "{refused}"
    );
    let answered = read_reply().await;
    assert_eq!(answered["id"], json!(20), "{answered}");
    assert_eq!(
        flat_page(&answered["result"]["structuredContent"])["count"],
        json!(0),
        "{answered}"
    );
    // Answered, the id is free again.
    stdin
        .write_all(format!("{call}\n").as_bytes())
        .await
        .unwrap();
    let again = read_reply().await;
    assert_eq!(again["id"], json!(20), "{again}");
    assert!(again["result"].is_object(), "{again}");
}
