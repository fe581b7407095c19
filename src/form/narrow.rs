//! Suggested ways to narrow a broad result, as ready calls of the same tool: the engine's
//! [`Narrowing`] (what to select, how many results it holds, exactly or about) written by the
//! tool's arguments ([`PagedArgs::narrowed`]) as the argument to set, the part every way
//! shares said once and what each way adds, in both forms a page has (a line group before
//! the text's footer, a compact object in the structured page).

use serde_json::{Value, json};

use crate::engine::census::{CountKind, CountUnit};
use crate::engine::page::Page;
use crate::engine::suggest::{MAX_UNCOUNTED, Narrowing};
use crate::engine::tool::{NarrowBy, Narrowed, PagedArgs, Tool};

/// At most this many characters of JSON for the suggestions: ways are dropped from the end
/// until they fit, in both forms alike.
const MAX_JSON_CHARS: usize = 600;
/// At most this many characters of text for the suggestions (their lines say a little more
/// than their JSON: `filter (N results)`).
const MAX_TEXT_CHARS: usize = 700;
/// What a way into a part the count did not reach says in place of a count: only what is
/// always true of it (with priorities set, or several webservers, Zoekt's order of names is
/// not the one the ways follow).
const NOT_COUNTED: &str = "not counted";

/// One suggestion: what it adds to [`Suggestions::base`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NarrowCall {
    /// What it adds (its filter, and any of the caller's that another way replaces).
    pub added: String,
    /// What the narrowed call holds, in [`Suggestions::unit`]: exactly, about or at least, as
    /// [`Suggestions::counts`] says.
    pub results: u64,
}

/// The suggestions of one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestions {
    /// The argument each narrowed call sets (`query`, or `filters` for `find_references`).
    pub arg: &'static str,
    /// What each narrowed value starts with: it is this, a space, and a call's
    /// [`NarrowCall::added`] (either alone when the other is empty).
    pub base: String,
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
    /// What each call into a part the count did not reach adds (`Narrowing::uncounted`): no
    /// count, after the calls.
    pub uncounted: Vec<String>,
}

impl Suggestions {
    /// The suggestions of `page` of tool `T`, called with `args`: `None` when the page has
    /// none (a narrow result, suggestions off, or a tool that takes no filters).
    pub fn of<T: Tool>(args: &T::Args, page: &Page<T::Item>) -> Option<Suggestions> {
        let narrowing = page.narrowing.as_ref()?;
        Suggestions::fitted(
            narrowing,
            |ways| args.narrowed(ways),
            |way| args.excludes(way),
        )
    }

    /// The suggestions of `narrowing`, written by `narrowed`, within [`MAX_JSON_CHARS`] of
    /// JSON and [`MAX_TEXT_CHARS`] of text: ways dropped from the end, but for those kept
    /// ([`Narrow::kept`]: the ways before them are dropped instead), as the engine drops them
    /// ([`Narrowing::drop_one`], which may then name the part standing by), and written again
    /// without them (a filter only a dropped way replaced goes back into the base). The
    /// ways into what the count did not reach come after them, at most [`MAX_UNCOUNTED`] of
    /// those the call's own filters leave room for (`excludes`), and are dropped only when
    /// no counted way fits beside them. `None` when no counted way fits.
    ///
    /// [`Narrow::kept`]: crate::engine::suggest::Narrow::kept
    fn fitted(
        narrowing: &Narrowing,
        narrowed: impl Fn(&[NarrowBy]) -> Option<Narrowed>,
        excludes: impl Fn(&NarrowBy) -> bool,
    ) -> Option<Suggestions> {
        let uncounted: Vec<NarrowBy> = (narrowing.uncounted.iter())
            .filter(|way| !excludes(way))
            .take(MAX_UNCOUNTED)
            .cloned()
            .collect();
        Suggestions::fitted_beside(narrowing, &uncounted, &narrowed).or_else(|| {
            // Too long together: the counted ways alone.
            (!uncounted.is_empty())
                .then(|| Suggestions::fitted_beside(narrowing, &[], &narrowed))
                .flatten()
        })
    }

    /// [`Suggestions::fitted`] with these ways into what the count did not reach, kept.
    fn fitted_beside(
        narrowing: &Narrowing,
        uncounted: &[NarrowBy],
        narrowed: impl Fn(&[NarrowBy]) -> Option<Narrowed>,
    ) -> Option<Suggestions> {
        let mut list = narrowing.clone();
        while !list.ways.is_empty() {
            let ways = &list.ways;
            let by: Vec<NarrowBy> = (ways.iter().map(|w| w.by.clone()))
                .chain(uncounted.iter().cloned())
                .collect();
            let Narrowed {
                arg,
                base,
                mut added,
            } = narrowed(&by)?;
            debug_assert_eq!(added.len(), by.len(), "one added part a way");
            let uncounted = added.split_off(ways.len().min(added.len()));
            let said = Suggestions {
                arg,
                base,
                calls: (ways.iter().zip(added))
                    .map(|(w, added)| NarrowCall {
                        added,
                        results: w.items,
                    })
                    .collect(),
                counts: narrowing.counts,
                unit: narrowing.unit,
                files_read: narrowing.files_read,
                files_total: narrowing.files_total,
                uncounted,
            };
            if said.json_chars() <= MAX_JSON_CHARS && said.text().chars().count() <= MAX_TEXT_CHARS
            {
                return Some(said);
            }
            list.drop_one();
        }
        None
    }

    /// The argument's value for call `at`: the base and what the call adds.
    #[cfg(test)]
    fn value(&self, at: usize) -> String {
        crate::engine::tool::narrowed_value(&self.base, &self.calls[at].added)
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

    /// The text's line group: a heading (what the counts are, and what each call adds to),
    /// then a line per call, what it adds as the query says it and its count.
    pub fn text(&self) -> String {
        let mut out = match self.base.as_str() {
            "" => format!("{}; set {} to one:", self.basis(), self.arg),
            base => format!("{}; add one to {} `{base}`:", self.basis(), self.arg),
        };
        let words = super::warning::count_words(self.counts);
        for c in &self.calls {
            let noun = match (self.unit, c.results) {
                (CountUnit::Results, 1) => "result",
                (CountUnit::Results, _) => "results",
                (CountUnit::Files, 1) => "file",
                (CountUnit::Files, _) => "files",
            };
            out.push_str(&format!("\n  {} ({words}{} {noun})", c.added, c.results));
        }
        for added in &self.uncounted {
            out.push_str(&format!("\n  {added} ({NOT_COUNTED})"));
        }
        out
    }

    /// The structured page's entries: `narrow`, `{ARG: base, "add": [[added, N], ...],
    /// "count": COUNT}` where COUNT names what N counts and how (`results`, `results_about`,
    /// `results_at_least`, or `files`, `files_about`, `files_at_least`), and `narrow_note`,
    /// the text's words for it.
    pub fn json(&self) -> [(&'static str, Value); 2] {
        let count = match (self.unit, self.counts) {
            (CountUnit::Results, CountKind::Exact) => "results",
            (CountUnit::Results, CountKind::About) => "results_about",
            (CountUnit::Results, CountKind::AtLeast) => "results_at_least",
            (CountUnit::Files, CountKind::Exact) => "files",
            (CountUnit::Files, CountKind::About) => "files_about",
            (CountUnit::Files, CountKind::AtLeast) => "files_at_least",
        };
        let add: Vec<Value> = (self.calls.iter())
            .map(|c| json!([c.added, c.results]))
            .collect();
        let mut narrow = json!({self.arg: self.base, "add": add, "count": count});
        let mut note = self.basis();
        if !self.uncounted.is_empty() {
            narrow["uncounted"] = json!(self.uncounted);
            note.push_str("; `uncounted`: ways into parts no file of which was counted");
        }
        [("narrow", narrow), ("narrow_note", json!(note))]
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
    use crate::engine::suggest::Narrow;

    /// `n` ways into long directories, then the part they lie in, and how a tool whose
    /// argument holds nothing yet writes them (`find_references`' `filters`).
    fn narrowing(n: usize, last_kept: bool) -> Narrowing {
        let dir = |dir: String| NarrowBy::Directory { repo: None, dir };
        let mut ways: Vec<Narrow> = (0..n)
            .map(|i| Narrow {
                by: dir(format!("go-modules/a-rather-long-module-name-{i}@v1.2.3/")),
                items: 400 - i as u64,
                kept: false,
                inside_standby: false,
            })
            .collect();
        ways.push(Narrow {
            by: dir("go-modules/".into()),
            items: 5000,
            kept: last_kept,
            inside_standby: false,
        });
        Narrowing {
            ways,
            counts: CountKind::AtLeast,
            unit: CountUnit::Files,
            files_read: 9000,
            files_total: 9000,
            uncounted: Vec::new(),
            standby: None,
        }
    }

    fn filters(ways: &[NarrowBy]) -> Option<Narrowed> {
        let added = (ways.iter())
            .map(|by| match by {
                NarrowBy::Directory { dir, .. } => format!("file:^{dir}"),
                other => panic!("{other:?}"),
            })
            .collect();
        Some(Narrowed {
            arg: "filters",
            base: String::new(),
            added,
        })
    }

    fn last(s: &Suggestions) -> Option<&str> {
        s.calls.last().map(|c| c.added.as_str())
    }

    /// `find_references err` on the monorepo: seven ways under a long note were too long,
    /// and the one dropped was the last, `file:^go-modules/`, the only way to the many
    /// modules not named (issue 50: the parent is named too).
    #[test]
    fn a_list_cut_to_fit_keeps_the_part_that_leads_on() {
        let fitted =
            Suggestions::fitted(&narrowing(20, true), filters, |_| false).expect("some fit");
        assert!(fitted.json_chars() <= MAX_JSON_CHARS);
        assert!(fitted.calls.len() < 21, "{}", fitted.calls.len());
        assert_eq!(last(&fitted), Some("file:^go-modules/"));
        assert_eq!(fitted.calls[0].results, 400, "best first still");
        // Without one that leads on, the end goes first, as before.
        let plain =
            Suggestions::fitted(&narrowing(20, false), filters, |_| false).expect("some fit");
        assert_ne!(last(&plain), Some("file:^go-modules/"));
        // A kept way inside the list stays too (`repo:^go-toolchain$`, over a third of the
        // result, after the ways that cut more): the others before and after it go.
        let mut both = narrowing(20, true);
        both.ways[15].kept = true;
        let fitted = Suggestions::fitted(&both, filters, |_| false).expect("some fit");
        assert!(fitted.calls.iter().any(|c| c.results == 400 - 15));
        assert_eq!(last(&fitted), Some("file:^go-modules/"));
        // A list that fits is left whole.
        let short = Suggestions::fitted(&narrowing(1, true), filters, |_| false).expect("fits");
        assert_eq!(short.calls.len(), 2);
    }

    /// `search_files src/` over 678 repositories: the ways inside go-toolchain's `src/` name
    /// enough of it while the list keeps them all, and it stands by; cut to its characters,
    /// the list then names it, at the end, kept.
    #[test]
    fn a_list_cut_to_fit_names_the_part_standing_by_once_its_ways_inside_name_too_little() {
        let standing = |n: usize| {
            let mut list = narrowing(n, false);
            let part = list.ways.pop().expect("go-modules/");
            for way in &mut list.ways {
                way.inside_standby = true;
            }
            list.standby = Some(Narrow {
                items: 7000,
                kept: true,
                ..part
            });
            list
        };
        let fitted = Suggestions::fitted(&standing(20), filters, |_| false).expect("some fit");
        assert!(fitted.calls.len() < 20, "{}", fitted.calls.len());
        assert_eq!(last(&fitted), Some("file:^go-modules/"));
        assert_eq!(fitted.calls[0].results, 400, "best first still");
        // A list that fits needs no place for it: its ways name enough of it (2,390 of 7,000
        // would not, but nothing was cut).
        let short = Suggestions::fitted(&standing(6), filters, |_| false).expect("fits");
        assert_eq!(short.calls.len(), 6);
        assert_ne!(last(&short), Some("file:^go-modules/"));
    }

    /// `search the` over 678 repositories, its census cut at `prometheus-client`: the way into
    /// the repositories after it has no count, comes after the counted ways, and stays when
    /// they are cut to fit.
    #[test]
    fn a_way_into_what_was_not_counted_comes_last_without_a_count_and_stays() {
        use crate::engine::suggest::{Initial, Run};
        let write = |ways: &[NarrowBy]| {
            let added = (ways.iter())
                .map(|by| match by {
                    NarrowBy::Directory { dir, .. } => format!("file:^{dir}"),
                    NarrowBy::Group(run) => format!("repo:^{}", run.pattern(|s| s.into())),
                    other => panic!("{other:?}"),
                })
                .collect();
            Some(Narrowed {
                arg: "query",
                base: "the".into(),
                added,
            })
        };
        let mut n = narrowing(20, true);
        n.uncounted = vec![NarrowBy::Group(Run {
            repo: None,
            dir: None,
            start: "p".into(),
            initial: Initial::Letters('s', 'z'),
        })];
        let fitted = Suggestions::fitted(&n, write, |_| false).expect("some fit");
        assert!(fitted.json_chars() <= MAX_JSON_CHARS);
        assert_eq!(fitted.uncounted, ["repo:^p[s-zS-Z]"]);
        assert_eq!(
            last(&fitted),
            Some("file:^go-modules/"),
            "the counted ways before it"
        );
        let [(_, narrow), (_, note)] = fitted.json();
        assert_eq!(narrow["uncounted"], json!(["repo:^p[s-zS-Z]"]));
        assert!(
            note.as_str()
                .unwrap()
                .ends_with("no file of which was counted")
        );
        assert!(
            (fitted.text()).ends_with(&format!("\n  repo:^p[s-zS-Z] ({NOT_COUNTED})")),
            "{}",
            fitted.text()
        );
        // One the call's own filters leave no room for is not offered.
        let excluded = Suggestions::fitted(&n, write, |_| true).expect("some fit");
        assert!(excluded.uncounted.is_empty());
        assert!(excluded.json()[0].1.get("uncounted").is_none());
        // A census that reached every repository: no such entry.
        let whole = Suggestions::fitted(&narrowing(2, true), write, |_| false).expect("fits");
        assert!(whole.json()[0].1.get("uncounted").is_none());
        assert!(!whole.text().contains(NOT_COUNTED));
    }

    /// The caller's query is said once, and a filter only a dropped way replaced goes back
    /// into it: each call is still the base and what it adds.
    #[test]
    fn the_query_is_said_once_and_written_again_when_ways_are_dropped() {
        // How a tool writes its calls, as the query builder does (`zoekt::query::and_filters`,
        // tested there): a directory inside the caller's `file:^go-modules/` replaces it, so
        // the base leaves it out and every other way says it again. The form must call the
        // writer again with the ways it kept, not reuse the first writing.
        const CALLERS: &str = "file:^go-modules/";
        let filter = |by: &NarrowBy| match by {
            NarrowBy::Language(l) => format!("lang:{l}"),
            NarrowBy::Directory { dir, .. } => format!("file:^{dir}"),
            other => panic!("not in this test: {other:?}"),
        };
        let and_filters = |query: &str, filters: &[String]| {
            let replaced = filters
                .iter()
                .any(|f| f.starts_with(CALLERS) && f != CALLERS);
            if !replaced {
                return (query.to_string(), filters.to_vec());
            }
            let base = query.replace(CALLERS, "").trim().to_string();
            let added = (filters.iter())
                .map(|f| {
                    if f.starts_with(CALLERS) {
                        f.clone()
                    } else {
                        format!("{CALLERS} {f}")
                    }
                })
                .collect();
            (base, added)
        };
        // Languages, then a directory that replaces the caller's `file:^go-modules/`: too
        // many to fit.
        let said = |kept: bool| {
            let mut n = narrowing(0, false);
            n.ways = (0..30)
                .map(|i| Narrow {
                    by: NarrowBy::Language(format!("Language{i}")),
                    items: 900 - i,
                    kept: false,
                    inside_standby: false,
                })
                .collect();
            n.ways.push(Narrow {
                by: NarrowBy::Directory {
                    repo: None,
                    dir: "go-modules/x/".into(),
                },
                items: 100,
                kept,
                inside_standby: false,
            });
            Suggestions::fitted(
                &n,
                |ways| {
                    let filters: Vec<String> = ways.iter().map(filter).collect();
                    let (base, added) = and_filters("err file:^go-modules/", &filters);
                    Some(Narrowed {
                        arg: "query",
                        base,
                        added,
                    })
                },
                |_| false,
            )
            .expect("some fit")
        };
        // The directory dropped: nothing replaces the caller's filter, so the base holds it.
        let dropped = said(false);
        assert_eq!(dropped.base, "err file:^go-modules/");
        assert_eq!(dropped.calls[0].added, "lang:Language0");
        assert_eq!(dropped.value(0), "err file:^go-modules/ lang:Language0");
        // The directory kept: the base leaves the filter out, and the languages keep it.
        let kept = said(true);
        assert_eq!(kept.base, "err");
        assert_eq!(kept.calls[0].added, "file:^go-modules/ lang:Language0");
        assert_eq!(kept.calls.last().unwrap().added, "file:^go-modules/x/");
        assert!(kept.calls.len() < dropped.calls.len());
        let json = serde_json::to_string(&serde_json::Map::from_iter(
            kept.json().map(|(k, v)| (k.to_string(), v)),
        ))
        .unwrap();
        assert!(
            json.starts_with(r#"{"narrow":{"add":[["file:^go-modules/ lang:Language0",900],"#),
            "{json}"
        );
        assert!(
            json.contains(r#""count":"files_at_least","query":"err"}"#),
            "{json}"
        );
        let text = kept.text();
        assert!(
            text.contains(
                "; add one to query `err`:\n  file:^go-modules/ lang:Language0 \
                 (at least 900 files)"
            ),
            "{text}"
        );
    }
}
