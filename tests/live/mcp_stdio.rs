//! The MCP face end to end: the real `zoekt-pager serve` binary over stdio, driven by rmcp's
//! client, against the real, pinned zoekt-webserver serving fixtures/corpus
//! (`ZOEKT_PAGER_LIVE_URL`; without it every test here fails, saying how to start one).
//! Everything goes through JSON-RPC exactly as an assistant's client would see it. Expected
//! values are fixture facts (fixtures/README.md) or Zoekt's own raw answer; only "backend
//! down" uses a stand-in (a closed port), since a real Zoekt cannot be made absent on demand.

use crate::support;

use std::collections::HashSet;

use rmcp::ServiceError;
use rmcp::model::ErrorCode;
use serde_json::{Value, json};
use support::mcp::*;

mod raw;

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
