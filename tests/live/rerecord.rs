//! Re-recording every scenario against the live, pinned Zoekt reproduces the committed
//! goldens in fixtures/recordings/zoekt/: the recordings replayed by tests/offline/replay.rs
//! are still what this Zoekt answers, over whichever API the suite runs
//! (`ZOEKT_TEST_TRANSPORT`). Needs the live Zoekt on fixtures/corpus (`scripts/test.sh`).

use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use support::load_recording as load;
use zoekt_pager::PagerConfig;
use zoekt_pager::harness::{self, Made, diff, scenario::Scenario};

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
    // A scratch folder of this process's own: a shared one let two runs read each other's.
    let out =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("rerecord-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
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
