//! The text block of a page: one line per item (each tool writes its own, see
//! [`ItemText`]), its suggested ways to narrow, then a footer telling a model where it is
//! and how to get the next page. Written for a model to read, so it is terse and never
//! repeats what the line already says.

use std::fmt::Write as _;

use super::item::{ItemRow, ItemText, write_items};
use super::narrow::Suggestions;
use super::warning::page_warnings;
use crate::engine::page::Page;

/// The whole text block of a page of `tool`: its items, its suggested ways to narrow, the
/// sentence that says where the walk is ([`walk_sentence`]), and its warnings.
pub fn page_text<T: ItemText + ItemRow>(
    tool: &str,
    page: &Page<T>,
    narrow: Option<&Suggestions>,
) -> String {
    let mut out = String::new();
    write_items(&page.items, &mut out);
    if let Some(narrow) = narrow {
        out.push_str(&narrow.text());
        out.push('\n');
    }
    out.push_str(&walk_sentence(tool, page));
    for w in page_warnings(page) {
        let _ = write!(out, "\nWarning: {w}");
    }
    out
}

/// Where a page stands in the walk and how to go on, in words: the text's footer and the
/// structured page's `next`, the same in both.
pub fn walk_sentence<T>(tool: &str, page: &Page<T>) -> String {
    let mut out = String::new();
    let total = match (page.total.exact, page.total.at_least, page.total.value) {
        (true, _, n) => n.to_string(),
        (false, true, 0) => "not known, Zoekt did not finish searching: see the warnings".into(),
        (false, true, n) => format!("at least {n}"),
        (false, false, n) => format!("about {n}"),
    };
    if let Some(pages) = page.pages {
        let _ = write!(
            out,
            "Count only: {total} items, {}. Call {tool} without count_only to list them.",
            pages_at_limit(pages, page, "")
        );
        return out;
    }
    if page.items.is_empty() {
        let _ = write!(out, "No items at offset {} (total {total}).", page.offset);
    } else {
        let first = page.offset + 1;
        let last = page.offset + page.count as u64;
        let left = match page.next_cursor {
            Some(_) => pages_left(page),
            None => String::new(),
        };
        let _ = write!(out, "Items {first}-{last} of {total}{left}.");
    }
    if page.size_capped {
        let _ = write!(
            out,
            " Only {} of limit {} items: the next would pass the page's token budget; a \
             smaller snippet_length or context_lines fits more.",
            page.count, page.limit
        );
    }
    match &page.next_cursor {
        Some(c) => {
            let _ = write!(out, " Next: call {tool} with cursor={c}");
        }
        None if !page.items.is_empty() && page.warnings.is_empty() => {
            out.push_str(" End of results.")
        }
        None if !page.items.is_empty() => out.push_str(" No further pages (see warnings)."),
        None => {}
    }
    out
}

/// How many pages remain after this one, at its limit: ` (3 more pages at limit 30)`, with
/// "about" when the total is an estimate; empty when the total says nothing is left (the
/// cursor may still find more, e.g. after a timeout).
fn pages_left<T>(page: &Page<T>) -> String {
    let seen = page.offset + page.count as u64;
    let rest = page.total.value.saturating_sub(seen);
    let pages = rest.div_ceil(u64::from(page.limit.max(1)));
    if pages == 0 {
        return String::new();
    }
    format!(" ({})", pages_at_limit(pages, page, "more "))
}

/// `3 more pages at limit 30`, `about 1 page at limit 30`: "about" when the page's total is
/// an estimate, "at least" when it is what Zoekt counted before it ran out of time.
fn pages_at_limit<T>(pages: u64, page: &Page<T>, more: &str) -> String {
    let about = match (page.total.exact, page.total.at_least) {
        (true, _) => "",
        (false, true) => "at least ",
        (false, false) => "about ",
    };
    let s = if pages == 1 { "" } else { "s" };
    format!("{about}{pages} {more}page{s} at limit {}", page.limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tool::Total;
    use crate::form::testing::{Hit, Name};

    fn page(next: Option<&str>, complete: bool) -> Page<Name> {
        Page {
            items: vec![Name("r".into())],
            count: 1,
            offset: 4,
            limit: 1,
            has_more: next.is_some(),
            next_cursor: next.map(String::from),
            total: Total {
                value: 9,
                exact: complete,
                at_least: false,
            },
            complete,
            size_capped: false,
            pages: None,
            resynced: false,
            narrowing: None,
            ends: None,
            zoekt_requests: 0,
            warnings: if complete {
                vec![]
            } else {
                vec![crate::engine::warning::Warning::Ceiling {
                    max_offset: 5,
                    best: None,
                }]
            },
        }
    }

    #[test]
    fn footer_says_where_we_are_and_how_to_continue() {
        let t = page_text("list_repos", &page(Some("C1"), true), None);
        assert!(
            t.ends_with(
                "Items 5-5 of 9 (4 more pages at limit 1). Next: call list_repos with \
                 cursor=C1"
            ),
            "{t}"
        );
        let t = page_text("list_repos", &page(None, true), None);
        assert!(t.ends_with("Items 5-5 of 9. End of results."), "{t}");
        // At the paging ceiling there is no cursor, but it is not the end of the results.
        let t = page_text("list_repos", &page(None, false), None);
        assert!(!t.contains("End of results"), "{t}");
        assert!(
            t.contains("of about 9. No further pages") && t.contains("Warning: paging stops"),
            "{t}"
        );
    }

    #[test]
    fn a_total_zoekt_did_not_finish_counting_is_a_lower_bound_never_about_0() {
        let mut p = page(Some("C1"), false);
        p.total.at_least = true;
        let t = walk_sentence("search", &p);
        assert!(
            t.starts_with("Items 5-5 of at least 9 (at least 4 more pages"),
            "{t}"
        );
        p.items.clear();
        p.count = 0;
        p.total.value = 0;
        let t = walk_sentence("search", &p);
        assert!(
            t.starts_with("No items at offset 4 (total not known, Zoekt did not finish"),
            "{t}"
        );
    }

    #[test]
    fn items_of_one_file_share_one_header() {
        let items = [
            Hit::new("a.rs", 1, "fn f()"),
            Hit::new("a.rs", 9, "fn g()"),
            Hit::new("b.rs", 2, "fn h()"),
            Hit::new("a.rs", 20, "fn k()"),
        ];
        let mut out = String::new();
        write_items(&items, &mut out);
        assert_eq!(
            out,
            "r/a.rs\n  1: fn f()\n  9: fn g()\nr/b.rs\n  2: fn h()\nr/a.rs\n  20: fn k()\n"
        );
    }
}
