//! A sidecar beside a Zoekt that restarts: /readyz follows it, and a walk across the
//! restart resumes exactly.

use super::*;

/// /readyz follows a real zoekt-webserver that this test starts, kills and starts again on the
/// same free port (never one of the shared ones), while one sidecar keeps running: 200, then
/// 503 with the reason, then 200 again. `scripts/test.sh` exports the pinned webserver binary
/// and the fixture index it built.
#[tokio::test]
async fn readyz_follows_a_restarted_zoekt() {
    let webserver = support::webserver::OwnWebserver::for_test("readyz_follows_a_restarted_zoekt");
    let zoekt = webserver.start();
    let sidecar = Sidecar::start(
        &webserver.url(),
        &[("ZOEKT_PAGER_READY_TIMEOUT_MS", "2000")],
    )
    .await;
    // A starting webserver takes a moment to listen and load its shards: poll, bounded.
    let wait_for = async |want: u16| -> String {
        let mut last = (0, String::new());
        for _ in 0..100 {
            last = sidecar.get("/readyz").await;
            if last.0 == want {
                return last.1;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("/readyz never answered {want}; last {last:?}");
    };
    assert_eq!(wait_for(200).await, "ready\n");

    drop(zoekt);
    // Nothing listens on the port any more: the very next probe says so.
    let (status, body) = sidecar.get("/readyz").await;
    assert_eq!(status, 503, "{body}");
    assert!(
        body.starts_with("not ready: Zoekt is unreachable"),
        "{body}"
    );
    assert_eq!(
        sidecar.get("/healthz").await.0,
        200,
        "liveness does not follow Zoekt"
    );

    let _zoekt = webserver.start();
    assert_eq!(wait_for(200).await, "ready\n");
}

/// A walk across a Zoekt restart: the test's own zoekt-webserver is killed after page 1 and
/// started again at once, and the walk goes on with its cursor, calling again on every
/// retryable error (unreachable, not ready, timeout). While Zoekt is down or loading, no page
/// may claim an exact total other than the fixture's 100 or an end before the 100th item;
/// the walk must end with pagerItem001..pagerItem100 once each. The window cache is off, so
/// every page asks the restarted Zoekt (with it on, pages 2-4 could come from memory), and
/// so are the pager's own retries, so that the walk meets Zoekt down and starting.
#[tokio::test]
async fn a_walk_across_a_zoekt_restart_resumes_exactly() {
    let webserver =
        support::webserver::OwnWebserver::for_test("a_walk_across_a_zoekt_restart_resumes_exactly");
    let mut zoekt = webserver.start();
    // No retries inside the pager: each call meets Zoekt as it is at that moment (down,
    // listening but loading, ready), and the test calls again.
    let sidecar = Sidecar::start(
        &webserver.url(),
        &[
            ("ZOEKT_PAGER_CACHE_BYTES", "0"),
            ("ZOEKT_PAGER_RETRIES", "0"),
        ],
    )
    .await;
    let client = sidecar.client().await;
    let retryable = [
        "BACKEND_UNAVAILABLE",
        "BACKEND_NOT_READY",
        "BACKEND_TIMEOUT",
    ];
    let mut names: Vec<String> = Vec::new();
    let mut cursor: Option<String> = None;
    let mut errors: Vec<String> = Vec::new();
    let mut warnings: Vec<String> = Vec::new();
    let mut pages = 0;
    loop {
        let mut args = json!({"query": r"pagerItem\d+", "limit": 30});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let r = call(&client, "search_symbols", args).await;
        if r.is_error == Some(true) {
            let code = r
                .meta
                .as_ref()
                .and_then(|m| m.0.get(zoekt_pager::ERROR_META_KEY))
                .map(|e| e["code"].clone());
            let code = code
                .and_then(|c| c.as_str().map(String::from))
                .unwrap_or_default();
            assert!(retryable.contains(&code.as_str()), "{code}: {}", text(&r));
            errors.push(code);
            assert!(errors.len() < 1_000, "Zoekt never came back: {errors:?}");
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        }
        let page = structured(&r);
        if let Some(w) = page
            .get("warnings")
            .and_then(Value::as_array)
            .filter(|w| !w.is_empty())
        {
            warnings.push(format!("page {pages}: {w:?}"));
        }
        let items = page["items"].as_array().unwrap();
        names.extend(
            items
                .iter()
                .map(|i| i["name"].as_str().unwrap().to_string()),
        );
        if page["total"]["exact"] == json!(true) {
            assert_eq!(page["total"]["value"], json!(100), "page {pages}: {page}");
        }
        if page["has_more"] == json!(false) {
            assert_eq!(names.len(), 100, "page {pages} claims the end: {page}");
        }
        pages += 1;
        if pages == 1 {
            // Restart Zoekt between page 1 and page 2.
            drop(zoekt);
            zoekt = webserver.start();
        }
        cursor = page["next_cursor"].as_str().map(String::from);
        if cursor.is_none() {
            break;
        }
    }
    drop(zoekt);
    let want: Vec<String> = (1..=100).map(|i| format!("pagerItem{i:03}")).collect();
    let mut got = names.clone();
    got.sort();
    assert_eq!(got, want, "every item once");
    eprintln!("{pages} pages; retried errors across the restart: {errors:?}; {warnings:?}");
    assert!(
        !errors.is_empty(),
        "the walk never met Zoekt down: the restart was not tested"
    );
    client.cancel().await.unwrap();
}
