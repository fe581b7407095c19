//! Many backends as one: an index partitioned over several zoekt-webservers, each serving its
//! own shards, searched at once and merged into the answer one backend holding every shard
//! would give.
//!
//! Each window goes to every backend with the same effort caps (a file's score does not depend
//! on which server holds it), and the answers merge in the pager's order (score descending,
//! then the file key: `engine/order.rs`). The merged answer is then an ordinary answer to the
//! window (`engine/window.rs`), which trusts the files scoring above its second-lowest score
//! while it holds as many files as asked (`answer::trusted_edge`):
//! - each backend is asked for one file more than the window (at least four), and its
//!   lowest-scoring file is set aside: it may be one Zoekt's novelty boost left in the place
//!   of a better file (`docs/zoekt.md`, "Sort"). What is left is at least as many files as
//!   the window, and every file of the backend scoring above the lowest of them is among
//!   them;
//! - the union is sorted and cut to the window. A backend that did not run out gave at least
//!   a window of files scoring at or above its own lowest, so the merged window's lowest
//!   score is no higher than any backend's: every file anywhere scoring above it is in the
//!   merged window, which is what the window's trusted edge assumes;
//! - the merged answer holds fewer files than asked only when every backend ran out: then it
//!   is every file there is, as a single backend's short answer is.
//!
//! Statistics add up. A backend that fails (unreachable, timed out, or refused) leaves the
//! answer with its bit in [`SearchStats::missing_backends`]: the page is served from the
//! others with a warning naming it, is never exact, is not cached, and its cursor asks again
//! from where it ends, so the walk resumes once the backend is back. A backend whose search
//! timed out is left out for [`REST_AFTER_TIMEOUT`] (missing at once, not waited for on
//! every page), then one search tries it again. With `--require-all-backends` the page
//! fails instead. One backend is passed through untouched: the same requests, answers,
//! pages and cursors as without a fan-out.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::backend::MAX_BACKENDS;
use super::backend::{
    Backend, BackendError, BackendErrorKind, FileSearch, RankedFile, RankedFiles, Readiness,
    RepoListing, SearchStats,
};
use super::order::file_key;

/// Several backends, each a partition of one index, as one [`Backend`].
#[derive(Debug)]
pub struct FanOut<B> {
    members: Vec<Member<B>>,
    require_all: bool,
    /// How long a backend whose search timed out is left out (zero: never).
    rest_for: Duration,
}

/// How long a backend whose search timed out is left out of searches and listings before
/// one search tries it again. A webserver that hangs costs each request the whole
/// per-request timeout; asked on every page, it would make every page that slow, and a page
/// that needs a second window would run into the call's deadline and fail instead of being
/// served from the others. Left out, it is reported missing at once, with the same warning.
/// When the rest is over, one search asks it (the others still leave it out): an answer
/// ends the rest, another timeout starts a new one.
pub const REST_AFTER_TIMEOUT: Duration = Duration::from_secs(30);

/// One backend of a fan-out and the name warnings and errors give it (its base URL).
#[derive(Debug)]
pub struct Member<B> {
    /// How warnings, errors and metrics name it.
    pub name: String,
    /// The backend.
    pub backend: Arc<B>,
    /// Set while it is left out after a search timed out.
    rest: Mutex<Option<Rest>>,
}

/// A backend left out after a search timed out.
#[derive(Debug)]
struct Rest {
    /// When it timed out, and how long it took to (the request timeout).
    since: Instant,
    waited: Duration,
    /// Until when no search asks it. Once passed, the next search asks it and pushes this on
    /// by a rest, so that the searches meanwhile leave it out, and so that a search that
    /// never reports back (a cancelled call) holds no one up for longer.
    until: Instant,
}

impl<B> Member<B> {
    /// Whether a request now leaves it out, and the error that says so; `None` means ask it
    /// (it is not resting, or its rest is over). A search that asks it after its rest is
    /// the one that tries it again (`searching`): it pushes the rest on, so that searches
    /// meanwhile leave it out until it reports back. A listing then asks it too, but claims
    /// nothing: what it learns ends no rest, so it must not start one either.
    fn left_out(&self, now: Instant, rest_for: Duration, searching: bool) -> Option<BackendError> {
        let mut rest = self.rest.lock().expect("rest lock");
        let r = rest.as_mut()?;
        if r.until <= now {
            if searching {
                r.until = now + rest_for;
            }
            return None;
        }
        Some(BackendError {
            // Nothing was asked: not a timeout of this request (whose hint says to narrow
            // the query) but a backend away for now.
            kind: BackendErrorKind::Unreachable,
            message: format!(
                "a search timed out there {} s ago (after {} ms), so it is left out for now \
                 (asked again in {} s)",
                now.saturating_duration_since(r.since).as_secs(),
                r.waited.as_millis(),
                r.until.saturating_duration_since(now).as_secs().max(1)
            ),
        })
    }

    /// What a search that asked it learned: a timeout leaves it out for `rest_for`, any
    /// other outcome (an answer, or a failure that came at once) lets searches ask it again.
    fn searched<T>(&self, answer: &Result<T, BackendError>, took: Duration, rest_for: Duration) {
        let mut rest = self.rest.lock().expect("rest lock");
        *rest = match answer {
            Err(e) if e.kind == BackendErrorKind::Timeout => {
                let now = Instant::now();
                Some(Rest {
                    since: now,
                    waited: took,
                    until: now + rest_for,
                })
            }
            _ => None,
        };
    }

    /// How much longer searches leave it out, if they do.
    fn resting_for(&self, now: Instant) -> Option<Duration> {
        let rest = self.rest.lock().expect("rest lock");
        rest.as_ref()
            .map(|r| r.until.saturating_duration_since(now))
            .filter(|left| !left.is_zero())
    }
}

impl<B: Backend> FanOut<B> {
    /// The backends, named, in the order given (1 to [`MAX_BACKENDS`]). With `require_all`, a
    /// backend that fails fails the call instead of being reported missing.
    pub fn new(members: Vec<(String, B)>, require_all: bool) -> Result<FanOut<B>, String> {
        if members.is_empty() || members.len() > MAX_BACKENDS {
            return Err(format!(
                "between 1 and {MAX_BACKENDS} Zoekt URLs are needed (got {})",
                members.len()
            ));
        }
        Ok(FanOut {
            members: members
                .into_iter()
                .map(|(name, backend)| Member {
                    name,
                    backend: Arc::new(backend),
                    rest: Mutex::new(None),
                })
                .collect(),
            require_all,
            rest_for: REST_AFTER_TIMEOUT,
        })
    }

    /// Leaves a backend whose search timed out out of searches for `rest_for` (zero: never;
    /// the default is [`REST_AFTER_TIMEOUT`]). Only sound while a search's time is bounded
    /// below the request timeout (Zoekt's `MaxWallTime`): then a timeout means a backend
    /// that does not answer, not a search that needs long.
    pub fn resting_after_timeout(mut self, rest_for: Duration) -> Self {
        self.rest_for = rest_for;
        self
    }

    /// The backends, in order.
    pub fn members(&self) -> &[Member<B>] {
        &self.members
    }

    /// The names of the backends whose bits `mask` holds.
    pub fn names(&self, mask: u64) -> Vec<String> {
        self.members
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, m)| m.name.clone())
            .collect()
    }

    /// `e`, from backend `i`, with the backend named in its message.
    fn named(&self, i: usize, e: BackendError) -> BackendError {
        BackendError {
            kind: e.kind,
            message: format!("backend {}: {}", self.members[i].name, e.message),
        }
    }

    /// Sorts the answers of every backend into the merged answer, or the error that stops it.
    fn merge<T>(
        &self,
        answers: Vec<Result<T, BackendError>>,
    ) -> Result<(Vec<(usize, T)>, u64), BackendError> {
        let mut missing = 0u64;
        let mut failures = Vec::new();
        let mut got = Vec::with_capacity(answers.len());
        for (i, answer) in answers.into_iter().enumerate() {
            match answer {
                Ok(a) => got.push((i, a)),
                Err(e) if !self.require_all && can_miss(e.kind) => {
                    tracing::warn!(backend = %self.members[i].name, error = %e.message, "backend missing from the answer");
                    missing |= 1 << i;
                    failures.push((i, e));
                }
                Err(e) => return Err(self.named(i, e)),
            }
        }
        if got.is_empty() {
            return Err(self.every_one_failed(failures));
        }
        Ok((got, missing))
    }

    /// The error when no backend answered: the first one's kind (so its code and hint), and
    /// every backend named with what went wrong there, since each may need its own fix.
    fn every_one_failed(&self, failures: Vec<(usize, BackendError)>) -> BackendError {
        let kind = failures.first().expect("a backend failed").1.kind;
        let each: Vec<String> = failures
            .into_iter()
            .map(|(i, e)| format!("{}: {}", self.members[i].name, e.message))
            .collect();
        BackendError {
            kind,
            message: format!("no backend answered ({})", each.join("; ")),
        }
    }

    /// Every backend asked at once, but those left out after a search timed out, which give
    /// an error saying so without being asked; when all would be left out, all are asked.
    /// With `searching`, what each backend asked did starts or ends its rest: searches only,
    /// whose time Zoekt bounds itself (`MaxWallTime`, below the request timeout), so a
    /// timeout there means a webserver that does not answer. A listing's timeout is its
    /// wall time, which a big index may just need.
    async fn ask<T, F, Fut>(&self, searching: bool, call: F) -> Vec<Result<T, BackendError>>
    where
        T: Send + 'static,
        F: Fn(Arc<B>) -> Fut,
        Fut: Future<Output = Result<T, BackendError>> + Send + 'static,
    {
        let started = Instant::now();
        let resting = !self.rest_for.is_zero();
        let mut left_out: Vec<Option<BackendError>> = self
            .members
            .iter()
            .map(|m| {
                resting
                    .then(|| m.left_out(started, self.rest_for, searching))
                    .flatten()
            })
            .collect();
        if left_out.iter().all(Option::is_some) {
            // Nothing else to serve from: better to wait for them than to fail unasked.
            left_out.fill(None);
        }
        let asked: Vec<bool> = left_out.iter().map(Option::is_none).collect();
        let answers = each(&self.members, left_out, call).await;
        if searching && resting {
            let took = started.elapsed();
            for ((m, answer), asked) in self.members.iter().zip(&answers).zip(asked) {
                if asked {
                    m.searched(answer, took, self.rest_for);
                }
            }
        }
        answers
    }

    /// Readiness as `ask` gives it from each backend (one backend's own, passed through).
    async fn readiness_by<F, Fut>(&self, ask: F) -> Result<Readiness, BackendError>
    where
        F: Fn(Arc<B>) -> Fut,
        Fut: Future<Output = Result<Readiness, BackendError>> + Send + 'static,
    {
        if let [only] = self.members.as_slice() {
            return ask(Arc::clone(&only.backend)).await;
        }
        let none_left_out = self.members.iter().map(|_| None).collect();
        let answers = each(&self.members, none_left_out, ask).await;
        self.readiness_of_all(answers)
    }

    /// One readiness of every backend's: ready when all are, otherwise the reason naming
    /// each one that is not (or that did not answer). An error only when none answered. A
    /// backend left out of searches after a timeout is not ready either, whatever its
    /// `/readyz` says: pages go without it (a webserver whose searches hang may still
    /// answer its cheap probe).
    fn readiness_of_all(
        &self,
        answers: Vec<Result<Readiness, BackendError>>,
    ) -> Result<Readiness, BackendError> {
        let mut not_ready = Vec::new();
        let mut failures = Vec::new();
        let mut loading = false;
        for (i, answer) in answers.into_iter().enumerate() {
            let name = &self.members[i].name;
            let resting = self.members[i].resting_for(Instant::now());
            match answer {
                Ok(r) if r.is_ready() => {
                    if let Some(left) = resting {
                        not_ready.push(format!(
                            "{name} (its searches timed out: left out of pages for another {} s)",
                            left.as_secs().max(1)
                        ));
                    }
                }
                Ok(r) => {
                    loading |= r.loading;
                    not_ready.push(format!("{name} (HTTP {}: {})", r.status, r.detail));
                }
                Err(e) => {
                    not_ready.push(format!("{name} ({})", e.message));
                    failures.push((i, e));
                }
            }
        }
        if failures.len() == self.members.len() {
            // Nothing answered at all: an error, as a single backend's is.
            return Err(self.every_one_failed(failures));
        }
        Ok(if not_ready.is_empty() {
            Readiness {
                status: 200,
                detail: format!("all {} backends ready", self.members.len()),
                loading,
            }
        } else {
            Readiness {
                status: 503,
                detail: format!(
                    "{} of {} backends not ready: {}",
                    not_ready.len(),
                    self.members.len(),
                    not_ready.join("; ")
                ),
                loading,
            }
        })
    }
}

/// Failures a fan-out survives by serving the others: the backend is away or refused us, and
/// asking again later may work. A bad query fails everywhere; an answer too big is what the
/// window fetch needs to see (it bounds the window); a malformed one may be a broken backend
/// whose partial truth must not pass as a page.
fn can_miss(kind: BackendErrorKind) -> bool {
    matches!(
        kind,
        BackendErrorKind::Unreachable
            | BackendErrorKind::Timeout
            | BackendErrorKind::ServerError
            | BackendErrorKind::NotReady
    )
}

/// The backend's answer less its lowest-scoring file, when it did not run out: what is left
/// holds every file of the backend scoring above the lowest of them.
///
/// Zoekt's novelty boost can leave one file from below the cut in an answer, anywhere at
/// its end, in the place of a better file (`answer::trusted_edge`); past the second-lowest
/// score nothing is missing. Below three files the boost has no place to put a file.
fn without_lowest(mut files: Vec<RankedFile>, ran_out: bool) -> Vec<RankedFile> {
    if !ran_out && files.len() >= 3 {
        let lowest = files
            .iter()
            .enumerate()
            .min_by(|(_, a), (_, b)| a.score.total_cmp(&b.score))
            .map(|(i, _)| i);
        if let Some(i) = lowest {
            files.remove(i);
        }
    }
    files
}

/// Copies of files dropped by [`merged_files`]: one file returned by several backends.
#[derive(Debug, Default, PartialEq)]
struct Shared {
    /// The backends that returned a copy (a bit each, the kept copy's included).
    backends: u64,
    /// Copies dropped.
    files: u64,
    /// Matched lines of the copies dropped.
    lines: u64,
}

/// The window's worth of files of the union (each with its backend's index), in the pager's
/// order, each file once (a repository on two backends: the higher-scoring copy), and what
/// was dropped as a copy.
fn merged_files(files: Vec<(usize, RankedFile)>, max_files: u32) -> (Vec<RankedFile>, Shared) {
    // Each file's key once: computed inside the comparison it would be hashed at every
    // comparison of tied scores, which is most of a merge's cost on tie-heavy windows.
    let mut keyed: Vec<(u64, usize, RankedFile)> = files
        .into_iter()
        .map(|(i, f)| (file_key(&f.repo, &f.path, &f.branches), i, f))
        .collect();
    keyed.sort_by(|(ka, _, a), (kb, _, b)| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| ka.cmp(kb))
            .then_with(|| (&a.repo, &a.path, &a.branches).cmp(&(&b.repo, &b.path, &b.branches)))
    });
    let mut shared = Shared::default();
    let mut keep = vec![true; keyed.len()];
    {
        let mut first: HashMap<(&str, &str, &[String]), usize> = HashMap::new();
        for (at, (_, i, f)) in keyed.iter().enumerate() {
            match first.entry((&f.repo, &f.path, &f.branches)) {
                std::collections::hash_map::Entry::Occupied(e) => {
                    shared.backends |= (1 << *e.get()) | (1 << i);
                    shared.files += 1;
                    shared.lines += f.lines.len() as u64;
                    keep[at] = false;
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(*i);
                }
            }
        }
    }
    let mut kept: Vec<RankedFile> = keyed
        .into_iter()
        .zip(keep)
        .filter_map(|((_, _, f), keep)| keep.then_some(f))
        .collect();
    if max_files > 0 {
        kept.truncate(max_files as usize);
    }
    (kept, shared)
}

fn add(total: &mut SearchStats, s: &SearchStats) {
    total.file_count += s.file_count;
    total.match_count += s.match_count;
    total.files_skipped += s.files_skipped;
    total.shards_skipped += s.shards_skipped;
    total.crashes += s.crashes;
    total.missing_backends |= s.missing_backends;
    total.shared_backends |= s.shared_backends;
}

impl<B: Backend> Backend for FanOut<B> {
    async fn search(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
        if let [only] = self.members.as_slice() {
            return only.backend.search(search).await;
        }
        // Zero asks Zoekt for every file: nothing to extend.
        let asked = if search.max_files == 0 {
            0
        } else {
            search.max_files.saturating_add(1).max(4)
        };
        let each_search = FileSearch {
            max_files: asked,
            ..search.clone()
        };
        let answers = self
            .ask(true, |b| {
                let search = each_search.clone();
                async move { b.search(&search).await }
            })
            .await;
        let (got, missing) = self.merge(answers)?;
        let mut stats = SearchStats {
            missing_backends: missing,
            ..SearchStats::default()
        };
        let mut files = Vec::new();
        for (i, ranked) in got {
            add(&mut stats, &ranked.stats);
            let ran_out = asked == 0 || ranked.files.len() < asked as usize;
            files.extend(
                without_lowest(ranked.files, ran_out)
                    .into_iter()
                    .map(|f| (i, f)),
            );
        }
        let (files, shared) = merged_files(files, search.max_files);
        // A copy dropped is not counted either (copies not returned still are: the warning
        // says so).
        stats.shared_backends |= shared.backends;
        stats.file_count = stats.file_count.saturating_sub(shared.files);
        stats.match_count = stats.match_count.saturating_sub(shared.lines);
        Ok(RankedFiles { files, stats })
    }

    async fn repos(
        &self,
        query: &str,
        wall_time: std::time::Duration,
    ) -> Result<RepoListing, BackendError> {
        if let [only] = self.members.as_slice() {
            return only.backend.repos(query, wall_time).await;
        }
        let answers = self
            .ask(false, |b| {
                let query = query.to_string();
                async move { b.repos(&query, wall_time).await }
            })
            .await;
        let (got, missing) = self.merge(answers)?;
        let mut out = RepoListing {
            missing_backends: missing,
            ..RepoListing::default()
        };
        // Which backend serves each repository first; a second one is reported, and its
        // entry dropped (never counted twice).
        let mut served_by: HashMap<String, usize> = HashMap::new();
        let mut twice: Vec<(String, usize, usize)> = Vec::new();
        for (i, list) in got {
            out.crashes += list.crashes;
            out.missing_backends |= list.missing_backends;
            out.warnings.extend(list.warnings);
            out.stats.shards += list.stats.shards;
            out.stats.index_bytes += list.stats.index_bytes;
            for repo in list.repos {
                match served_by.get(&repo.name) {
                    Some(&first) if first != i => {
                        if !twice.iter().any(|(n, ..)| *n == repo.name) {
                            twice.push((repo.name.clone(), first, i));
                        }
                    }
                    Some(_) => out.repos.push(repo),
                    None => {
                        served_by.insert(repo.name.clone(), i);
                        out.repos.push(repo);
                    }
                }
            }
        }
        let names: std::collections::BTreeSet<&str> =
            out.repos.iter().map(|r| r.name.as_str()).collect();
        out.stats.repos = names.len() as u64;
        out.stats.documents = {
            let mut seen = std::collections::HashSet::new();
            out.repos
                .iter()
                .filter(|r| seen.insert(r.name.as_str()))
                .map(|r| r.documents)
                .sum()
        };
        for (name, a, b) in twice {
            out.warnings.push(format!(
                "repository {name} is served by two backends ({} and {}): counted once; its \
                 files may show up from either, so give each repository to one backend",
                self.members[a].name, self.members[b].name
            ));
        }
        Ok(out)
    }

    async fn readiness(&self) -> Result<Readiness, BackendError> {
        self.readiness_by(|b| async move { b.readiness().await })
            .await
    }

    async fn readiness_within(&self, budget: Duration) -> Result<Readiness, BackendError> {
        self.readiness_by(move |b| async move { b.readiness_within(budget).await })
            .await
    }

    fn backend_names(&self, mask: u64) -> Vec<String> {
        self.names(mask)
    }
}

/// Runs `call` on every backend at once, each on its own task (decoding answers is CPU work
/// that must not queue behind another backend's), and gives the outputs in backend order;
/// a backend with an error in `instead` (one entry per backend) is not asked and
/// gives that error. Dropping the future (a cancelled call) aborts the tasks.
async fn each<B, T, F, Fut>(
    members: &[Member<B>],
    instead: Vec<Option<BackendError>>,
    call: F,
) -> Vec<Result<T, BackendError>>
where
    B: Backend,
    T: Send + 'static,
    F: Fn(Arc<B>) -> Fut,
    Fut: Future<Output = Result<T, BackendError>> + Send + 'static,
{
    struct AbortOnDrop<T>(Vec<tokio::task::JoinHandle<T>>);
    impl<T> Drop for AbortOnDrop<T> {
        fn drop(&mut self) {
            for h in &self.0 {
                h.abort();
            }
        }
    }
    debug_assert_eq!(instead.len(), members.len());
    let mut tasks = AbortOnDrop(
        members
            .iter()
            .zip(&instead)
            .filter(|(_, given)| given.is_none())
            .map(|(m, _)| tokio::spawn(call(Arc::clone(&m.backend))))
            .collect(),
    );
    let mut asked = tasks.0.iter_mut();
    let mut out = Vec::with_capacity(members.len());
    for given in instead {
        out.push(match given {
            Some(e) => Err(e),
            None => match asked.next().expect("a task for every backend asked").await {
                Ok(r) => r,
                Err(e) => Err(BackendError {
                    kind: BackendErrorKind::ServerError,
                    message: format!("the request task failed: {e}"),
                }),
            },
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Pager;
    use crate::engine::backend::IndexedRepo;
    use crate::engine::config::PagerConfig;
    use crate::engine::page::Page;
    use crate::engine::testing::FakeBackend;
    use crate::engine::testing::{LineArgs, LineItem, LineTool, pages_at_once};
    use std::time::Duration;

    /// The query: the engine's test tool sends it to the backend as it is.
    const TEXT: &str = "unit";

    #[test]
    fn a_file_from_two_backends_is_kept_once_and_its_copy_is_accounted() {
        let f = |path: &str, score: f64, lines: u32| RankedFile {
            repo: "r".into(),
            path: path.into(),
            score,
            lines: (1..=lines)
                .map(|number| crate::engine::backend::MatchedLine {
                    number,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        // a.go comes from backends 1 and 2; the copy scoring lower (backend 2's, 3 lines) goes.
        let (kept, shared) = merged_files(
            vec![
                (0, f("b.go", 5.0, 1)),
                (1, f("a.go", 10.0, 2)),
                (2, f("a.go", 9.0, 3)),
                (2, f("c.go", 7.0, 1)),
            ],
            0,
        );
        let order: Vec<(&str, f64)> = kept.iter().map(|f| (f.path.as_str(), f.score)).collect();
        assert_eq!(order, [("a.go", 10.0), ("c.go", 7.0), ("b.go", 5.0)]);
        assert_eq!(
            shared,
            Shared {
                backends: 0b110,
                files: 1,
                lines: 3
            }
        );
        // The window cut comes after the copies are gone.
        let (kept, _) = merged_files(
            vec![
                (1, f("a.go", 10.0, 1)),
                (2, f("a.go", 9.0, 1)),
                (2, f("c.go", 7.0, 1)),
            ],
            2,
        );
        assert_eq!(kept.len(), 2);
        // A backend that returns one file twice is named too.
        let (kept, shared) = merged_files(vec![(1, f("a.go", 10.0, 1)), (1, f("a.go", 8.0, 4))], 0);
        assert_eq!(kept.len(), 1);
        assert_eq!(
            shared,
            Shared {
                backends: 0b10,
                files: 1,
                lines: 4
            }
        );
    }

    fn q() -> String {
        TEXT.to_string()
    }

    /// 90 files over 6 repositories, with many exact ties (scores from a small set) and
    /// several extensions (so the novelty boost has something to move).
    fn corpus() -> Vec<RankedFile> {
        corpus_of(7)
    }

    fn corpus_of(mut seed: u64) -> Vec<RankedFile> {
        (0..90)
            .map(|i| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let ext = [".go", ".rs", ".md"][(seed >> 40) as usize % 3];
                RankedFile {
                    repo: format!("r{}", i % 6),
                    path: format!("f{i:02}{ext}"),
                    score: 10.0 + ((seed >> 33) % 12) as f64,
                    path_matched: true,
                    ..Default::default()
                }
            })
            .collect()
    }

    /// Zoekt's answer as `docs/zoekt.md` ("Sort") describes it: every file sorted by score,
    /// then the first file from position 3 on whose extension the top two lack, scoring at
    /// least 0.9 of the third, moved up to position 3, then the cut.
    struct Boosting(FakeBackend);

    impl Backend for Boosting {
        async fn search(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
            let mut all = self
                .0
                .search(&FileSearch {
                    // Every file (the fake's own failures apply to any size asked).
                    max_files: u32::MAX,
                    ..search.clone()
                })
                .await?;
            let ext = |p: &str| p.rsplit('.').next().unwrap_or("").to_string();
            if all.files.len() > 3 {
                let (a, b) = (ext(&all.files[0].path), ext(&all.files[1].path));
                let floor = 0.9 * all.files[2].score;
                if let Some(i) = (2..all.files.len()).find(|&i| {
                    let e = ext(&all.files[i].path);
                    e != a && e != b && all.files[i].score >= floor
                }) {
                    let f = all.files.remove(i);
                    all.files.insert(2, f);
                }
            }
            if search.max_files > 0 {
                all.files.truncate(search.max_files as usize);
            }
            Ok(all)
        }
        async fn repos(
            &self,
            q: &str,
            t: std::time::Duration,
        ) -> Result<RepoListing, BackendError> {
            self.0.repos(q, t).await
        }
        async fn readiness(&self) -> Result<Readiness, BackendError> {
            self.0.readiness().await
        }
    }

    fn split(files: &[RankedFile], parts: usize) -> Vec<Vec<RankedFile>> {
        let mut out = vec![Vec::new(); parts];
        for f in files {
            let repo: usize = f.repo[1..].parse().unwrap();
            out[repo % parts].push(f.clone());
        }
        out
    }

    /// Backends `a`, `b`, ... holding `parts`, as they are (no boost), so that what each was
    /// asked can be read back.
    fn plain_fan(parts: Vec<Vec<RankedFile>>) -> FanOut<FakeBackend> {
        let members = parts
            .into_iter()
            .zip('a'..)
            .map(|(files, name)| (name.to_string(), FakeBackend::new().with(&q(), files)))
            .collect();
        FanOut::new(members, false).unwrap()
    }

    /// The search for `max_files` files of the test query.
    fn search_of(max_files: u32) -> FileSearch {
        FileSearch {
            query: q(),
            effort: Default::default(),
            max_files,
            context_lines: 0,
            whole_content: false,
        }
    }

    fn fan(parts: Vec<Vec<RankedFile>>, require_all: bool) -> FanOut<Boosting> {
        let members = parts
            .into_iter()
            .enumerate()
            .map(|(i, files)| {
                (
                    format!("zoekt-{i}"),
                    Boosting(FakeBackend::new().with(&q(), files)),
                )
            })
            .collect();
        FanOut::new(members, require_all).unwrap()
    }

    async fn walk<B: Backend>(p: &Pager<B>, limits: &[u32]) -> Vec<Page<LineItem>> {
        let mut pages = Vec::new();
        let mut cursor: Option<String> = None;
        for i in 0.. {
            let page = p
                .page::<LineTool>(&LineArgs {
                    query: TEXT.into(),
                    limit: Some(limits[i % limits.len()]),
                    cursor: cursor.clone(),
                    ..Default::default()
                })
                .await
                .expect("page");
            cursor = page.next_cursor.clone();
            pages.push(page);
            if cursor.is_none() {
                return pages;
            }
        }
        unreachable!()
    }

    fn names(pages: &[Page<LineItem>]) -> Vec<String> {
        pages
            .iter()
            .flat_map(|p| p.items.iter().map(|i| format!("{}/{}", i.repo, i.path)))
            .collect()
    }

    #[tokio::test]
    async fn three_partitions_page_exactly_as_one_backend_holding_all() {
        for (seed, limits) in (0..40).zip(
            [&[1u32][..], &[7], &[30], &[100], &[3, 17, 1, 40, 8]]
                .into_iter()
                .cycle(),
        ) {
            let all = corpus_of(seed);
            let one = Pager::new(
                Boosting(FakeBackend::new().with(&q(), all.clone())),
                PagerConfig::default(),
            );
            let three = Pager::new(fan(split(&all, 3), false), PagerConfig::default());
            let (a, b) = (walk(&one, limits).await, walk(&three, limits).await);
            assert_eq!(names(&a), names(&b), "seed {seed}, limits {limits:?}");
            assert_eq!(names(&a).len(), all.len());
            for (pa, pb) in a.iter().zip(&b) {
                assert_eq!(pa.items, pb.items);
                assert_eq!(pa.total, pb.total, "limits {limits:?}");
                assert!(pb.warnings.is_empty(), "{:?}", pb.warnings);
            }
        }
    }

    #[tokio::test]
    async fn the_window_cache_request_sharing_and_prefetch_work_on_the_merged_answer() {
        use crate::engine::cache::WindowCache;
        use crate::engine::config::CacheConfig;
        let cached = |parts, cfg: &CacheConfig| {
            Pager::new(plain_fan(parts), PagerConfig::default()).with_cache(WindowCache::new(cfg))
        };
        let asked = |p: &Pager<FanOut<FakeBackend>>| -> Vec<Vec<u32>> {
            p.backend()
                .members()
                .iter()
                .map(|m| m.backend.files_asked(&q()))
                .collect()
        };
        let all = corpus_of(7);
        let one = Pager::new(
            FakeBackend::new().with(&q(), all.clone()),
            PagerConfig::default(),
        );
        // A walk through the cache: the pages of one backend holding everything, from a few
        // merged answers (prefetches among them), each window asked of every backend alike.
        let three = cached(split(&all, 3), &CacheConfig::DEFAULT);
        let (a, b) = (walk(&one, &[7]).await, walk(&three, &[7]).await);
        assert_eq!(names(&a), names(&b));
        assert!(b.len() > 10, "{} pages", b.len());
        let windows = asked(&three);
        assert!(windows.iter().all(|w| *w == windows[0]), "{windows:?}");
        assert!(windows[0].len() <= 8, "{windows:?} for {} pages", b.len());
        let served = b.iter().filter(|p| p.zoekt_requests == 0).count();
        assert!(
            served * 2 > b.len(),
            "{served} of {} pages from the cache",
            b.len()
        );
        // Identical pages at once share one merged answer: each backend is asked once.
        let three = cached(
            split(&all, 3),
            &CacheConfig {
                cache_prefetch: 0,
                ..CacheConfig::DEFAULT
            },
        );
        for m in three.backend().members() {
            m.backend.slow(Duration::from_millis(50));
        }
        let args = LineArgs {
            query: TEXT.into(),
            limit: Some(30),
            ..Default::default()
        };
        let expected = one.page::<LineTool>(&args).await.expect("page").items;
        for page in pages_at_once(&three, &args, 16).await {
            assert_eq!(page.items, expected);
        }
        assert!(
            asked(&three).iter().all(|w| w.len() == 1),
            "{:?}",
            asked(&three)
        );
    }

    #[tokio::test]
    async fn each_backend_is_asked_one_file_past_the_window_and_the_merge_keeps_the_window() {
        // Each backend's lowest file is set aside (a boost may have left it in the place of
        // a better one: `without_lowest`), so each is asked for one file more than the
        // window, and what is left still fills it.
        let b = plain_fan(split(&corpus(), 2));
        let search = search_of(5);
        let merged = b.search(&search).await.unwrap();
        assert_eq!(merged.files.len(), 5, "exactly the window");
        for m in b.members() {
            assert_eq!(m.backend.files_asked(&q()), [6], "one more than the window");
        }
        // The merged window is the top 5 of everything.
        let mut all = corpus();
        all.sort_by(|x, y| y.score.total_cmp(&x.score));
        let fifth = all[4].score;
        assert!(merged.files.iter().all(|f| f.score >= fifth));
        assert_eq!(merged.stats.file_count, 90);
    }

    #[tokio::test]
    async fn a_search_for_every_file_asks_each_backend_for_every_file_and_keeps_them_all() {
        let b = plain_fan(split(&corpus(), 2));
        let search = search_of(0);
        let merged = b.search(&search).await.unwrap();
        for m in b.members() {
            assert_eq!(m.backend.files_asked(&q()), [0], "0 stays every file");
        }
        // Nothing set aside: an answer of every file has no boosted file to fear.
        assert_eq!(merged.files.len(), 90);
        assert_eq!(merged.stats.file_count, 90);

        // A backend away is missing from a search of every file too, never a full answer.
        b.members()[1]
            .backend
            .fail(BackendErrorKind::Unreachable, 0);
        let part = b.search(&search).await.unwrap();
        assert_eq!(part.stats.missing_backends, 0b10);
        let half = split(&corpus(), 2)[0].len();
        assert_eq!(part.files.len(), half);
        assert_eq!(part.stats.file_count, half as u64);
    }

    #[tokio::test]
    async fn a_file_on_two_backends_is_counted_once_and_names_them_both() {
        let halves = split(&corpus(), 2);
        let mut first = halves[0].clone();
        first.push(halves[1][0].clone());
        let b = plain_fan(vec![first, halves[1].clone()]);
        let search = search_of(0);
        let merged = b.search(&search).await.unwrap();
        assert_eq!(merged.files.len(), 90);
        assert_eq!(merged.stats.file_count, 90, "the copy is not counted");
        assert_eq!(merged.stats.shared_backends, 0b11);
        assert_eq!(merged.stats.missing_backends, 0);
    }

    #[tokio::test]
    async fn a_boosted_file_never_lets_a_tie_at_the_edge_pass_as_trusted() {
        // Backend a: 100, 99, 98, then two files tied at 95 listed worst key first (Zoekt's
        // tie order is arbitrary), and a .md file at 90 that the boost pulls up to third.
        // Asked for exactly the window (5), a would send the boosted file and ONE of the two
        // tied files: the merged window would then trust that one at 95, out of order.
        let f = |repo: &str, path: &str, score: f64| RankedFile {
            repo: repo.into(),
            path: path.into(),
            score,
            path_matched: true,
            ..Default::default()
        };
        let mut tied = [f("a", "t1.go", 95.0), f("a", "t2.go", 95.0)];
        tied.sort_by_key(|t| std::cmp::Reverse(file_key(&t.repo, &t.path, &t.branches)));
        let mut a = vec![
            f("a", "x.go", 100.0),
            f("a", "y.go", 99.0),
            f("a", "z.go", 98.0),
        ];
        a.extend(tied);
        a.push(f("a", "doc.md", 90.0));
        let b = vec![f("b", "w.go", 80.0)];
        let mut all = a.clone();
        all.extend(b.clone());
        let fan = FanOut::new(
            vec![
                ("a".to_string(), Boosting(FakeBackend::new().with(&q(), a))),
                ("b".to_string(), Boosting(FakeBackend::new().with(&q(), b))),
            ],
            false,
        )
        .unwrap();
        let one = Pager::new(
            Boosting(FakeBackend::new().with(&q(), all)),
            PagerConfig::default(),
        );
        let three = Pager::new(fan, PagerConfig::default());
        for limits in [&[4u32][..], &[1], &[2], &[3]] {
            let expected = names(&walk(&one, limits).await);
            assert_eq!(expected.len(), 7);
            assert_eq!(names(&walk(&three, limits).await), expected, "{limits:?}");
        }
    }

    #[tokio::test]
    async fn a_missing_backend_is_named_never_exact_and_the_walk_resumes_without_repeats() {
        let all = corpus();
        let three = Pager::new(fan(split(&all, 3), false), PagerConfig::default());
        three.backend().members()[1]
            .backend
            .0
            .fail(BackendErrorKind::Unreachable, 0);
        let args = |cursor: Option<String>| LineArgs {
            query: TEXT.into(),
            limit: Some(10),
            cursor,
            ..Default::default()
        };
        let first = three.page::<LineTool>(&args(None)).await.unwrap();
        assert_eq!(first.count, 10);
        assert!(!first.total.exact && !first.complete);
        assert!(
            first
                .warnings
                .iter()
                .any(|w| w.contains("zoekt-1") && w.contains("missing") && !w.contains("zoekt-0")),
            "{:?}",
            first.warnings
        );
        assert!(first.items.iter().all(|i| i.repo != "r1" && i.repo != "r4"));
        // Back again: the walk goes on from its cursor to the end, nothing served twice, and
        // every item after the last one served is there.
        three.backend().members()[1].backend.0.heal();
        let mut seen: Vec<String> = names(std::slice::from_ref(&first));
        let mut cursor = first.next_cursor.clone();
        while let Some(c) = cursor {
            let page = three.page::<LineTool>(&args(Some(c))).await.unwrap();
            assert!(page.warnings.iter().all(|w| !w.contains("zoekt-1")));
            seen.extend(names(std::slice::from_ref(&page)));
            cursor = page.next_cursor.clone();
        }
        let unique: std::collections::HashSet<&String> = seen.iter().collect();
        assert_eq!(unique.len(), seen.len(), "no item twice");
        let one = Pager::new(
            Boosting(FakeBackend::new().with(&q(), all.clone())),
            PagerConfig::default(),
        );
        let full = names(&walk(&one, &[100]).await);
        let last_first = full.iter().position(|n| *n == seen[9]).unwrap();
        assert_eq!(seen[10..], full[last_first + 1..]);
    }

    /// Why the first page of the test query over `p` fails.
    async fn first_page_error<B: Backend>(p: &Pager<B>) -> crate::engine::error::Error {
        p.page::<LineTool>(&LineArgs {
            query: TEXT.into(),
            ..Default::default()
        })
        .await
        .unwrap_err()
    }

    /// The backends missing from a search of ten files over `fan`.
    async fn missing(fan: &FanOut<FakeBackend>) -> u64 {
        fan.search(&search_of(10))
            .await
            .unwrap()
            .stats
            .missing_backends
    }

    #[tokio::test]
    async fn require_all_fails_the_page_naming_the_backend() {
        let three = Pager::new(fan(split(&corpus(), 3), true), PagerConfig::default());
        three.backend().members()[2]
            .backend
            .0
            .fail(BackendErrorKind::Unreachable, 0);
        let e = first_page_error(&three).await;
        let text = e.to_string();
        assert!(text.contains("zoekt-2"), "{text}");
        assert!(matches!(
            e,
            crate::engine::error::Error::Backend(BackendError {
                kind: BackendErrorKind::Unreachable,
                ..
            })
        ));
    }

    #[tokio::test]
    async fn when_no_backend_answers_the_error_names_each_one() {
        let three = Pager::new(fan(split(&corpus(), 3), false), PagerConfig::default());
        for (i, m) in three.backend().members().iter().enumerate() {
            let kind = if i == 1 {
                BackendErrorKind::Timeout
            } else {
                BackendErrorKind::Unreachable
            };
            m.backend.0.fail(kind, 0);
        }
        let e = first_page_error(&three).await;
        let text = e.to_string();
        for name in ["zoekt-0", "zoekt-1", "zoekt-2"] {
            assert!(text.contains(&format!("{name}: ")), "{text}");
        }
    }

    #[tokio::test]
    async fn a_backend_that_timed_out_is_left_out_then_one_search_tries_it_again() {
        let rest = Duration::from_millis(300);
        let fan = plain_fan(split(&corpus(), 3)).resting_after_timeout(rest);
        let (b, c) = (&fan.members()[1].backend, &fan.members()[2].backend);
        b.fail(BackendErrorKind::Timeout, 0);
        c.fail(BackendErrorKind::Unreachable, 0);
        let asked = |m: &FakeBackend| m.files_asked(&q()).len();
        assert_eq!(missing(&fan).await, 0b110);
        assert_eq!((asked(b), asked(c)), (1, 1));
        // Within the rest, b is missing at once, without being asked; c (it failed at once)
        // is asked each time. A listing leaves b out alike.
        assert_eq!(missing(&fan).await, 0b110);
        assert_eq!((asked(b), asked(c)), (1, 2));
        let listing = fan.repos("", Duration::from_secs(1)).await.unwrap();
        assert_eq!(listing.missing_backends, 0b110);
        // /readyz names it, whatever its own readiness says.
        let ready = fan.readiness().await.unwrap();
        assert!(
            ready.detail.contains("b (its searches timed out"),
            "{}",
            ready.detail
        );
        // Once the rest is over, one search tries it (slow now); a search meanwhile still
        // leaves it out, and the try timing out again starts another rest.
        tokio::time::sleep(rest).await;
        b.slow(Duration::from_millis(200));
        let ten = search_of(10);
        let trying = fan.search(&ten);
        let meanwhile = async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            missing(&fan).await
        };
        let (tried, meanwhile) = tokio::join!(trying, meanwhile);
        assert_eq!(tried.unwrap().stats.missing_backends, 0b110);
        assert_eq!(meanwhile, 0b110);
        assert_eq!(asked(b), 2, "asked once, by the search that tried it");
        assert_eq!(missing(&fan).await, 0b110);
        assert_eq!(asked(b), 2, "resting again");
        // Back: the next try after the rest finds it, and every search asks it from then on.
        b.heal();
        b.slow(Duration::ZERO);
        c.heal();
        tokio::time::sleep(rest).await;
        assert_eq!(missing(&fan).await, 0);
        assert_eq!(missing(&fan).await, 0);
        assert_eq!(asked(b), 4);
        // A listing after a rest asks the backend but does not take the search's turn to
        // try it: the first search after it still asks it.
        b.fail(BackendErrorKind::Timeout, 0);
        assert_eq!(missing(&fan).await, 0b010);
        b.heal();
        tokio::time::sleep(rest).await;
        let listing = fan.repos("", Duration::from_secs(1)).await.unwrap();
        assert_eq!(listing.missing_backends, 0);
        assert_eq!(
            missing(&fan).await,
            0,
            "the search after the listing asks it"
        );
        // A listing that times out starts no rest: its time is what a big index may need.
        let a = &fan.members()[0].backend;
        a.fail(BackendErrorKind::Timeout, 0);
        fan.repos("", Duration::from_secs(1)).await.unwrap();
        a.heal();
        assert_eq!(missing(&fan).await, 0);
    }

    /// A backend resting after a timeout makes the fan-out not ready, but loads no shards:
    /// an answer from another with a shard crashed for good (its Zoekt ready) is still a
    /// page, served without the resting one and saying both, not the retryable NotReady.
    #[tokio::test]
    async fn a_resting_backend_is_not_taken_for_shards_still_loading() {
        let fan = plain_fan(split(&corpus(), 3));
        let (a, b) = (&fan.members()[0].backend, &fan.members()[1].backend);
        b.fail(BackendErrorKind::Timeout, 0);
        assert_eq!(missing(&fan).await, 0b010, "b timed out: it rests");
        a.set_ready(true);
        a.cut(
            &q(),
            SearchStats {
                crashes: 1,
                ..Default::default()
            },
        );
        assert!(!fan.readiness().await.unwrap().is_ready(), "b rests");
        let p = Pager::new(fan, PagerConfig::default());
        let page = p
            .page::<LineTool>(&LineArgs {
                query: TEXT.into(),
                ..Default::default()
            })
            .await
            .unwrap();
        assert!(page.count > 0 && !page.complete, "{page:?}");
        let said = page.warnings.join(" ");
        assert!(said.contains("crashed") && said.contains("b"), "{said}");
    }

    #[tokio::test]
    async fn when_every_backend_rests_they_are_all_asked() {
        let fan = plain_fan(split(&corpus(), 2));
        for m in fan.members() {
            m.backend.fail(BackendErrorKind::Timeout, 0);
        }
        fan.search(&search_of(10)).await.unwrap_err();
        for m in fan.members() {
            m.backend.heal();
        }
        assert_eq!(missing(&fan).await, 0);
    }

    #[tokio::test]
    async fn without_a_rest_a_backend_that_timed_out_is_asked_every_time() {
        let fan = plain_fan(split(&corpus(), 3)).resting_after_timeout(Duration::ZERO);
        let b = &fan.members()[1].backend;
        b.fail(BackendErrorKind::Timeout, 0);
        fan.search(&search_of(10)).await.unwrap();
        fan.search(&search_of(10)).await.unwrap();
        assert_eq!(b.files_asked(&q()).len(), 2);
    }

    #[tokio::test]
    async fn a_resting_backend_fails_a_page_at_once_when_every_backend_is_required() {
        let three = Pager::new(fan(split(&corpus(), 3), true), PagerConfig::default());
        three.backend().members()[0]
            .backend
            .0
            .fail(BackendErrorKind::Timeout, 0);
        let e = first_page_error(&three).await.to_string();
        assert!(e.contains("zoekt-0"), "{e}");
        let again = first_page_error(&three).await.to_string();
        assert!(
            again.contains("zoekt-0") && again.contains("left out for now"),
            "{again}"
        );
    }

    #[tokio::test]
    async fn readiness_names_a_backend_that_hangs_among_those_that_answer() {
        let fan = plain_fan(split(&corpus(), 3));
        fan.members()[1].backend.slow(Duration::from_secs(30));
        fan.members()[2].backend.set_ready(false);
        let started = std::time::Instant::now();
        let r = fan
            .readiness_within(Duration::from_millis(100))
            .await
            .unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "waited for the hung one"
        );
        assert_eq!(r.status, 503);
        assert!(
            r.detail.starts_with("2 of 3 backends not ready"),
            "{}",
            r.detail
        );
        assert!(
            r.detail.contains("b (Zoekt did not answer within 100 ms)")
                && r.detail.contains("c (HTTP 503"),
            "{}",
            r.detail
        );
        assert!(!r.detail.contains("a ("), "{}", r.detail);
    }

    #[tokio::test]
    async fn one_backend_is_passed_through_untouched() {
        let b = FanOut::new(
            vec![("only".to_string(), FakeBackend::new().with(&q(), corpus()))],
            false,
        )
        .unwrap();
        let search = search_of(5);
        b.search(&search).await.unwrap();
        assert_eq!(b.members()[0].backend.files_asked(&q()), [5]);
    }

    #[tokio::test]
    async fn a_listing_adds_the_backends_up_names_the_missing_and_counts_a_shared_repo_once() {
        let repo = |name: &str, documents| IndexedRepo {
            name: name.into(),
            documents,
            ..Default::default()
        };
        // Backends a, b, c, d; b also serves a's r2.
        let listed = [
            vec![repo("r1", 10), repo("r2", 20)],
            vec![repo("r2", 20), repo("r3", 30)],
            vec![repo("r4", 40)],
            vec![repo("r5", 50)],
        ];
        let members = listed
            .into_iter()
            .zip('a'..)
            .map(|(repos, name)| (name.to_string(), FakeBackend::new().with_repos(repos)))
            .collect();
        let fan = FanOut::new(members, false).unwrap();
        fan.members()[2]
            .backend
            .fail(BackendErrorKind::Unreachable, 0);
        let listing = fan.repos("", Duration::from_secs(1)).await.unwrap();
        let mut names: Vec<&str> = listing.repos.iter().map(|r| r.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, ["r1", "r2", "r3", "r5"]);
        // r2 once in the repositories and the documents; every answering backend's shards.
        assert_eq!(listing.stats.repos, 4);
        assert_eq!(listing.stats.documents, 10 + 20 + 30 + 50);
        assert_eq!(listing.stats.shards, 2 + 2 + 1);
        assert_eq!(listing.stats.index_bytes, 5000);
        assert_eq!(listing.missing_backends, 0b100, "c did not answer");
        assert_eq!(listing.warnings.len(), 1, "{:?}", listing.warnings);
        let warning = &listing.warnings[0];
        assert!(
            warning.contains("r2") && warning.contains("(a and b)"),
            "{warning}"
        );
    }
}
