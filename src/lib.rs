//! zoekt-pager: exact, bounded, resumable pages of Zoekt code-search results for AI
//! assistants.
//!
//! Data flows one way: request → plan → cursor → window fetch → flatten → cut → render.
//! - the paging engine ([`Pager`]) decides what a page is, the same way for every tool. It
//!   is the ground floor and imports nothing above it: it declares the two seams it calls,
//!   [`backend::Backend`] (what it asks) and [`tool::Tool`] (what a paged tool does), and
//!   knows nothing of MCP or Zoekt. See `docs/architecture.md`.
//! - [`form`]: the page's form: how a page reads as text and as a structured page, its
//!   output schema, its suggestions, and the budget that measures what it writes.
//! - [`tools`]: each tool in one module: it implements [`tool::Tool`] (its arguments, items,
//!   query and flattening) and adds its MCP face (name, schema, description, text).
//! - [`zoekt`]: Zoekt's gRPC and JSON APIs, a typed client and query building, and the
//!   adapter that makes the client a [`backend::Backend`]. The client knows nothing of pages.
//! - [`FanOut`]: several backends (an index partitioned over several webservers) as one
//!   [`backend::Backend`], beside the adapter: the engine pages it as it pages one.
//! - [`PagerServer`] (MCP over stdio with [`stdio`], or HTTP with [`http`]) and the CLI only
//!   translate.
//! - [`harness`]: the regression harness: scenarios recorded on the backend seam, replayed
//!   with no Zoekt, checked against a live one (`zoekt-pager record`, `replay`, `check`).

#![deny(missing_docs)]

mod config;
mod engine;
mod fanout;
pub mod form;
pub mod harness;
pub mod http;
mod mcp;
mod metrics;
pub mod tools;
pub mod zoekt;

// The engine: the pager, its settings and its page.
pub use engine::cache::{CacheStats, WindowCache};
pub use engine::config::{CacheConfig, Effort, PagerConfig, ReadLimits};
pub use engine::page::Page;
pub use engine::tool::PageArgs;
pub use engine::{Pager, READINESS_WAIT};
// The engine's two seams, as modules: what a backend implements, and what a paged tool does.
pub use engine::{backend, tool};
// Several Zoekts as one backend: a backend of backends, above the engine; the most backends
// one backend can stand for is the seam's.
pub use engine::backend::MAX_BACKENDS;
pub use fanout::{FanOut, Member, REST_AFTER_TIMEOUT};
// The cursor, for those who mint and read cursors by hand (the fuzz target).
pub use engine::cursor::RequestKey;
pub use engine::order::Position;

// Errors as a caller sees them, in every face.
pub use tools::error::{ErrorCode, ToolError, error_text};

// The faces: settings of the process, MCP, metrics.
pub use config::{Config, HttpArgs};
pub use mcp::{ERROR_META_KEY, PagerServer, WARNINGS_META_KEY};
pub use mcp::{message, stdio};
pub use metrics::{Instrumented, Metrics};
