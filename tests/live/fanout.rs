//! One index partitioned over three real zoekt-webservers (scripts/test.sh deals the shards of
//! the fixture index and of the tie index into three folders, one webserver each:
//! `ZOEKT_PAGER_LIVE_SPLIT_URLS`, `ZOEKT_PAGER_LIVE_SPLIT_TIES_URLS`) against the one webserver
//! holding all of it, through the real `zoekt-pager serve` binary: every paged tool's pages
//! must be the same, item for item and field for field (cursors aside), and so must the
//! counts. Then one of the three is stopped in the middle of a walk and started again.

use crate::support;

use serde_json::{Value, json};

use support::mcp::*;

mod failures;

/// The three URLs (comma-separated) of the partitioned index `var` names.
fn split(var: &str, test: &str) -> String {
    let urls = support::live_url(var, test);
    assert_eq!(urls.split(',').count(), 3, "{var}={urls}");
    urls
}

/// The split fixture index with its third webserver behind a proxy that stalls every
/// request (a webserver that hangs: a real Zoekt cannot be made to on demand), and a stdio
/// server over the three with `env`: the two others' URLs, the proxy, the server.
async fn third_hung(
    test: &str,
    env: &[(&str, &str)],
) -> (Vec<String>, support::faults::FaultProxy, Client) {
    let urls = split("ZOEKT_PAGER_LIVE_SPLIT_URLS", test);
    let parts: Vec<String> = urls.split(',').map(String::from).collect();
    let hung = support::faults::FaultProxy::start(&parts[2]).await;
    hung.set_stalled(true);
    let server = spawn_stdio(&format!("{},{},{}", parts[0], parts[1], hung.url()), env).await;
    (parts[..2].to_vec(), hung, server)
}

/// A page's structured content without what may differ between the two servers (the
/// cursor, and the footer quoting it).
fn comparable(r: &rmcp::model::CallToolResult) -> Value {
    assert_ne!(r.is_error, Some(true), "{}", text(r));
    let mut page = r.structured_content.clone().expect("structured content");
    let obj = page.as_object_mut().expect("object");
    obj.remove("next_cursor");
    obj.remove("next");
    page
}

/// Page sizes 1..=100 from a fixed seed.
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

/// Walks `tool` on both servers, each with its own cursors, and asserts every page is the
/// same. Returns (pages, items).
async fn same_walk(
    one: &Client,
    three: &Client,
    tool: &str,
    args: &Value,
    limits: &[u32],
) -> (usize, usize) {
    let (mut c1, mut c3): (Option<String>, Option<String>) = (None, None);
    let (mut pages, mut items) = (0, 0);
    loop {
        let mut a = args.clone();
        a["limit"] = json!(limits[pages % limits.len()]);
        let (mut a1, mut a3) = (a.clone(), a);
        if let Some(c) = &c1 {
            a1["cursor"] = json!(c);
        }
        if let Some(c) = &c3 {
            a3["cursor"] = json!(c);
        }
        let r1 = call(one, tool, a1).await;
        let r3 = call(three, tool, a3).await;
        let (p1, p3) = (comparable(&r1), comparable(&r3));
        assert_eq!(p1, p3, "{tool} {args} page {} ({limits:?})", pages + 1);
        items += flat_page(&p1)["count"].as_u64().unwrap_or(0) as usize;
        pages += 1;
        let next = |r: &rmcp::model::CallToolResult| {
            r.structured_content.as_ref().unwrap()["next_cursor"]
                .as_str()
                .map(String::from)
        };
        (c1, c3) = (next(&r1), next(&r3));
        assert_eq!(c1.is_some(), c3.is_some());
        if c1.is_none() {
            return (pages, items);
        }
        assert!(pages < 2_000, "runaway walk");
    }
}

fn walks() -> Vec<(&'static str, Value)> {
    vec![
        ("search_symbols", json!({"query": "pagerItem"})),
        ("search_symbols", json!({"query": "."})),
        ("search_files", json!({"query": "."})),
        ("find_references", json!({"symbol": "get"})),
        (
            "search",
            json!({"query": r"pagerItem\d+", "context_lines": 1}),
        ),
        ("search", json!({"query": "e"})),
        ("files_with_matches", json!({"query": "e"})),
        ("list_repos", json!({})),
        (
            "outline_file",
            json!({"repo": "alpha-rs", "path": "src/registry.rs"}),
        ),
    ]
}

async fn pages_match(one_url: &str, three_urls: &str, walks: &[(&str, Value)]) {
    let one = spawn_stdio(one_url, &[CENSUS_AS_LONG_AS_PAGES]).await;
    let three = spawn_stdio(three_urls, &[CENSUS_AS_LONG_AS_PAGES]).await;
    for (tool, args) in walks {
        for (label, limits) in [
            ("7", vec![7]),
            ("30", vec![30]),
            ("100", vec![100]),
            ("mix", mixed_limits(tool.len() as u64 + 11, 50)),
        ] {
            let (pages, items) = same_walk(&one, &three, tool, args, &limits).await;
            eprintln!("{tool} {args} at limit {label}: {pages} identical pages, {items} items");
            assert!(items > 0, "{tool} {args}: nothing to compare");
        }
        let mut count = args.clone();
        count["count_only"] = json!(true);
        let (c1, c3) = (
            comparable(&call(&one, tool, count.clone()).await),
            comparable(&call(&three, tool, count).await),
        );
        assert_eq!(c1, c3, "{tool} {args} count_only");
        assert_eq!(c1.get("total_estimate"), None, "{tool} {args}: {c1}");
    }
    one.cancel().await.unwrap();
    three.cancel().await.unwrap();
}

#[tokio::test]
async fn three_webservers_holding_a_split_index_page_as_one_holding_it_all() {
    let test = "three_webservers_holding_a_split_index_page_as_one_holding_it_all";
    let one = support::fixture_zoekt(test);
    let three = split("ZOEKT_PAGER_LIVE_SPLIT_URLS", test);
    pages_match(&one, &three, &walks()).await;
}

/// Every resource of a server: the repositories, through every page of `resources/list`.
async fn all_resources(client: &Client) -> Vec<Value> {
    use rmcp::model::PaginatedRequestParams;
    let mut out = Vec::new();
    let mut cursor = None;
    loop {
        let r = client
            .list_resources(Some(PaginatedRequestParams::default().with_cursor(cursor)))
            .await
            .expect("resources/list");
        out.extend(r.resources.iter().map(|x| json!(x)));
        cursor = r.next_cursor;
        if cursor.is_none() {
            return out;
        }
    }
}

/// What `resources/read` gives for `uri`: its contents, or the error's code.
async fn read_resource(client: &Client, uri: &str) -> Value {
    use rmcp::model::ReadResourceRequestParams;
    match client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
    {
        Ok(r) => json!(r.contents),
        Err(rmcp::ServiceError::McpError(e)) => json!({"error": e.code.0}),
        Err(e) => panic!("{uri}: {e}"),
    }
}

/// The MCP resources (a resource per repository, a file by template) over the three
/// webservers are those over the one holding everything: the same repositories listed, and
/// every file of the corpus (raw Zoekt lists them) read the same, wherever it is served.
#[tokio::test]
async fn resources_over_three_webservers_are_those_over_one() {
    let test = "resources_over_three_webservers_are_those_over_one";
    let one_url = support::fixture_zoekt(test);
    let (one, three) = (
        spawn_stdio(&one_url, &[("ZOEKT_PAGER_DEFAULT_LIMIT", "2")]).await,
        spawn_stdio(
            &split("ZOEKT_PAGER_LIVE_SPLIT_URLS", test),
            &[("ZOEKT_PAGER_DEFAULT_LIMIT", "2")],
        )
        .await,
    );
    let listed = all_resources(&one).await;
    assert!(
        listed.len() > 2,
        "several pages of repositories: {listed:?}"
    );
    assert_eq!(all_resources(&three).await, listed);
    let files = support::oracle::files(&one_url, "f:.").await;
    assert!(files.len() > 20, "{} files", files.len());
    let mut repos = std::collections::BTreeSet::new();
    for f in &files {
        let repo = uri_segment(&f.repo);
        repos.insert(repo.clone());
        let uri = format!("zoekt://{repo}/{}", f.path);
        let read = read_resource(&one, &uri).await;
        assert!(read.get("error").is_none(), "{uri}: {read}");
        assert_eq!(read_resource(&three, &uri).await, read, "{uri}");
    }
    for repo in repos {
        let uri = format!("zoekt://{repo}/");
        assert_eq!(
            read_resource(&three, &uri).await,
            read_resource(&one, &uri).await,
            "{uri}"
        );
    }
    let missing = "zoekt://beta-go/no/such.go";
    assert_eq!(
        read_resource(&three, missing).await,
        read_resource(&one, missing).await
    );
    one.cancel().await.unwrap();
    three.cancel().await.unwrap();
}

/// A repository name as one URI segment (the fixture names need no escapes: checked).
fn uri_segment(repo: &str) -> String {
    assert!(
        repo.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._~".contains(c)),
        "{repo} needs escaping"
    );
    repo.to_string()
}

#[tokio::test]
async fn ties_spread_over_three_webservers_page_as_on_one() {
    // 40 identical repositories: their copies of one file tie exactly, now across servers.
    let test = "ties_spread_over_three_webservers_page_as_on_one";
    let one = support::ties_zoekt(test);
    let three = split("ZOEKT_PAGER_LIVE_SPLIT_TIES_URLS", test);
    let walks = [
        ("search_files", json!({"query": "."})),
        ("search", json!({"query": "tieLineProbe"})),
        (
            "files_with_matches",
            json!({"query": "repository or ieHelper"}),
        ),
        ("list_repos", json!({})),
    ];
    pages_match(&one, &three, &walks).await;
}

/// One repository served by two backends (the whole fixture index on one webserver, and one
/// third of it again on another): the listing warns, naming each such repository and both
/// backends, and counts it once; pages and totals are those of the whole index alone.
#[tokio::test]
async fn a_repository_served_by_two_backends_is_reported_and_counted_once() {
    let test = "a_repository_served_by_two_backends_is_reported_and_counted_once";
    let whole = support::fixture_zoekt(test);
    let third = split("ZOEKT_PAGER_LIVE_SPLIT_URLS", test)
        .split(',')
        .next()
        .unwrap()
        .to_string();
    // What raw Zoekt says each holds.
    let names = async |url: &str| -> std::collections::BTreeSet<String> {
        support::client(url)
            .list("", std::time::Duration::from_secs(10))
            .await
            .expect("raw /api/list")
            .repos
            .into_iter()
            .map(|r| r.repository.name)
            .collect()
    };
    let (all, twice) = (names(&whole).await, names(&third).await);
    assert!(!twice.is_empty() && twice.is_subset(&all));
    let one = spawn_stdio(&whole, &[]).await;
    let both = spawn_stdio(&format!("{whole},{third}"), &[]).await;

    let r = call(&both, "list_repos", json!({"limit": 100})).await;
    let page = r.structured_content.clone().expect("structured content");
    let listed: Vec<String> = items(&page)
        .iter()
        .map(|i| i["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed.len(), all.len(), "each repository once: {page}");
    assert_eq!(
        listed
            .iter()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>(),
        all
    );
    assert_eq!(page["total"], json!(all.len()), "{page}");
    let warnings: Vec<&str> = page["warnings"]
        .as_array()
        .map(|w| w.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for name in &twice {
        assert!(
            warnings.iter().any(|w| w
                .contains(&format!("repository {name} is served by two backends"))
                && w.contains(&whole)
                && w.contains(&third)),
            "no warning names {name}: {page}"
        );
    }
    for name in all.difference(&twice) {
        assert!(
            !warnings
                .iter()
                .any(|w| w.contains(&format!("repository {name} "))),
            "{name} is served once: {page}"
        );
    }

    // `health` counts them once too, and warns alike; one webserver alone has no warnings.
    let report = call(&both, "health", json!({}))
        .await
        .structured_content
        .expect("health report");
    assert_eq!(report["repos"], json!(all.len()), "{report}");
    for name in &twice {
        assert!(
            report["warnings"]
                .to_string()
                .contains(&format!("repository {name} is served by two backends")),
            "{report}"
        );
    }
    let alone = call(&one, "health", json!({})).await.structured_content;
    assert_eq!(alone.expect("health report").get("warnings"), None);

    // Searches: every file once, as on the whole index alone, with the same totals.
    for (tool, args) in [
        ("search_files", json!({"query": "."})),
        ("files_with_matches", json!({"query": "e"})),
        ("search_symbols", json!({"query": "."})),
    ] {
        let expected = walk(&one, tool, args.clone(), &[30]).await;
        let got = walk(&both, tool, args.clone(), &[30]).await;
        let (e, g) = (page_items(&expected), page_items(&got));
        assert_eq!(unique(&g), g.len(), "{tool} {args}: an item twice");
        assert_eq!(g, e, "{tool} {args}: items");
        // Met on some page of the walk (by its end both backends have returned every file):
        // the warning names the two backends.
        let shared = got
            .iter()
            .flat_map(|p| p["warnings"].as_array().cloned().unwrap_or_default())
            .filter_map(|w| w.as_str().map(String::from))
            .find(|w| w.contains("returned the same files"))
            .unwrap_or_else(|| panic!("{tool} {args}: no page warns of the shared files"));
        assert!(
            shared.contains(&whole) && shared.contains(&third),
            "{shared}"
        );
        // An exact total is the whole index's; an estimate is never less (a copy not
        // returned may still be counted, as the warning says).
        let check = |got: &Value, expected: &Value, what: &str| {
            assert_eq!(got["exact"], expected["exact"], "{tool} {args} {what}");
            if expected["exact"] == json!(true) {
                assert_eq!(got["value"], expected["value"], "{tool} {args} {what}");
            } else {
                assert!(
                    got["value"].as_u64() >= expected["value"].as_u64(),
                    "{tool} {args} {what}: {got} {expected}"
                );
            }
        };
        for (g, e) in got.iter().zip(&expected) {
            check(&g["total"], &e["total"], "page total");
        }
        let mut count = args.clone();
        count["count_only"] = json!(true);
        let total = |r: rmcp::model::CallToolResult| {
            flat_page(&r.structured_content.expect("structured content"))["total"].clone()
        };
        check(
            &total(call(&both, tool, count.clone()).await),
            &total(call(&one, tool, count).await),
            "count_only",
        );
    }
    one.cancel().await.unwrap();
    both.cancel().await.unwrap();
}

/// The items of a structured page, each flat.
fn items(page: &Value) -> Vec<Value> {
    flat_page(page)["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}
