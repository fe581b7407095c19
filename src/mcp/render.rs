//! The text block of a tool result: one line per item, then a footer telling a model where it
//! is and how to get the next page. Written for a model to read, so it is terse and never
//! repeats what the line already says.

use std::fmt::Write as _;

use crate::page::{
    FileItem, FileSlice, HealthReport, MatchItem, Page, PageError, ReferenceItem, ReferenceRole,
    RepoItem, SymbolItem,
};

/// One item as one line (or a few, for context).
pub trait RenderLine {
    fn render(&self, out: &mut String);
}

impl RenderLine for SymbolItem {
    fn render(&self, out: &mut String) {
        let _ = write!(
            out,
            "{}/{}:{} {} {}",
            self.repo, self.path, self.line, self.kind, self.name
        );
        if let Some(parent) = &self.parent {
            let _ = write!(out, " (in {parent})");
        }
        let _ = write!(out, " | {}", self.text);
    }
}

impl RenderLine for FileItem {
    fn render(&self, out: &mut String) {
        let _ = write!(out, "{}/{}", self.repo, self.path);
        if !self.language.is_empty() {
            let _ = write!(out, " ({})", self.language);
        }
    }
}

impl RenderLine for ReferenceItem {
    fn render(&self, out: &mut String) {
        let role = match self.role {
            ReferenceRole::Definition => "def",
            ReferenceRole::Reference => "ref",
        };
        let _ = write!(
            out,
            "[{role}] {}/{}:{}: {}",
            self.repo, self.path, self.line, self.text
        );
    }
}

impl RenderLine for MatchItem {
    fn render(&self, out: &mut String) {
        for b in &self.before {
            let _ = writeln!(out, "  | {b}");
        }
        if self.line == 0 {
            let _ = write!(out, "{}/{} (path match)", self.repo, self.path);
        } else {
            let _ = write!(
                out,
                "{}/{}:{}: {}",
                self.repo, self.path, self.line, self.text
            );
        }
        for a in &self.after {
            let _ = write!(out, "\n  | {a}");
        }
    }
}

impl RenderLine for RepoItem {
    fn render(&self, out: &mut String) {
        let _ = write!(
            out,
            "{} ({} files, symbols: {})",
            self.name,
            self.files,
            if self.has_symbols { "yes" } else { "no" }
        );
    }
}

/// The text block of a `read_file` answer: a header line, then the numbered lines.
pub fn file_text(f: &FileSlice) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}/{} lines {}-{} of {}:",
        f.repo, f.path, f.start_line, f.end_line, f.total_lines
    );
    for (i, line) in f.content.split_inclusive('\n').enumerate() {
        let _ = write!(out, "{:>5}  {line}", f.start_line as usize + i);
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    match f.next_start_line {
        Some(n) => {
            let _ = write!(
                out,
                "Truncated by the size bounds. More: call read_file with start_line={n}"
            );
        }
        None if f.truncated => out.push_str("Truncated: the line is longer than the byte bound."),
        None => out.push_str("End of range."),
    }
    out
}

/// The text block of a `health` answer.
pub fn health_text(h: &HealthReport) -> String {
    let state = match (h.reachable, h.ready) {
        (true, true) => "ready",
        (true, false) => "NOT READY",
        (false, _) => "UNREACHABLE",
    };
    let mut out = format!("Zoekt {state}: {}", h.detail);
    if h.reachable {
        let _ = write!(
            out,
            "\n{} repositories, {} documents, {} shards",
            h.repos, h.documents, h.shards
        );
        if !h.zoekt_versions.is_empty() {
            let _ = write!(out, "; indexed by Zoekt {}", h.zoekt_versions.join(", "));
        }
        if !h.repos_without_symbols.is_empty() {
            let _ = write!(
                out,
                "\nWithout symbols (search_symbols finds nothing there): {}",
                h.repos_without_symbols.join(", ")
            );
        }
        if h.crashes > 0 {
            let _ = write!(out, "\n{} shard(s) crashed or are loading", h.crashes);
        }
    }
    out
}

/// The whole text block of a page of `tool`.
pub fn page_text<T: RenderLine>(tool: &str, page: &Page<T>) -> String {
    let mut out = String::new();
    for item in &page.items {
        item.render(&mut out);
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
pub fn error_text(e: &PageError) -> String {
    format!("Error {}: {}\nHint: {}", e.code.as_str(), e.message, e.hint)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::Total;

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
