//! What one answer makes certain: the edge of its trusted files, ties, cuts, and how far
//! the next window grows.

use super::*;

#[test]
fn ties_at_the_edge_are_not_trusted_until_exhausted() {
    let window = vec![f("b", "x", 9.0), f("a", "y", 5.0), f("c", "z", 5.0)];
    assert_eq!(trusted(window.clone(), false), ["b/x"]);
    let mut all = vec!["b/x".to_string()];
    all.extend(by_key(&["a/y", "c/z"]));
    assert_eq!(trusted(window, true), all);
}

#[test]
fn a_third_file_with_a_new_extension_in_a_window_of_three_is_not_the_edge() {
    // Zoekt may have boosted a.rs from far below: b/y and c/y tie, and a third copy of
    // README.md could sit between them and a.rs. Only b/x is certain.
    let window = vec![
        f("b", "x.md", 9.0),
        f("b", "y.md", 8.0),
        f("a", "z.rs", 1.0),
    ];
    assert_eq!(trusted(window, false), ["b/x.md"]);
    // The same extension as the top two: a.md may still be a file an earlier round's
    // boost kept, in the place of one scoring between it and b/y. Only b/x is certain.
    let plain = vec![
        f("b", "x.md", 9.0),
        f("b", "y.md", 8.0),
        f("a", "z.md", 1.0),
    ];
    assert_eq!(trusted(plain, false), ["b/x.md"]);
}

#[test]
fn ties_are_broken_by_the_file_key_not_by_zoekts_order() {
    let names = ["b/p", "a/q", "a/p", "c/r", "d/s"];
    let expected = by_key(&names);
    // Whatever order Zoekt sends them in, the page order is the same.
    for rotation in 0..names.len() {
        let mut window: Vec<RankedFile> = names
            .iter()
            .map(|n| {
                let (r, p) = n.split_once('/').unwrap();
                f(r, p, 7.0)
            })
            .collect();
        window.rotate_left(rotation);
        assert_eq!(trusted(window, true), expected);
    }
}

#[test]
fn a_boosted_file_does_not_lower_the_edge() {
    // Zoekt order: 10, 9, [boosted 1], 8, 7 — the boosted file came from below the cut, so
    // files scoring between 1 and 7 may be missing: trust only > 7.
    let window = vec![
        f("r", "a", 10.0),
        f("r", "b", 9.0),
        f("r", "novel.md", 1.0),
        f("r", "c", 8.0),
        f("r", "d", 7.0),
    ];
    assert_eq!(trusted(window, false), ["r/a", "r/b", "r/c"]);
}

#[test]
fn a_file_is_its_repository_path_and_branches() {
    let window = vec![f("r", "a", 3.0), f("r", "a", 3.0)];
    assert_eq!(page_order(&window).len(), 1);
    // The same path in two versions (a file that differs between branches): two files.
    let mut main = f("r", "a", 3.0);
    main.branches = vec!["main".into()];
    let mut dev = f("r", "a", 3.0);
    dev.branches = vec!["dev".into()];
    let files = [main.clone(), dev.clone(), main];
    let o = page_order(&files);
    assert_eq!(o.len(), 2);
    assert_ne!(o[0].0, o[1].0);
}

#[test]
fn growth_is_at_least_double_and_bounded() {
    assert_eq!(next_window(10, 10, 0, 31, 1000), 20);
    assert_eq!(next_window(10, 10, 5, 31, 1000), 93); // 0.5 items/file → 62 × 1.5
    assert_eq!(next_window(600, 600, 1, 10_000, 1000), 1000);
    // 38 of 68 files tied at the edge: eight times.
    assert_eq!(next_window(68, 30, 30, 31, 1000), 544);
}

#[test]
fn an_answer_knows_its_files_weight_age_and_whether_zoekt_ran_out() {
    let ranked = |n: usize| RankedFiles {
        files: distinct(n),
        stats: SearchStats::default(),
        cut_at_bytes: false,
    };
    // Fewer files than asked: every file Zoekt has. As many as asked: maybe more behind.
    let short = Answer::new(&ranked(3), 5, one_item);
    let full = Answer::new(&ranked(5), 5, one_item);
    assert!(short.ran_out() && short.covers(500));
    assert!(!full.ran_out() && !full.covers(6));
    assert_eq!((short.file_count(), full.file_count()), (3, 5));
    assert_eq!(full.weight(), 0, "not weighed yet");
    assert_eq!(full.weighed(1234).weight(), 1234);
    let earlier = Instant::now()
        .checked_sub(Duration::from_secs(30))
        .expect("the clock is past 30 s");
    let old = Answer::new(&ranked(1), 1, one_item).fetched_at(earlier);
    assert!(old.age() >= Duration::from_secs(30), "{:?}", old.age());
}

#[test]
fn the_first_uncovered_window_is_what_a_fetch_would_ask_zoekt_for() {
    let answer = |files: usize, asked: u32| {
        let ranked = RankedFiles {
            files: distinct(files),
            stats: SearchStats::default(),
            cut_at_bytes: false,
        };
        Arc::new(Answer::new(&ranked, asked, one_item))
    };
    // 8 files serve 5 items (the 8th is the untrusted edge): nothing to ask.
    assert_eq!(spec(5, 1000).first_uncovered(&answer(100, 8)), None);
    // 20 items start at a window of 23 files, which 8 do not cover.
    assert_eq!(spec(20, 1000).first_uncovered(&answer(100, 8)), Some(23));
    // 30 items, a walk whose first window was 23: those 23 hold 22 certain items, so the
    // next window (doubled, 46) is the first the answer lacks.
    let walk = WindowSpec {
        probe: 20,
        ..spec(30, 1000)
    };
    assert_eq!(walk.first_uncovered(&answer(100, 23)), Some(46));
    // Zoekt had only 10 files: that answer covers every window.
    assert_eq!(spec(30, 1000).first_uncovered(&answer(10, 23)), None);
}

#[test]
fn only_files_above_the_second_lowest_score_are_certain() {
    assert_eq!(trusted_edge(&[]), None);
    assert_eq!(trusted_edge(&[9.0]), Some(9.0));
    assert_eq!(trusted_edge(&[9.0, 8.0]), Some(8.0));
    // A boosted third, or a file an earlier round's boost left at the end: the lowest.
    assert_eq!(trusted_edge(&[9.0, 8.0, 4.0, 5.0]), Some(5.0));
    assert_eq!(trusted_edge(&[10.0, 10.0, 10.0, 1.0]), Some(10.0));
    assert_eq!(trusted_edge(&[10.0, 10.0, 1.0, 10.0]), Some(10.0));
    assert_eq!(trusted_edge(&[9.0, 8.0, 6.0]), Some(8.0));
}

#[test]
fn cuts_add_up_and_the_total_cap_counts_only_when_passed() {
    let a = Cut {
        shards_skipped: 1,
        files_skipped: 2,
        crashes: 3,
        total_cap: None,
        missing_backends: 0b01,
        out_of_time: true,
    };
    let b = Cut {
        shards_skipped: 10,
        files_skipped: 20,
        crashes: 30,
        total_cap: Some(5),
        missing_backends: 0b10,
        out_of_time: false,
    };
    assert_eq!(
        a.merged(b),
        Cut {
            shards_skipped: 11,
            files_skipped: 22,
            crashes: 33,
            total_cap: Some(5),
            missing_backends: 0b11,
            out_of_time: true,
        }
    );
    let effort = Effort {
        total_max_match_count: 100,
        ..Effort::default()
    };
    let at = |match_count| {
        Cut::of(
            &SearchStats {
                match_count,
                ..SearchStats::default()
            },
            &effort,
        )
    };
    assert_eq!(
        at(100).total_cap,
        None,
        "reaching the cap is not passing it"
    );
    assert_eq!(at(101).total_cap, Some(100));
    assert_eq!(
        Cut::of(&SearchStats::default(), &Effort::default()),
        Cut::default()
    );
}

#[test]
fn a_cut_answer_is_never_exhausted() {
    let effort = Effort {
        total_max_match_count: 100,
        ..Effort::default()
    };
    let w = |stats: SearchStats, effort: &Effort| {
        Window::<String>::whole(ItemList::default(), true, stats, Cut::of(&stats, effort))
    };
    assert!(w(SearchStats::default(), &effort).exhausted());
    let cuts = [
        SearchStats {
            shards_skipped: 1,
            ..Default::default()
        },
        SearchStats {
            files_skipped: 1,
            ..Default::default()
        },
        SearchStats {
            crashes: 1,
            ..Default::default()
        },
        SearchStats {
            match_count: 101,
            ..Default::default()
        },
        // Searched until the wall time: Zoekt ran out of time inside its shards.
        SearchStats {
            duration_ms: effort.max_wall_time_ms,
            ..Default::default()
        },
    ];
    for (i, stats) in cuts.into_iter().enumerate() {
        let w = w(stats, &effort);
        assert!(!w.exhausted(), "cut {i}");
        assert_eq!(w.cut.out_of_time, i == 0 || i == 4, "cut {i}");
        // Only the per-shard cap is deterministic.
        assert_eq!(w.cut.is_transient(), i != 1, "cut {i}");
    }
    // A search that ended before the wall time did not run out of it.
    let quick = SearchStats {
        duration_ms: effort.max_wall_time_ms - 1,
        ..Default::default()
    };
    assert!(w(quick, &effort).exhausted());
    // Without a total cap (the default), a big match count is no cut.
    let big = SearchStats {
        match_count: 10_000_000,
        ..Default::default()
    };
    assert!(w(big, &Effort::default()).exhausted());
}
