//! Everything about Zoekt itself: its JSON API ([`wire`]), a typed client ([`client`]) and
//! the building and escaping of query strings ([`query`]). Nothing here knows about pages.

pub mod client;
pub mod query;
pub mod wire;

pub use client::{ClientOptions, Readiness, ZoektClient, ZoektError};
