//! What a model reads. Claude Code, VS Code and Copilot CLI hand the model
//! `JSON.stringify(structuredContent)` and drop the text block; other hosts hand it the text.
//! So each form, on its own, must hold everything: every item's facts, where the walk stands
//! and how to go on (the tool and the cursor), and the warnings.
//!
//! Through the real binary over stdio (rmcp's client) against the real Zoekt. Each page is
//! read as those hosts read it: the compact JSON of `structuredContent` alone. The items it
//! holds are rebuilt by `support::mcp::flat_page` (written from the contract) and compared,
//! field for field, with the engine's own page for the same call; raw Zoekt's answer
//! (`support::oracle`) checks the symbols.

use crate::support;

use serde::Serialize;
use serde_json::{Value, json};
use support::mcp::*;
use support::{keys, oracle, page_of};
use zoekt_pager::tool::PagedArgs;
use zoekt_pager::tools::PagedTool;
use zoekt_pager::tools::files_with_matches::FilesWithMatches;
use zoekt_pager::tools::find_references::FindReferences;
use zoekt_pager::tools::list_repos::ListRepos;
use zoekt_pager::tools::outline_file::OutlineFile;
use zoekt_pager::tools::search::Search;
use zoekt_pager::tools::search_files::SearchFiles;
use zoekt_pager::tools::search_symbols::SearchSymbols;
use zoekt_pager::zoekt::ZoektClient;
use zoekt_pager::{PageArgs, Pager};

/// The first `pages` pages of `T` at `limit` over MCP, each checked as a Claude Code model
/// reads it, and compared with the engine's pages for the same arguments.
async fn read_as_a_host_does<T: PagedTool>(
    client: &Client,
    pager: &Pager<ZoektClient>,
    args: Value,
    limit: u32,
    pages: usize,
) -> Vec<Value>
where
    T::Item: Serialize,
{
    let mut flat_items = Vec::new();
    // The paging the arguments carry (an outline's `source` among it), at `limit`.
    let given: T::Args = serde_json::from_value(args.clone()).unwrap();
    let mut paging = PageArgs {
        limit: Some(limit),
        ..given.paging()
    };
    for n in 0..pages {
        let mut a = args.clone();
        a["limit"] = json!(limit);
        if let Some(c) = &paging.cursor {
            a["cursor"] = json!(c);
        }
        let r = call(client, T::NAME, a).await;
        assert_ne!(r.is_error, Some(true), "{}", text(&r));
        let structured = r.structured_content.clone().expect("structured content");
        // What the model receives: this string, and nothing else.
        let read = serde_json::to_string(&structured).unwrap();
        let engine: zoekt_pager::Page<T::Item> = page_of::<T, _>(
            pager,
            serde_json::from_value(args.clone()).unwrap(),
            &paging,
        )
        .await
        .unwrap();
        // Every item, every fact (an empty one is left out, never sent as "").
        let flat = flat_page(&structured);
        let want: Vec<Value> = engine
            .items
            .iter()
            .map(|i| without_empty(serde_json::to_value(i).unwrap()))
            .collect();
        assert_eq!(flat["items"], json!(want), "{} page {n}: {read}", T::NAME);
        flat_items.extend(want);
        // How to go on: the tool and the cursor, in one string, as the text says it.
        let text = text(&r);
        match &engine.next_cursor {
            Some(c) => {
                let how = format!("Next: call {} with cursor={c}", T::NAME);
                assert!(read.contains(&how), "{} page {n}: {read}", T::NAME);
                assert!(text.contains(&how), "{}", T::NAME);
                assert_eq!(structured["next_cursor"], json!(c));
            }
            None => assert!(
                read.contains("End of results") || read.contains("No further pages"),
                "{read}"
            ),
        }
        let footer = text.lines().rfind(|l| !l.starts_with("Warning: ")).unwrap();
        assert_eq!(structured["next"], json!(footer), "{}", T::NAME);
        // Every warning of the text, word for word.
        let warnings: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("Warning: "))
            .collect();
        assert_eq!(
            structured.get("warnings").cloned().unwrap_or(json!([])),
            json!(warnings)
        );
        // The total, and whether it is exact.
        let (named, other) = if engine.total.exact {
            ("total", "total_estimate")
        } else {
            ("total_estimate", "total")
        };
        assert_eq!(structured[named], json!(engine.total.value), "{read}");
        assert!(structured.get(other).is_none(), "{read}");
        // Nothing empty, null or default-valued outside rows.
        for (key, value) in structured.as_object().unwrap() {
            let empty = matches!(value, Value::Null | Value::Bool(false))
                || value.as_array().is_some_and(Vec::is_empty)
                || value.as_str().is_some_and(str::is_empty);
            assert!(!empty, "{}: `{key}` is {value}", T::NAME);
        }
        match engine.next_cursor {
            Some(c) => paging.cursor = Some(c),
            None => break,
        }
    }
    flat_items
}

/// An item's JSON without empty strings and lists: what the structured page leaves out.
fn without_empty(mut item: Value) -> Value {
    if let Value::Object(map) = &mut item {
        map.retain(|_, v| {
            !(v.as_str().is_some_and(str::is_empty) || v.as_array().is_some_and(Vec::is_empty))
        });
    }
    item
}

#[tokio::test]
async fn every_paged_tool_holds_its_facts_continuation_and_warnings_as_json() {
    let url = support::fixture_zoekt("every_paged_tool_holds_its_facts_as_json");
    let client = spawn_stdio(&url, &[]).await;
    let pager = support::pager(&url);
    let symbols =
        read_as_a_host_does::<SearchSymbols>(&client, &pager, json!({"query": "pagerItem"}), 7, 3)
            .await;
    // The symbols are raw Zoekt's, in the contract's order.
    let truth = oracle::symbols(&url, "sym:pagerItem").await;
    let got: Vec<_> = symbols
        .iter()
        .map(|s| {
            (
                s["repo"].as_str().unwrap().to_string(),
                s["path"].as_str().unwrap().to_string(),
                s["line"].as_u64().unwrap() as u32,
                s["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(got, truth[..21]);
    let _ = keys::symbol;
    read_as_a_host_does::<SearchFiles>(&client, &pager, json!({"query": r"\.go$"}), 7, 3).await;
    read_as_a_host_does::<FindReferences>(&client, &pager, json!({"symbol": "get"}), 3, 3).await;
    read_as_a_host_does::<Search>(
        &client,
        &pager,
        json!({"query": r"pagerItem\d+", "context_lines": 2}),
        7,
        3,
    )
    .await;
    read_as_a_host_does::<FilesWithMatches>(&client, &pager, json!({"query": "pagerItem"}), 7, 3)
        .await;
    read_as_a_host_does::<ListRepos>(&client, &pager, json!({}), 2, 3).await;
    // An outline with its source lines, and one whose methods say the scope it left out.
    let registry = json!({"repo": "alpha-rs", "path": "src/registry.rs", "source": true});
    read_as_a_host_does::<OutlineFile>(&client, &pager, registry, 7, 3).await;
    let methods = json!({"repo": "alpha-rs", "path": "src/registry.rs", "kinds": ["method"]});
    read_as_a_host_does::<OutlineFile>(&client, &pager, methods, 7, 3).await;
    // Branches: a file on two branches names them in its group.
    let branches = support::branches_zoekt("every_paged_tool_holds_its_facts_as_json");
    let client_b = spawn_stdio(&branches, &[]).await;
    let items = read_as_a_host_does::<Search>(
        &client_b,
        &support::pager(&branches),
        json!({"query": "."}),
        30,
        1,
    )
    .await;
    assert!(
        items.iter().any(|i| i.get("branches").is_some()),
        "{items:?}"
    );
    client_b.cancel().await.unwrap();
    client.cancel().await.unwrap();
}

/// Warnings reach the JSON reader word for word: the per-shard cap on the generated corpus,
/// and the paging ceiling.
#[tokio::test]
async fn warnings_and_estimates_reach_the_json_reader() {
    let url = support::big_zoekt("warnings_and_estimates_reach_the_json_reader");
    let client = spawn_stdio(&url, &[]).await;
    let pager = support::pager(&url);
    read_as_a_host_does::<FindReferences>(&client, &pager, json!({"symbol": "x"}), 30, 2).await;
    read_as_a_host_does::<Search>(&client, &pager, json!({"query": "x"}), 30, 1).await;
    client.cancel().await.unwrap();
    // The ceiling: the last page has no cursor, and says why.
    let url = support::fixture_zoekt("warnings_and_estimates_reach_the_json_reader");
    let client = spawn_stdio(&url, &[("ZOEKT_PAGER_MAX_OFFSET", "14")]).await;
    let r = call(
        &client,
        "search_symbols",
        json!({"query": "pagerItem", "limit": 7}),
    )
    .await;
    let mut page = r.structured_content.unwrap();
    for _ in 0..3 {
        let Some(c) = page.get("next_cursor").cloned() else {
            break;
        };
        let r = call(
            &client,
            "search_symbols",
            json!({"query": "pagerItem", "limit": 7, "cursor": c}),
        )
        .await;
        page = r.structured_content.unwrap();
    }
    let read = serde_json::to_string(&page).unwrap();
    assert!(read.contains("paging stops at item"), "{read}");
    assert!(page.get("next_cursor").is_none());
    client.cancel().await.unwrap();
}

/// `--page-forms text`: the text alone, no outputSchema, no structuredContent, for hosts
/// that read text best; the text still says how to go on.
#[tokio::test]
async fn page_forms_text_sends_the_text_alone() {
    let url = support::fixture_zoekt("page_forms_text_sends_the_text_alone");
    let client = spawn_stdio(&url, &[("ZOEKT_PAGER_PAGE_FORMS", "text")]).await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().all(|t| t.output_schema.is_none()));
    for (tool, args) in [
        ("search_symbols", json!({"query": "pagerItem", "limit": 5})),
        ("health", json!({})),
    ] {
        let r = call(&client, tool, args).await;
        assert!(r.structured_content.is_none(), "{tool}");
        assert!(!text(&r).is_empty());
    }
    let r = call(
        &client,
        "search_symbols",
        json!({"query": "pagerItem", "limit": 5}),
    )
    .await;
    assert!(text(&r).contains("Next: call search_symbols with cursor="));
    client.cancel().await.unwrap();
    let _ = PageArgs::default();
}

/// What every row of a group shares is said once, where a model reads it as plainly as a
/// header: the kind and parent of the 40 methods of `Registry`, and the language of listed
/// files once per extension (fixture facts: fixtures/README.md, sections 2 and 4).
#[tokio::test]
async fn what_the_rows_of_a_group_share_is_said_once() {
    let url = support::fixture_zoekt("what_the_rows_of_a_group_share_is_said_once");
    let client = spawn_stdio(&url, &[]).await;
    let r = call(
        &client,
        "search_symbols",
        json!({"query": "file:registry.rs pagerItem", "limit": 50}),
    )
    .await;
    let sc = r.structured_content.clone().expect("structured content");
    assert_eq!(
        sc["fields"],
        json!([
            "repo",
            "path",
            ["line", "column", "name", "text"],
            "kind",
            "parent",
            "parent_kind"
        ]),
        "{sc}"
    );
    let groups = sc["files"].as_array().expect("groups");
    assert_eq!(groups.len(), 1, "{sc}");
    let group = groups[0].as_array().unwrap();
    assert_eq!(group[..2], [json!("alpha-rs"), json!("src/registry.rs")]);
    assert_eq!(
        group[3..],
        [json!("method"), json!("Registry"), json!("implementation")]
    );
    assert_eq!(group[2].as_array().unwrap().len(), 40, "{sc}");
    let read = serde_json::to_string(&sc).unwrap();
    assert_eq!(read.matches("Registry").count(), 1, "said once: {read}");
    // A program still reads each item whole.
    let items = flat_page(&sc)["items"].clone();
    assert_eq!(items.as_array().unwrap().len(), 40);
    for item in items.as_array().unwrap() {
        assert_eq!(item["kind"], "method", "{item}");
        assert_eq!(item["parent"], "Registry", "{item}");
        assert_eq!(item["parent_kind"], "implementation", "{item}");
    }

    let r = call(
        &client,
        "search_files",
        json!({"query": r"\.go$", "limit": 20}),
    )
    .await;
    let sc = r.structured_content.clone().expect("structured content");
    assert_eq!(sc["language_by_extension"], json!({".go": "Go"}), "{sc}");
    let read = serde_json::to_string(&sc).unwrap();
    assert_eq!(read.matches("\"Go\"").count(), 1, "said once: {read}");
    let items = flat_page(&sc)["items"].clone();
    assert_eq!(items.as_array().unwrap().len(), 20);
    for item in items.as_array().unwrap() {
        assert_eq!(item["language"], "Go", "{item}");
    }
    client.cancel().await.unwrap();
}

/// A line that several files hold is said once: the four files of `beta-go` and their
/// byte-identical copies in `twin-go` (fixtures/README.md, section 1) hold `tiebreakProbe`
/// on one line each, three distinct lines in all.
#[tokio::test]
async fn a_line_many_files_hold_is_said_once() {
    let url = support::fixture_zoekt("a_line_many_files_hold_is_said_once");
    let client = spawn_stdio(&url, &[]).await;
    let shared = "// tiebreakProbe: byte-identical in beta-go and twin-go.";
    let alpha = "// tieAlpha is one half of a ranking fixture. tiebreakProbe: this file is";
    let beta = "// tieBeta is the other half of the ranking fixture. tiebreakProbe: this file";
    for tool in ["search", "files_with_matches", "find_references"] {
        let args = if tool == "find_references" {
            json!({"symbol": "tiebreakProbe", "limit": 10})
        } else {
            json!({"query": "tiebreakProbe", "limit": 10})
        };
        let r = call(&client, tool, args).await;
        let sc = r.structured_content.clone().expect("structured content");
        let schema = output_schema(&client, tool).await;
        let validator = jsonschema::validator_for(&schema).expect("output schema compiles");
        assert!(
            validator.is_valid(&sc),
            "{tool}: not its outputSchema: {sc}"
        );
        let read = serde_json::to_string(&sc).unwrap();
        assert!(read.contains("text_by_number"), "{tool}: {read}");
        for line in [shared, alpha, beta] {
            let quoted = serde_json::to_string(line).unwrap();
            assert_eq!(
                read.matches(&quoted).count(),
                1,
                "{tool}: said once: {read}"
            );
            // The text block, for hosts that read it, writes each item's line.
            let times = if line == shared { 4 } else { 2 };
            assert_eq!(text(&r).matches(line).count(), times, "{tool}");
        }
        // A program still reads each item's line whole.
        let items = flat_page(&sc)["items"].clone();
        let mut lines: Vec<&str> = items
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["text"].as_str().expect("a line"))
            .collect();
        lines.sort_unstable();
        let mut want = vec![shared, shared, shared, shared, alpha, alpha, beta, beta];
        want.sort_unstable();
        assert_eq!(lines, want, "{tool}: {read}");
    }
    client.cancel().await.unwrap();
}
