//! The regression harness: recorded exchanges of the pinned real Zoekt served by wiremock
//! (matched on method, path and the exact JSON body, each once; all of them must be asked
//! for, in any order), the recorded scenario run again through the MCP tool
//! dispatcher, and every result compared with its golden. No Zoekt and no Go needed: this
//! file runs anywhere (`cargo test --test offline replay`). Re-recording against a live
//! Zoekt is checked in tests/live/rerecord.rs.
//!
//! Recordings live in fixtures/recordings/zoekt/; ZOEKT_PAGER_REPLAY_DIR adds a folder of
//! your own (recorded with `zoekt-pager record` against your Zoekt).

use crate::support;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use wiremock::matchers::{body_json, method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use support::load_recording as load;
use zoekt_pager::harness::{self, Recording, diff};
use zoekt_pager::zoekt::{ClientOptions, ZoektClient};
use zoekt_pager::{FanOut, Instrumented, Metrics, Pager, PagerServer};

/// Answers any request the recording does not hold with a 501, and remembers it.
struct NotRecorded(Arc<Mutex<Vec<String>>>);

impl Respond for NotRecorded {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        self.0.lock().unwrap().push(format!(
            "{} {} {}",
            req.method,
            req.url.path(),
            String::from_utf8_lossy(&req.body)
        ));
        ResponseTemplate::new(501)
            .set_body_json(serde_json::json!({"Error": "not in the recording"}))
    }
}

/// Replays one recording; `Err` holds a readable report of every difference.
async fn replay(rec: &Recording) -> Result<(), String> {
    let zoekt = MockServer::start().await;
    for x in &rec.exchanges {
        let mut mock = Mock::given(method(x.method.as_str())).and(path(x.path.as_str()));
        if !x.request.is_null() {
            mock = mock.and(body_json(&x.request));
        }
        let answer = ResponseTemplate::new(x.status);
        let answer = match &x.response {
            Value::String(s) => answer.set_body_string(s.clone()),
            json => answer.set_body_json(json),
        };
        mock.respond_with(answer)
            .up_to_n_times(1)
            .with_priority(1)
            .mount(&zoekt)
            .await;
    }
    let missing = Arc::new(Mutex::new(Vec::new()));
    Mock::given(wiremock::matchers::any())
        .respond_with(NotRecorded(Arc::clone(&missing)))
        .with_priority(10)
        .mount(&zoekt)
        .await;

    // Built as the binary builds its backend for one URL (a fan-out of one, timed for the
    // metrics; the rests after a timeout it may also set never meet a recorded answer, which
    // comes at once): the goldens, which `record` makes with the client alone (`tests/rerecord.rs`),
    // are then also what one URL gives through the fan-out, request for request and byte for
    // byte.
    // Recordings are JSON exchanges, replayed by a JSON stand-in.
    let opts = ClientOptions {
        zoekt_transport: zoekt_pager::zoekt::Wire::Json,
        ..ClientOptions::default()
    };
    let client = ZoektClient::new(&zoekt.uri(), opts).unwrap();
    let timed = Instrumented::new(client, Arc::new(Metrics::new())).labelled(&zoekt.uri());
    let one = FanOut::new(vec![(zoekt.uri(), timed)], false).unwrap();
    let server = PagerServer::new(Pager::new(one, rec.settings.clone()));
    let results = harness::run(&server, &rec.scenario).await?;
    let mut report = Vec::new();
    for m in missing.lock().unwrap().iter().filter(|m| !is_census(m)) {
        report.push(format!(
            "scenario {}: a request the recording does not hold:\n    {m}",
            rec.scenario.name
        ));
    }
    // Every recorded exchange must be asked for, once. In any order: find_references asks
    // its two queries at once, and which one goes first is up to the scheduler. (Identical
    // requests still get their answers in the recorded order: wiremock serves the first
    // mounted mock that matches and has uses left.)
    let sent = zoekt.received_requests().await.unwrap_or_default();
    let as_text = |m: &str, p: &str, body: &Value| format!("{m} {p} {body}");
    let mut recorded: Vec<String> = rec
        .exchanges
        .iter()
        .map(|x| as_text(x.method.as_str(), &x.path, &x.request))
        .collect();
    let mut asked: Vec<String> = sent
        .iter()
        .map(|s| {
            let body: Value = if s.body.is_empty() {
                Value::Null
            } else {
                serde_json::from_slice(&s.body).unwrap_or(Value::Null)
            };
            as_text(s.method.as_str(), s.url.path(), &body)
        })
        .collect();
    // A census (a search of names only, `type:file`, the one request a tool never builds)
    // goes out beside a first page's window and is dropped, asked or not, when the page
    // turns out to need none: whether it reached Zoekt is timing, on either side. A page
    // that needs it waits for it, so its answer is in the recording and in the goldens.
    recorded.retain(|r| !is_census(r));
    asked.retain(|a| !is_census(a));
    recorded.sort();
    asked.sort();
    if recorded != asked {
        let mut never = recorded.clone();
        for a in &asked {
            if let Some(i) = never.iter().position(|r| r == a) {
                never.remove(i);
            }
        }
        report.push(format!(
            "scenario {}: {} recorded exchange(s), {} request(s) sent; recorded but never requested: {never:?}",
            rec.scenario.name,
            recorded.len(),
            asked.len()
        ));
    }
    for d in diff::compare(&rec.scenario.name, &rec.results, &results) {
        report.push(d.to_string());
    }
    if report.is_empty() {
        Ok(())
    } else {
        Err(report.join("\n"))
    }
}

/// Whether an exchange, written `METHOD PATH BODY`, is a census of names only.
fn is_census(exchange: &str) -> bool {
    exchange.contains(r#""Q":"type:file "#)
}

fn recording_dirs() -> Vec<PathBuf> {
    let root = support::repo_root().join("fixtures/recordings");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    if let Ok(extra) = std::env::var("ZOEKT_PAGER_REPLAY_DIR")
        && !extra.is_empty()
    {
        dirs.push(PathBuf::from(extra));
    }
    dirs
}

/// A committed recording of the pinned real Zoekt.
fn zoekt_recording(name: &str) -> Recording {
    load(&support::zoekt_recordings_dir().join(format!("{name}.json")))
}

#[tokio::test]
async fn every_committed_recording_replays_to_its_goldens() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    for dir in recording_dirs() {
        for file in harness::recordings_in(&dir).unwrap() {
            let rec = load(&file);
            replayed += 1;
            if let Err(report) = replay(&rec).await {
                failures.push(format!("{}:\n{report}", file.display()));
            }
        }
    }
    assert!(replayed >= 15, "only {replayed} recordings found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[tokio::test]
async fn recordings_cover_every_tool_walks_limit_changes_and_errors() {
    let mut tools = std::collections::BTreeSet::new();
    let mut codes = std::collections::BTreeSet::new();
    let (mut walks, mut limit_changes, mut empties) = (0, 0, 0);
    for file in harness::recordings_in(&support::zoekt_recordings_dir()).unwrap() {
        let rec = load(&file);
        for s in &rec.scenario.steps {
            if let Some(w) = &s.walk {
                walks += 1;
                if w.len() > 1 {
                    limit_changes += 1;
                }
            }
        }
        for r in &rec.results {
            tools.insert(r.tool.clone());
            if let Some(code) = r.result.pointer("/_meta/zoekt-pager~1error/code") {
                codes.insert(code.as_str().unwrap().to_string());
            }
            // A page with no items has no rows at all: only its total and `next`.
            if let Some(sc) = r.result.get("structuredContent")
                && sc.get("total").is_some()
                && ["fields", "definitions", "references"]
                    .iter()
                    .all(|k| sc.get(k).is_none())
            {
                empties += 1;
            }
        }
    }
    // Every tool of the table has recorded goldens.
    let table: std::collections::BTreeSet<String> = zoekt_pager::tools::names()
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(tools, table, "{tools:?}");
    for code in [
        "CURSOR_MISMATCH",
        "INVALID_CURSOR",
        "INVALID_ARGUMENT",
        "BACKEND_QUERY_ERROR",
        "NOT_FOUND",
    ] {
        assert!(codes.contains(code), "no recorded {code}: {codes:?}");
    }
    assert!(
        walks >= 8 && limit_changes >= 2 && empties >= 1,
        "{walks} {limit_changes} {empties}"
    );
}

#[tokio::test]
async fn a_one_byte_edit_of_a_golden_fails_with_a_diff_naming_it() {
    let mut rec = zoekt_recording("symbols-walk");
    // The fourth file of page 1 (one symbol each there): a group `[repo, path, rows, ...]`;
    // cell 2 of a row is the name (kind and parent are said once per group).
    let fields = rec.results[1].result["structuredContent"]["fields"].clone();
    assert_eq!(fields[2][2], "name", "{fields}");
    let name = rec.results[1]
        .result
        .pointer_mut("/structuredContent/files/3/2/0/2")
        .expect("a golden item");
    let original = name.as_str().unwrap().to_string();
    let mut edited = original.clone().into_bytes();
    *edited.last_mut().unwrap() ^= 1; // one byte
    *name = Value::String(String::from_utf8(edited).unwrap());
    let report = replay(&rec).await.expect_err("the edited golden must fail");
    assert!(
        report.contains("scenario symbols-walk, step 0 page 1 (search_symbols): result.structuredContent.files[3][2][0][2]:"),
        "{report}"
    );
    assert!(
        report.contains(&format!("got      \"{original}\"")),
        "{report}"
    );
    assert_eq!(
        report.matches("scenario symbols-walk").count(),
        1,
        "{report}"
    );
}

#[tokio::test]
async fn a_request_the_recording_lacks_fails_and_is_printed() {
    let mut rec = zoekt_recording("search-lines");
    let dropped = rec.exchanges.pop().unwrap();
    let report = replay(&rec)
        .await
        .expect_err("a missing exchange must fail");
    assert!(
        report.contains("a request the recording does not hold"),
        "{report}"
    );
    let max_docs = dropped.request["Opts"]["MaxDocDisplayCount"].to_string();
    assert!(
        report.contains("POST /api/search")
            && report.contains(&format!("\"MaxDocDisplayCount\":{max_docs}")),
        "{report}"
    );
}

#[tokio::test]
async fn a_recorded_exchange_never_asked_for_fails() {
    let mut rec = zoekt_recording("repos-walk");
    let extra = rec.exchanges[0].clone();
    rec.exchanges.push(extra);
    let report = replay(&rec)
        .await
        .expect_err("an unused exchange must fail");
    let n = rec.exchanges.len();
    assert!(
        report.contains(&format!(
            "{n} recorded exchange(s), {} request(s) sent; recorded but never requested",
            n - 1
        )) && report.contains("POST /api/list"),
        "{report}"
    );
}
