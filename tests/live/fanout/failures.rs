//! One of three webservers stopped or hung in the middle of a walk: named, the total no
//! longer exact, the walk going on without it and resuming once it is back; and health
//! naming a hung one at once.

use super::*;

#[tokio::test]
async fn a_stopped_backend_is_named_the_total_is_not_exact_and_the_walk_resumes() {
    let test = "a_stopped_backend_is_named_the_total_is_not_exact_and_the_walk_resumes";
    let urls = split("ZOEKT_PAGER_LIVE_SPLIT_URLS", test);
    let kept: Vec<&str> = urls.split(',').take(2).collect();
    // The third partition again, served by a webserver of this test's own, which it stops.
    let port: u16 = support::live_url("ZOEKT_PAGER_LIVE_SPLIT_RESTART_PORT", test)
        .parse()
        .expect("a port");
    let own = support::webserver::OwnWebserver::at(port, "ZOEKT_PAGER_LIVE_SPLIT_INDEX_DIR", test);
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
