//! The regression harness with no Zoekt: the committed recordings of the pinned real Zoekt
//! replayed through the code `zoekt-pager replay` runs (`harness::replay`: every recorded
//! call served to the very same question, each once, all of them asked for, in any order;
//! the scenario run again through the MCP tool dispatcher; every result compared with its
//! golden), the failure reports, the `replay` command itself as an operator runs it (the
//! binary alone beside a folder of recordings), and `check`'s report over recorded answers.
//! Re-recording and checking against a live Zoekt are tests/live/rerecord.rs.
//!
//! Recordings live in fixtures/recordings/zoekt/; ZOEKT_PAGER_REPLAY_DIR adds a folder of
//! your own (though `zoekt-pager replay DIR` is the way to replay those).

use crate::support;

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use support::harness::{copy_committed_recordings, outcome, scratch, zoekt_pager};
use support::load_recording as load;
use zoekt_pager::harness::calls::ShapeAsk;
use zoekt_pager::harness::{self, Answer, Ask, Player, Recording};

/// Replays one recording; `Err` holds the command's report of every difference.
async fn replay(rec: &Recording) -> Result<(), String> {
    let replayed = harness::replay(rec).await?;
    if replayed.passed() {
        Ok(())
    } else {
        Err(replayed.to_string())
    }
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

/// Flips the last byte of the name of the fourth file's symbol on page 1 of `symbols-walk`;
/// the name it had.
fn edit_one_byte_of_a_golden(rec: &mut Recording) -> String {
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
    original
}

const EDITED_FIELD: &str = "scenario symbols-walk, step 0 page 1 (search_symbols): result.structuredContent.files[3][2][0][2]:";

#[tokio::test]
async fn a_one_byte_edit_of_a_golden_fails_with_a_diff_naming_it() {
    let mut rec = zoekt_recording("symbols-walk");
    let original = edit_one_byte_of_a_golden(&mut rec);
    let report = replay(&rec).await.expect_err("the edited golden must fail");
    assert!(report.contains(EDITED_FIELD), "{report}");
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
    // The last window of lines, which a page cannot do without (a census is only
    // suggestions, and a page that turns out narrow drops it, sent or not).
    let last_window = rec
        .calls
        .iter()
        .rposition(|c| matches!(&c.ask, Ask::Search(s) if s.shape == ShapeAsk::Lines))
        .expect("search-lines records windows");
    let dropped = rec.calls.remove(last_window);
    let report = replay(&rec)
        .await
        .expect_err("a missing exchange must fail");
    assert!(
        report.contains("a request the recording does not hold"),
        "{report}"
    );
    // The whole question is printed: the kind of call, the query and the window asked.
    let Ask::Search(asked) = &dropped.ask else {
        panic!("search-lines records searches only: {:?}", dropped.ask)
    };
    assert!(
        report.contains("search {")
            && report.contains(&format!("\"max_files\":{}", asked.max_files))
            && report.contains("\"query\":\"pagerLineMark\""),
        "{report}"
    );
}

#[tokio::test]
async fn a_recorded_exchange_never_asked_for_fails() {
    let mut rec = zoekt_recording("repos-walk");
    let extra = rec.calls[0].clone();
    rec.calls.push(extra);
    let report = replay(&rec)
        .await
        .expect_err("an unused exchange must fail");
    let n = rec.calls.len();
    assert!(
        report.contains(&format!(
            "{n} recorded call(s), {} request(s) made; recorded but never requested",
            n - 1
        )) && report.contains("repos {\"query\":\"\""),
        "{report}"
    );
}

#[tokio::test]
async fn the_replay_command_passes_with_only_the_binary_and_the_recordings() {
    let dir = scratch("replay-command");
    let n = copy_committed_recordings(&dir.join("recordings"));
    // Every scenario's recording (a replay of none would pass too).
    let scenarios =
        zoekt_pager::harness::scenario::load(&support::repo_root().join("fixtures/scenarios"));
    assert_eq!(n, scenarios.unwrap().len());
    let out = zoekt_pager(&["replay", "recordings"], &dir);
    let (code, stdout, stderr) = outcome(&out);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert_eq!(stdout.matches("\nok      ").count() + 1, n, "{stdout}");
    assert!(
        stdout.contains(&format!(
            "replay recordings: {n} recordings, {} results",
            count_results(&dir.join("recordings"))
        )) && stdout.contains("every result is its golden"),
        "{stdout}"
    );
}

/// The goldens in a folder of recordings, counted from the files as JSON.
fn count_results(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let v: Value =
                serde_json::from_slice(&std::fs::read(e.unwrap().path()).unwrap()).unwrap();
            v["results"].as_array().unwrap().len()
        })
        .sum()
}

#[tokio::test]
async fn the_replay_command_fails_on_an_edited_golden_naming_the_field() {
    let dir = scratch("replay-command-edited");
    copy_committed_recordings(&dir);
    let file = dir.join("symbols-walk.json");
    let mut rec = load(&file);
    let original = edit_one_byte_of_a_golden(&mut rec);
    std::fs::write(&file, rec.to_pretty()).unwrap();
    let (code, stdout, stderr) = outcome(&zoekt_pager(&["replay", "."], &dir));
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("FAILED  symbols-walk")
            && stdout.contains(EDITED_FIELD)
            && stdout.contains(&format!("got      \"{original}\""))
            && stdout.contains("1 of ")
            && stdout.contains("recordings differ from their goldens"),
        "{stdout}"
    );
}

#[tokio::test]
async fn the_replay_command_refuses_what_it_cannot_replay_with_a_hint() {
    let dir = scratch("replay-command-refused");
    let (code, _, stderr) = outcome(&zoekt_pager(&["replay", "."], &dir));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("no recordings (*.json) in .") && stderr.contains("zoekt-pager record"),
        "{stderr}"
    );
    // A recording of the wire format (format 1) names the format and what to do.
    std::fs::write(dir.join("old.json"), r#"{"format": 1, "exchanges": []}"#).unwrap();
    let (code, _, stderr) = outcome(&zoekt_pager(&["replay", "old.json"], &dir));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("recording format 1, and this zoekt-pager reads format 2")
            && stderr.contains("re-record it with `zoekt-pager record`"),
        "{stderr}"
    );
}

/// `check` of a recording against a backend that serves `calls`.
async fn check_against(rec: &Recording, calls: &[zoekt_pager::harness::Call]) -> String {
    let checked = harness::check(Arc::new(Player::new(calls)), rec)
        .await
        .unwrap();
    checked.to_string()
}

#[tokio::test]
async fn check_finds_nothing_when_the_answers_are_the_recorded_ones() {
    for file in harness::recordings_in(&support::zoekt_recordings_dir()).unwrap() {
        let rec = load(&file);
        let report = check_against(&rec, &rec.calls).await;
        assert_eq!(report, "", "{}", file.display());
    }
}

#[tokio::test]
async fn check_names_a_changed_line_on_its_page_and_ignores_cursors() {
    let mut rec = zoekt_recording("search-lines");
    // A re-index where one line of render/stages.go reads otherwise (fixtures/corpus: line 5).
    let old = "// Trim removes surrounding spaces. pagerLineMark 27: trim stage";
    let new = "// Trim removes spaces. pagerLineMark 27: trim stage";
    let mut calls = rec.calls.clone();
    let mut edited = 0;
    for call in &mut calls {
        let Answer::Files(files) = &mut call.answer else {
            continue;
        };
        for line in files.files.iter_mut().flat_map(|f| f.lines.iter_mut()) {
            if line.text.contains(old) {
                line.text = line.text.replace(old, new);
                // The match moves left with the words taken out before it.
                let shift = (old.find("pagerLineMark").unwrap()
                    - new.find("pagerLineMark").unwrap()) as u32;
                for f in &mut line.fragments {
                    f.byte_offset -= shift;
                }
                edited += 1;
            }
        }
    }
    assert!(edited > 0, "no recorded answer holds {old:?}");
    // The page whose golden holds the line, read off the golden itself.
    let pages: Vec<usize> = rec
        .results
        .iter()
        .filter(|r| r.result["structuredContent"].to_string().contains(old))
        .map(|r| r.page)
        .collect();
    assert_eq!(pages.len(), 1, "{pages:?}");
    // Cursors differ between runs by nature: a golden's cursor edited is no change.
    rec.results[0].result["structuredContent"]["next_cursor"] = Value::from("AgAAAA");
    let report = check_against(&rec, &calls).await;
    let expected = format!(
        "scenario search-lines, step 0 page {} (search):\n  \
         - beta-go/render/stages.go:5:37 text={old:?}\n  \
         + beta-go/render/stages.go:5:25 text={new:?}",
        pages[0]
    );
    assert_eq!(report, expected);
}

#[tokio::test]
async fn check_names_a_changed_total_on_every_page_that_says_it() {
    let mut rec = zoekt_recording("search-lines");
    for r in &mut rec.results {
        let total = &mut r.result["structuredContent"]["total"];
        assert_eq!(*total, 75, "fixtures/README.md: 75 pagerLineMark lines");
        *total = Value::from(76);
    }
    let report = check_against(&rec, &rec.calls.clone()).await;
    let pages = rec.results.len();
    assert_eq!(
        report.matches("  total 76 -> 75").count(),
        pages,
        "{report}"
    );
    assert_eq!(report.lines().count(), 2 * pages, "{report}");
}
