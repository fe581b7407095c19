//! Suggested ways to narrow a broad result, as ready calls of the same tool: the engine's
//! [`Narrowing`] (what to select, how many results it holds, exactly or about) written as the
//! argument to set (by the tool's arguments: [`PagedArgs::narrowed`]), in both forms a page has (a line group
//! before the text's footer, a compact list in the structured page).

use serde_json::{Value, json};

use crate::engine::census::{CountKind, CountUnit};
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
    /// What the narrowed call holds, in [`Suggestions::unit`]: exactly, about or at least, as
    /// [`Suggestions::counts`] says.
    pub results: u64,
    /// Kept when the list is cut to fit (the engine's `Narrow::kept`).
    pub kept: bool,
}

/// The suggestions of one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestions {
    /// Best first.
    pub calls: Vec<NarrowCall>,
    /// What the counts are worth.
    pub counts: CountKind,
    /// What they count: results, or the files holding them.
    pub unit: CountUnit,
    /// How many files the counts were read from.
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
            unit,
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
                    kept: w.kept,
                })
            })
            .collect();
        Suggestions {
            calls,
            counts: *counts,
            unit: *unit,
            files_read: *files_read,
            files_total: *files_total,
        }
        .fit()
    }

    /// The suggestions within [`MAX_JSON_CHARS`] of JSON and [`MAX_TEXT_CHARS`] of text: ways
    /// dropped from the end, but for those kept ([`NarrowCall::kept`]: the ways before them
    /// are dropped instead). `None` when none is left.
    fn fit(mut self) -> Option<Suggestions> {
        while !self.calls.is_empty()
            && (self.json_chars() > MAX_JSON_CHARS || self.text().chars().count() > MAX_TEXT_CHARS)
        {
            let at = (self.calls.iter())
                .rposition(|c| !c.kept)
                .unwrap_or(self.calls.len() - 1);
            self.calls.remove(at);
        }
        (!self.calls.is_empty()).then_some(self)
    }

    /// What the counts are: the same words in both forms. Short, because it is counted in
    /// the suggestions' characters: an at-least heading of 150 characters left the broadest
    /// results' lists a way or two short.
    fn basis(&self) -> String {
        let what = match self.unit {
            CountUnit::Results => "the results each holds",
            CountUnit::Files => "the files holding results in each",
        };
        match self.counts {
            CountKind::Exact => format!("Ways to narrow, with {what}"),
            CountKind::About => format!(
                "Ways to narrow, with about {what} (every file that matches, some of which may \
                 hold none of the results kept)"
            ),
            CountKind::AtLeast if self.files_read as u64 >= self.files_total => format!(
                "Ways to narrow, with {what} at least (Zoekt stopped counting early; a \
                 narrowed call counts further)"
            ),
            CountKind::AtLeast => format!(
                "Ways to narrow, with {what} at least (counted in {} of {} matching files)",
                self.files_read, self.files_total
            ),
        }
    }

    /// The text's line group: a heading, then a line per call, `arg="value"` and its count.
    pub fn text(&self) -> String {
        let mut out = format!("{}:", self.basis());
        let words = super::warning::count_words(self.counts);
        for c in &self.calls {
            let value = serde_json::to_string(&c.value).unwrap_or_default();
            let noun = match (self.unit, c.results) {
                (CountUnit::Results, 1) => "result",
                (CountUnit::Results, _) => "results",
                (CountUnit::Files, 1) => "file",
                (CountUnit::Files, _) => "files",
            };
            out.push_str(&format!(
                "\n  {}={value} ({words}{} {noun})",
                c.arg, c.results
            ));
        }
        out
    }

    /// The structured page's entries: `narrow`, a list of `{ARG: value, COUNT}` where COUNT
    /// names what it counts and how (`results`, `results_about`, `results_at_least`, or
    /// `files`, `files_about`, `files_at_least`), and `narrow_note`, the text's heading.
    pub fn json(&self) -> [(&'static str, Value); 2] {
        let count = match (self.unit, self.counts) {
            (CountUnit::Results, CountKind::Exact) => "results",
            (CountUnit::Results, CountKind::About) => "results_about",
            (CountUnit::Results, CountKind::AtLeast) => "results_at_least",
            (CountUnit::Files, CountKind::Exact) => "files",
            (CountUnit::Files, CountKind::About) => "files_about",
            (CountUnit::Files, CountKind::AtLeast) => "files_at_least",
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` calls of long directories, then the part they lie in.
    fn suggestions(n: usize, last_kept: bool) -> Suggestions {
        let mut calls: Vec<NarrowCall> = (0..n)
            .map(|i| NarrowCall {
                arg: "filters",
                value: format!("file:^go-modules/a-rather-long-module-name-{i}@v1\\.2\\.3/"),
                results: 400 - i as u64,
                kept: false,
            })
            .collect();
        calls.push(NarrowCall {
            arg: "filters",
            value: "file:^go-modules/".into(),
            results: 5000,
            kept: last_kept,
        });
        Suggestions {
            calls,
            counts: CountKind::AtLeast,
            unit: CountUnit::Files,
            files_read: 9000,
            files_total: 9000,
        }
    }

    /// `find_references err` on the monorepo: seven ways under a long note were too long,
    /// and the one dropped was the last, `file:^go-modules/`, the only way to the many
    /// modules not named (issue 50: the parent is named too).
    #[test]
    fn a_list_cut_to_fit_keeps_the_part_that_leads_on() {
        let fitted = suggestions(7, true).fit().expect("some ways fit");
        assert!(fitted.json_chars() <= MAX_JSON_CHARS);
        assert!(fitted.calls.len() < 8, "{}", fitted.calls.len());
        assert_eq!(
            fitted.calls.last().map(|c| c.value.as_str()),
            Some("file:^go-modules/")
        );
        assert_eq!(fitted.calls[0].results, 400, "best first still");
        // Without one that leads on, the end goes first, as before.
        let plain = suggestions(7, false).fit().expect("some ways fit");
        assert_ne!(
            plain.calls.last().map(|c| c.value.as_str()),
            Some("file:^go-modules/")
        );
        // A kept way inside the list stays too (`repo:^go-toolchain$`, over a third of the
        // result, after the ways that cut more): the others before and after it go.
        let mut both = suggestions(7, true);
        both.calls[5].kept = true;
        let kept = both.calls[5].value.clone();
        let fitted = both.fit().expect("some ways fit");
        assert!(fitted.calls.iter().any(|c| c.value == kept));
        assert_eq!(
            fitted.calls.last().map(|c| c.value.as_str()),
            Some("file:^go-modules/")
        );
        // A list that fits is left whole.
        let short = suggestions(1, true).fit().expect("fits");
        assert_eq!(short.calls.len(), 2);
    }
}
