//! The regression harness against live, pinned Zoekts: re-recording every scenario reproduces
//! the committed goldens in fixtures/recordings/zoekt/ (so the recordings replayed by
//! tests/offline/replay.rs are still what this Zoekt answers), `zoekt-pager check` of the
//! committed recordings against the fixture Zoekt finds nothing changed over either API, and
//! a webserver without `-rpc` (gRPC only) is recorded over gRPC, replayed and checked.
//! Needs the live Zoekt on fixtures/corpus (`scripts/test.sh`), and for the last test the
//! pinned webserver and the fixture index (`ZOEKT_PAGER_LIVE_WEBSERVER`,
//! `ZOEKT_PAGER_LIVE_INDEX_DIR`).

use crate::support;

use std::collections::BTreeSet;
use std::path::Path;

use support::harness::{copy_committed_recordings, outcome, scratch, zoekt_pager};
use support::load_recording as load;
use zoekt_pager::PagerConfig;
use zoekt_pager::harness::{self, Made, diff, scenario::Scenario};
use zoekt_pager::zoekt::{ClientOptions, Wire, ZoektClient};

fn scenarios() -> Vec<Scenario> {
    harness::scenario::load(&support::repo_root().join("fixtures/scenarios")).unwrap()
}

/// Every golden of the recordings in `new` against the committed one of the same scenario,
/// as the harness's field-by-field report.
fn golden_differences(new: &Path) -> Vec<String> {
    let committed = support::zoekt_recordings_dir();
    let mut report = Vec::new();
    for s in &scenarios() {
        let old = load(&committed.join(format!("{}.json", s.name)));
        let new = load(&new.join(format!("{}.json", s.name)));
        assert_eq!(
            old.scenario, new.scenario,
            "scenario {} changed since it was recorded: re-record",
            s.name
        );
        assert_eq!(
            old.settings, new.settings,
            "scenario {}: the engine's default settings changed since it was recorded: re-record",
            s.name
        );
        report.extend(
            diff::compare(&s.name, &old.results, &new.results)
                .iter()
                .map(ToString::to_string),
        );
    }
    report
}

#[tokio::test]
async fn rerecording_the_pinned_zoekt_reproduces_its_committed_goldens() {
    let url =
        support::fixture_zoekt("rerecording_the_pinned_zoekt_reproduces_its_committed_goldens");
    let committed = support::zoekt_recordings_dir();
    let scenarios = scenarios();
    // Every scenario has a committed recording and every recording a scenario: a recording
    // whose scenario was removed would otherwise never be checked again.
    let names: BTreeSet<String> = scenarios.iter().map(|s| s.name.clone()).collect();
    let committed_names: BTreeSet<String> = harness::recordings_in(&committed)
        .unwrap()
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(names.len() >= 15, "only {} scenarios", names.len());
    assert_eq!(
        names, committed_names,
        "scenarios and committed recordings differ: run scripts/record.sh"
    );
    // Over the suite's API (`ZOEKT_TEST_TRANSPORT`): a recording does not depend on it.
    let out = scratch("rerecord");
    let made = Made {
        source: "rerecord".into(),
        zoekt_transport: support::test_transport().into(),
    };
    harness::record(
        support::client(&url),
        &scenarios,
        &out,
        &PagerConfig::default(),
        &made,
    )
    .await
    .unwrap();
    let report = golden_differences(&out);
    let _ = std::fs::remove_dir_all(&out);
    assert!(
        report.is_empty(),
        "re-recording changed goldens (run scripts/record.sh and explain the change):\n{}",
        report.join("\n")
    );
}

#[tokio::test]
async fn checking_the_live_fixture_zoekt_finds_nothing_changed_over_either_api() {
    let url = support::fixture_zoekt(
        "checking_the_live_fixture_zoekt_finds_nothing_changed_over_either_api",
    );
    let dir = scratch("check-live");
    let n = copy_committed_recordings(&dir);
    // Every scenario's recording: a check of none would say "nothing changed" too.
    assert_eq!(n, scenarios().len());
    for transport in ["grpc", "json"] {
        let out = zoekt_pager(
            &[
                "check",
                ".",
                "--zoekt-url",
                &url,
                "--zoekt-transport",
                transport,
            ],
            &dir,
        );
        let (code, stdout, stderr) = outcome(&out);
        assert_eq!(code, Some(0), "over {transport}:\n{stdout}\n{stderr}");
        assert!(
            stdout.contains(&format!("check: {n} scenarios, nothing changed"))
                && stdout.contains(&format!("(over {transport})")),
            "{stdout}"
        );
    }
}

#[tokio::test]
async fn a_webserver_without_rpc_is_recorded_over_grpc_then_replayed_and_checked() {
    let test = "a_webserver_without_rpc_is_recorded_over_grpc_then_replayed_and_checked";
    let own = support::webserver::OwnWebserver::for_test(test);
    let _running = own.start_without_rpc();
    own.wait_ready().await;
    // Without -rpc there is no JSON API: raw Zoekt says so first.
    let raw = reqwest::Client::new()
        .post(format!("{}/api/search", own.url()))
        .body(r#"{"Q":"pagerLineMark"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), 404, "the webserver serves the JSON API");

    let dir = scratch("record-grpc-only");
    let scenarios_dir = support::repo_root().join("fixtures/scenarios");
    // Over JSON it cannot be recorded, and one error says why and what to do.
    let over_json = zoekt_pager(
        &[
            "record",
            "--scenarios",
            scenarios_dir.to_str().unwrap(),
            "--out",
            "over-json",
            "--zoekt-url",
            &own.url(),
            "--zoekt-transport",
            "json",
        ],
        &dir,
    );
    let (code, stdout, stderr) = outcome(&over_json);
    assert_eq!(code, Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("serves no JSON API (HTTP 404 on /api/list): it was started without -rpc")
            && stderr.contains("--zoekt-transport grpc"),
        "{stderr}"
    );
    assert!(!dir.join("over-json").exists());

    let record = zoekt_pager(
        &[
            "record",
            "--scenarios",
            scenarios_dir.to_str().unwrap(),
            "--out",
            "recordings",
            "--zoekt-url",
            &own.url(),
        ],
        &dir,
    );
    let (code, stdout, stderr) = outcome(&record);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stderr.contains("over grpc into recordings"), "{stderr}");
    let recordings = dir.join("recordings");
    for file in harness::recordings_in(&recordings).unwrap() {
        assert_eq!(load(&file).zoekt_transport, "grpc", "{}", file.display());
    }

    // Every golden is the committed one (made with -rpc) but for the query only Zoekt's
    // JSON API reads exactly, whose error now says what to do: `foo(` (the pager's gRPC
    // parser leaves unbalanced parentheses to Zoekt). read_file's path is written with
    // escapes the gRPC parser reads itself, so it reads as it did.
    let differences = golden_differences(&recordings);
    let changed: BTreeSet<&str> = differences
        .iter()
        .map(|d| d.split(',').next().unwrap().trim_start_matches("scenario "))
        .collect();
    assert_eq!(
        changed,
        BTreeSet::from(["search-backend-query-error"]),
        "{differences:#?}"
    );
    for name in &changed {
        let rec = load(&recordings.join(format!("{name}.json")));
        for r in &rec.results {
            let text = r.result.to_string();
            assert!(text.contains("-rpc") && text.contains("JSON API"), "{text}");
        }
    }

    // It replays with no Zoekt, and checks clean against the webserver it came from.
    let (code, stdout, stderr) = outcome(&zoekt_pager(&["replay", "recordings"], &dir));
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let check = zoekt_pager(&["check", "recordings", "--zoekt-url", &own.url()], &dir);
    let (code, stdout, stderr) = outcome(&check);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("nothing changed"), "{stdout}");

    // The committed recordings (made with -rpc) checked against it: that change named, on
    // the page it is on, and nothing else.
    let committed = support::zoekt_recordings_dir();
    let check = zoekt_pager(
        &[
            "check",
            committed.to_str().unwrap(),
            "--zoekt-url",
            &own.url(),
        ],
        &dir,
    );
    let (code, stdout, stderr) = outcome(&check);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("CHANGED  search-backend-query-error\n")
            && stdout.matches("CHANGED").count() == 1
            && stdout.contains("scenario search-backend-query-error, step 0 page 0 (search):")
            && stdout.contains("zoekt-pager/error.code \"BACKEND_QUERY_ERROR\" -> ")
            && stdout.contains("check: 1 of "),
        "{stdout}"
    );
    println!("{stdout}");

    // And the library records the same over gRPC as the binary did.
    let client = ZoektClient::new(
        &own.url(),
        ClientOptions {
            zoekt_transport: Wire::Grpc,
            ..ClientOptions::default()
        },
    )
    .unwrap();
    let again = dir.join("again");
    let made = Made {
        source: "again".into(),
        zoekt_transport: "grpc".into(),
    };
    harness::record(client, &scenarios(), &again, &PagerConfig::default(), &made)
        .await
        .unwrap();
    for s in scenarios() {
        let (a, b) = (
            load(&recordings.join(format!("{}.json", s.name))),
            load(&again.join(format!("{}.json", s.name))),
        );
        assert_eq!(a.results, b.results, "{}", s.name);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
