//! Many backends as one: an index partitioned over several zoekt-webservers, each serving its
//! own shards, searched at once and merged into the answer one backend holding every shard
//! would give.
//!
//! [`FanOut`] is a [`Backend`](crate::engine::backend::Backend) made of backends. It lives
//! beside the Zoekt adapter, not in the paging engine, because the engine pages a fan-out
//! exactly as it pages one webserver: it sees only what the backend seam carries (one bit per
//! backend in `SearchStats::missing_backends` and `shared_backends`, at most
//! `backend::MAX_BACKENDS` of them, named by `Backend::backend_names`) and says it in its own
//! warnings (`Warning::MissingBackends`, pushed by the engine's collect step). What a merged answer must be is the engine's rule
//! too (the total order, `engine/order.rs`; the trusted edge, `engine/answer.rs`); how a
//! fan-out meets it is this module's.
//!
//! From the top down (a file imports only files below it):
//! - `backend.rs`: the `Backend` impl: what each call asks of each backend, and how the
//!   answers come together; one backend is passed through untouched;
//! - `ready.rs`: one readiness of every backend's;
//! - `ask.rs`: every backend asked at once, each on its own task, but those resting;
//! - `fan.rs`: the [`FanOut`] itself, its backends, and which failures it survives;
//! - `merge.rs`: the merge of answers: windows of files in the total order, listings, totals;
//! - `rest.rs`: a backend ([`Member`]) and the rest it takes after a search timed out
//!   ([`REST_AFTER_TIMEOUT`]);
//! - `testing.rs` (tests only): corpora, a backend with Zoekt's novelty boost, fan-outs of
//!   fakes.

mod ask;
mod backend;
mod fan;
mod merge;
mod ready;
mod rest;
#[cfg(test)]
pub(crate) mod testing;

pub use fan::FanOut;
pub use rest::{Member, REST_AFTER_TIMEOUT};
