//! Re-recording every scenario against the live, pinned Zoekt reproduces the committed
//! goldens in fixtures/recordings/zoekt/: the recordings replayed by tests/offline/replay.rs
//! are still what this Zoekt answers. Needs the live Zoekt on fixtures/corpus (`scripts/test.sh`).

use crate::support;

use std::path::PathBuf;

use support::load_recording as load;
use zoekt_pager::PagerConfig;
use zoekt_pager::harness::{self, diff, scenario::Scenario};

#[tokio::test]
async fn rerecording_the_pinned_zoekt_reproduces_its_committed_goldens() {
    let url =
        support::fixture_zoekt("rerecording_the_pinned_zoekt_reproduces_its_committed_goldens");
    let committed = support::zoekt_recordings_dir();
    let scenarios: Vec<Scenario> =
        harness::scenario::load(&support::repo_root().join("fixtures/scenarios")).unwrap();
    // Every scenario has a committed recording and every recording a scenario: a recording
    // whose scenario was removed would otherwise never be checked again.
    let names: std::collections::BTreeSet<String> =
        scenarios.iter().map(|s| s.name.clone()).collect();
    let committed_names: std::collections::BTreeSet<String> = harness::recordings_in(&committed)
        .unwrap()
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(names.len() >= 15, "only {} scenarios", names.len());
    assert_eq!(
        names, committed_names,
        "scenarios and committed recordings differ: run scripts/record.sh"
    );
    // A scratch folder of this process's own: a shared one let two runs read each other's.
    let out =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("rerecord-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    harness::record(&url, &scenarios, &out, &PagerConfig::default(), "rerecord")
        .await
        .unwrap();
    let mut report = Vec::new();
    for s in &scenarios {
        let old = load(&committed.join(format!("{}.json", s.name)));
        let new = load(&out.join(format!("{}.json", s.name)));
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
    let _ = std::fs::remove_dir_all(&out);
    assert!(
        report.is_empty(),
        "re-recording changed goldens (run scripts/record.sh and explain the change):\n{}",
        report.join("\n")
    );
}
