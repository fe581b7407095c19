//! Tests of `zoekt::client`, kept beside it so the module reads as what it does.

use super::*;
use crate::zoekt::check::check_answer;
use crate::zoekt::wire::{FileMatch, SearchOptions};

fn answer(file_count: u64, files: usize) -> SearchResult {
    SearchResult {
        file_count,
        files: (0..files)
            .map(|i| FileMatch {
                file_name: format!("f{i}"),
                repository: "r".into(),
                ..FileMatch::default()
            })
            .collect(),
        ..SearchResult::default()
    }
}

fn asking(files: u32) -> SearchRequest {
    SearchRequest {
        q: "x".into(),
        opts: SearchOptions {
            max_doc_display_count: files,
            ..SearchOptions::default()
        },
    }
}

#[test]
fn an_answer_must_agree_with_its_counts() {
    // Cut by the display count: more files counted than returned.
    assert_eq!(check_answer(&asking(3), &answer(9, 3)), Ok(()));
    // Ran out: every file counted is returned.
    assert_eq!(check_answer(&asking(10), &answer(4, 4)), Ok(()));
    assert_eq!(check_answer(&asking(10), &answer(0, 0)), Ok(()));
    let bad = [
        (
            asking(44),
            answer(7, 0),
            "FileCount 7 but only 0 files returned of 44",
        ),
        (asking(3), answer(2, 3), "FileCount 2 but 3 files returned"),
        (asking(2), answer(3, 3), "3 files returned for 2 asked"),
    ];
    for (req, result, says) in bad {
        let e = check_answer(&req, &result).unwrap_err();
        assert!(e.contains(says), "{e}");
    }
    let mut nameless = answer(1, 1);
    nameless.files[0].file_name.clear();
    assert!(
        check_answer(&asking(5), &nameless)
            .unwrap_err()
            .contains("without a name")
    );
}
