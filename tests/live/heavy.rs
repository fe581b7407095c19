//! Queries Zoekt cannot finish, end to end: the real `zoekt-pager` binary (over MCP stdio and
//! as the command line) against the real zoekt-webserver serving the generated 12,000-file
//! corpus (`ZOEKT_PAGER_LIVE_BIG_URL`). Zoekt is given a wall time of 1 ms, which no search
//! of `\b` (a match at every word boundary) over that corpus finishes in: raw Zoekt's own
//! answer says so first. The page must come back at once, with what was found, a warning that
//! says Zoekt ran out of time, and a total that is never an estimate of 0. A call deadline
//! over the command line needs a Zoekt slower than the deadline on demand: a stand-in.

use crate::support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::mcp::*;

const WALL_TIME_MS: &str = "1";

/// What raw Zoekt says of `\b` with a 1 ms wall time: it ran out of time (searched until
/// the wall time, or skipped shards).
async fn raw_runs_out_of_time(url: &str) {
    let body = json!({"Q": "\\b", "Opts": {"MaxDocDisplayCount": 20, "MaxWallTime": 1_000_000u64}});
    let resp = support::oracle::raw_search(url, &body).await;
    let stat = |k: &str| resp["Result"][k].as_u64().unwrap_or(0);
    assert!(
        stat("Duration") >= 1_000_000 || stat("ShardsSkipped") > 0,
        "raw Zoekt finished \\b within 1 ms: {}",
        resp["Result"]["Duration"]
    );
}

#[tokio::test]
async fn a_query_zoekt_cannot_finish_is_a_page_that_says_so_over_mcp() {
    let url = support::big_zoekt("a_query_zoekt_cannot_finish_is_a_page_that_says_so_over_mcp");
    raw_runs_out_of_time(&url).await;
    let client = spawn_stdio(&url, &[("ZOEKT_PAGER_MAX_WALL_TIME_MS", WALL_TIME_MS)]).await;
    for tool in ["search", "files_with_matches"] {
        let schema = output_schema(&client, tool).await;
        let validator = jsonschema::validator_for(&schema).expect("output schema compiles");
        let started = Instant::now();
        let r = call(&client, tool, json!({"query": "\\b", "limit": 10})).await;
        let took = started.elapsed();
        let page = r.structured_content.clone().expect("a structured page");
        assert_ne!(r.is_error, Some(true), "{tool}: {}", text(&r));
        assert!(validator.is_valid(&page), "{tool}: {page}");
        // Zoekt's wall time plus 5 s at most (it took the call deadline, 60 s, before).
        assert!(took < Duration::from_secs(5), "{tool} took {took:?}");
        assert!(
            page.get("total_at_least").is_some()
                && page.get("total_estimate").is_none()
                && page.get("total").is_none(),
            "{tool}: {page}"
        );
        let warned = page["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|w| w.as_str().unwrap_or_default().contains("ran out of time"));
        assert!(warned, "{tool}: {page}");
        let t = text(&r);
        assert!(!t.contains("about 0"), "{tool}: {t}");
        assert!(
            t.contains("at least") || t.contains("not known"),
            "{tool}: {t}"
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_query_zoekt_cannot_finish_is_a_page_that_says_so_on_the_command_line() {
    let url = support::big_zoekt(
        "a_query_zoekt_cannot_finish_is_a_page_that_says_so_on_the_command_line",
    );
    raw_runs_out_of_time(&url).await;
    let started = Instant::now();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_zoekt-pager"))
        .args(["search", "\\b", "--limit", "10"])
        .env("ZOEKT_URL", &url)
        .env("ZOEKT_PAGER_MAX_WALL_TIME_MS", WALL_TIME_MS)
        .output()
        .await
        .unwrap();
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert!(
        stdout.contains("Warning: Zoekt ran out of time"),
        "{stdout}"
    );
    assert!(!stdout.contains("about 0"), "{stdout}");
}
