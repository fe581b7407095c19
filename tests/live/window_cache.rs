//! The window cache against the real, pinned zoekt-webserver serving the generated 12,000-file
//! corpus in 18 shards (`ZOEKT_PAGER_LIVE_BIG_URL`; without it these tests fail, saying how to
//! start one), through the real `zoekt-pager serve` binary and rmcp's client. The cache must
//! change what a walk costs and nothing else: the pages of a server with the cache off
//! (`--cache-bytes 0`) are the reference, and Zoekt's requests are counted on the wire by a
//! recording proxy in front of it.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use support::mcp::*;
use support::sidecar::{Sidecar, sample};

/// What a model receives: the text block and the structured content.
fn received(r: &CallToolResult) -> Value {
    json!({"text": text(r), "structured": r.structured_content, "error": r.is_error})
}

/// Page sizes 1..=100 from a fixed seed (a plain LCG: the test needs no randomness crate).
fn mixed_limits(seed: u64, n: usize) -> Vec<u32> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32 % 100 + 1
        })
        .collect()
}

/// Walks `tool` on both servers side by side, page for page, for up to `max_items` items,
/// and asserts every page is byte-identical. Returns the number of pages.
async fn same_walk(
    on: &Client,
    off: &Client,
    tool: &str,
    args: &Value,
    limits: &[u32],
    max_items: usize,
) -> usize {
    let mut cursor: Option<String> = None;
    let (mut pages, mut items) = (0, 0);
    loop {
        let mut a = args.clone();
        a["limit"] = json!(limits[pages % limits.len()]);
        if let Some(c) = &cursor {
            a["cursor"] = json!(c);
        }
        let with_cache = received(&call(on, tool, a.clone()).await);
        let without = received(&call(off, tool, a.clone()).await);
        assert_eq!(
            with_cache, without,
            "{tool} {a}: page {pages} differs with the cache on"
        );
        assert_ne!(with_cache["error"], json!(true), "{tool} {a}: {with_cache}");
        let page = &with_cache["structured"];
        items += flat_page(page)["count"].as_u64().expect("count") as usize;
        pages += 1;
        cursor = page["next_cursor"].as_str().map(String::from);
        if cursor.is_none() || items >= max_items {
            return pages;
        }
    }
}

#[tokio::test]
async fn every_page_is_byte_identical_with_the_cache_on_and_off() {
    let url = support::big_zoekt("every_page_is_byte_identical_with_the_cache_on_and_off");
    let on = spawn_stdio(&url, &[CENSUS_AS_LONG_AS_PAGES]).await;
    let off = spawn_stdio(
        &url,
        &[("ZOEKT_PAGER_CACHE_BYTES", "0"), CENSUS_AS_LONG_AS_PAGES],
    )
    .await;
    for (tool, args) in support::broad_walks() {
        for (label, limits) in [
            ("7", vec![7]),
            ("30", vec![30]),
            ("mix", mixed_limits(tool.len() as u64, 40)),
        ] {
            let pages = same_walk(&on, &off, tool, &args, &limits, 300).await;
            eprintln!("{tool} at limit {label}: {pages} identical pages");
            if tool != "list_repos" {
                assert!(pages >= 3, "{tool} at {label}: only {pages} pages");
            }
        }
    }
    on.cancel().await.unwrap();
    off.cancel().await.unwrap();
}

/// The first page of a broad query (`x`: every file, far past the per-shard caps), which
/// Zoekt takes long enough to answer that concurrent calls overlap.
const BROAD: (&str, &str) = ("search", "x");

/// Calls the same first page from every client at once; returns what each received.
async fn concurrent_first_pages(clients: &[Arc<Client>]) -> Vec<Value> {
    let calls: Vec<_> = clients
        .iter()
        .map(|c| {
            let c = Arc::clone(c);
            tokio::spawn(async move {
                received(&call(&c, BROAD.0, json!({"query": BROAD.1, "limit": 30})).await)
            })
        })
        .collect();
    let mut pages = Vec::new();
    for c in calls {
        pages.push(c.await.expect("the call's task"));
    }
    pages
}

#[tokio::test]
async fn sixteen_concurrent_identical_first_pages_make_one_zoekt_request() {
    let url = support::big_zoekt("sixteen_concurrent_identical_first_pages_make_one_zoekt_request");
    for (cache_bytes, expected) in [(None, 1), (Some("0"), 16)] {
        let tap = support::Tap::start(&url).await;
        // Suggestions off: a census makes a broad first page ask more than one window (its
        // census, too big for `x`, then a smaller one), which would blur the count.
        let mut env = vec![
            ("ZOEKT_PAGER_CACHE_PREFETCH", "0"),
            ("ZOEKT_PAGER_SUGGEST_FILTERS", "off"),
            support::OVER_JSON,
        ];
        if let Some(b) = cache_bytes {
            env.push(("ZOEKT_PAGER_CACHE_BYTES", b));
        }
        let sidecar = Sidecar::start(&tap.url(), &env).await;
        let mut clients = Vec::new();
        for _ in 0..16 {
            clients.push(Arc::new(sidecar.client().await));
        }
        tap.new_searches();
        let pages = concurrent_first_pages(&clients).await;
        let searches = tap.new_searches();
        assert_eq!(
            searches.len(),
            expected,
            "cache {cache_bytes:?}: {} requests to Zoekt",
            searches.len()
        );
        assert!(pages.iter().all(|p| *p == pages[0]), "the pages differ");
        assert_eq!(flat_page(&pages[0]["structured"])["count"], json!(30));
    }
}

/// The largest `MaxDocDisplayCount` among request bodies sent to Zoekt.
fn largest_window(searches: &[Value]) -> u64 {
    searches
        .iter()
        .filter_map(|s| s["Opts"]["MaxDocDisplayCount"].as_u64())
        .max()
        .unwrap_or(0)
}

#[tokio::test]
async fn a_walk_of_3000_items_costs_a_handful_of_zoekt_requests() {
    let url = support::big_zoekt("a_walk_of_3000_items_costs_a_handful_of_zoekt_requests");
    let tap = support::Tap::start(&url).await;
    let sidecar = Sidecar::start(&tap.url(), &[support::OVER_JSON]).await;
    let client = sidecar.client().await;
    let (_, before) = sidecar.get("/metrics").await;
    for (tool, args) in support::broad_walks()
        .into_iter()
        .filter(|(t, _)| *t != "list_repos")
    {
        tap.new_searches();
        let pages = walk_to(&client, tool, &args, 30, 3000).await;
        // Background fetches may still be landing: give them a moment, then count all.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let searches = tap.new_searches();
        eprintln!(
            "{tool}: {pages} pages, {} Zoekt requests, largest window {} files",
            searches.len(),
            largest_window(&searches)
        );
        assert_eq!(pages, 100, "{tool}: 3,000 items at 30 a page");
        assert!(
            searches.len() <= 12,
            "{tool}: {} Zoekt requests for 100 pages",
            searches.len()
        );
    }
    let (_, after) = sidecar.get("/metrics").await;
    let hits = "zoekt_pager_cache_hits_total";
    assert!(
        sample(&after, hits) - sample(&before, hits) >= 400.0,
        "{after}"
    );
    // Most pages made no request at all.
    let cached = r#"zoekt_pager_zoekt_requests_per_page_bucket{le="0.0",tool="search_symbols"}"#;
    assert!(sample(&after, cached) >= 90.0, "{after}");
    client.cancel().await.unwrap();
}

/// Walks `tool` at `limit` until `max_items` items or the end; returns the number of pages.
async fn walk_to(client: &Client, tool: &str, args: &Value, limit: u32, max_items: usize) -> usize {
    let mut cursor: Option<String> = None;
    let (mut pages, mut items) = (0, 0);
    loop {
        let mut a = args.clone();
        a["limit"] = json!(limit);
        if let Some(c) = &cursor {
            a["cursor"] = json!(c);
        }
        let r = call(client, tool, a.clone()).await;
        assert_ne!(r.is_error, Some(true), "{tool} {a}: {}", text(&r));
        let page = r.structured_content.expect("structured content");
        items += flat_page(&page)["count"].as_u64().unwrap() as usize;
        pages += 1;
        cursor = page["next_cursor"].as_str().map(String::from);
        if cursor.is_none() || items >= max_items {
            return pages;
        }
    }
}
