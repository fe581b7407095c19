//! What the window cache holds: its keys (a request's answers, a fetch in flight, a listing
//! kept whole) and its values, weighed in bytes.

use std::any::{Any, TypeId};
use std::sync::Arc;
use std::time::Instant;

use crate::engine::backend::{FileSearch, RankedFiles, Shape};
use crate::engine::config::Effort;
use crate::engine::cursor::RequestKey;
use crate::engine::fetch::WindowSpec;

/// Names one request's answers: everything that decides which items a backend answer
/// flattens into, except the number of files.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct AnswerKey {
    /// The tool, its canonical request and the settings of the order (the cursor's hash).
    request: RequestKey,
    /// The item type the answer is flattened into.
    item: TypeId,
    query: String,
    effort: Effort,
    context_lines: u32,
    /// What each file of the answer holds: a census of names, flattened into the tool's
    /// items too (only the files it carries hold any), must never serve a page's window of
    /// the same query, effort and context.
    shape: Shape,
}

impl AnswerKey {
    /// The key of `spec`'s answers for `request`, flattened into `T`.
    pub(crate) fn new<T: 'static>(request: &RequestKey, spec: &WindowSpec<'_>) -> AnswerKey {
        AnswerKey {
            request: *request,
            item: TypeId::of::<T>(),
            query: spec.query.to_string(),
            effort: spec.effort,
            context_lines: spec.context_lines,
            shape: spec.shape,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Key {
    /// Zoekt's answer to one search, until a page flattens it (prefetched, or in flight).
    Raw(FileSearch),
    /// A fetch of this many files for a request, while it runs (concurrent pages share it).
    Fetch(AnswerKey, u32),
    /// The largest answer of a request.
    Largest(AnswerKey),
    /// The fewest files whose answer was too big to read, for a request.
    TooBig(AnswerKey),
    /// A listing kept whole (`names.rs`).
    Kept(Kept),
}

/// What a listing kept whole is kept by (`names.rs`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Kept {
    /// Every file name a query lists: what the backend was asked for (a hit or a miss of
    /// the cache's counts).
    Names(String),
    /// A request's items, made from a kept listing of names: the pages of one walk share
    /// them instead of making them again (not counted: no backend request is at stake).
    Items(RequestKey),
}

#[derive(Clone)]
pub(super) enum Value {
    Raw(Arc<RankedFiles>, u32, Instant),
    Answer(Arc<dyn Any + Send + Sync>, u32),
    Files(u32),
}

impl Value {
    pub(super) fn weight(&self) -> u32 {
        match self {
            Value::Raw(_, w, _) | Value::Answer(_, w) => *w,
            Value::Files(_) => 64,
        }
    }
}
