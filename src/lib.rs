//! zoekt-pager: exact, bounded, resumable pages of Zoekt code-search results for AI
//! assistants.
//!
//! Data flows one way: request → plan → cursor → window fetch → flatten → cut → render.
//! - [`tools`]: each tool in one module: its arguments, items, query and flattening.
//! - the paging engine ([`Pager`]) decides what a page is, the same way for every tool. It
//!   reaches the backend only through [`backend::Backend`] and knows nothing of MCP.
//! - [`zoekt`]: Zoekt's JSON API, a typed client and query building, and the adapter that
//!   makes the client a [`backend::Backend`]. The client knows nothing of pages.
//! - [`PagerServer`] (MCP over stdio with [`stdio`], or HTTP with [`http`]) and the CLI only
//!   translate.

#![deny(missing_docs)]

mod config;
mod engine;
#[cfg(feature = "harness")]
pub mod harness;
pub mod http;
mod mcp;
mod metrics;
pub mod tools;
pub mod zoekt;

pub use config::{Config, HttpArgs};
pub use engine::Pager;
pub use engine::backend;
pub use engine::cache::{CacheStats, WindowCache};
pub use engine::config::{CacheConfig, Effort, PagerConfig, ReadLimits};
pub use engine::cursor::{CursorError, RequestKey, Resume, Scope};
pub use engine::error::{ArgumentError, Error};
pub use engine::fanout::{FanOut, MAX_BACKENDS, Member};
pub use engine::order::{ORDER_VERSION, Position, file_key};
pub use engine::page::{Collected, Page, PageArgs, Total, Want};
pub use engine::window::{Cut, Window};
pub use mcp::render::{error_text, page_text};
pub use mcp::stdio;
pub use mcp::view::page_view;
pub use mcp::{ERROR_META_KEY, ErrorCode, PagerServer, ToolError};
pub use metrics::{Instrumented, Metrics};
