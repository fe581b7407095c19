//! The tests that need no Zoekt, no Go, no npm and no Python: what plain `cargo test` runs,
//! beside the unit tests. Each stands in for what a real Zoekt cannot be made to do on demand
//! (wiremock for 5xx, malformed or slow answers; an in-process adversary for reshuffled ties;
//! a dead port), or replays answers recorded from a real Zoekt (`replay`).
//!
//! One test binary with a module per concern, so a change relinks it once. The tests against
//! a real zoekt-webserver are the `live` target (`tests/live/`), built only with
//! `--features live` (`scripts/test.sh` brings the webservers up and runs both).

#[path = "../support/mod.rs"]
mod support;

mod contract;
mod heavy;
mod mcp_http;
mod mcp_stdio;
mod replay;
mod ties;
mod zoekt_client;
mod zoekt_requests;
