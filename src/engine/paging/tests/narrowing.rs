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
    // A census that counted some file is the census, however few.
    let one = CensusPart::of_counted(
        vec![CountedFile {
            repo: "monorepo".into(),
            path: "npm/p0/index.js".into(),
            language: String::new(),
            items: 1,
        }],
        CountKind::AtLeast,
        CountUnit::Files,
        1,
    );
    assert!(ways(narrowing_of(Some(Arc::new(one)), &collected, 30)).is_empty());
}
