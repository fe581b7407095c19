//! Tests of `engine::tool`, kept beside it so the module reads as what it does.

use super::*;

fn at(score: f64, file: u64, index: u32) -> Position {
    Position {
        section: 0,
        section_start: 0,
        earlier_cut: false,
        score,
        file,
        index,
    }
}

fn collected(runs: Vec<Run<u32>>, ranked: bool) -> Collected<u32> {
    Collected {
        runs,
        first: 0,
        ranked,
        ran_out: true,
        cut: Cut::default(),
        total: Total {
            value: 0,
            exact: false,
            at_least: false,
        },
        warnings: vec![],
    }
}

fn run(positions: Vec<Position>, len: usize, section: Section) -> Run<u32> {
    let items = (0..positions.len() as u32).collect();
    Run::new(
        Arc::new(ItemList {
            items,
            positions,
            files: Vec::new(),
        }),
        len,
        section,
    )
}

#[test]
fn estimates_read_the_backends_counts_as_each_search_declares() {
    let stats = SearchStats {
        file_count: 4,
        match_count: 10,
        ..SearchStats::default()
    };
    assert_eq!(Estimate::Matches.of(&stats, 3), 10);
    assert_eq!(Estimate::Files.of(&stats, 3), 4);
    let few = SearchStats {
        match_count: 2,
        ..stats
    };
    assert_eq!(Estimate::MatchesOrFiles.of(&few, 0), 4);
    // Zoekt counts each definition line once in the usages query's matches (its `sym:`
    // match and its word overlap): 10 matches with 4 definitions are 6 usages.
    assert_eq!(Estimate::MatchesAfterEarlierSections.of(&stats, 4), 6);
    assert_eq!(Estimate::MatchesAfterEarlierSections.of(&stats, 40), 0);
}

#[test]
fn seek_starts_after_the_item_or_after_where_it_was() {
    let ps = vec![at(9.0, 1, 0), at(9.0, 1, 1), at(5.0, 4, 0), at(2.0, 2, 0)];
    let c = collected(vec![run(ps, 4, Section::default())], true);
    assert_eq!(c.seek(&at(9.0, 1, 1)), Some(2));
    // Gone from the window: the next one past where it stood.
    assert_eq!(c.seek(&at(5.0, 3, 0)), Some(2));
    assert_eq!(c.seek(&at(5.0, 5, 0)), Some(3));
    assert_eq!(c.seek(&at(1.0, 0, 0)), Some(4));
    assert_eq!(c.seek(&at(99.0, 0, 0)), Some(0));
    // A listing in another order: only the item itself can be found, even when the
    // listing happens to be in key order.
    let listing = collected(
        vec![Run::all(ItemList {
            items: vec![0, 1],
            positions: vec![at(0.0, 3, 0), at(0.0, 7, 0)],
            files: Vec::new(),
        })],
        false,
    );
    assert_eq!(listing.seek(&at(0.0, 3, 0)), Some(1));
    assert_eq!(listing.seek(&at(0.0, 5, 0)), None);
    // In a listing of two runs, an item of the second counts the first run's items.
    let two = collected(
        vec![
            run(vec![at(0.0, 3, 0), at(0.0, 7, 0)], 2, Section::default()),
            run(vec![at(0.0, 1, 0), at(0.0, 9, 0)], 2, Section::default()),
        ],
        false,
    );
    assert_eq!(two.seek(&at(0.0, 9, 0)), Some(4));
}

#[test]
fn runs_read_as_one_list_in_their_sections_and_only_up_to_their_length() {
    // Definitions (section 0), then usages stored as section 0 and placed in section 1
    // after 2 items; the usages' list holds a third item beyond the run's length.
    let defs = run(vec![at(3.0, 1, 0), at(1.0, 2, 0)], 2, Section::default());
    let usages = run(
        vec![at(9.0, 5, 0), at(4.0, 6, 0), at(2.0, 7, 0)],
        2,
        Section {
            number: 1,
            start: 2,
            earlier_cut: true,
        },
    );
    let c = collected(vec![defs, usages], true);
    assert_eq!(c.len(), 4);
    assert!(!c.is_empty());
    assert!(collected(vec![], true).is_empty());
    let (item, p) = c.get(2).unwrap();
    assert_eq!(
        (*item, p.section, p.section_start, p.earlier_cut),
        (0, 1, 2, true)
    );
    assert!(c.get(4).is_none(), "the run's length bounds it");
    // A usage scoring above every definition still comes after them.
    let mut after = at(9.0, 5, 0);
    after.section = 1;
    assert_eq!(c.seek(&after), Some(3));
    assert_eq!(c.seek(&at(1.0, 2, 0)), Some(2));
}
