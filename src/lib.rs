//! zoekt-pager: exact, bounded, resumable pages of Zoekt code-search results for AI
//! assistants.
//!
//! Data flows one way: request → validate → cursor → window fetch → flatten → slice → render.
//! - [`zoekt`] finds: the typed client and query building. It knows nothing of pages.
//! - [`page`] decides what a page is. It knows nothing of MCP.
//! - [`mcp`] and the CLI print.

pub mod config;
pub mod harness;
pub mod http;
pub mod mcp;
pub mod metrics;
pub mod page;
pub mod zoekt;
