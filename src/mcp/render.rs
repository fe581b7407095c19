//! The text block of a page: one line per item (each tool writes its own, see
//! [`ItemText`]), then a footer telling a model where it is and how to get the next page.
//! Written for a model to read, so it is terse and never repeats what the line already says.

use std::fmt::Write as _;

use super::errors::ToolError;
use crate::engine::page::Page;
use crate::tools::ItemText;

/// The whole text block of a page of `tool`.
pub fn page_text<T: ItemText>(tool: &str, page: &Page<T>) -> String {
    let mut out = String::new();
    for item in &page.items {
        item.write_text(&mut out);
        out.push('\n');
    }
    let total = if page.total.exact {
        page.total.value.to_string()
    } else {
        format!("about {}", page.total.value)
    };
    if page.items.is_empty() {
        let _ = write!(out, "No items at offset {} (total {total}).", page.offset);
    } else {
        let first = page.offset + 1;
        let last = page.offset + page.count as u64;
        let _ = write!(out, "Items {first}-{last} of {total}.");
    }
    if page.size_capped {
        out.push_str(" (page shortened to stay under the response size bound)");
    }
    match &page.next_cursor {
        Some(c) => {
            let _ = write!(out, " More: call {tool} with cursor=\"{c}\"");
        }
        None if !page.items.is_empty() && page.complete => out.push_str(" End of results."),
        None if !page.items.is_empty() => out.push_str(" No further pages (see warnings)."),
        None => {}
    }
    for w in &page.warnings {
        let _ = write!(out, "\nWarning: {w}");
    }
    out
}

/// The text block of an error.
pub fn error_text(e: &ToolError) -> String {
    format!("Error {}: {}\nHint: {}", e.code.as_str(), e.message, e.hint)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::page::Total;
    use crate::tools::list_repos::RepoItem;

    fn page(next: Option<&str>, complete: bool) -> Page<RepoItem> {
        let item = RepoItem {
            name: "r".into(),
            files: 1,
            has_symbols: true,
            index_time: String::new(),
            branches: vec![],
        };
        Page {
            items: vec![item],
            count: 1,
            offset: 4,
            limit: 1,
            has_more: next.is_some(),
            next_cursor: next.map(String::from),
            total: Total {
                value: 9,
                exact: complete,
            },
            complete,
            size_capped: false,
            resynced: false,
            zoekt_requests: 0,
            warnings: if complete {
                vec![]
            } else {
                vec!["paging stops at item 5".into()]
            },
        }
    }

    #[test]
    fn footer_says_where_we_are_and_how_to_continue() {
        let t = page_text("list_repos", &page(Some("C1"), true));
        assert!(
            t.ends_with("Items 5-5 of 9. More: call list_repos with cursor=\"C1\""),
            "{t}"
        );
        let t = page_text("list_repos", &page(None, true));
        assert!(t.ends_with("Items 5-5 of 9. End of results."), "{t}");
        // At the paging ceiling there is no cursor, but it is not the end of the results.
        let t = page_text("list_repos", &page(None, false));
        assert!(!t.contains("End of results"), "{t}");
        assert!(
            t.contains("of about 9. No further pages") && t.contains("Warning: paging stops"),
            "{t}"
        );
    }
}
