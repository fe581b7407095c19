//! A [`Backend`] that serves recorded calls, with no Zoekt and no network: each answer goes
//! to the very same question ([`Ask`]: the call and every argument), once, in the order
//! recorded among equal questions and in any order among different ones (`find_references`
//! asks its two searches at once, and which starts first is the scheduler's). A question the
//! recording lacks gets an error and is kept, to be printed; so are the recorded calls never
//! asked for.
//!
//! A census (a search of names only) is the exception on both sides. It goes out beside a
//! first page's window and is dropped, answered or not, when the page turns out to need
//! none: whether it reached the backend is timing, when recording and when replaying. (A
//! census that carries a page's first search, `find_references`', is always waited for; a
//! recording that lacks it replays that search's own request instead, and the page is the
//! same.) So a
//! census the recording lacks gets the error but is not reported (a page that needed it
//! would differ from its golden, and the diff says so), and a recorded one never asked for
//! is not reported either.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::engine::backend::{
    Backend, BackendError, BackendErrorKind, FileSearch, RankedFiles, Readiness, RepoListing,
};

use super::calls::{Answer, Ask, Call, SearchAsk, ShapeAsk};

#[derive(Default)]
struct Tape {
    /// The recorded calls, each with whether it was served.
    calls: Vec<(Call, bool)>,
    /// Questions asked that the recording does not hold, in the order asked.
    unrecorded: Vec<Ask>,
    /// Questions asked, served or not.
    asked: usize,
}

/// The replaying backend; [`Player::handle`] reads what happened once the pager owns it.
pub struct Player(Arc<Mutex<Tape>>);

/// What a [`Player`] saw, read after the run.
#[derive(Clone)]
pub struct PlayerHandle(Arc<Mutex<Tape>>);

impl Player {
    /// A backend serving `calls`.
    pub fn new(calls: &[Call]) -> Self {
        let tape = Tape {
            calls: calls.iter().cloned().map(|c| (c, false)).collect(),
            ..Tape::default()
        };
        Player(Arc::new(Mutex::new(tape)))
    }

    /// The handle to read it with.
    pub fn handle(&self) -> PlayerHandle {
        PlayerHandle(Arc::clone(&self.0))
    }

    /// The recorded answer to `ask`, taken off the tape; `None` when it holds none (then
    /// the question is kept for the report).
    fn serve(&self, ask: Ask) -> Option<Answer> {
        let mut tape = self.0.lock().unwrap_or_else(|e| e.into_inner());
        tape.asked += 1;
        let found = tape
            .calls
            .iter_mut()
            .find(|(call, served)| !served && call.ask == ask);
        match found {
            Some((call, served)) => {
                *served = true;
                Some(call.answer.clone())
            }
            None => {
                if !is_census(&ask) {
                    tape.unrecorded.push(ask);
                }
                None
            }
        }
    }
}

impl PlayerHandle {
    /// The questions asked that the recording does not hold, one line each.
    pub fn unrecorded(&self) -> Vec<String> {
        let tape = self.0.lock().unwrap_or_else(|e| e.into_inner());
        tape.unrecorded.iter().map(Ask::one_line).collect()
    }

    /// The recorded calls never asked for, one line each.
    pub fn unused(&self) -> Vec<String> {
        let tape = self.0.lock().unwrap_or_else(|e| e.into_inner());
        tape.calls
            .iter()
            .filter(|(call, served)| !served && !is_census(&call.ask))
            .map(|(call, _)| call.ask.one_line())
            .collect()
    }

    /// How many calls were recorded, and how many questions were asked.
    pub fn counts(&self) -> (usize, usize) {
        let tape = self.0.lock().unwrap_or_else(|e| e.into_inner());
        (tape.calls.len(), tape.asked)
    }
}

/// Whether `ask` is a census, which timing alone decides is sent (see the module's words).
fn is_census(ask: &Ask) -> bool {
    matches!(ask, Ask::Search(s) if matches!(s.shape, ShapeAsk::NamesOnly | ShapeAsk::NamesCarryingLines))
}

/// What a question the recording lacks gets: an error that says so (the run goes on, and the
/// report names the question).
fn not_recorded(ask: &Ask) -> BackendError {
    BackendError {
        kind: BackendErrorKind::ServerError,
        message: format!("not in the recording: {}", ask.one_line()),
        files_within: None,
    }
}

/// An answer of the wrong kind for its question: only a recording edited by hand has one.
fn mismatched(ask: &Ask) -> BackendError {
    BackendError {
        kind: BackendErrorKind::Malformed,
        message: format!(
            "the recording answers {} with an answer of another kind",
            ask.one_line()
        ),
        files_within: None,
    }
}

impl Backend for Player {
    async fn search(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
        let ask = Ask::Search(SearchAsk::from(search));
        match self.serve(ask.clone()) {
            Some(Answer::Files(files)) => Ok(RankedFiles::from(files)),
            Some(Answer::Error(e)) => Err(e.to_error()),
            Some(_) => Err(mismatched(&ask)),
            None => Err(not_recorded(&ask)),
        }
    }

    async fn repos(&self, query: &str, wall_time: Duration) -> Result<RepoListing, BackendError> {
        let ask = Ask::Repos {
            query: query.to_string(),
            wall_time_ms: wall_time.as_millis() as u64,
        };
        match self.serve(ask.clone()) {
            Some(Answer::Repos(repos)) => Ok(RepoListing::from(repos)),
            Some(Answer::Error(e)) => Err(e.to_error()),
            Some(_) => Err(mismatched(&ask)),
            None => Err(not_recorded(&ask)),
        }
    }

    async fn readiness(&self) -> Result<Readiness, BackendError> {
        match self.serve(Ask::Readiness) {
            Some(Answer::Readiness(r)) => Ok(Readiness::from(r)),
            Some(Answer::Error(e)) => Err(e.to_error()),
            Some(_) => Err(mismatched(&Ask::Readiness)),
            None => Err(not_recorded(&Ask::Readiness)),
        }
    }
}
