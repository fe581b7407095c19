//! The tests against real zoekt-webservers: the paging contract, exactness at scale, ties,
//! the fan-out, faults around a real Zoekt, both of Zoekt's APIs, the MCP transports through
//! real clients, what a model reads, the suggestions, the token budget and the window cache.
//!
//! Built only with `--features live`: `scripts/test.sh` gets the pinned Zoekt, starts one
//! webserver per test corpus, exports their `ZOEKT_PAGER_LIVE_*` addresses and runs
//! `cargo test --features live`. Once built, a test never skips: without its webserver it
//! fails, saying how to get one. One test binary with a module per concern, so a change
//! relinks it once.

#[path = "../support/mod.rs"]
mod support;

mod contract;
mod count_only;
mod exact_at_scale;
mod fanout;
mod faults;
mod grpc;
mod heavy;
mod https;
mod mcp_http;
mod mcp_stdio;
mod model_reads;
mod narrow;
mod outline;
mod query_syntax;
mod rerecord;
mod ties;
mod token_budget;
mod tree;
mod window_cache;
mod zoekt_client;
mod zoekt_requests;
