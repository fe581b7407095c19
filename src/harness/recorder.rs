//! A [`Backend`] in front of another that keeps every call ([`Call`]) and takes out of each
//! answer what varies between runs by nature, before the pager sees it.
//!
//! It sits on the engine's seam, not on the wire: what it keeps is the same whether the
//! client reached Zoekt over gRPC or JSON, and a replay of it needs no network at all.
//! `record` keeps what it logs; `check` uses it only for the normalising, so that a live
//! run is compared with goldens made the same way.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::engine::backend::{
    Backend, BackendError, FileSearch, RankedFiles, Readiness, RepoListing,
};

use super::answers::Files;
use super::calls::{Answer, Ask, Call, Failure, SearchAsk};
use super::index::{Ready, Repos};

/// What every index time reads as in a recording: when a corpus was indexed says nothing of
/// what the pager makes of it, and would change every golden of `list_repos` at each re-index.
pub const FIXED_INDEX_TIME: &str = "2000-01-01T00:00:00Z";

/// The calls logged so far: each slot filled when its answer comes.
type Slots = Arc<Mutex<Asked>>;

/// The calls asked since the last take, and which take that is: an answer that comes in
/// after a take (its caller's scenario is over) must not land on a call of the next one.
#[derive(Default)]
struct Asked {
    take: u64,
    calls: Vec<(Ask, Option<Answer>)>,
}

/// Where a call's answer goes: its take, and its place in that take's calls.
#[derive(Clone, Copy)]
struct Slot {
    take: u64,
    index: usize,
}

/// The recording backend (see the module's documentation).
pub struct Recorder<B> {
    inner: Arc<B>,
    slots: Slots,
}

/// A handle on a [`Recorder`]'s log, kept while the pager owns the recorder.
#[derive(Clone)]
pub struct Log(Slots);

impl Log {
    /// The calls answered since the last take, sorted by question. Calls made at once (a
    /// health check's readiness and listing, `find_references`' two searches) start in any
    /// order, and a re-recording must diff cleanly; the sort is stable, so equal questions
    /// keep the order they were asked in, which is the order a replay serves their answers
    /// in. A call whose caller stopped waiting (a call deadline) has no answer to replay and
    /// is left out.
    pub fn take(&self) -> Vec<Call> {
        let slots = {
            let mut asked = self.0.lock().unwrap_or_else(|e| e.into_inner());
            asked.take += 1;
            std::mem::take(&mut asked.calls)
        };
        let mut calls: Vec<Call> = slots
            .into_iter()
            .filter_map(|(ask, answer)| answer.map(|answer| Call { ask, answer }))
            .collect();
        calls.sort_by_cached_key(|c| c.ask.one_line());
        calls
    }
}

impl<B: Backend> Recorder<B> {
    /// A recorder in front of `inner` (shared, so that one live backend serves several
    /// pagers, one per recording's settings).
    pub fn new(inner: Arc<B>) -> Self {
        Recorder {
            inner,
            slots: Slots::default(),
        }
    }

    /// The handle to take the log with.
    pub fn log(&self) -> Log {
        Log(Arc::clone(&self.slots))
    }

    /// Logs `ask` in the order asked (equal questions then keep the order the engine asked
    /// them in, not the order their answers came in); the index of its slot.
    fn asked(&self, ask: Ask) -> Slot {
        let mut asked = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        asked.calls.push((ask, None));
        Slot {
            take: asked.take,
            index: asked.calls.len() - 1,
        }
    }

    fn answered(&self, slot: Slot, answer: Answer) {
        let mut asked = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        // A take between the ask and its answer ended its scenario: the answer belongs to
        // no scenario then (the same place may hold a call of the next one), and is dropped.
        if asked.take == slot.take
            && let Some(s) = asked.calls.get_mut(slot.index)
        {
            s.1 = Some(answer);
        }
    }
}

/// Takes out what varies between runs by nature: Zoekt's own time (kept only as "ran out
/// of time", which changes a page), and index times.
fn normalise_files(files: &mut RankedFiles, search: &FileSearch) {
    let wall = search.effort.max_wall_time_ms;
    let stats = &mut files.stats;
    stats.duration_ms = if wall > 0 && stats.duration_ms >= wall {
        wall
    } else {
        0
    };
}

fn normalise_listing(listing: &mut RepoListing) {
    for r in &mut listing.repos {
        if !r.index_time.is_empty() {
            r.index_time = FIXED_INDEX_TIME.into();
        }
    }
    // The order of the repositories carries no meaning (Zoekt's is random); sorted, a
    // re-recording diffs clean.
    listing.repos.sort_by(|a, b| a.name.cmp(&b.name));
}

fn readiness_answer(answer: &Result<Readiness, BackendError>) -> Answer {
    match answer {
        Ok(r) => Answer::Readiness(Ready::from(r)),
        Err(e) => Answer::Error(Failure::from(e)),
    }
}

/// `search_window` keeps its default, `search`: a recording holds whole answers and errors,
/// an answer too big among them, and the player serves them the same way, so a recorded walk
/// bound by an answer's size finds its bound by bisection in both (the live pager reads the
/// start of such an answer instead, `engine/fetch.rs`).
impl<B: Backend> Backend for Recorder<B> {
    async fn search(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
        let slot = self.asked(Ask::Search(SearchAsk::from(search)));
        let mut answer = self.inner.search(search).await;
        if let Ok(files) = &mut answer {
            normalise_files(files, search);
        }
        self.answered(
            slot,
            match &answer {
                Ok(files) => Answer::Files(Files::from(files)),
                Err(e) => Answer::Error(Failure::from(e)),
            },
        );
        answer
    }

    async fn repos(&self, query: &str, wall_time: Duration) -> Result<RepoListing, BackendError> {
        let slot = self.asked(Ask::Repos {
            query: query.to_string(),
            wall_time_ms: wall_time.as_millis() as u64,
        });
        let mut answer = self.inner.repos(query, wall_time).await;
        if let Ok(listing) = &mut answer {
            normalise_listing(listing);
        }
        self.answered(
            slot,
            match &answer {
                Ok(listing) => Answer::Repos(Repos::from(listing)),
                Err(e) => Answer::Error(Failure::from(e)),
            },
        );
        answer
    }

    async fn readiness(&self) -> Result<Readiness, BackendError> {
        let slot = self.asked(Ask::Readiness);
        let answer = self.inner.readiness().await;
        self.answered(slot, readiness_answer(&answer));
        answer
    }

    // The inner backend's own bound (a fan-out bounds each of its backends), recorded as a
    // readiness call like any other: the bound is the caller's, not part of Zoekt's answer.
    async fn readiness_within(&self, budget: Duration) -> Result<Readiness, BackendError> {
        let slot = self.asked(Ask::Readiness);
        let answer = self.inner.readiness_within(budget).await;
        self.answered(slot, readiness_answer(&answer));
        answer
    }

    fn backend_names(&self, mask: u64) -> Vec<String> {
        self.inner.backend_names(mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::backend::{IndexedRepo, SearchStats, Shape};
    use crate::engine::config::Effort;

    fn search(wall: u64) -> FileSearch {
        FileSearch {
            query: "x".into(),
            effort: Effort {
                max_wall_time_ms: wall,
                ..Effort::default()
            },
            max_files: 1,
            context_lines: 0,
            shape: Shape::Lines,
        }
    }

    #[test]
    fn an_answer_after_its_take_lands_on_no_call_of_the_next() {
        let recorder = Recorder::new(Arc::new(crate::engine::testing::FakeBackend::new()));
        let log = recorder.log();
        let failure = |message: &str| {
            Answer::Error(Failure {
                kind: "timeout".into(),
                message: message.into(),
                files_within: None,
            })
        };
        let late = recorder.asked(Ask::Readiness);
        assert!(log.take().is_empty(), "asked, not answered: left out");
        // The next scenario's first call takes the same place in the log.
        let next = recorder.asked(Ask::Readiness);
        recorder.answered(next, failure("its own"));
        recorder.answered(late, failure("late"));
        let calls = log.take();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].answer, failure("its own"));
    }

    #[test]
    fn timings_go_but_running_out_of_time_stays() {
        let mut files = RankedFiles {
            files: Vec::new(),
            stats: SearchStats {
                duration_ms: 37,
                ..SearchStats::default()
            },
            cut_at_bytes: false,
        };
        normalise_files(&mut files, &search(10_000));
        assert_eq!(files.stats.duration_ms, 0);
        files.stats.duration_ms = 10_400;
        normalise_files(&mut files, &search(10_000));
        assert_eq!(files.stats.duration_ms, 10_000);
    }

    #[test]
    fn index_times_are_fixed_and_repositories_sorted() {
        let repo = |name: &str, time: &str| IndexedRepo {
            name: name.into(),
            index_time: time.into(),
            ..IndexedRepo::default()
        };
        let mut listing = RepoListing {
            repos: vec![repo("b", "2026-11-29T06:00:00Z"), repo("a", "")],
            ..RepoListing::default()
        };
        normalise_listing(&mut listing);
        assert_eq!(
            listing.repos,
            vec![repo("a", ""), repo("b", FIXED_INDEX_TIME)]
        );
    }
}
