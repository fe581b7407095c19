//! Suggested ways to narrow a broad result, as ready calls of the same tool: the engine's
//! [`Narrowing`] (what to select, how many results it holds) written as the argument to set,
//! in both forms a page has (a line group before the text's footer, a compact list in the
//! structured page).

use serde_json::{Value, json};

use crate::engine::page::Page;
use crate::engine::suggest::Narrowing;
use crate::tools::PagedTool;
use crate::zoekt::query::narrowing_filter;

/// At most this many characters of JSON for the suggestions: ways are dropped from the end
/// until they fit, in both forms alike (the text's lines then fit
/// [`crate::engine::suggest::MAX_CHARS`], which the page's budget leaves them).
const MAX_JSON_CHARS: usize = 600;

/// One suggestion: call the same tool with `arg` set to `value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NarrowCall {
    /// The argument to set (`query`, or `filters` for `find_references`).
    pub arg: &'static str,
    /// Its new value: the caller's plus one filter.
    pub value: String,
    /// Results the narrowed call holds: all of them when [`Suggestions::exact`], else those
    /// among the first [`Suggestions::items_read`] results.
    pub results: u64,
}

/// The suggestions of one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestions {
    /// Best first.
    pub calls: Vec<NarrowCall>,
    /// The counts are exact (read from the whole result).
    pub exact: bool,
    /// How many best-ranked files the counts were read from.
    pub files_read: usize,
    /// How many results those files hold.
    pub items_read: usize,
}

impl Suggestions {
    /// The suggestions of `page` of tool `T`, called with `args`: `None` when the page has
    /// none (a narrow result, suggestions off, or a tool that takes no filters).
    pub fn of<T: PagedTool>(args: &T::Args, page: &Page<T::Item>) -> Option<Suggestions> {
        let Narrowing {
            ways,
            exact,
            files_read,
            items_read,
        } = page.narrowing.as_ref()?;
        let calls: Vec<NarrowCall> = ways
            .iter()
            .filter_map(|w| {
                let (arg, value) = T::narrowed(args, &narrowing_filter(&w.by))?;
                Some(NarrowCall {
                    arg,
                    value,
                    results: w.items,
                })
            })
            .collect();
        let mut s = Suggestions {
            calls,
            exact: *exact,
            files_read: *files_read,
            items_read: *items_read,
        };
        while !s.calls.is_empty()
            && (s.json_chars() > MAX_JSON_CHARS
                || s.text().chars().count() > crate::engine::suggest::MAX_CHARS)
        {
            s.calls.pop();
        }
        (!s.calls.is_empty()).then_some(s)
    }

    /// What the counts are: the same words in both forms.
    fn basis(&self) -> String {
        if self.exact {
            "Ways to narrow, with the results each holds".into()
        } else {
            format!(
                "Ways to narrow, with how many of the first {} results (in the {} best-ranked \
                 files) each holds",
                self.items_read, self.files_read
            )
        }
    }

    /// The text's line group: a heading, then a line per call, `arg="value"` and its count.
    pub fn text(&self) -> String {
        let mut out = format!("{}:", self.basis());
        for c in &self.calls {
            let value = serde_json::to_string(&c.value).unwrap_or_default();
            let holds = if self.exact {
                format!("{} results", c.results)
            } else {
                format!("{} of the first {}", c.results, self.items_read)
            };
            out.push_str(&format!("\n  {}={value} ({holds})", c.arg));
        }
        out
    }

    /// The structured page's entries: `narrow`, a list of `{ARG: value, results}` (or
    /// `results_seen`, among the first results), and `narrow_note`, the text's heading.
    pub fn json(&self) -> [(&'static str, Value); 2] {
        let count = if self.exact {
            "results"
        } else {
            "results_seen"
        };
        let calls = self
            .calls
            .iter()
            .map(|c| json!({c.arg: c.value, count: c.results}))
            .collect();
        [
            ("narrow", Value::Array(calls)),
            ("narrow_note", json!(self.basis())),
        ]
    }

    fn json_chars(&self) -> usize {
        let map: serde_json::Map<String, Value> = self
            .json()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        serde_json::to_string(&map).map_or(usize::MAX, |s| s.chars().count())
    }
}
