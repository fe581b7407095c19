//! The fan-out itself: its backends, named, and which failures it survives.
//!
//! A backend that fails (unreachable, timed out, or refused) leaves the answer with its bit in
//! `SearchStats::missing_backends`: the page is served from the others with a warning naming
//! it, is never exact, is not cached, and its cursor asks again from where it ends, so the walk
//! resumes once the backend is back. With `--require-all-backends` the page fails instead.
//! A failure that is no backend's absence (a bad query, an answer too big or malformed) fails
//! the call, the backend named.

use std::time::Duration;

use super::rest::{Member, REST_AFTER_TIMEOUT};
use crate::engine::backend::{BackendError, BackendErrorKind, MAX_BACKENDS};

/// Several backends, each a partition of one index, as one
/// [`Backend`](crate::engine::backend::Backend).
#[derive(Debug)]
pub struct FanOut<B> {
    /// The backends, in order: backend `i` is bit `i` of every mask.
    pub(super) members: Vec<Member<B>>,
    /// A backend that fails fails the call (`--require-all-backends`).
    pub(super) require_all: bool,
    /// How long a backend whose search timed out is left out (zero: never).
    pub(super) rest_for: Duration,
}

impl<B> FanOut<B> {
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
                .map(|(name, backend)| Member::new(name, backend))
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
            files_within: e.files_within,
        }
    }

    /// The answers of every backend (in backend order) that stand, each with its backend's
    /// index, and the mask of those missing; or the error that stops the call.
    pub(super) fn answered<T>(
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
    pub(super) fn every_one_failed(&self, failures: Vec<(usize, BackendError)>) -> BackendError {
        let kind = failures.first().expect("a backend failed").1.kind;
        let each: Vec<String> = failures
            .into_iter()
            .map(|(i, e)| format!("{}: {}", self.members[i].name, e.message))
            .collect();
        BackendError {
            kind,
            message: format!("no backend answered ({})", each.join("; ")),
            files_within: None,
        }
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
