//! Suggested ways to narrow a broad result, as ready calls of the same tool: the engine's
//! [`Narrowing`] (what to select, how many results it holds, exactly or about) written as the
//! argument to set (by the tool's arguments: [`PagedArgs::narrowed`]), in both forms a page has (a line group
//! before the text's footer, a compact list in the structured page).

use serde_json::{Value, json};

use crate::engine::census::CountKind;
use crate::engine::page::Page;
use crate::engine::suggest::Narrowing;
use crate::engine::tool::{PagedArgs, Tool};

/// At most this many characters of JSON for the suggestions: ways are dropped from the end
/// until they fit, in both forms alike.
const MAX_JSON_CHARS: usize = 600;
/// At most this many characters of text for the suggestions (their lines say a little more
/// than their JSON: `arg="value" (N results)`).
const MAX_TEXT_CHARS: usize = 700;

/// One suggestion: call the same tool with `arg` set to `value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NarrowCall {
    /// The argument to set (`query`, or `filters` for `find_references`).
    pub arg: &'static str,
    /// Its new value: the caller's plus one filter.
    pub value: String,
    /// Results the narrowed call holds: exactly, about or at least, as
    /// [`Suggestions::counts`] says.
    pub results: u64,
}

/// The suggestions of one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestions {
    /// Best first.
    pub calls: Vec<NarrowCall>,
    /// What the counts are worth.
    pub counts: CountKind,
    /// How many best-ranked files the counts were read from.
    pub files_read: usize,
    /// How many files the result holds.
    pub files_total: u64,
}

impl Suggestions {
    /// The suggestions of `page` of tool `T`, called with `args`: `None` when the page has
    /// none (a narrow result, suggestions off, or a tool that takes no filters).
    pub fn of<T: Tool>(args: &T::Args, page: &Page<T::Item>) -> Option<Suggestions> {
        let Narrowing {
            ways,
            counts,
            files_read,
            files_total,
        } = page.narrowing.as_ref()?;
        let calls: Vec<NarrowCall> = ways
            .iter()
            .filter_map(|w| {
                let (arg, value) = args.narrowed(&w.by)?;
                Some(NarrowCall {
                    arg,
                    value,
                    results: w.items,
                })
            })
            .collect();
        let mut s = Suggestions {
            calls,
            counts: *counts,
            files_read: *files_read,
            files_total: *files_total,
        };
        while !s.calls.is_empty()
            && (s.json_chars() > MAX_JSON_CHARS || s.text().chars().count() > MAX_TEXT_CHARS)
        {
            s.calls.pop();
        }
        (!s.calls.is_empty()).then_some(s)
    }

    /// What the counts are: the same words in both forms.
    fn basis(&self) -> String {
        match self.counts {
            CountKind::Exact => "Ways to narrow, with the results each holds".into(),
            CountKind::About => format!(
                "Ways to narrow, with the results each holds, estimated from the best-ranked {} \
                 of {} matching files",
                self.files_read, self.files_total
            ),
            CountKind::AtLeast if self.files_read as u64 >= self.files_total => {
                "Ways to narrow, with the results each holds at least (Zoekt's caps left files \
                 unsearched; a narrowed call searches further)"
                    .into()
            }
            CountKind::AtLeast => format!(
                "Ways to narrow, with the results each holds at least (counted in the \
                 best-ranked {} of {} matching files)",
                self.files_read, self.files_total
            ),
        }
    }

    /// The text's line group: a heading, then a line per call, `arg="value"` and its count.
    pub fn text(&self) -> String {
        let mut out = format!("{}:", self.basis());
        let words = self.counts.words();
        for c in &self.calls {
            let value = serde_json::to_string(&c.value).unwrap_or_default();
            let results = if c.results == 1 { "result" } else { "results" };
            out.push_str(&format!(
                "\n  {}={value} ({words}{} {results})",
                c.arg, c.results
            ));
        }
        out
    }

    /// The structured page's entries: `narrow`, a list of `{ARG: value, results}` (or
    /// `results_about`, an estimate, or `results_at_least`, a lower bound), and
    /// `narrow_note`, the text's heading.
    pub fn json(&self) -> [(&'static str, Value); 2] {
        let count = match self.counts {
            CountKind::Exact => "results",
            CountKind::About => "results_about",
            CountKind::AtLeast => "results_at_least",
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
