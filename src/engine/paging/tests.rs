//! The paging engine's tests: pages, cursors and ways to narrow over the fake backend.

use super::*;
use crate::engine::backend::{self, RankedFile, SearchStats};
use crate::engine::config::{Effort, PagerConfig};
use crate::engine::cursor::CursorError;
use crate::engine::testing::{FakeBackend, LineArgs, LineItem, LineTool};
use crate::engine::warning::Warning;

mod narrowing;

/// The fake tool over the fake backend: one item per file (they have no lines).
const TEXT: &str = "unit";

fn q() -> String {
    TEXT.to_string()
}

fn file(name: &str, score: f64) -> RankedFile {
    RankedFile {
        repo: "r".into(),
        path: name.into(),
        score,
        path_matched: true,
        ..Default::default()
    }
}

/// `n` files `uNN` of distinct scores, u00 best.
fn files(n: usize) -> Vec<RankedFile> {
    (0..n)
        .map(|i| file(&format!("u{i:02}"), 100.0 - i as f64))
        .collect()
}

fn args(limit: u32, cursor: Option<&str>) -> LineArgs {
    LineArgs {
        query: TEXT.into(),
        limit: Some(limit),
        cursor: cursor.map(String::from),
        ..Default::default()
    }
}

fn paths(page: &Page<LineItem>) -> Vec<&str> {
    page.items.iter().map(|i| i.path.as_str()).collect()
}

async fn page(p: &Pager<FakeBackend>, limit: u32, cursor: Option<&str>) -> Page<LineItem> {
    p.page::<LineTool>(&args(limit, cursor))
        .await
        .expect("page")
}

#[tokio::test]
async fn a_cursor_resumes_right_after_its_item_when_files_arrive_before_it() {
    let p = Pager::new(
        FakeBackend::new().with(&q(), files(10)),
        PagerConfig::default(),
    );
    let first = page(&p, 3, None).await;
    assert_eq!(paths(&first), ["u00", "u01", "u02"]);
    let c = first.next_cursor.clone().unwrap();
    // Nothing changed: the page starts at its offset, not resynced.
    let same = page(&p, 3, Some(&c)).await;
    assert_eq!(paths(&same), ["u03", "u04", "u05"]);
    assert!(!same.resynced && same.complete && same.offset == 3);
    // Two better files arrive: by offset the page would repeat u01 and u02.
    let mut more = files(10);
    more.push(file("new-a", 200.0));
    more.push(file("new-b", 150.0));
    p.backend().replace(&q(), more);
    let next = page(&p, 3, Some(&c)).await;
    assert_eq!(paths(&next), ["u03", "u04", "u05"]);
    assert!(next.resynced && !next.complete);
    assert_eq!(next.offset, 5, "u03 is item 5 now");
    assert!(
        next.warnings
            .iter()
            .any(|w| matches!(w, Warning::Resynced { offset: 5, .. })),
        "{:?}",
        next.warnings
    );
}

#[tokio::test]
async fn a_cursor_whose_item_is_gone_resumes_where_it_stood() {
    let p = Pager::new(
        FakeBackend::new().with(&q(), files(10)),
        PagerConfig::default(),
    );
    let first = page(&p, 3, None).await;
    let c = first.next_cursor.clone().unwrap();
    // u02 (the last item served) and u01 are deleted: by offset u03 and u04 would be
    // skipped.
    let fewer: Vec<RankedFile> = files(10)
        .into_iter()
        .filter(|f| f.path != "u01" && f.path != "u02")
        .collect();
    p.backend().replace(&q(), fewer);
    let next = page(&p, 3, Some(&c)).await;
    assert_eq!(paths(&next), ["u03", "u04", "u05"]);
    assert!(next.resynced);
    assert_eq!(next.offset, 1);
}

#[tokio::test]
async fn a_cursor_moved_far_down_fetches_a_bigger_window() {
    let p = Pager::new(
        FakeBackend::new().with(&q(), files(30)),
        PagerConfig::default(),
    );
    let first = page(&p, 2, None).await;
    let c = first.next_cursor.clone().unwrap();
    // 40 better files arrive: the page must now start at item 42, beyond the window a
    // cursor at offset 2 would fetch.
    let mut more = files(30);
    more.extend((0..40).map(|i| file(&format!("top{i:02}"), 1000.0 - i as f64)));
    p.backend().replace(&q(), more);
    let next = page(&p, 2, Some(&c)).await;
    assert_eq!(paths(&next), ["u02", "u03"]);
    assert_eq!(next.offset, 42);
    assert!(next.has_more);
}

#[tokio::test]
async fn a_cursor_from_other_settings_is_refused() {
    let backend = FakeBackend::new().with(&q(), files(10));
    let p = Pager::new(backend, PagerConfig::default());
    let c = page(&p, 3, None).await.next_cursor.unwrap();
    for cfg in [
        PagerConfig {
            max_window: 100,
            ..PagerConfig::default()
        },
        PagerConfig {
            effort: Effort {
                shard_max_match_count: 5,
                ..Effort::default()
            },
            ..PagerConfig::default()
        },
        PagerConfig {
            effort: Effort {
                total_max_match_count: 50_000,
                ..Effort::default()
            },
            ..PagerConfig::default()
        },
    ] {
        let other = Pager::new(FakeBackend::new().with(&q(), files(10)), cfg);
        let e = other
            .page::<LineTool>(&args(3, Some(&c)))
            .await
            .unwrap_err();
        assert!(
            matches!(e, Error::Cursor(CursorError::OtherSettings)),
            "{e:?}"
        );
    }
    // The page size is not a setting of the order.
    let other = Pager::new(
        FakeBackend::new().with(&q(), files(10)),
        PagerConfig {
            default_limit: 7,
            max_limit: 50,
            ..PagerConfig::default()
        },
    );
    assert!(other.page::<LineTool>(&args(3, Some(&c))).await.is_ok());
}

#[tokio::test]
async fn a_cut_answer_is_never_exact_and_a_transient_one_keeps_a_cursor() {
    // The per-shard cap: the same every time, so the walk ends, flagged.
    let p = Pager::new(
        FakeBackend::new().with(&q(), files(4)),
        PagerConfig::default(),
    );
    p.backend().cut(
        &q(),
        SearchStats {
            files_skipped: 9,
            ..Default::default()
        },
    );
    let only = page(&p, 10, None).await;
    assert_eq!(only.count, 4);
    assert!(!only.has_more && !only.complete && !only.total.exact);
    assert!(
        only.warnings
            .iter()
            .any(|w| matches!(w, Warning::ShardCap { .. })),
        "{:?}",
        only.warnings
    );
    // Time ran out, or a shard crashed in a ready Zoekt: Zoekt may hold more, so the
    // last page keeps a cursor to ask again.
    for cut in [
        SearchStats {
            shards_skipped: 2,
            ..Default::default()
        },
        SearchStats {
            crashes: 1,
            ..Default::default()
        },
    ] {
        let p = Pager::new(
            FakeBackend::new().with(&q(), files(4)),
            PagerConfig::default(),
        );
        p.backend().set_ready(true);
        p.backend().cut(&q(), cut);
        let partial = page(&p, 10, None).await;
        assert_eq!(partial.count, 4);
        assert!(partial.has_more && !partial.complete && !partial.total.exact);
        // Out of time or crashed, the total is what Zoekt had counted: a lower bound.
        let out_of_time = cut.shards_skipped > 0;
        assert!(partial.total.at_least);
        assert_eq!(
            partial
                .warnings
                .iter()
                .any(|w| matches!(w, Warning::OutOfTime { .. })),
            out_of_time,
            "{:?}",
            partial.warnings
        );
        // Asked again once the answer is whole: the new files follow, none repeats.
        p.backend().cut(&q(), SearchStats::default());
        p.backend().replace(&q(), files(6));
        let again = page(&p, 10, partial.next_cursor.as_deref()).await;
        assert_eq!(paths(&again), ["u04", "u05"]);
        assert!(!again.has_more && again.complete && again.total.exact);
        // A retry that finds nothing new after the cut ends the walk rather than
        // looping: the walk's place was reached.
        p.backend().replace(&q(), files(4));
        p.backend().cut(&q(), cut);
        let empty = page(&p, 10, partial.next_cursor.as_deref()).await;
        assert_eq!(empty.count, 0);
        assert!(!empty.has_more && !empty.complete);
        assert!(!empty.resynced, "{:?}", empty.warnings);
    }
}

/// A page whose answer, cut by a crash or by time, ends before the walk's place holds
/// that place: an empty page with the same cursor, not a claim that the results changed
/// or that the walk is over. Asked again, the walk goes on exactly.
#[tokio::test]
async fn a_cut_answer_that_ends_before_the_page_holds_its_place() {
    for cut in [
        SearchStats {
            shards_skipped: 1,
            ..Default::default()
        },
        SearchStats {
            crashes: 1,
            ..Default::default()
        },
    ] {
        let p = Pager::new(
            FakeBackend::new().with(&q(), files(12)),
            PagerConfig::default(),
        );
        p.backend().set_ready(true);
        let first = page(&p, 4, None).await;
        let second = page(&p, 4, first.next_cursor.as_deref()).await;
        // The shard holding the rest is gone: the answer ends at item 2.
        p.backend().replace(&q(), files(2));
        p.backend().cut(&q(), cut);
        let held = page(&p, 4, second.next_cursor.as_deref()).await;
        assert_eq!(held.count, 0);
        assert_eq!(held.offset, 8);
        assert!(
            held.has_more && !held.resynced && !held.total.exact,
            "{held:?}"
        );
        assert_eq!(held.next_cursor, second.next_cursor, "the same place");
        assert!(
            held.warnings.contains(&Warning::HeldPlace),
            "{:?}",
            held.warnings
        );
        assert!(
            !held
                .warnings
                .iter()
                .any(|w| matches!(w, Warning::Resynced { .. }))
        );
        // Back: the walk resumes right where it was.
        p.backend().replace(&q(), files(12));
        p.backend().cut(&q(), SearchStats::default());
        let resumed = page(&p, 4, held.next_cursor.as_deref()).await;
        assert_eq!(paths(&resumed), ["u08", "u09", "u10", "u11"]);
        assert!(resumed.complete && !resumed.resynced);
        // A first page that found nothing because of the cut asks again from the start.
        p.backend().replace(&q(), Vec::new());
        p.backend().cut(&q(), cut);
        let nothing = page(&p, 4, None).await;
        assert!(nothing.has_more && nothing.count == 0, "{nothing:?}");
        p.backend().replace(&q(), files(3));
        p.backend().cut(&q(), SearchStats::default());
        let found = page(&p, 4, nothing.next_cursor.as_deref()).await;
        assert_eq!(paths(&found), ["u00", "u01", "u02"]);
        assert!(found.complete && !found.has_more && found.total.exact);
    }
}

/// A backend whose readiness hangs, met by an answer with crashed shards: the page is a
/// timeout after the readiness wait (not a call held until the client gives up, and not
/// NotReady: nothing said the shards were loading).
#[tokio::test(start_paused = true)]
async fn a_hung_readiness_is_waited_for_only_so_long() {
    let p = Pager::new(
        FakeBackend::new().with(&q(), files(6)),
        PagerConfig::default(),
    );
    p.backend().hang_readiness();
    p.backend().crash_next(1);
    let started = tokio::time::Instant::now();
    let e = tokio::time::timeout(
        std::time::Duration::from_secs(3600),
        p.page::<LineTool>(&args(3, None)),
    )
    .await
    .expect("the page ends")
    .unwrap_err();
    assert!(
        matches!(&e, Error::Backend(b) if b.kind == backend::BackendErrorKind::Timeout),
        "{e:?}"
    );
    assert_eq!(started.elapsed(), crate::engine::READINESS_WAIT);
}

/// Crashed shards while the backend is not ready (loading) never make a page, partial or
/// empty: the retryable NotReady error. Once ready, a crashed answer is asked for again,
/// so one that the loading left behind never reaches a page.
#[tokio::test]
async fn crashed_shards_are_settled_before_a_page_is_cut() {
    let p = Pager::new(
        FakeBackend::new().with(&q(), files(6)),
        PagerConfig::default(),
    );
    p.backend().set_ready(false);
    for n in [1, 2] {
        p.backend().crash_next(n);
        let e = p.page::<LineTool>(&args(3, None)).await.unwrap_err();
        assert!(
            matches!(&e, Error::Backend(b) if b.kind == backend::BackendErrorKind::NotReady),
            "{e:?}"
        );
    }
    // Partial answers while loading are refused too.
    p.backend().crash_next(0);
    p.backend().cut(
        &q(),
        SearchStats {
            crashes: 1,
            ..Default::default()
        },
    );
    assert!(p.page::<LineTool>(&args(3, None)).await.is_err());
    p.backend().cut(&q(), SearchStats::default());
    // Ready: one crashed answer is asked for again, and the page is whole.
    p.backend().set_ready(true);
    p.backend().crash_next(1);
    let before = p.backend().line_searches();
    let whole = page(&p, 3, None).await;
    assert_eq!(paths(&whole), ["u00", "u01", "u02"]);
    assert!(whole.complete && whole.has_more);
    assert_eq!(p.backend().line_searches() - before, 2);
    // Two in a row: the page is empty, holds the walk's start, and says so.
    p.backend().crash_next(2);
    let held = page(&p, 3, None).await;
    assert!(
        held.count == 0 && held.has_more && !held.total.exact,
        "{held:?}"
    );
    let next = page(&p, 3, held.next_cursor.as_deref()).await;
    assert_eq!(paths(&next), ["u00", "u01", "u02"]);
}

/// At the paging ceiling a page with more items after it has no cursor, and says why.
#[tokio::test]
async fn the_paging_ceiling_ends_a_walk_with_a_warning() {
    let cfg = PagerConfig {
        max_offset: 5,
        ..PagerConfig::default()
    };
    let p = Pager::new(FakeBackend::new().with(&q(), files(10)), cfg);
    let first = page(&p, 3, None).await;
    assert!(first.complete && first.next_cursor.is_some());
    let last = page(&p, 3, first.next_cursor.as_deref()).await;
    assert_eq!(paths(&last), ["u03", "u04", "u05"]);
    assert!(last.next_cursor.is_none() && !last.complete);
    assert!(
        last.warnings
            .iter()
            .any(|w| matches!(w, Warning::Ceiling { max_offset: 5, .. })),
        "{:?}",
        last.warnings
    );
}

#[tokio::test]
async fn a_tie_wider_than_the_largest_window_still_pages_without_repeats() {
    // 20 tied files, at most 8 files a request: the first page is full, and a walk never
    // repeats an item and only moves forward in the order.
    let tied: Vec<RankedFile> = (0..20)
        .map(|i| file(&format!("LICENSE{i:02}"), 5.0))
        .collect();
    let cfg = PagerConfig {
        max_window: 8,
        ..PagerConfig::default()
    };
    let p = Pager::new(FakeBackend::new().with(&q(), tied), cfg);
    let first = page(&p, 3, None).await;
    assert_eq!(first.count, 3);
    assert!(!first.complete);
    assert!(
        first
            .warnings
            .iter()
            .any(|w| matches!(w, Warning::WindowCap { .. }))
    );
    let mut seen = std::collections::HashSet::new();
    let mut cursor = first.next_cursor.clone();
    for i in &first.items {
        assert!(seen.insert(i.path.clone()));
    }
    let mut pages = 1;
    while let Some(c) = cursor {
        let next = page(&p, 3, Some(&c)).await;
        assert!(
            next.count > 0,
            "page {} is empty but came with a cursor",
            pages + 1
        );
        for i in &next.items {
            assert!(seen.insert(i.path.clone()), "{} twice", i.path);
        }
        cursor = next.next_cursor;
        pages += 1;
        assert!(pages <= 20, "runaway walk");
    }
    assert!(seen.len() >= 8, "{seen:?}");
}
