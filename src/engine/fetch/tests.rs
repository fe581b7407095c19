//! The window fetch's tests: the growing fetch end to end against a fake Zoekt (here, and
//! through ties at a window's edge in `ties`), and what one answer makes certain of its files
//! (`answers`), with the helpers they share.

use super::*;
use crate::engine::answer::{ItemList, page_order, trusted_edge};
use crate::engine::backend::{RankedFiles, SearchStats};
use crate::engine::order::file_key;
use crate::engine::testing::FakeBackend;
use std::time::{Duration, Instant};

mod answers;
mod ties;

fn f(repo: &str, path: &str, score: f64) -> RankedFile {
    RankedFile {
        repo: repo.into(),
        path: path.into(),
        score,
        ..Default::default()
    }
}

fn key_of(name: &str) -> u64 {
    let (repo, path) = name.split_once('/').unwrap();
    file_key(repo, path, &[])
}

/// `names`, tied in score, in page order: by their file key.
fn by_key(names: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    v.sort_by_key(|n| key_of(n));
    v
}

/// The certain files of a window, in page order.
fn trusted(files: Vec<RankedFile>, ran_out: bool) -> Vec<String> {
    // A window that ran out was asked for more files than it holds.
    let asked = files.len() as u32 + u32::from(ran_out);
    let ranked = RankedFiles {
        files,
        stats: SearchStats::default(),
        cut_at_bytes: false,
    };
    let answer = Answer::new(&ranked, asked, one_item);
    let view = answer.view(asked);
    answer.list.items[..view.certain_items].to_vec()
}

const Q: &str = "q";

/// A fetch of `Q` for `needed` items, at most `max_files` files a request.
fn spec(needed: usize, max_files: u32) -> WindowSpec<'static> {
    WindowSpec {
        query: Q,
        effort: Effort::default(),
        context_lines: 0,
        shape: Shape::Lines,
        needed,
        probe: needed,
        max_files,
        count: false,
    }
}

/// One item per file: its name.
fn one_item(f: &RankedFile) -> Vec<String> {
    vec![format!("{}/{}", f.repo, f.path)]
}

/// `n` files `r/fNN.go` of distinct scores, best first.
fn distinct(n: usize) -> Vec<RankedFile> {
    (0..n)
        .map(|i| f("r", &format!("f{i:03}.go"), (n - i) as f64))
        .collect()
}

async fn run(
    backend: &FakeBackend,
    spec: &WindowSpec<'_>,
    flatten: impl Fn(&RankedFile) -> Vec<String>,
) -> Window<String> {
    fetch_direct(backend, spec, flatten, &AtomicU32::new(0))
        .await
        .expect("fake never fails")
}

/// Fetches over `files` sparse files (every tenth yields an item) from an answer source
/// that refuses, as too big to read, any window over `fits` files. Returns the window
/// (or the error) and the windows asked, in order.
async fn within_bytes(
    needed: usize,
    fits: u32,
) -> (Result<Window<String>, BackendError>, Vec<u32>) {
    within(needed, None, |files, _| {
        (files > fits).then_some(BackendErrorKind::TooBig)
    })
    .await
}

/// As [`within_bytes`], with `refuse` deciding which windows fail, and how; it is told
/// whether a window was too big to read before.
async fn within(
    needed: usize,
    files_within: Option<u32>,
    refuse: impl Fn(u32, bool) -> Option<BackendErrorKind>,
) -> (Result<Window<String>, BackendError>, Vec<u32>) {
    let all = distinct(100);
    let sparse = |f: &RankedFile| {
        if f.path.ends_with("9.go") {
            one_item(f)
        } else {
            vec![]
        }
    };
    let asked = std::sync::Mutex::new(Vec::new());
    let seen_too_big = std::sync::atomic::AtomicBool::new(false);
    let result = fetch(&spec(needed, 1000), |files| {
        asked.lock().unwrap().push(files);
        let refused = refuse(files, seen_too_big.load(Ordering::Relaxed));
        let answer = if let Some(kind) = refused {
            if kind == BackendErrorKind::TooBig {
                seen_too_big.store(true, Ordering::Relaxed);
            }
            Err(BackendError {
                kind,
                message: "refused".into(),
                files_within: files_within.filter(|_| kind == BackendErrorKind::TooBig),
            })
        } else {
            let ranked = RankedFiles {
                files: all.iter().take(files as usize).cloned().collect(),
                stats: SearchStats::default(),
                cut_at_bytes: false,
            };
            Ok(Arc::new(Answer::new(&ranked, files, sparse)))
        };
        async move { answer }
    })
    .await;
    (result, asked.into_inner().unwrap())
}

#[tokio::test]
async fn the_first_request_asks_for_the_items_needed_in_files_plus_room_for_the_edge() {
    for (needed, max_files, first) in [
        (4, 100, 7),
        (1, 100, 4),
        (0, 100, 3),
        (80, 1000, 90),
        (500, 50, 50),
    ] {
        let backend = FakeBackend::new().with(Q, distinct(1000));
        run(&backend, &spec(needed, max_files), one_item).await;
        let asked = backend.files_asked(Q);
        assert_eq!(asked[0], first, "needed {needed}, max_files {max_files}");
    }
    // max_files 0 still asks for one file (never "all", which 0 means to Zoekt).
    let backend = FakeBackend::new().with(Q, distinct(10));
    run(&backend, &spec(5, 0), one_item).await;
    assert_eq!(backend.files_asked(Q), [1]);
}

#[tokio::test]
async fn one_item_per_file_with_distinct_scores_takes_one_request() {
    // The room above the edge: the last file is never certain, the ones before it are.
    for needed in [1, 2, 8, 31, 101] {
        let backend = FakeBackend::new().with(Q, distinct(1000));
        let w = run(&backend, &spec(needed, 5000), one_item).await;
        assert_eq!(backend.files_asked(Q).len(), 1, "needed {needed}");
        assert!(w.items().len() >= needed);
    }
}

#[tokio::test]
async fn a_walk_needing_more_items_grows_at_least_double_within_max_files() {
    // 100 files, only every tenth (f009, f019, ...) yields an item.
    let sparse = |f: &RankedFile| {
        if f.path.ends_with("9.go") {
            one_item(f)
        } else {
            vec![]
        }
    };
    for max_files in [64, 1000] {
        let backend = FakeBackend::new().with(Q, distinct(100));
        let w = run(&backend, &spec(5, max_files), sparse).await;
        let asked = backend.files_asked(Q);
        assert!(asked.len() >= 3, "{asked:?}");
        assert_eq!(asked[0], 8);
        for pair in asked.windows(2) {
            assert!(
                pair[1] >= pair[0] * 2 || pair[1] == max_files,
                "{asked:?} grows too slowly"
            );
        }
        assert!(asked.iter().all(|&n| n <= max_files), "{asked:?}");
        assert!(w.items().len() >= 5, "{:?}", w.items());
        assert_eq!(
            w.items()[..5],
            ["f009", "f019", "f029", "f039", "f049"].map(|p| format!("r/{p}.go"))
        );
        assert!(!w.capped);
        assert_eq!(w.files_asked, *asked.last().unwrap());
    }
}

#[tokio::test]
async fn a_window_too_big_to_read_ends_growth_at_the_biggest_that_fit() {
    // Pages needing 5, 7 or 9 items (50 to 90 files) when at most 40 files fit: every
    // one is bound at 40 exactly, whatever steps its growth took, so no page of a walk
    // leaves items an earlier page could reach out of reach.
    for needed in [5, 7, 9] {
        let (w, asked) = within_bytes(needed, 40).await;
        let w = w.expect("served from the biggest window that fit");
        assert!(w.bytes_bound && w.capped && !w.ran_out, "{asked:?}");
        assert_eq!(w.files_asked, 40, "needed {needed}: {asked:?}");
        assert!(asked.contains(&41), "the bound is found exactly: {asked:?}");
        // Every item of those files is served, the edge included, as at the cap.
        let held: Vec<String> = (0..40)
            .filter(|i| i % 10 == 9)
            .map(|i| format!("r/f{i:03}.go"))
            .collect();
        assert_eq!(w.items(), held.as_slice());
        assert!(!w.is_empty() && w.len() == held.len());
    }
    // A page the windows on the way already serve is not bound.
    let (w, _) = within_bytes(2, 40).await;
    assert!(!w.unwrap().bytes_bound);
}

/// Kills `bisect`'s guard mutant (any error taken for "too big"): Zoekt failing in the
/// middle of the search for the bound fails the page; it must not be served as bound.
#[tokio::test]
async fn an_outage_while_finding_the_bound_fails_the_page() {
    let (w, asked) = within(9, None, |files, seen_too_big| match files {
        61.. => Some(BackendErrorKind::TooBig),
        41.. if seen_too_big => Some(BackendErrorKind::Unreachable),
        _ => None,
    })
    .await;
    assert_eq!(
        w.err().map(|e| e.kind),
        Some(BackendErrorKind::Unreachable),
        "{asked:?}"
    );
    // The outage came while bisecting (after a window too big), and nothing was asked
    // after it.
    let (&last, before) = asked.split_last().expect("windows asked");
    assert!((41..=60).contains(&last), "{asked:?}");
    assert!(before.iter().any(|&n| n > 60), "{asked:?}");
}

#[tokio::test]
async fn a_first_window_too_big_is_halved_until_one_fits() {
    // 2 items: the first window is 5 files; only 2 fit.
    let (w, asked) = within_bytes(2, 2).await;
    let w = w.expect("a halved window");
    assert_eq!(asked, [5, 2, 4, 3], "{asked:?}");
    assert!(w.bytes_bound);
    assert_eq!(w.files_asked, 2);
    // Two files hold none of the items (every tenth file has one).
    assert!(w.is_empty() && w.items().is_empty());
    // Nothing fits: the error stands.
    let (w, asked) = within_bytes(2, 0).await;
    assert_eq!(w.err().map(|e| e.kind), Some(BackendErrorKind::TooBig));
    assert_eq!(asked, [5, 2, 1]);
}

#[tokio::test]
async fn a_first_window_too_big_asks_next_for_the_files_its_answer_said_fit() {
    // 30 items: a first window of 33 files; 5 fit, and the answer too big says so: one
    // step down to 5, not 16 then 8 then 4. Then the bound is found as usual and the page
    // is the one halving gives.
    let refuse = |files: u32, _| (files > 5).then_some(BackendErrorKind::TooBig);
    let (told, asked_told) = within(30, Some(5), refuse).await;
    let (halved, asked_halved) = within(30, None, refuse).await;
    assert_eq!(asked_told[..2], [33, 5], "{asked_told:?}");
    assert_eq!(asked_halved[..4], [33, 16, 8, 4], "{asked_halved:?}");
    let (told, halved) = (told.expect("a page"), halved.expect("a page"));
    assert_eq!(told.items(), halved.items());
    assert!(told.bytes_bound && halved.bytes_bound);
    // An answer saying nothing fits goes to one file at once; a hint at or over half is
    // no better than halving.
    let (_, asked) = within(2, Some(0), |_, _| Some(BackendErrorKind::TooBig)).await;
    assert_eq!(asked, [5, 1]);
    let (_, asked) = within(30, Some(30), refuse).await;
    assert_eq!(asked[..2], [33, 16]);
}

#[tokio::test]
async fn the_bound_is_found_from_what_the_answer_too_big_said_fit() {
    // Growth meets a window too big; the bound is 40 files. Told so, the bisection
    // settles it in two tries (40 fits, 41 does not); told wrong, or not told, it finds
    // the same bound, and the page is the same.
    let refuse = |files: u32, _| (files > 40).then_some(BackendErrorKind::TooBig);
    let (told, asked_told) = within(9, Some(40), refuse).await;
    let (wrong, asked_wrong) = within(9, Some(90), refuse).await;
    let (untold, asked_untold) = within(9, None, refuse).await;
    let growth = asked_untold.iter().take_while(|&&f| f <= 40).count() + 1;
    assert_eq!(asked_told[growth..], [40, 41], "{asked_told:?}");
    assert!(
        asked_untold.len() > asked_told.len() + 2,
        "{asked_untold:?}"
    );
    assert!(
        asked_wrong.len() <= asked_untold.len() + 2,
        "{asked_wrong:?}"
    );
    for w in [&told, &wrong] {
        let w = w.as_ref().expect("a page");
        assert_eq!(w.items(), untold.as_ref().expect("a page").items());
        assert_eq!((w.files_asked, w.bytes_bound), (40, true));
    }
}

#[tokio::test]
async fn the_cap_is_reported_and_is_not_exhaustion() {
    // 50 files, 20 items wanted, at most 8 files a request: capped, not exhausted, and
    // the edge file is kept since the certain ones cannot fill the page.
    let backend = FakeBackend::new().with(Q, distinct(50));
    let w = run(&backend, &spec(20, 8), one_item).await;
    assert!(w.capped && !w.ran_out);
    assert_eq!(w.files_asked, 8);
    assert!(backend.files_asked(Q).iter().all(|&n| n <= 8));
    assert_eq!(w.items().len(), 8);
    // At the cap with enough certain items, the two lowest files stay out (the lowest may
    // stand in for a better one: `trusted_edge`) and nothing is capped.
    let backend = FakeBackend::new().with(Q, distinct(50));
    let w = run(&backend, &spec(5, 8), one_item).await;
    assert!(!w.capped && !w.ran_out);
    assert_eq!(w.items().len(), 6);
    // Exactly as many certain items as needed is enough too.
    let backend = FakeBackend::new().with(Q, distinct(50));
    let w = run(&backend, &spec(6, 8), one_item).await;
    assert!(!w.capped && !w.ran_out);
    assert_eq!(w.items().len(), 6);
    // Zoekt holds fewer files than asked: exhausted, every item, not capped.
    let backend = FakeBackend::new().with(Q, distinct(5));
    let w = run(&backend, &spec(20, 100), one_item).await;
    assert!(w.ran_out && !w.capped);
    assert_eq!(w.items().len(), 5);
    assert_eq!(backend.files_asked(Q), [23]);
    // An unknown query: no files, exhausted at once.
    let w = run(&FakeBackend::new(), &spec(3, 100), one_item).await;
    assert!(w.ran_out && w.items().is_empty());
}

#[tokio::test]
async fn every_request_of_one_fetch_carries_the_same_effort() {
    let effort = Effort {
        shard_max_match_count: 7,
        total_max_match_count: 70,
        max_wall_time_ms: 700,
    };
    let backend = FakeBackend::new().with(Q, distinct(100));
    let s = WindowSpec {
        effort,
        context_lines: 2,
        ..spec(4, 1000)
    };
    // Only every tenth file yields an item: several growths.
    let sparse = |f: &RankedFile| {
        if f.path.ends_with("9.go") {
            one_item(f)
        } else {
            vec![]
        }
    };
    run(&backend, &s, sparse).await;
    let requests = backend.requests();
    assert!(requests.len() >= 3, "{requests:?}");
    for r in &requests {
        assert_eq!(r.effort, effort);
        assert_eq!(r.query, Q);
        assert_eq!(r.context_lines, 2);
        assert_eq!(r.shape, Shape::Lines);
    }
}

#[tokio::test]
async fn an_answer_out_of_time_ends_the_growth_with_what_was_found() {
    // `search '\b'` on a big index: Zoekt searches until its wall time and returns files
    // that yield almost no items. Growing the window would search as long again, each
    // time, until the call's deadline: the first answer is the page.
    let backend = FakeBackend::new().with(Q, distinct(100));
    backend.cut(
        Q,
        SearchStats {
            duration_ms: Effort::default().max_wall_time_ms,
            ..SearchStats::default()
        },
    );
    let sparse = |f: &RankedFile| {
        if f.path.ends_with("09.go") {
            one_item(f)
        } else {
            vec![]
        }
    };
    let w = run(&backend, &spec(10, 1000), sparse).await;
    assert_eq!(backend.requests().len(), 1, "one request, no growth");
    assert!(w.cut.out_of_time && !w.exhausted() && !w.capped);
    // What the window found is served, the edge included: f009 is its only item.
    assert_eq!(w.items(), ["r/f009.go"]);

    // Within the wall time, the same answer grows the window as usual.
    let backend = FakeBackend::new().with(Q, distinct(100));
    run(&backend, &spec(10, 1000), sparse).await;
    assert!(backend.requests().len() > 1);
}
