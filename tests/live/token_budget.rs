//! Pages a model can afford, end to end: the real `zoekt-pager serve` over stdio, driven by
//! rmcp's client, against the real zoekt-webserver. Full pages at the largest limit stay
//! within the token budget in each form a client may hand a model (`count_only`: `count_only.rs`);
//! snippet controls change what items show, never which items a page holds. Expected values
//! are fixture facts (fixtures/README.md), raw Zoekt, or the source files.

use crate::support;

use std::collections::HashMap;

use serde_json::{Value, json};
use support::mcp::*;

/// `--max-limit`'s default.
const MAX_LIMIT: u64 = 100;

/// Every page but the last holds exactly `limit` items, and each page fits the budget as text
/// and as structured content, for every paged tool with default options on the generated
/// corpus, walked to the end (or to the paging ceiling).
#[tokio::test]
async fn every_tool_at_the_largest_limit_gives_full_pages_within_the_budget() {
    let zoekt =
        support::big_zoekt("every_tool_at_the_largest_limit_gives_full_pages_within_the_budget");
    let client = spawn_stdio(&zoekt, &[]).await;
    for (tool, args) in support::broad_walks() {
        let mut cursor: Option<String> = None;
        let mut counts = Vec::new();
        let (mut widest_text, mut widest_json) = (0, 0);
        loop {
            let mut a = args.clone();
            a["limit"] = json!(MAX_LIMIT);
            if let Some(c) = &cursor {
                a["cursor"] = json!(c);
            }
            let r = call(&client, tool, a).await;
            assert_ne!(r.is_error, Some(true), "{tool}: {}", text(&r));
            let sc = r.structured_content.clone().unwrap();
            let text_chars = text(&r).chars().count();
            let sc_chars = json_chars(&sc);
            widest_text = widest_text.max(text_chars);
            widest_json = widest_json.max(sc_chars);
            assert!(
                text_chars <= BUDGET_CHARS && sc_chars <= BUDGET_CHARS,
                "{tool} page {}: text {text_chars} chars, structured {sc_chars} chars",
                counts.len() + 1
            );
            assert!(
                sc.get("size_capped").is_none(),
                "{tool} page {}: cut to {} items by the budget",
                counts.len() + 1,
                flat_page(&sc)["count"]
            );
            counts.push(flat_page(&sc)["count"].as_u64().unwrap());
            cursor = sc
                .get("next_cursor")
                .and_then(Value::as_str)
                .map(String::from);
            if cursor.is_none() {
                break;
            }
        }
        // Past one page (list_repos: 6 repositories), so "every page but the last" holds one.
        assert!(
            counts.len() > 1 || tool == "list_repos",
            "{tool}: {counts:?}"
        );
        let (last, full) = counts.split_last().unwrap();
        assert!(
            full.iter().all(|&c| c == MAX_LIMIT) && *last >= 1 && *last <= MAX_LIMIT,
            "{tool}: page sizes {counts:?}"
        );
        eprintln!(
            "{tool}: {} pages, widest text {widest_text} chars, widest structured \
             {widest_json} chars",
            counts.len()
        );
    }
    client.cancel().await.unwrap();
}

/// Every source line an item shows, context included.
fn lines_of(item: &Value) -> Vec<String> {
    let mut out = vec![item["text"].as_str().unwrap_or_default().to_string()];
    for side in ["before", "after"] {
        if let Some(ls) = item[side].as_array() {
            out.extend(ls.iter().map(|l| l.as_str().unwrap().to_string()));
        }
    }
    out
}

/// The item without what snippet controls change: which item it is.
fn identity(item: &Value) -> Value {
    let mut item = item.clone();
    for field in ["text", "before", "after"] {
        item.as_object_mut().unwrap().remove(field);
    }
    item
}

/// `snippet_length=20` clips every source line to 20 characters, `…` included, on every tool
/// that shows lines; its cursor continues a walk made without it, item for item.
#[tokio::test]
async fn snippet_length_clips_lines_and_its_cursor_continues_a_plain_walk() {
    let zoekt =
        support::fixture_zoekt("snippet_length_clips_lines_and_its_cursor_continues_a_plain_walk");
    let client = spawn_stdio(&zoekt, &[]).await;
    let cases = [
        ("search_symbols", json!({"query": "."})),
        ("find_references", json!({"symbol": "get"})),
        ("search", json!({"query": "func", "context_lines": 2})),
        ("files_with_matches", json!({"query": "func"})),
    ];
    for (tool, args) in cases {
        let plain = walk(&client, tool, args.clone(), &[10]).await;
        assert!(plain.len() >= 3, "{tool}: a walk of several pages");
        let mut clipped_args = args.clone();
        clipped_args["snippet_length"] = json!(20);
        clipped_args["limit"] = json!(10);
        let r = call(&client, tool, clipped_args).await;
        let page = r.structured_content.clone().unwrap();
        let mut cut = 0;
        let flat = flat_page(&page);
        let items = flat["items"].as_array().unwrap();
        let plain_items = plain[0]["items"].as_array().unwrap();
        assert_eq!(items.len(), plain_items.len(), "{tool}");
        for (item, whole) in items.iter().zip(plain_items) {
            let (lines, wholes) = (lines_of(item), lines_of(whole));
            assert_eq!(lines.len(), wholes.len(), "{tool}: {item}");
            for (line, whole) in lines.into_iter().zip(wholes) {
                // Unchanged when it fits, else its first 19 characters and `…`.
                let want = if whole.chars().count() <= 20 {
                    whole.clone()
                } else {
                    cut += 1;
                    whole.chars().take(19).chain(['…']).collect()
                };
                assert_eq!(line, want, "{tool}");
            }
        }
        assert!(cut > 0, "{tool}: no line was long enough to clip");
        // The same items as the plain walk's first page, only shorter.
        let ids = |p: &Value| -> Vec<Value> {
            p["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(identity)
                .collect()
        };
        assert_eq!(ids(&flat), ids(&plain[0]), "{tool}");
        // Its cursor, given without snippet_length, continues exactly as the plain walk.
        let mut rest_args = args.clone();
        rest_args["cursor"] = page["next_cursor"].clone();
        let rest = walk(&client, tool, rest_args, &[10]).await;
        assert_eq!(page_items(&rest), page_items(&plain[1..]), "{tool}");
    }
    client.cancel().await.unwrap();
}

/// `include_snippet=false` leaves only where each item is; `context_lines` on search_symbols
/// and find_references shows the file's own neighbouring lines.
#[tokio::test]
async fn include_snippet_and_context_lines_show_what_the_file_holds() {
    let zoekt =
        support::fixture_zoekt("include_snippet_and_context_lines_show_what_the_file_holds");
    let client = spawn_stdio(&zoekt, &[]).await;
    let r = call(
        &client,
        "search_symbols",
        json!({"query": r"pagerItem\d+", "include_snippet": false, "limit": 100}),
    )
    .await;
    let items = flat_page(&r.structured_content.unwrap())["items"].clone();
    assert_eq!(items.as_array().unwrap().len(), 100);
    for item in items.as_array().unwrap() {
        // No empty fields: a symbol without its line has no text at all.
        assert!(item.get("text").is_none(), "{item}");
        assert!(item["name"].as_str().unwrap().starts_with("pagerItem"));
    }

    let mut files: HashMap<String, Vec<String>> = HashMap::new();
    let mut source = |repo: &str, path: &str| -> Vec<String> {
        files
            .entry(format!("{repo}/{path}"))
            .or_insert_with(|| {
                let p = support::fixtures_corpus().join(repo).join(path);
                std::fs::read_to_string(p)
                    .unwrap()
                    .lines()
                    .map(|l| l.trim_end().to_string())
                    .collect()
            })
            .clone()
    };
    for (tool, args) in [
        (
            "search_symbols",
            json!({"query": r"pagerItem\d+", "context_lines": 2, "limit": 100}),
        ),
        (
            "find_references",
            json!({"symbol": "get", "context_lines": 1, "limit": 100}),
        ),
    ] {
        let r = call(&client, tool, args).await;
        let items = flat_page(&r.structured_content.unwrap())["items"].clone();
        let mut with_context = 0;
        for item in items.as_array().unwrap() {
            let lines = source(
                item["repo"].as_str().unwrap(),
                item["path"].as_str().unwrap(),
            );
            let at = item["line"].as_u64().unwrap() as usize - 1;
            let want = |from: usize, to: usize| -> Vec<String> {
                lines[from..to.min(lines.len())].to_vec()
            };
            let before: Vec<String> =
                serde_json::from_value(item["before"].clone()).unwrap_or_default();
            let after: Vec<String> =
                serde_json::from_value(item["after"].clone()).unwrap_or_default();
            let n = if tool == "search_symbols" { 2 } else { 1 };
            assert_eq!(before, want(at.saturating_sub(n), at), "{tool} {item}");
            assert_eq!(after, want(at + 1, at + 1 + n), "{tool} {item}");
            with_context += usize::from(!before.is_empty() || !after.is_empty());
        }
        assert!(with_context > 0, "{tool}: no item has context");
    }
    for length in [0, 1_001] {
        expect_error(
            &client,
            "search_symbols",
            json!({"query": "x", "snippet_length": length}),
            "INVALID_ARGUMENT",
        )
        .await;
    }
    expect_error(
        &client,
        "find_references",
        json!({"symbol": "get", "context_lines": 11}),
        "INVALID_ARGUMENT",
    )
    .await;
    client.cancel().await.unwrap();
}

/// What the page budget measured for one call, by the library's own form (`form::show`) over
/// a pager with the server's settings: the sizes it says the page has in each form.
struct Measure<'a> {
    tool: &'a str,
    args: Value,
    pager: &'a zoekt_pager::Pager<zoekt_pager::zoekt::ZoektClient>,
    size: Option<std::pin::Pin<Box<dyn std::future::Future<Output = PageSize> + 'a>>>,
}

use zoekt_pager::form::PageSize;
use zoekt_pager::tools::{AnswerTool, PagedTool, ToolVisitor};

impl<'a> ToolVisitor for Measure<'a> {
    fn paged<T: PagedTool>(&mut self) {
        if self.tool != T::NAME {
            return;
        }
        let args: T::Args = serde_json::from_value(self.args.clone()).expect("arguments");
        let pager = self.pager;
        self.size = Some(Box::pin(async move {
            let page = pager.page::<T>(&args).await.expect("page");
            let budget = pager.config().page_chars();
            zoekt_pager::form::show::<T>(T::NAME, &args, page, budget).size
        }));
    }
    fn answer<T: AnswerTool>(&mut self) {}
}

/// The budget measures what is sent: for every page of every paged tool, walked on the
/// generated corpus under a small budget with suggestions on (so pages end early, and first
/// pages carry suggestions), the sizes the page's form measured equal the characters of the
/// text block and of the structured content a real client received, and both fit the budget
/// unless the page holds a single item.
#[tokio::test]
async fn the_budget_measures_what_is_sent() {
    let zoekt = support::big_zoekt("the_budget_measures_what_is_sent");
    const TOKENS: usize = 1_500;
    // A budget this small needs smaller bounds on what one item may show.
    let env = [
        ("ZOEKT_PAGER_MAX_PAGE_TOKENS", "1500"),
        ("ZOEKT_PAGER_MAX_CONTEXT_LINES", "3"),
        ("ZOEKT_PAGER_MAX_SNIPPET_LENGTH", "200"),
        ("ZOEKT_PAGER_SUGGEST_FILTERS", "on"),
    ];
    let client = spawn_stdio(&zoekt, &env).await;
    let cfg = zoekt_pager::PagerConfig {
        max_page_tokens: TOKENS,
        max_context_lines: 3,
        max_snippet_length: 200,
        suggest_filters: true,
        ..zoekt_pager::PagerConfig::default()
    };
    let pager = support::pager_with(&zoekt, cfg);
    let budget = TOKENS * 4;
    let mut walks = support::broad_walks();
    walks.push(("search", json!({"query": "genSym", "context_lines": 3})));
    walks.push((
        "search_symbols",
        json!({"query": "genSym", "context_lines": 2}),
    ));
    let (mut pages, mut capped, mut suggested) = (0, 0, 0);
    for (tool, args) in walks {
        let mut cursor: Option<String> = None;
        for _ in 0..6 {
            let mut a = args.clone();
            a["limit"] = json!(MAX_LIMIT);
            if let Some(c) = &cursor {
                a["cursor"] = json!(c);
            }
            let r = call(&client, tool, a.clone()).await;
            assert_ne!(r.is_error, Some(true), "{tool}: {}", text(&r));
            let sc = r.structured_content.clone().unwrap();
            let sent = PageSize {
                text: text(&r).chars().count(),
                json: json_chars(&sc),
            };
            let mut m = Measure {
                tool,
                args: a.clone(),
                pager: &pager,
                size: None,
            };
            zoekt_pager::tools::visit_all(&mut m);
            let measured = m.size.expect("a paged tool").await;
            assert_eq!(measured, sent, "{tool} {a}: measured against sent");
            let count = flat_page(&sc)["count"].as_u64().unwrap();
            assert!(
                sent.fits(budget) || count == 1,
                "{tool} {a}: {sent:?} over {budget} with {count} items"
            );
            pages += 1;
            capped += usize::from(sc.get("size_capped").is_some());
            suggested += usize::from(sc.get("narrow").is_some());
            cursor = sc
                .get("next_cursor")
                .and_then(Value::as_str)
                .map(String::from);
            if cursor.is_none() {
                break;
            }
        }
    }
    // The walks reached what they are for: pages the budget ended, pages with suggestions.
    eprintln!("{pages} pages, {capped} capped, {suggested} with suggestions");
    assert!(
        capped >= 5 && suggested >= 3,
        "{pages} pages, {capped} capped, {suggested} with suggestions"
    );
    client.cancel().await.unwrap();
}
