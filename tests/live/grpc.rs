//! Zoekt's gRPC API against its JSON API, on the real zoekt-webserver serving the fixture
//! corpus (`ZOEKT_PAGER_LIVE_URL`) and the tie corpus (`ZOEKT_PAGER_LIVE_TIES_URL`): the same
//! files and matches for every query the tools build from the scenarios' inputs, the fuzz
//! seeds and the query forms of the tools themselves; the same pages item for item for every
//! tool over MCP; and a webserver started without `-rpc` (no JSON API at all) serving pages
//! over gRPC. The expected answer is always the JSON API's, which Zoekt parses itself.

use crate::support;

use std::collections::BTreeSet;

use serde_json::{Value, json};
use support::mcp::*;
use zoekt_pager::Effort;
use zoekt_pager::backend::{Backend, FileSearch, RankedFile, RankedFiles, Shape};
use zoekt_pager::zoekt::grpc::query::{Parsed, parse};
use zoekt_pager::zoekt::{ClientOptions, Wire, ZoektClient};

fn client(url: &str, wire: Wire) -> ZoektClient {
    let opts = ClientOptions {
        zoekt_transport: wire,
        ..ClientOptions::default()
    };
    ZoektClient::new(url, opts).expect("client")
}

/// Tool inputs: the scenarios' queries and symbols, the query fuzz seeds, and forms a model
/// types (filters, quotes, `or`, negation, `case:`, regular expressions).
fn inputs() -> Vec<String> {
    let root = support::repo_root();
    let mut out = BTreeSet::new();
    let quoted = regex::Regex::new(r#"(?:query|symbol) = '([^']*)'"#).unwrap();
    for entry in std::fs::read_dir(root.join("fixtures/scenarios")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for c in quoted.captures_iter(&text) {
            out.insert(c[1].to_string());
        }
    }
    for entry in std::fs::read_dir(root.join("fuzz/corpus/query")).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        out.insert(String::from_utf8_lossy(&bytes).into_owned());
    }
    for q in [
        "pagerLineMark",
        "pagerlinemark",
        // Upper case makes a word case-sensitive (case:auto): none of these is in the corpus
        // as written, all of them are in another case.
        "PAGERLINEMARK",
        "PagerLineMark",
        "GET",
        "Pager.*Mark",
        "\\wAGER",
        "PagerLineMark case:no",
        "case:yes pagerLineMark",
        "\"func main\"",
        "func main",
        "fn.*main",
        "^func",
        "lang:go func",
        "lang:Python def",
        "file:\\.go$ func",
        "-file:test func",
        "func or def",
        "( func or def ) lang:go",
        "repo:fixture func",
        "sym:Handler",
        "sym:^New",
        "\\bNew\\w*",
        "type:file func",
        "branch:main func",
        "x",
        ".",
        // A file named exactly, as `read_file` and `outline_file` name it: every ASCII mark
        // escaped with a backslash, a space and `_` too (Go reads each as itself).
        r"case:yes repo:^alpha\-rs$ file:^src/registry\.rs$",
        r"case:yes r:^alpha\-rs$ f:^src/registry\.rs$ (sym:. or f:^src/registry\.rs$)",
        r"Registry\ \{",
        r"slot\_count",
    ] {
        out.insert(q.to_string());
    }
    out.into_iter().collect()
}

/// Every Zoekt query the tools build from `input` (each tool's own form).
fn zoekt_queries(input: &str) -> Vec<String> {
    use zoekt_pager::zoekt::query::*;
    let mut out = Vec::new();
    out.extend(search_query(input).ok());
    out.extend(symbols_query(input).ok());
    out.extend(files_query(input).ok());
    if let Ok(r) = references_queries(input, "") {
        out.push(r.definitions);
        out.push(r.usages);
    }
    out
}

/// An answer with Zoekt's unstable order among equal scores taken out: files by identity.
fn normalized(mut answer: RankedFiles) -> (u64, u64, Vec<RankedFile>) {
    for f in &mut answer.files {
        for line in &mut f.lines {
            // Protobuf cannot tell an empty context from none.
            line.before = line.before.take().filter(|b| !b.is_empty());
            line.after = line.after.take().filter(|a| !a.is_empty());
        }
    }
    answer
        .files
        .sort_by(|a, b| (&a.repo, &a.path, &a.branches).cmp(&(&b.repo, &b.path, &b.branches)));
    (
        answer.stats.file_count,
        answer.stats.match_count,
        answer.files,
    )
}

#[tokio::test]
async fn every_query_finds_the_same_files_and_matches_over_grpc_and_json() {
    let test = "every_query_finds_the_same_files_and_matches_over_grpc_and_json";
    let mut over_grpc = 0;
    let mut compared = 0;
    let mut unsure = Vec::new();
    for url in [support::fixture_zoekt(test), support::ties_zoekt(test)] {
        let json = client(&url, Wire::Json);
        let grpc = client(&url, Wire::Grpc);
        for input in inputs() {
            for q in zoekt_queries(&input) {
                for context_lines in [0, 2] {
                    let search = FileSearch {
                        query: q.clone(),
                        effort: Effort::default(),
                        max_files: 0,
                        context_lines,
                        shape: Shape::Lines,
                    };
                    let (a, b) = (
                        Backend::search(&json, &search).await,
                        Backend::search(&grpc, &search).await,
                    );
                    compared += 1;
                    match parse(&q) {
                        Parsed::Tree(_) => over_grpc += 1,
                        Parsed::Unsure(why) => unsure.push(format!("{q:?}: {why}")),
                    }
                    match (a, b) {
                        (Ok(a), Ok(b)) => {
                            assert_eq!(normalized(a), normalized(b), "{q:?} at {url}");
                        }
                        (Err(a), Err(b)) => assert_eq!(a.kind, b.kind, "{q:?}: {a} / {b}"),
                        (a, b) => panic!("{q:?} at {url}: JSON {a:?}, gRPC {b:?}"),
                    }
                }
            }
        }
    }
    eprintln!("{compared} searches compared, {over_grpc} over gRPC; left to JSON: {unsure:#?}");
    // Most queries go over gRPC: the parser leaves only the rare forms to Zoekt.
    assert!(over_grpc * 10 >= compared * 8, "{over_grpc} of {compared}");
}

/// Every tool's walk over MCP, page for page the same with `--zoekt-transport grpc` as with
/// `json`: on one webserver, and over the fixture index split across three (a fan-out).
#[tokio::test]
async fn every_tool_pages_the_same_over_grpc_and_json() {
    let test = "every_tool_pages_the_same_over_grpc_and_json";
    for url in [
        support::fixture_zoekt(test),
        support::live_url("ZOEKT_PAGER_LIVE_SPLIT_URLS", test),
    ] {
        same_pages_over_both(&url).await;
    }
}

async fn same_pages_over_both(url: &str) {
    let json_client = spawn_stdio(url, &[("ZOEKT_PAGER_ZOEKT_TRANSPORT", "json")]).await;
    let grpc_client = spawn_stdio(url, &[("ZOEKT_PAGER_ZOEKT_TRANSPORT", "grpc")]).await;
    let walks = [
        ("search_symbols", json!({"query": "pagerItem"})),
        ("search_files", json!({"query": "widgetry"})),
        ("find_references", json!({"symbol": "get"})),
        (
            "search",
            json!({"query": "pagerLineMark", "context_lines": 2}),
        ),
        ("files_with_matches", json!({"query": "pagerLineMark"})),
        ("search", json!({"query": "case:yes func lang:go"})),
    ];
    for (tool, args) in walks {
        // The walk goes over gRPC, not over the JSON fallback: every query the tools build
        // from its input is one the parser reads.
        let input = args["query"].as_str().or(args["symbol"].as_str()).unwrap();
        for q in zoekt_queries(input) {
            assert!(
                matches!(parse(&q), Parsed::Tree(_)),
                "{q:?} would go over JSON"
            );
        }
        for limits in [&[7u32][..], &[30]] {
            let a = walk(&json_client, tool, args.clone(), limits).await;
            let b = walk(&grpc_client, tool, args.clone(), limits).await;
            let strip = |pages: &[Value]| -> Vec<Value> {
                pages
                    .iter()
                    .map(|p| {
                        let mut p = flat_page(p);
                        p.as_object_mut().unwrap().remove("next_cursor");
                        p.as_object_mut().unwrap().remove("next");
                        p
                    })
                    .collect()
            };
            assert!(!a.is_empty() && page_items(&a).len() > 1, "{tool} {args}");
            assert_eq!(strip(&a), strip(&b), "{tool} {args} at {limits:?} on {url}");
        }
    }
    json_client.cancel().await.unwrap();
    grpc_client.cancel().await.unwrap();
}

/// Without `-rpc` a webserver has no JSON API: over gRPC the pager pages all the same.
#[tokio::test]
async fn a_webserver_without_rpc_pages_over_grpc() {
    let own = support::webserver::OwnWebserver::for_test("a_webserver_without_rpc_pages_over_grpc");
    let _running = own.start_without_rpc();
    own.wait_ready().await;
    let raw = reqwest::Client::new()
        .post(format!("{}/api/search", own.url()))
        .json(&json!({"Q": "pagerLineMark", "Opts": {}}))
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), 404, "no JSON API without -rpc");
    let grpc = spawn_stdio(&own.url(), &[("ZOEKT_PAGER_ZOEKT_TRANSPORT", "grpc")]).await;
    let pages = walk(&grpc, "search", json!({"query": "pagerLineMark"}), &[30]).await;
    // fixtures/README.md: 75 pagerLineMark lines.
    assert_eq!(page_items(&pages).len(), 75);
    // A query only Zoekt's own parser reads exactly would go over JSON: here that is a clear
    // error saying what to do, not a bare 404.
    let unsure = call(
        &grpc,
        "search",
        json!({"query": "pagerLineMark archived:no"}),
    )
    .await;
    assert_eq!(unsure.is_error, Some(true), "{unsure:?}");
    let said = text(&unsure);
    assert!(
        said.contains("-rpc") && said.contains("archived:"),
        "{said}"
    );
    grpc.cancel().await.unwrap();
}

/// `List` over gRPC reads as `/api/list` does on the same webserver (the index time included:
/// the test webservers run in UTC), for every repository and for queries that select some,
/// and `list_repos` works on a webserver without `-rpc`.
#[tokio::test]
async fn repositories_list_alike_over_both_and_without_rpc() {
    let url = support::live_url(
        "ZOEKT_PAGER_LIVE_URL",
        "repositories_list_alike_over_both_and_without_rpc",
    );
    let wall = std::time::Duration::from_secs(10);
    let (json_client, grpc_client) = (client(&url, Wire::Json), client(&url, Wire::Grpc));
    for q in [
        "",
        "repo:alpha",
        "r:go$",
        "pagerLineMark",
        "lang:Python",
        "nomatchqq",
    ] {
        // In no particular order over either (Zoekt's shards answer in parallel).
        let mut over_json = json_client.repos(q, wall).await.expect("JSON list");
        let mut over_grpc = grpc_client.repos(q, wall).await.expect("gRPC list");
        over_json.repos.sort_by(|a, b| a.name.cmp(&b.name));
        over_grpc.repos.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(over_grpc, over_json, "list of `{q}`");
        if q.is_empty() {
            // fixtures/corpus: five repositories, each indexed with an index time.
            assert_eq!(over_json.repos.len(), 5);
            assert!(over_json.repos.iter().all(|r| r.index_time.ends_with('Z')));
        }
    }
    let own = support::webserver::OwnWebserver::for_test(
        "repositories_list_alike_over_both_and_without_rpc",
    );
    let _running = own.start_without_rpc();
    own.wait_ready().await;
    let grpc = spawn_stdio(&own.url(), &[("ZOEKT_PAGER_ZOEKT_TRANSPORT", "grpc")]).await;
    let listed = call(&grpc, "list_repos", json!({})).await;
    assert_ne!(listed.is_error, Some(true), "{listed:?}");
    let text = format!("{listed:?}");
    for repo in ["alpha-rs", "beta-go", "delta-ts", "gamma-py", "twin-go"] {
        assert!(text.contains(repo), "{repo} listed without -rpc: {text}");
    }
    grpc.cancel().await.unwrap();
}

/// An answer too big to read says how many files would fit, which is what a page asks for
/// next instead of halving its window (each try a whole search). Over JSON it is exact: the
/// files that end within the bound, which is the most files whose own answer fits (measured
/// here from raw Zoekt's answers for each window). Over gRPC, tonic says only the answer's
/// length: the files asked, scaled by the bound over it.
#[tokio::test]
async fn an_answer_too_big_says_how_many_files_would_fit() {
    let url = support::fixture_zoekt("an_answer_too_big_says_how_many_files_would_fit");
    const BOUND: usize = 300_000;
    const ASKED: u32 = 58;
    let search = FileSearch {
        query: ".".into(),
        effort: Effort::default(),
        max_files: ASKED,
        context_lines: 10,
        shape: Shape::Lines,
    };
    // Raw Zoekt's bytes for the same search at each window, until one is over the bound.
    let body = |files: u32| {
        let mut req = serde_json::to_value(zoekt_pager::zoekt::backend::search_request(&search))
            .expect("a request");
        req["Opts"]["MaxDocDisplayCount"] = json!(files);
        req
    };
    let raw_len = |files: u32| {
        let req = body(files);
        let url = url.clone();
        async move {
            let resp = reqwest::Client::new()
                .post(format!("{url}/api/search"))
                .json(&req)
                .send()
                .await
                .unwrap();
            resp.bytes().await.unwrap().len()
        }
    };
    assert!(raw_len(ASKED).await > BOUND, "the fixture's answer fits");
    let mut fits = 0;
    while raw_len(fits + 1).await <= BOUND {
        fits += 1;
    }
    assert!((2..ASKED / 2).contains(&fits), "{fits} files fit");
    let bounded = |wire| {
        let opts = ClientOptions {
            zoekt_transport: wire,
            max_answer_bytes: BOUND,
            ..ClientOptions::default()
        };
        ZoektClient::new(&url, opts).expect("client")
    };
    let json = Backend::search(&bounded(Wire::Json), &search)
        .await
        .unwrap_err();
    assert_eq!(json.files_within, Some(fits), "{json:?}");
    let grpc = Backend::search(&bounded(Wire::Grpc), &search)
        .await
        .unwrap_err();
    let within = grpc.files_within.expect("gRPC says how many would fit");
    assert!((1..ASKED).contains(&within), "{within} of {ASKED}");

    // A page's window reads the start instead, in the same request: over JSON the files
    // that end within the bound (less room for the statistics) from the list's start, over
    // gRPC's stream those whose messages do; either way raw Zoekt's best files, best first.
    let raw: Value = reqwest::Client::new()
        .post(format!("{url}/api/search"))
        .json(&body(ASKED))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let raw_files: Vec<(String, f64)> = raw["Result"]["Files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| {
            let name = format!(
                "{}/{}",
                f["Repository"].as_str().unwrap(),
                f["FileName"].as_str().unwrap()
            );
            (name, f["Score"].as_f64().unwrap_or(0.0))
        })
        .collect();
    for wire in [Wire::Json, Wire::Grpc] {
        let start = Backend::search_window(&bounded(wire), &search)
            .await
            .unwrap_or_else(|e| panic!("{wire:?}: {e:?}"));
        let held = start.files.len();
        assert!(
            start.cut_at_bytes,
            "{wire:?}: the start of an answer too big"
        );
        assert!(
            (1..ASKED as usize).contains(&held),
            "{wire:?}: {held} files"
        );
        assert_eq!(
            start.stats.file_count,
            raw["Result"]["FileCount"].as_u64().unwrap()
        );
        // Zoekt orders ties between shards as they finish: compare the files that score
        // above the last one held, which are the same in any order of ties.
        let edge = start.files[held - 1].score;
        let mut got: Vec<String> = start
            .files
            .iter()
            .filter(|f| f.score > edge)
            .map(|f| format!("{}/{}", f.repo, f.path))
            .collect();
        let mut want: Vec<String> = raw_files
            .iter()
            .filter(|(_, score)| *score > edge)
            .map(|(name, _)| name.clone())
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{wire:?}");
        assert!(
            !got.is_empty() || held < 3,
            "{wire:?}: scores tie throughout"
        );
        // The bound depends on the files alone: a window twice as big is cut at the same
        // files, a window of exactly those files is whole, and one more file is cut again.
        let names = |files: &RankedFiles| -> Vec<String> {
            let mut v: Vec<String> = files
                .files
                .iter()
                .map(|f| format!("{}/{}", f.repo, f.path))
                .collect();
            v.sort();
            v
        };
        let window = |files: u32| {
            let search = FileSearch {
                max_files: files,
                ..search.clone()
            };
            let client = bounded(wire);
            async move { Backend::search_window(&client, &search).await.unwrap() }
        };
        let twice = window(ASKED * 2).await;
        assert!(twice.cut_at_bytes, "{wire:?}");
        assert_eq!(names(&twice), names(&start), "{wire:?}: a bigger window");
        let exact = window(held as u32).await;
        assert!(
            !exact.cut_at_bytes,
            "{wire:?}: {held} files are within the bound"
        );
        assert_eq!(
            names(&exact),
            names(&start),
            "{wire:?}: the window of {held}"
        );
        // Measured in the bytes Zoekt sent, as a whole answer is: `Search` for exactly those
        // files is read whole, within the same bound (a few bytes of statistics aside).
        let whole_search = FileSearch {
            max_files: held as u32,
            ..search.clone()
        };
        let whole = Backend::search(&bounded(wire), &whole_search).await;
        assert!(
            whole.is_ok(),
            "{wire:?}: {held} files kept, but Zoekt's answer for them is over the bound: {:?}",
            whole.err()
        );
        let more = window(held as u32 + 1).await;
        assert!(more.cut_at_bytes, "{wire:?}: one file more");
        assert_eq!(
            names(&more),
            names(&start),
            "{wire:?}: the window of {}",
            held + 1
        );
    }
}
