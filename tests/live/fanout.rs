//! One index partitioned over three real zoekt-webservers (scripts/test.sh deals the shards of
//! the fixture index and of the tie index into three folders, one webserver each:
//! `ZOEKT_PAGER_LIVE_SPLIT_URLS`, `ZOEKT_PAGER_LIVE_SPLIT_TIES_URLS`) against the one webserver
//! holding all of it, through the real `zoekt-pager serve` binary: every paged tool's pages
//! must be the same, item for item and field for field (cursors aside), and so must the
//! counts. Then one of the three is stopped in the middle of a walk and started again.

use crate::support;

use serde_json::{Value, json};

use support::mcp::*;

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

#[tokio::test]
async fn a_stopped_backend_is_named_the_total_is_not_exact_and_the_walk_resumes() {
    let test = "a_stopped_backend_is_named_the_total_is_not_exact_and_the_walk_resumes";
    let urls = split("ZOEKT_PAGER_LIVE_SPLIT_URLS", test);
    let kept: Vec<&str> = urls.split(',').take(2).collect();
    // The third partition again, served by a webserver of this test's own, which it stops.
    let port: u16 = support::live_url("ZOEKT_PAGER_LIVE_SPLIT_RESTART_PORT", test)
        .parse()
        .expect("a port");
    let own = support::OwnWebserver::at(port, "ZOEKT_PAGER_LIVE_SPLIT_INDEX_DIR", test);
    let mut running = Some(own.start());
    own.wait_ready().await;
    let backends = format!("{},{},{}", kept[0], kept[1], own.url());
    // Without the window cache every page asks the backends again (with it, the next pages
    // may come from the answer fetched while all three were up, which is right but tests
    // nothing here).
    let env = [
        ("ZOEKT_PAGER_TIMEOUT_MS", "2000"),
        ("ZOEKT_PAGER_RETRIES", "0"),
        ("ZOEKT_PAGER_CACHE_BYTES", "0"),
    ];
    let three = spawn_stdio(&backends, &env).await;
    // The same, for an operator who wants every backend or no page.
    let required = [
        env.as_slice(),
        &[("ZOEKT_PAGER_REQUIRE_ALL_BACKENDS", "true")],
    ]
    .concat();
    let strict = spawn_stdio(&backends, &required).await;
    let one = spawn_stdio(&support::fixture_zoekt(test), &[]).await;
    // The operator's view of the same three backends: a sidecar over HTTP.
    let sidecar = support::sidecar::Sidecar::start(
        &backends,
        &[
            ("ZOEKT_PAGER_READY_TIMEOUT_MS", "2000"),
            ("ZOEKT_PAGER_TIMEOUT_MS", "2000"),
        ],
    )
    .await;
    let (status, body) = sidecar.get("/readyz").await;
    assert_eq!(status, 200, "{body}");
    let args = json!({"query": "e", "limit": 10});
    let everything = {
        let mut a = args.clone();
        a["limit"] = json!(100);
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut a = a.clone();
            if let Some(c) = &cursor {
                a["cursor"] = json!(c);
            }
            let r = call(&one, "files_with_matches", a).await;
            all.extend(items(&comparable(&r)));
            cursor = r.structured_content.unwrap()["next_cursor"]
                .as_str()
                .map(String::from);
            if cursor.is_none() {
                break all;
            }
        }
    };
    // A file only the third webserver holds (raw Zoekt says which): read while all are up.
    let held = support::oracle::files(&own.url(), "f:.")
        .await
        .into_iter()
        .next()
        .expect("a file on the third webserver");
    let read = json!({"repo": held.repo, "path": held.path, "end_line": 1});
    let r = call(&three, "read_file", read.clone()).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    // Page 1 with all three up.
    let r = call(&three, "files_with_matches", args.clone()).await;
    let first = comparable(&r);
    assert_eq!(first.get("warnings"), None, "{first}");
    let mut seen = items(&first);
    let mut cursor = r.structured_content.unwrap()["next_cursor"]
        .as_str()
        .map(String::from);
    // Stopped: the page names it, says results are missing, and its total is not exact.
    drop(running.take());
    let mut a = args.clone();
    a["cursor"] = json!(cursor.clone().unwrap());
    let r = call(&three, "files_with_matches", a).await;
    let down = comparable(&r);
    let warnings = down["warnings"].to_string();
    assert!(
        warnings.contains(&own.url()) && warnings.contains("missing"),
        "{down}"
    );
    assert!(!warnings.contains(kept[0]) && !warnings.contains(kept[1]));
    // /readyz and `health` name the stopped backend, and only it.
    let (status, body) = sidecar.get("/readyz").await;
    assert_eq!(status, 503, "{body}");
    assert!(
        body.contains("1 of 3 backends not ready") && body.contains(&own.url()),
        "{body}"
    );
    assert!(!body.contains(kept[0]) && !body.contains(kept[1]), "{body}");
    // Its metrics time each webserver under its own label, the stopped one's failure too.
    let (_, metrics) = sidecar.get("/metrics").await;
    for url in [kept[0], kept[1], own.url().as_str()] {
        assert!(
            metrics.contains(&format!("backend=\"{url}\"")),
            "{url}: {metrics}"
        );
    }
    assert!(
        metrics
            .lines()
            .any(|l| l.contains(&format!("backend=\"{}\"", own.url()))
                && l.contains("outcome=\"unreachable\"")),
        "{metrics}"
    );
    let health = call(&three, "health", json!({})).await;
    let report = health.structured_content.clone().expect("health report");
    assert_eq!(report["ready"], json!(false), "{report}");
    assert!(
        report["detail"].as_str().unwrap().contains(&own.url()),
        "{report}"
    );
    // Its counts leave the stopped one's repositories out, and say so.
    let said = report["warnings"].to_string();
    assert!(
        said.contains(&own.url()) && said.contains("not counted"),
        "{report}"
    );
    // Its file is not "no such file": the backend that may hold it is named.
    let refused = expect_error(&three, "read_file", read.clone(), "BACKEND_UNAVAILABLE").await;
    assert!(refused.contains(&own.url()), "{refused}");
    // Required: no page, and the error names the stopped one.
    let refused = expect_error(
        &strict,
        "files_with_matches",
        args.clone(),
        "BACKEND_UNAVAILABLE",
    )
    .await;
    assert!(refused.contains(&own.url()), "{refused}");
    // The repositories: listed from the others, named short, and counted as an estimate;
    // the stopped one's repository is not "no such repository".
    let repos = comparable(&call(&three, "list_repos", json!({})).await);
    assert!(
        repos["warnings"].to_string().contains(&own.url())
            && repos.get("total").is_none()
            && repos.get("total_estimate").is_some(),
        "{repos}"
    );
    let listed = three.list_resources(None).await.expect("resources/list");
    let meta = json!(listed.meta);
    assert!(
        meta["zoekt-pager/warnings"]
            .to_string()
            .contains(&own.url()),
        "{meta}"
    );
    assert_eq!(listed.ttl_ms, Some(0));
    let repo_uri = format!("zoekt://{}/", held.repo);
    let refused = three
        .read_resource(rmcp::model::ReadResourceRequestParams::new(&repo_uri))
        .await
        .expect_err("the stopped backend's repository");
    assert!(
        refused.to_string().contains(&own.url())
            && refused.to_string().contains("BACKEND_UNAVAILABLE"),
        "{refused}"
    );
    // A page of lines is served from the others, warning alike.
    let lines = comparable(&call(&three, "search", json!({"query": "e", "limit": 7})).await);
    assert!(
        lines["warnings"].to_string().contains(&own.url()) && lines.get("total").is_none(),
        "{lines}"
    );
    // An estimate is named so: `total_estimate`, never `total`.
    assert!(
        down.get("total_estimate").is_some() && down.get("total").is_none(),
        "{down}"
    );
    seen.extend(items(&down));
    cursor = r.structured_content.unwrap()["next_cursor"]
        .as_str()
        .map(String::from);
    // Back again: the walk goes on to the end, without an item twice.
    running = Some(own.start());
    own.wait_ready().await;
    let mut ready = (0, String::new());
    for _ in 0..100 {
        ready = sidecar.get("/readyz").await;
        if ready.0 == 200 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(ready.0, 200, "/readyz after the restart: {}", ready.1);
    let r = call(&three, "read_file", read).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let listed = three.list_resources(None).await.expect("resources/list");
    assert_eq!((listed.meta, listed.ttl_ms), (None, None));
    let r = call(&strict, "files_with_matches", args.clone()).await;
    assert_eq!(comparable(&r), first, "required, all back");
    while let Some(c) = cursor {
        let mut a = args.clone();
        a["cursor"] = json!(c);
        let r = call(&three, "files_with_matches", a).await;
        let p = comparable(&r);
        assert!(!p["warnings"].to_string().contains(&own.url()), "{p}");
        seen.extend(items(&p));
        cursor = r.structured_content.unwrap()["next_cursor"]
            .as_str()
            .map(String::from);
    }
    let unique: std::collections::HashSet<&Value> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "an item served twice");
    // Everything after the last item served while it was down is there, in order.
    let last_down = seen[..(items(&first).len() + items(&down).len())]
        .last()
        .expect("items while down")
        .clone();
    let at = everything
        .iter()
        .position(|i| *i == last_down)
        .expect("the item is in the full walk");
    let after: Vec<&Value> = seen[items(&first).len() + items(&down).len()..]
        .iter()
        .collect();
    let expected: Vec<&Value> = everything[at + 1..].iter().collect();
    assert_eq!(after, expected);
    drop(running);
    three.cancel().await.unwrap();
    strict.cancel().await.unwrap();
    one.cancel().await.unwrap();
}

/// A webserver that hangs (a real Zoekt cannot be made to on demand: a proxy in front of
/// the third partition stalls every request). The first page waits out the timeout once and
/// is served from the two others with a warning; the pages after it do not ask it again
/// (it rests), so the walk goes on at once, and it holds every file of the two others
/// (raw Zoekt says which) once.
#[tokio::test]
async fn a_hung_backend_is_waited_for_once_and_the_walk_goes_on_without_it() {
    let test = "a_hung_backend_is_waited_for_once_and_the_walk_goes_on_without_it";
    let (answering, hung, three) = third_hung(
        test,
        &[
            // Zoekt ends a search within its wall time, below the request timeout: only
            // then is a timeout a webserver that does not answer, and left out.
            ("ZOEKT_PAGER_MAX_WALL_TIME_MS", "400"),
            ("ZOEKT_PAGER_TIMEOUT_MS", "500"),
            ("ZOEKT_PAGER_RETRIES", "0"),
            ("ZOEKT_PAGER_CACHE_BYTES", "0"),
            // The stalling proxy speaks HTTP/1 and counts JSON searches: over JSON in both
            // passes of the suite.
            ("ZOEKT_PAGER_ZOEKT_TRANSPORT", "json"),
        ],
    )
    .await;
    let pages = walk(&three, "files_with_matches", json!({"query": "e"}), &[7]).await;
    assert!(pages.len() > 2, "a walk of several pages: {}", pages.len());
    for page in &pages {
        let said = page["warnings"].to_string();
        assert!(
            said.contains(&hung.url()) && said.contains("missing"),
            "{page}"
        );
        assert_eq!(page["total"]["exact"], json!(false), "{page}");
    }
    assert_eq!(hung.searches(), 1, "asked once, then left out");
    let got: Vec<(String, String)> = page_items(&pages)
        .iter()
        .map(|i| {
            let field = |k: &str| i[k].as_str().unwrap_or_default().to_string();
            (field("repo"), field("path"))
        })
        .collect();
    let mut expected = std::collections::BTreeSet::new();
    for url in &answering {
        for f in support::oracle::files(url, "e").await {
            expected.insert((f.repo, f.path));
        }
    }
    assert_eq!(got.len(), expected.len(), "each file once: {got:?}");
    assert_eq!(
        got.into_iter().collect::<std::collections::BTreeSet<_>>(),
        expected
    );
    three.cancel().await.unwrap();
}

/// `health` with one webserver hung (it takes requests and never answers): the report comes
/// within the wait for readiness and the listing's wall time, long before the request
/// timeout, says not ready, and names the hung webserver; the others' repositories are
/// counted.
#[tokio::test]
async fn health_with_a_hung_backend_names_it_without_waiting_for_the_request_timeout() {
    let test = "health_with_a_hung_backend_names_it_without_waiting_for_the_request_timeout";
    let (answering, hung, three) = third_hung(
        test,
        &[
            ("ZOEKT_PAGER_MAX_WALL_TIME_MS", "1000"),
            ("ZOEKT_PAGER_TIMEOUT_MS", "60000"),
            ("ZOEKT_PAGER_RETRIES", "0"),
        ],
    )
    .await;
    let started = std::time::Instant::now();
    let r = call(&three, "health", json!({})).await;
    let waited = started.elapsed();
    // Readiness (at most 3 s) and the listing (its 1 s wall time), asked together: far below
    // the 60 s the request timeout would have held the call for.
    assert!(
        waited < std::time::Duration::from_secs(10),
        "health waited {waited:?}"
    );
    let report = r.structured_content.clone().expect("structured content");
    assert_eq!(report["ready"], json!(false), "{report}");
    let detail = report["detail"].as_str().unwrap_or_default();
    assert!(detail.contains(&hung.url()), "{report}");
    let warnings = report["warnings"].to_string();
    assert!(
        warnings.contains(&hung.url()) && warnings.contains("did not answer"),
        "{report}"
    );
    // The two that answered: their repositories, as raw Zoekt lists them.
    let mut expected = 0;
    for url in &answering {
        expected += support::client(url)
            .list("", std::time::Duration::from_secs(10))
            .await
            .expect("raw /api/list")
            .repos
            .len();
    }
    assert_eq!(report["repos"], json!(expected), "{report}");
    three.cancel().await.unwrap();
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
