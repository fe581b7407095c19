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
mod tests;
