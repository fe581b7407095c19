//! Which count a page's ways to narrow are read from: the census, or the page's own window.

use std::sync::Arc;

use super::super::narrowing_of;
use crate::engine::answer::ItemList;
use crate::engine::census::{CensusPart, CountKind, CountUnit, CountedFile, FileFacts};
use crate::engine::order::Position;
use crate::engine::suggest::{NarrowBy, Narrowing};
use crate::engine::tool::{Collected, Run, Total};
use crate::engine::window::{Cut, Section};

/// `a b -file:^go-modules/ -file:^rust-crates/` on the monorepo: the census's 3 s ran
/// out in the shards it searched first, which held nothing of it; the page's window
/// (10 s) holds files of `npm/` and `c-include/`.
#[test]
fn a_census_cut_before_it_found_a_file_leaves_the_ways_to_the_window() {
    // 40 files, 3 items each: 25 under npm/, 15 under c-include/.
    let paths: Vec<String> = (0..40)
        .map(|i| match i % 8 {
            0..=4 => format!("npm/p{i}/index.js"),
            _ => format!("c-include/h{i}.h"),
        })
        .collect();
    let files: Vec<FileFacts> = (paths.iter().enumerate())
        .map(|(i, p)| FileFacts {
            repo: "monorepo".into(),
            path: p.clone(),
            language: String::new(),
            item_end: 3 * (i + 1),
            matches: 3,
            with_lines: true,
        })
        .collect();
    let positions: Vec<Position> = (0..120)
        .map(|i| Position {
            section: 0,
            section_start: 0,
            earlier_cut: false,
            score: 1.0,
            file: i / 3,
            index: (i % 3) as u32,
        })
        .collect();
    let list = Arc::new(ItemList {
        items: (0..120).collect::<Vec<u32>>(),
        positions,
        files,
    });
    let collected = Collected {
        runs: vec![Run::new(list, 120, Section::default())],
        first: 0,
        ranked: true,
        ran_out: false,
        cut: Cut::default(),
        total: Total {
            value: 31_335,
            exact: false,
            at_least: true,
        },
        warnings: vec![],
    };
    let mut empty = CensusPart::of_counted(Vec::new(), CountKind::AtLeast, CountUnit::Files, 0);
    empty.shards_unsearched = true;
    let ways = |n: Option<Narrowing>| -> Vec<NarrowBy> {
        n.map(|n| n.ways.into_iter().map(|w| w.by).collect())
            .unwrap_or_default()
    };
    let from_window = ways(narrowing_of(Some(Arc::new(empty)), &collected, 30));
    let top = |dir: &str| NarrowBy::Directory {
        repo: None,
        dir: dir.into(),
    };
    assert!(from_window.contains(&top("c-include/")), "{from_window:?}");
    assert_eq!(from_window, ways(narrowing_of(None, &collected, 30)));
    // A cut census of fewer files than the window counts less than it; one of as many is
    // the census (here all under python/, which no file of the window is in).
    let counted = |n: usize| {
        let files = (0..n)
            .map(|i| CountedFile {
                repo: "monorepo".into(),
                path: format!("python/{}/m{i}.py", ["a", "b", "c", "d"][i % 4]),
                language: String::new(),
                items: 1,
            })
            .collect();
        Some(Arc::new(CensusPart::of_counted(
            files,
            CountKind::AtLeast,
            CountUnit::Files,
            n as u64,
        )))
    };
    assert_eq!(ways(narrowing_of(counted(39), &collected, 30)), from_window);
    let census = ways(narrowing_of(counted(40), &collected, 30));
    assert!(census.contains(&top("python/a/")), "{census:?}");
}
