//! The window fetch: asking Zoekt for enough files to cut a page of items out of them.
//!
//! Zoekt can only be told how many FILES to return (`MaxDocDisplayCount`), sorts them with an
//! unstable sort and no tie-break, and may move one "novel extension" file up to position 3.
//! Pages are cut from ITEMS. This module bridges the two so that item `k` is the same item
//! whichever page asks for it:
//! 1. every fetch of one query sends the same effort caps, so every window searches the same
//!    candidate set and a bigger window only adds files at the end of the order;
//! 2. files are re-sorted into the total order of `engine/order.rs` (score descending, then
//!    the hash of the file's identity), and each item gets its [`Position`] in it;
//! 3. while Zoekt may hold more files, the window's lowest file may stand in for a better one
//!    Zoekt dropped, and files tied with the second-lowest score may have tied partners
//!    outside the window: only files scoring strictly above that edge are trusted
//!    (`answer::trusted_edge`);
//! 4. the window grows (bounded) until the trusted files yield the items needed or Zoekt has
//!    nothing more. At the bound, the files at the edge are kept rather than dropped, so a tie
//!    wider than the largest window still yields pages; the window says it was `capped`.
//!
//! Orders an answer and reads a window out of it: `answer.rs` and `window.rs`. Here: the
//! sequence of windows one page asks for, their growth, and the bisection that finds the
//! biggest answer that is not too big to read.
//!
//! [`Position`]: super::order::Position

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use super::answer::{Answer, clamp_u32};
use super::backend::{Backend, BackendError, BackendErrorKind, FileSearch, RankedFile, Shape};
use super::config::Effort;
use super::window::{Cut, Section, Window};

/// One window fetch to run.
#[derive(Debug, Clone)]
pub struct WindowSpec<'a> {
    /// The backend query.
    pub query: &'a str,
    /// The effort caps, the same for every window of the query.
    pub effort: Effort,
    /// Context lines around each matching line.
    pub context_lines: u32,
    /// What each file of the answer holds: its lines, or (a census) its name alone.
    pub shape: Shape,
    /// Items wanted (the page's end plus one: the extra one tells whether more exist).
    pub needed: usize,
    /// Items a walk's first page needs (its limit plus one). Every page's window sequence
    /// starts from that page's window, so the answer a walk starts with serves every page it
    /// holds the items of, and the sequence grows by items observed, not by one file per item.
    pub probe: usize,
    /// Largest `MaxDocDisplayCount` ever sent.
    pub max_files: u32,
    /// A count (`count_only`), which needs Zoekt's statistics and, to be exact, every file:
    /// the walk's first window, then, only when those statistics say every matching file was
    /// searched and they fit in `max_files`, one window of all of them. Nothing more: no
    /// growth by items, no search for the biggest answer that fits (every try is a whole
    /// search), and a window too big to read is the caller's error.
    pub count: bool,
}

impl WindowSpec<'_> {
    /// The backend search for a window of `files` files.
    pub fn search(&self, files: u32) -> FileSearch {
        FileSearch {
            query: self.query.to_string(),
            effort: self.effort,
            max_files: files,
            context_lines: self.context_lines,
            shape: self.shape,
        }
    }
}

/// Runs the growing window fetch. `answer(files)` gives an answer covering Zoekt's answer for
/// `files` files ([`Answer::covers`]): fetched for exactly that many, or a bigger one kept
/// from earlier pages. Whichever it is, the window is the same: the sequence of window sizes
/// depends only on `spec` and on what Zoekt answers for each of them.
///
/// The answer-size budget binds like `max_files`, at `L`, the most files whose answer is not
/// too big to read ([`BackendErrorKind::TooBig`]). `L` depends on the query alone, never on
/// the page, so every page of a walk is bound at the same window and none is left with an
/// earlier page's items out of reach. A page whose growth meets an answer too big finds `L`
/// by bisection between the biggest window that fit and the smallest that did not (a first
/// window too big is cut to the files its answer said fit, or halved, until one fits; one
/// file too big is the error) and is served
/// from it as at the cap ([`Window::bytes_bound`]), unless a window on the way already holds
/// what the page needs. Answer sizes grow with the window (a bigger window's answer holds the
/// smaller's files), which is what makes the bisection find `L`.
///
/// A backend that reads an answer too big up to the bound answers with its start instead
/// ([`Answer::cut_at_bytes`]): Zoekt's answer for the files read whole, from the same
/// request. Then `L` is those files, found by the one search that met the bound, with no
/// retry and no bisection ([`WindowSpec::bound_by_bytes`]). The files read before the bound
/// do not depend on how many more were asked, so every page is bound at the same `L` this
/// way too.
pub async fn fetch<T, A, Fut>(spec: &WindowSpec<'_>, answer: A) -> Result<Window<T>, BackendError>
where
    A: Fn(u32) -> Fut,
    Fut: Future<Output = Result<Arc<Answer<T>>, BackendError>>,
{
    let mut files = spec.first_files();
    // The biggest window read so far, and its answer.
    let mut fitted: Option<(u32, Arc<Answer<T>>)> = None;
    loop {
        match answer(files).await {
            Ok(read) if read.cut_below(files) => {
                return Ok(spec.bound_by_bytes(read));
            }
            Ok(read) => match spec.step(Arc::clone(&read), files) {
                Step::Done(window) => return Ok(window),
                // A count asks for every file at most once, right after its first window (the
                // only one read before it, when `fitted` is still empty).
                Step::Grow(_) if spec.count => match spec.whole_result(&read) {
                    Some(all) if fitted.is_none() && all > files => {
                        fitted = Some((files, read));
                        files = all;
                    }
                    _ => return Ok(spec.counted_by_stats(read, files)),
                },
                Step::Grow(next) => {
                    fitted = Some((files, read));
                    files = next;
                }
            },
            Err(e) if e.kind == BackendErrorKind::TooBig => {
                if spec.count {
                    return Err(e);
                }
                if let Some((fit, read)) = fitted {
                    return bisect(spec, &answer, (fit, read), files, e.files_within).await;
                }
                if files <= 1 {
                    return Err(e);
                }
                files = smaller_window(files, e.files_within);
            }
            Err(e) => return Err(e),
        }
    }
}

/// The window to ask for after one of `files` files was too big to read: as many files as
/// the answer said would fit, when that is under half (each try is a whole search, which
/// for a query Zoekt cannot finish is its whole wall time: halving from 113 files to the 7
/// that fit took the call's 60 s), else half. At least one file: one file too big is the
/// error. The page is the same whichever window serves it; only the number of tries changes.
fn smaller_window(files: u32, files_within: Option<u32>) -> u32 {
    let half = files / 2;
    files_within.map_or(half, |within| within.clamp(1, half.max(1)))
}

/// Guesses at the bound a bisection takes from answers too big ([`BackendError::files_within`])
/// before it only halves: enough for a guess and the file after it (over JSON the guess is
/// the files read whole before the bound, so that pair is the bound), few enough that a poor
/// estimate costs a try or two more than halving, never a walk down file by file.
const BISECT_GUESSES: u32 = 2;

/// Finds the biggest window whose answer fits, between `fit` (its answer `read`) and
/// `too_big`, and serves the page from it as at the cap; a window on the way that already
/// serves the page is served as usual. Every probe narrows the range, so the bound found is
/// the same whichever probes were taken: `files_within` (what the answer too big said would
/// fit) only picks the first ones.
async fn bisect<T, A, Fut>(
    spec: &WindowSpec<'_>,
    answer: &A,
    (mut fit, mut read): (u32, Arc<Answer<T>>),
    mut too_big: u32,
    files_within: Option<u32>,
) -> Result<Window<T>, BackendError>
where
    A: Fn(u32) -> Fut,
    Fut: Future<Output = Result<Arc<Answer<T>>, BackendError>>,
{
    let mut guess = files_within;
    let mut guesses = 0;
    while too_big - fit > 1 {
        let guessed = guess
            .take()
            .filter(|g| (fit + 1..too_big).contains(g) && guesses < BISECT_GUESSES);
        guesses += u32::from(guessed.is_some());
        let middle = guessed.unwrap_or(fit + (too_big - fit) / 2);
        match answer(middle).await {
            Ok(got) if got.cut_below(middle) => {
                return Ok(spec.bound_by_bytes(got));
            }
            Ok(got) => match spec.step(Arc::clone(&got), middle) {
                Step::Done(window) => return Ok(window),
                Step::Grow(_) => {
                    (fit, read) = (middle, got);
                    // A guess that fit is likely the bound: the file after it settles it.
                    guess = guessed.map(|g| g + 1);
                }
            },
            Err(e) if e.kind == BackendErrorKind::TooBig => {
                too_big = middle;
                guess = e.files_within;
            }
            Err(e) => return Err(e),
        }
    }
    let mut window = spec.step_within(read, fit, fit).done();
    window.bytes_bound = true;
    Ok(window)
}

/// Where a window sequence stands after reading one window.
enum Step<T> {
    /// This window serves the page.
    Done(Window<T>),
    /// It does not: read the window of this many files next.
    Grow(u32),
}

impl<T> Step<T> {
    /// The window of a step taken at the cap, which always serves the page.
    fn done(self) -> Window<T> {
        match self {
            Step::Done(window) => window,
            Step::Grow(_) => unreachable!("a window at its cap is always done"),
        }
    }
}

impl WindowSpec<'_> {
    /// The first window of every page's sequence: the walk's first page's.
    fn first_files(&self) -> u32 {
        first_window(self.needed.min(self.probe.max(1))).clamp(1, self.max_files.max(1))
    }

    /// The window of an answer cut at the byte bound ([`Answer::cut_at_bytes`]): the start of
    /// a bigger answer, read whole up to the bound in the same request, which is Zoekt's
    /// answer for the files it holds. No more files can be read, so the bound sits there, as
    /// a bisection would have found it with a search per probe: the page is served from it
    /// as usual when it holds what the page needs, else as at the cap.
    fn bound_by_bytes<T>(&self, read: Arc<Answer<T>>) -> Window<T> {
        let held = read.asked();
        match self.step(Arc::clone(&read), held) {
            Step::Done(window) => window,
            Step::Grow(_) => {
                let mut window = self.step_within(read, held, held).done();
                window.bytes_bound = true;
                window
            }
        }
    }

    /// A count's window of every matching file, when Zoekt's statistics in `answer` say
    /// there is one: no file was left unsearched (by a cap, the wall time, a crash) and they
    /// number fewer than `max_files`. One more than Zoekt counted, so that the answer shows
    /// it ran out: a result of `max_files` files or more is one no window can show whole.
    fn whole_result<T>(&self, answer: &Answer<T>) -> Option<u32> {
        let files = answer.stats.file_count;
        let whole = Cut::of(&answer.stats, &self.effort).is_none();
        (whole && files < u64::from(self.max_files)).then(|| clamp_u32(files as usize + 1))
    }

    /// A count's window that stops at `files` files, short of the whole result: the total is
    /// Zoekt's statistics' ([`Window::counted_by_stats`]). It is `capped` when the walk's
    /// window at `max_files` would be, and then says that cap as `files_asked`, so that a
    /// count warns as the walk it sizes will.
    fn counted_by_stats<T>(&self, answer: Arc<Answer<T>>, files: u32) -> Window<T> {
        let view = answer.view(files);
        let beyond_cap = answer.stats.file_count >= u64::from(self.max_files);
        Window {
            cut: Cut::of(&answer.stats, &self.effort),
            answer,
            len: view.certain_items,
            ran_out: false,
            capped: beyond_cap,
            bytes_bound: false,
            files_asked: if beyond_cap { self.max_files } else { files },
            section: Section::default(),
            counted_by_stats: true,
        }
    }

    /// Reads the window of `files` files off `answer` (which covers it): either it serves
    /// the page, or the next, bigger window to read.
    fn step<T>(&self, answer: Arc<Answer<T>>, files: u32) -> Step<T> {
        self.step_within(answer, files, self.max_files.max(1))
    }

    /// [`Self::step`] with the cap at `max_files`.
    fn step_within<T>(&self, answer: Arc<Answer<T>>, files: u32, max_files: u32) -> Step<T> {
        let view = answer.view(files);
        let cut = Cut::of(&answer.stats, &self.effort);
        let at_cap = !view.ran_out && files >= max_files;
        // Below the cap the edge is never served; at the cap it is, when the certain files
        // cannot fill the page (a tie wider than the window still yields pages).
        let capped = at_cap && view.certain_items < self.needed;
        // An answer cut by Zoekt's wall time ends the growth: a bigger window would search
        // as long and run out of time again (`search '\b'` did, window after window, until
        // the call's deadline). The page gets what was found, the edge included, and its
        // warnings say the result is partial.
        let short_of_time = cut.out_of_time && view.certain_items < self.needed;
        let len = if capped || short_of_time {
            view.all_items
        } else {
            view.certain_items
        };
        if view.ran_out || at_cap || cut.out_of_time || len >= self.needed {
            return Step::Done(Window {
                cut,
                answer,
                len,
                ran_out: view.ran_out,
                capped,
                bytes_bound: false,
                files_asked: files,
                section: Section::default(),
                counted_by_stats: false,
            });
        }
        Step::Grow(next_window(
            files,
            view.certain_files,
            len,
            self.needed,
            max_files,
        ))
    }

    /// The first window of this page's sequence that `answer` does not cover, if any: what
    /// a fetch for this page would have to ask Zoekt for (`None`: `answer` serves it).
    pub(crate) fn first_uncovered<T>(&self, answer: &Arc<Answer<T>>) -> Option<u32> {
        let mut files = self.first_files();
        loop {
            if !answer.covers(files) {
                return Some(files);
            }
            match self.step(Arc::clone(answer), files) {
                Step::Done(_) => return None,
                Step::Grow(next) => files = next,
            }
        }
    }
}

/// [`fetch`] straight from `backend`, with no cache: each window of the page's sequence is
/// its own request, counted in `requests`.
///
/// A page beyond the first therefore costs two requests, usually: the walk's first window,
/// then one sized by the items per file it holds. Asking at once for one file per item needed
/// (as before windows were sized by items) saves that first request when files hold one item
/// each, but costs a hundred times the files when they hold dozens (`find_references x` at
/// offset 3,000: 4,500 files and 50 MB, against 34 + 80 files).
pub async fn fetch_direct<B, T, F>(
    backend: &B,
    spec: &WindowSpec<'_>,
    flatten: F,
    requests: &AtomicU32,
) -> Result<Window<T>, BackendError>
where
    B: Backend + ?Sized,
    F: Fn(&RankedFile) -> Vec<T>,
{
    let flatten = &flatten;
    fetch(spec, |files| async move {
        requests.fetch_add(1, Ordering::Relaxed);
        let ranked = backend.search_window(&spec.search(files)).await?;
        Ok(Arc::new(Answer::new(&ranked, files, flatten)))
    })
    .await
}

/// The first window: the files that would hold the items needed at one item per file, plus
/// a little room, since the last files sit at the untrusted edge (item 3 of the module
/// comment). Without it a page of one-item-per-file results always took two requests.
pub(crate) fn first_window(needed: usize) -> u32 {
    clamp_u32(needed.saturating_add((needed / 8).max(3)))
}

/// How much a window grows when more than half of it is tied at its edge: `files_with_matches
/// Copyright` over 678 repositories has 240 files of one score after its 30th, which
/// doubling from 34 met four times (5 requests for page 1); growing 8 times meets it once.
const WIDE_TIE_GROWTH: u32 = 8;

/// Grows by the observed items-per-file ratio (with headroom), at least doubling, at most
/// to the cap: a handful of fetches even when most files yield nothing. When more than half
/// of the window is untrusted, tied at its edge, at least [`WIDE_TIE_GROWTH`] times: a tie
/// that wide usually runs on well past it, and doubling would meet it window after window.
fn next_window(asked: u32, trusted: usize, items: usize, needed: usize, max: u32) -> u32 {
    let tied = (asked as usize).saturating_sub(trusted);
    let growth = if tied * 2 > asked as usize {
        WIDE_TIE_GROWTH
    } else {
        2
    };
    let grown = asked.saturating_mul(growth);
    let estimate = if items == 0 || trusted == 0 {
        grown
    } else {
        let per_file = items as f64 / trusted as f64;
        clamp_u32((needed as f64 / per_file * 1.5).ceil() as usize)
    };
    grown.max(estimate).min(max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::answer::{ItemList, page_order, trusted_edge};
    use crate::engine::backend::{RankedFiles, SearchStats};
    use crate::engine::order::file_key;
    use crate::engine::testing::FakeBackend;
    use std::time::{Duration, Instant};

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

    // The growing fetch, end to end against a fake Zoekt.

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
}
