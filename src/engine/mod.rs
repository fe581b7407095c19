//! The paging engine: from a tool request to one exact page of items.
//!
//! request → plan (validated, canonical) → cursor → window fetch → flatten → cut. Tools
//! (`src/tools/`) declare what they search and how a file becomes items; this module does
//! the rest the same way for all of them. It knows the backend only through [`Backend`] and
//! knows nothing of MCP. See `docs/contract.md`, "Paging rules".

pub mod answer;
pub mod backend;
pub mod cache;
pub mod census;
mod collect;
pub mod config;
mod count;
pub mod cursor;
mod empty;
pub mod error;
pub mod fetch;
pub mod listed;
mod listing;
pub mod names;
pub mod order;
pub mod page;
mod paging;
mod sections;
pub mod suggest;
mod survey;
#[cfg(test)]
pub(crate) mod testing;
pub mod text;
pub mod tool;
pub mod warning;
pub mod weight;
pub mod window;

use std::sync::Arc;

use backend::{Backend, BackendError, RepoListing};
use cache::WindowCache;
use config::PagerConfig;
use error::Error;

/// A future on the heap, of a type the futures holding it need not spell out: what the
/// engine boxes where a page's future would otherwise hold, and lay out, every future it
/// awaits (the compiler gave up on the layout of the process's main future without it).
pub(crate) type BoxedFuture<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// The engine, over any [`Backend`].
#[derive(Debug)]
pub struct Pager<B> {
    backend: Arc<B>,
    cfg: PagerConfig,
    cache: Option<WindowCache>,
}

/// Clones share the backend and the cache (no `B: Clone` needed, unlike a derive).
impl<B> Clone for Pager<B> {
    fn clone(&self) -> Self {
        Pager {
            backend: Arc::clone(&self.backend),
            cfg: self.cfg.clone(),
            cache: self.cache.clone(),
        }
    }
}

impl<B> Pager<B> {
    /// An engine asking `backend`, with these settings, without a window cache.
    pub fn new(backend: B, cfg: PagerConfig) -> Self {
        Pager {
            backend: Arc::new(backend),
            cfg,
            cache: None,
        }
    }

    /// The same engine keeping answers in `cache` (`None`: no cache).
    pub fn with_cache(mut self, cache: Option<WindowCache>) -> Self {
        self.cache = cache;
        self
    }

    /// The window cache, when on.
    pub fn cache(&self) -> Option<&WindowCache> {
        self.cache.as_ref()
    }

    /// The settings.
    pub fn config(&self) -> &PagerConfig {
        &self.cfg
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.backend
    }
}

/// How long a question of readiness waits at most. A live webserver answers `/readyz` at
/// once (a few round trips with a retry or the `/healthz` fallback); one that does not answer
/// within this is reported, rather than holding `health`, or a page that met crashed shards,
/// for the whole request timeout (30 s by default, and again for each retry). Not tied to the
/// search wall time: a small one would make a slow but live webserver look not ready.
pub const READINESS_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

impl<B: Backend> Pager<B> {
    /// Whether the backend can serve searches now, waited for at most [`READINESS_WAIT`]
    /// (each backend of a fan-out alike).
    pub async fn readiness(&self) -> Result<backend::Readiness, BackendError> {
        self.backend.readiness_within(READINESS_WAIT).await
    }

    /// The repositories `query` selects, within the search wall time (`--max-wall-time-ms`):
    /// every backend request is bounded the same way.
    pub async fn listing(&self, query: &str) -> Result<RepoListing, BackendError> {
        self.backend.repos(query, self.cfg.effort.wall_time()).await
    }

    /// For an answer that found nothing, with `stats`: an error when that says nothing of
    /// what was looked for, else nothing (the empty answer stands).
    /// - Backends of a fan-out did not answer: unavailable, naming them (it may be there).
    /// - Shards were down and the backend says it is still loading: the retryable NotReady.
    pub async fn check_empty_answer(&self, stats: &backend::SearchStats) -> Result<(), Error> {
        if stats.missing_backends != 0 {
            return Err(BackendError {
                kind: backend::BackendErrorKind::Unreachable,
                message: format!(
                    "nothing was found on the Zoekt backends that answered, and {} did not \
                     answer: what was looked for may be there",
                    self.backend
                        .backend_names(stats.missing_backends)
                        .join(", ")
                ),
                files_within: None,
            }
            .into());
        }
        if stats.crashes > 0 {
            self.settled().await?;
        }
        Ok(())
    }

    /// Ok unless the backend's own probe says it is loading: an answer with crashed shards
    /// means "still loading" only then (a shard that crashed for good leaves a ready Zoekt,
    /// and its answers stand, with their warning; a fan-out's backend resting after a
    /// timeout loads nothing). Loading is the retryable NotReady, with the backend's reason;
    /// no answer to the question is that error (a timeout or unreachable), not a claim that
    /// shards are loading.
    async fn settled(&self) -> Result<(), BackendError> {
        let readiness = self.readiness().await?;
        if readiness.loading {
            Err(not_ready(&readiness.detail))
        } else {
            Ok(())
        }
    }

    /// Everything besides the request that decides which items come out in which order:
    /// part of every cursor's hash ([`cursor::RequestKey::new`]), so a server configured otherwise
    /// refuses the cursor.
    pub fn order_settings(&self) -> String {
        let e = &self.cfg.effort;
        format!(
            "shard {} total {} wall {} window {}",
            e.shard_max_match_count,
            e.total_max_match_count,
            e.max_wall_time_ms,
            self.cfg.max_window
        )
    }
}

/// Zoekt answered nothing while some shards were loading (it says it is not ready, for
/// `reason`): an error to retry, never an empty, final-looking page or a count of 0.
fn not_ready(reason: &str) -> backend::BackendError {
    backend::BackendError {
        kind: backend::BackendErrorKind::NotReady,
        message: format!(
            "Zoekt answered while some of its shards were still loading (its /readyz says \
             not ready: {reason}), so its answer may lack any of the results"
        ),
        files_within: None,
    }
}
