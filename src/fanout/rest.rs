//! One backend of a fan-out, and the rest it takes after a search timed out.
//!
//! A backend whose search timed out is left out for [`REST_AFTER_TIMEOUT`]: missing at once,
//! not waited for on every page, then one search tries it again. This file keeps each
//! backend's rest and says what a request meets; who is asked, and who reports back, is
//! `ask.rs`'s.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::engine::backend::{BackendError, BackendErrorKind};

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
    /// `backend`, named `name`, not resting.
    pub(super) fn new(name: String, backend: B) -> Member<B> {
        Member {
            name,
            backend: Arc::new(backend),
            rest: Mutex::new(None),
        }
    }

    /// Whether a request now leaves it out, and the error that says so; `None` means ask it
    /// (it is not resting, or its rest is over). A search that asks it after its rest is
    /// the one that tries it again (`searching`): it pushes the rest on, so that searches
    /// meanwhile leave it out until it reports back. A listing then asks it too, but claims
    /// nothing: what it learns ends no rest, so it must not start one either.
    pub(super) fn left_out(
        &self,
        now: Instant,
        rest_for: Duration,
        searching: bool,
    ) -> Option<BackendError> {
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
            files_within: None,
        })
    }

    /// What a search that asked it learned: a timeout leaves it out for `rest_for`, any
    /// other outcome (an answer, or a failure that came at once) lets searches ask it again.
    pub(super) fn searched<T>(
        &self,
        answer: &Result<T, BackendError>,
        took: Duration,
        rest_for: Duration,
    ) {
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
    pub(super) fn resting_for(&self, now: Instant) -> Option<Duration> {
        let rest = self.rest.lock().expect("rest lock");
        rest.as_ref()
            .map(|r| r.until.saturating_duration_since(now))
            .filter(|left| !left.is_zero())
    }
}
