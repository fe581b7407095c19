//! Tests of `engine::answer`, kept beside it so the module reads as what it does.

use super::*;
use crate::engine::backend::MatchedLine;
use crate::engine::census::CountKind;

fn file(repo: &str, path: &str, score: f64, lines: usize) -> RankedFile {
    RankedFile {
        repo: repo.into(),
        path: path.into(),
        language: "Go".into(),
        score,
        lines: (1..=lines)
            .map(|n| MatchedLine {
                number: n as u32,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn answer(files: Vec<RankedFile>, asked: u32, stats: SearchStats) -> Answer<u32> {
    Answer::new(
        &RankedFiles {
            files,
            stats,
            cut_at_bytes: false,
        },
        asked,
        |f| (0..f.lines.len() as u32).collect(),
    )
}

fn census_query() -> CensusQuery {
    CensusQuery {
        query: "q".into(),
        unit: crate::engine::census::CountUnit::Files,
        every_file_holds_items: true,
        carries: None,
    }
}

/// What a census carried of a search: the files with lines, with their items and
/// Zoekt's statistics for them alone, a file with lines and no items included (the
/// search's own answer holds it too); the files by name alone, left out.
#[test]
fn the_files_with_lines_of_a_census_are_the_carried_searchs_answer() {
    let mut by_name = file("r", "n.go", 9.0, 0);
    by_name.path_matched = true;
    let census = Answer::new(
        &RankedFiles {
            files: vec![
                file("r", "a.go", 5.0, 2),
                by_name,
                file("r", "b.go", 7.0, 1),
                file("r", "c.go", 6.0, 3),
            ],
            stats: SearchStats {
                file_count: 4,
                match_count: 7,
                shared_backends: 1,
                ..Default::default()
            },
            cut_at_bytes: false,
        },
        40_000,
        // c.go's lines are none of the tool's items.
        |f| match f.path.as_str() {
            "c.go" => Vec::new(),
            _ => (0..f.lines.len() as u32).collect(),
        },
    );
    let carried = census.files_with_lines();
    let paths: Vec<&str> = carried.list.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["b.go", "c.go", "a.go"]);
    assert_eq!(carried.list.items, [0, 0, 1]);
    assert_eq!(
        (
            carried.stats.file_count,
            carried.stats.match_count,
            carried.stats.shared_backends
        ),
        (3, 6, 0)
    );
    assert!(carried.ran_out() && carried.covers(u32::MAX));
    // Worked out once: the first pages a cached census serves share it.
    assert!(Arc::ptr_eq(&carried, &census.files_with_lines()));
}

#[test]
fn a_census_counts_every_file_returned_once_and_is_worked_out_once() {
    let stats = SearchStats {
        file_count: 2,
        match_count: 2,
        ..Default::default()
    };
    let a = answer(
        vec![file("r", "a/x.go", 9.0, 3), file("r", "b/y.go", 5.0, 2)],
        10,
        stats,
    );
    let c = a.census(false, false, &census_query());
    assert_eq!((c.kind, c.files_total), (CountKind::Exact, 2));
    let files: Vec<&str> = c.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(files, ["a/x.go", "b/y.go"]);
    assert!(c.files.iter().all(|f| f.items == 1));
    assert!(Arc::ptr_eq(&c, &a.census(true, false, &census_query())));
    // Cut by Zoekt: lower bounds.
    let cut =
        answer(vec![file("r", "a/x.go", 9.0, 1)], 10, stats).census(true, false, &census_query());
    assert_eq!(cut.kind, CountKind::AtLeast);
    assert_eq!(
        CountKind::of_all([CountKind::AtLeast, CountKind::About]),
        CountKind::AtLeast
    );
}
