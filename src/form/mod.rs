//! The page's form: everything that turns a page of items into what a reader gets, in one
//! room below the MCP layer and the CLI, which only wrap what it writes.
//!
//! - `item.rs`: how an item reads, as a line of text ([`ItemText`]) and a row of the
//!   structured page ([`ItemRow`]); tools implement both for their items;
//! - `text.rs`: the text block (items, suggestions, the footer that says how to go on);
//! - `json.rs` and `layout.rs`: the structured page, and the choice of its shortest layout;
//! - `schema.rs`: the structured page's `outputSchema`;
//! - `narrow.rs`: the suggested ways to narrow, in both forms;
//! - `warning.rs`: the words of the engine's warnings, ways and counts;
//! - `fit.rs`: the page budget, measured by writing the page with the code above.
//!
//! It sits above the engine (it writes the engine's [`Page`](crate::engine::page::Page)) and
//! below the tools (which implement its item traits): it names no tool and no MCP type.

mod fit;
mod item;
mod json;
mod layout;
pub(crate) use layout::extension;
mod narrow;
mod schema;
#[cfg(test)]
mod testing;
mod text;
mod warning;

pub use fit::{PageSize, Shown, show};
pub use item::{CellKind, Column, Grouping, ItemRow, ItemText, Location, write_items};
pub use json::page_view;
pub use narrow::{NarrowCall, Suggestions};
pub use schema::page_schema;
pub use text::{page_text, walk_sentence};
pub use warning::{count_words, page_warnings, warning_text, way_words};
