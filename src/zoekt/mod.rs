//! Everything about Zoekt itself: its JSON API ([`wire`]), its gRPC API ([`grpc`]: messages,
//! the query parser it needs, a client), a typed client ([`client`]), the
//! building and escaping of query strings ([`query`]), and the adapter that makes the client
//! the paging engine's backend ([`backend`]), how answers are read (`read`: the keys each
//! type reads, the rest skipped with nesting bounded), and the checks an answer must pass
//! ([`check`]). A search answer is decoded file by file as it arrives ([`stream`]).
//! The adapter, and the query builder that produces the engine's `QueryError`, are the ones
//! that speak the engine's types; elsewhere the engine is used only for shared helpers
//! (`engine::text::clipped`, `backend::MAX_BACKENDS`).

pub mod backend;
pub mod check;
pub mod client;
pub mod error;
pub mod grpc;
pub mod options;
pub mod query;
pub(crate) mod read;
pub mod stream;
pub mod tls;
pub mod wire;

pub use client::{ClientOptions, Readiness, Wire, ZoektClient, ZoektError};
pub use tls::Transport;
