//! The growing fetch through files tied in score at a window's edge: held back until the
//! window passes them, grown faster for them, and returned once Zoekt has no more.

use super::*;

/// A file scoring 9, four files tied at 5 (listed in reverse name order), then `behind`
/// files scoring below them.
fn tie_fixture(behind: usize) -> Vec<RankedFile> {
    let mut files = vec![
        f("a", "top.go", 9.0),
        f("t2", "a.go", 5.0),
        f("t1", "b.go", 5.0),
        f("t1", "a.go", 5.0),
        f("t0", "z.go", 5.0),
    ];
    files.extend((0..behind).map(|i| f("z", &format!("low{i}.go"), 1.0 - i as f64 / 10.0)));
    files
}

const TIED: [&str; 4] = ["t0/z.go", "t1/a.go", "t1/b.go", "t2/a.go"];

#[tokio::test]
async fn a_tie_group_at_the_edge_is_held_back_until_the_window_passes_it() {
    // Room to grow: the fetch only stops once the window holds a file below the ties.
    let backend = FakeBackend::new().with(Q, tie_fixture(40));
    let w = run(&backend, &spec(2, 100), one_item).await;
    let asked = backend.files_asked(Q);
    assert_eq!(asked[0], 5, "a window ending right at the tie group");
    assert!(asked.len() > 1, "stopped at {asked:?}");
    assert!(!w.ran_out && !w.capped);
    let mut expected = vec!["a/top.go".to_string()];
    expected.extend(by_key(&TIED));
    assert_eq!(w.items()[..5], expected);
    assert!(
        w.items()[5..].iter().all(|i| i.starts_with("z/low")),
        "{:?}",
        w.items()
    );
    // low0 scores best, then low1, ... (by number, not by name: low10 after low9).
    let lows: Vec<usize> = w.items()[5..]
        .iter()
        .map(|i| i["z/low".len()..i.len() - ".go".len()].parse().unwrap())
        .collect();
    assert_eq!(
        lows,
        (0..lows.len()).collect::<Vec<_>>(),
        "distinct scores, best first"
    );
    // Every item's position is strictly after the one before.
    for pair in w.positions().collect::<Vec<_>>().windows(2) {
        assert_eq!(pair[0].order(&pair[1]), std::cmp::Ordering::Less);
    }
}

#[tokio::test]
async fn a_tie_filling_most_of_the_window_grows_it_eight_times() {
    // 30 files of distinct scores, 200 tied after them (a licence header), 100 below.
    let mut files: Vec<RankedFile> = (0..30)
        .map(|i| f("a", &format!("top{i:02}.go"), 1000.0 - i as f64))
        .collect();
    files.extend((0..200).map(|i| f("t", &format!("tie{i:03}.go"), 500.0)));
    files.extend((0..100).map(|i| f("z", &format!("low{i:03}.go"), 100.0 - i as f64)));
    let backend = FakeBackend::new().with(Q, files);
    let w = run(&backend, &spec(31, 1000), one_item).await;
    // 34 holds 4 of the tie, not half: doubled. 68 holds 38: grown 8 times, past it
    // (doubling took 136 and 272 after 68).
    assert_eq!(backend.files_asked(Q), [34, 68, 544]);
    assert!(w.len() >= 31 && !w.capped);
    assert_eq!(w.items()[30..230].len(), 200);
    assert!(w.items()[30..230].iter().all(|i| i.starts_with("t/tie")));
}

#[tokio::test]
async fn a_tie_wider_than_the_largest_window_still_yields_items_and_says_so() {
    // Windows of at most 2..5 files end inside the tie group (or right at its end, which
    // Zoekt cannot tell apart): the edge is kept, in key order, and the window is capped.
    for max_files in [2, 3, 4, 5] {
        let backend = FakeBackend::new().with(Q, tie_fixture(4));
        let w = run(&backend, &spec(3, max_files), one_item).await;
        assert!(w.capped && !w.ran_out, "max_files {max_files}");
        assert_eq!(w.items()[0], "a/top.go");
        assert_eq!(w.items().len(), max_files as usize, "max_files {max_files}");
        let tied: Vec<&str> = w.items()[1..].iter().map(String::as_str).collect();
        assert_eq!(tied, by_key(&tied), "max_files {max_files}");
    }
    // A whole window of tied files: the first page is not empty.
    let all_tied: Vec<RankedFile> = (0..20)
        .map(|i| f(&format!("r{i:02}"), "LICENSE", 4.0))
        .collect();
    let backend = FakeBackend::new().with(Q, all_tied);
    let w = run(&backend, &spec(4, 8), one_item).await;
    assert!(w.capped);
    assert_eq!(w.items().len(), 8);
}

#[tokio::test]
async fn a_tie_group_at_the_end_is_returned_once_zoekt_is_exhausted() {
    let backend = FakeBackend::new().with(Q, tie_fixture(0));
    let w = run(&backend, &spec(2, 100), one_item).await;
    let mut expected = vec!["a/top.go".to_string()];
    expected.extend(by_key(&TIED));
    assert_eq!(w.items(), expected);
    assert!(w.ran_out && !w.capped);
    assert!(w.exhausted());
}
