//! `find_references`: every definition of an exact identifier (from `sym:`), then every line
//! using it (whole word, case-sensitive).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::declare::{file_item, paged_args};
use super::search_symbols::symbols_of;
use super::shared::{AFTER, BEFORE, COLUMN, LINE, TEXT, ToolInfo, count, lines, text};
use super::shared::{column, context_lines};
use crate::engine::backend::RankedFile;
use crate::engine::config::PagerConfig;
use crate::engine::error::Error;
use crate::engine::text::{Snippet, clip_text};
use crate::engine::tool::{CensusQuery, Estimate, Found, Search, Shaped, Source, Tool};
use crate::form::{CellKind, Column, Grouping, ItemRow};
use crate::zoekt::query;
use serde_json::Value;

/// The `find_references` tool.
pub struct FindReferences;

paged_args! {
    snippets;
    narrows filters;
    /// Arguments of `find_references`.
    #[derive(Debug, Clone, Default, Deserialize, JsonSchema, clap::Args)]
    #[serde(deny_unknown_fields)]
    pub struct FindReferencesArgs {
        /// The exact identifier, matched as a whole word, case-sensitively (`get` never matches
        /// `forget` or `getUser`).
        pub symbol: String,
        /// Optional filters only: `lang:go repo:core -file:_test`.
        #[serde(default)]
        #[arg(long)]
        pub filters: Option<String>,
        /// Lines of context before and after each line.
        #[serde(default)]
        #[arg(long, visible_alias = "context")]
        pub context_lines: Option<u32>,
    }
}

/// Whether a reference item defines the symbol or uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReferenceRole {
    /// A definition (from ctags).
    Definition,
    /// A line using the symbol.
    Reference,
}

file_item! {
    line;
    /// One definition or one usage of a symbol.
    pub struct ReferenceItem {
        /// Definition or usage.
        pub role: ReferenceRole,
        /// ctags kind, for definitions.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub kind: Option<String>,
    }
}

/// The two queries behind a `find_references` call.
#[derive(Debug, Clone)]
pub struct Plan {
    symbol: String,
    definitions: String,
    usages: String,
    /// The usages without their `sym:` atom, for the census ([`query::census_carrying`]).
    words: String,
    context_lines: u32,
}

impl ToolInfo for FindReferences {
    const NAME: &'static str = "find_references";
    const TITLE: &'static str = "Find references to a symbol";
    const DESCRIPTION: &'static str = "List every definition of an exact identifier, then \
        every line using it (whole word, case-sensitive), labelled definition/reference. Paged \
        by item; continue with cursor=next_cursor.";
    const SUMMARY: &'static str = "lists a symbol's definitions then its usages";
}

impl Tool for FindReferences {
    const SCOPE_ID: u8 = 4;
    type Args = FindReferencesArgs;
    type Item = ReferenceItem;
    type Plan = Plan;

    fn plan(args: &FindReferencesArgs, cfg: &PagerConfig) -> Result<Plan, Error> {
        let qs = query::references_queries(&args.symbol, args.filters.as_deref().unwrap_or(""))?;
        Ok(Plan {
            symbol: args.symbol.trim().to_string(),
            definitions: qs.definitions,
            usages: qs.usages,
            words: qs.words,
            context_lines: super::shared::checked_context_lines(args.context_lines, cfg)?,
        })
    }

    fn key(plan: &Plan) -> Vec<&str> {
        vec![&plan.definitions, &plan.usages]
    }

    /// Definitions (section 0) come first and are counted before any usage (section 1) is
    /// numbered, so a usage's position never depends on the page asked. Zoekt's match count
    /// for the usages query counts each definition line once too (its `sym:` atom).
    fn source(plan: &Plan) -> Source<'_> {
        Source::Sections(vec![
            Search {
                query: &plan.definitions,
                context_lines: plan.context_lines,
                estimate: Estimate::Matches,
            },
            Search {
                query: &plan.usages,
                context_lines: plan.context_lines,
                estimate: Estimate::MatchesAfterEarlierSections,
            },
        ])
    }

    fn items(plan: &Plan, found: Found<'_>) -> Vec<ReferenceItem> {
        match found {
            Found::File { search: 0, file } => definitions_of(file, &plan.symbol),
            Found::File { file, .. } => usages_of(file, &plan.symbol),
            Found::Repository(_) | Found::Names(_) => Vec::new(),
        }
    }

    /// The files holding a definition or a usage: the usages query, which holds the
    /// definitions' `sym:` atom too. It carries the definitions with their lines, so a first
    /// page takes them from the census and asks Zoekt twice, not three times: the definitions,
    /// or the usages without `sym:` (the usages' files, with `sym:` evaluated once).
    fn census(plan: &Plan) -> Option<CensusQuery> {
        let carrying = query::census_carrying(&plan.definitions, &plan.words);
        Some(
            CensusQuery::files(&plan.usages, true)
                .carrying_first_search(carrying, plan.context_lines),
        )
    }
}

impl ItemRow for ReferenceItem {
    const COLUMNS: &'static [Column] = &[
        LINE,
        COLUMN,
        Column::new("kind", CellKind::Text, "ctags kind of a definition"),
        TEXT,
        BEFORE,
        AFTER,
    ];
    const GROUPING: Grouping = Grouping::File;
    const NUMBERED_WHEN_REPEATED: Option<&'static str> = Some(TEXT.name);
    const PARTS: &'static [&'static str] = &["definitions", "references"];
    const SAID_PER_GROUP: &'static [&'static str] = &["kind"];

    fn part(&self) -> usize {
        match self.role {
            ReferenceRole::Definition => 0,
            ReferenceRole::Reference => 1,
        }
    }

    fn cells(&self) -> Vec<Option<Value>> {
        vec![
            count(self.line),
            count(self.column),
            self.kind.as_deref().and_then(text),
            text(&self.text),
            lines(&self.before),
            lines(&self.after),
        ]
    }
}

impl ReferenceItem {
    /// The item's own line of text, which its context lines (if any) surround.
    fn write_line(&self, out: &mut String) {
        let role = match self.role {
            ReferenceRole::Definition => " def",
            ReferenceRole::Reference => "",
        };
        let _ = write!(out, "{}:{}{role}", self.line, self.column);
        if !self.text.is_empty() {
            let _ = write!(out, ": {}", self.text);
        }
    }
}

impl Shaped for ReferenceItem {
    fn shape(&mut self, snippet: &Snippet) {
        self.shape_lines(snippet);
    }
}

/// Definition items of exactly `symbol` (the `sym:^symbol$` query may still carry other
/// symbol fragments on the same line), one per line.
fn definitions_of(file: &RankedFile, symbol: &str) -> Vec<ReferenceItem> {
    let mut out: Vec<ReferenceItem> = symbols_of(file, &BTreeSet::new())
        .into_iter()
        .filter(|s| s.definition.name == symbol)
        .map(|s| ReferenceItem {
            role: ReferenceRole::Definition,
            repo: s.repo,
            path: s.path,
            branches: s.branches,
            line: s.line,
            column: s.column,
            text: s.text,
            kind: Some(s.definition.kind),
            before: s.before,
            after: s.after,
        })
        .collect();
    out.dedup_by_key(|d| d.line);
    out
}

/// Usage items: one per line holding `symbol` as a whole, case-sensitive word, except the
/// lines where Zoekt marked a definition of `symbol` (the usages query also asks `sym:`): a
/// definition is never listed as a usage, whether or not the definition list reached it.
fn usages_of(file: &RankedFile, symbol: &str) -> Vec<ReferenceItem> {
    let mut out = Vec::new();
    for line in file.lines.iter().filter(|l| l.number > 0) {
        let defines = line
            .fragments
            .iter()
            .any(|f| f.symbol.as_ref().is_some_and(|s| s.name == symbol));
        if defines {
            continue;
        }
        let Some(at) = find_word(&line.text, symbol) else {
            continue;
        };
        out.push(ReferenceItem {
            role: ReferenceRole::Reference,
            repo: file.repo.clone(),
            path: file.path.clone(),
            branches: file.branches.clone(),
            line: line.number,
            column: column(&line.text, at as u32),
            text: clip_text(&line.text),
            kind: None,
            before: context_lines(line.before.as_deref()),
            after: context_lines(line.after.as_deref()),
        });
    }
    out.sort_by_key(|r| r.line);
    out.dedup_by_key(|r| r.line);
    out
}

/// Byte offset of the first whole-word occurrence of `word` in `line`.
fn find_word(line: &str, word: &str) -> Option<usize> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let word_start = word.chars().next().is_some_and(is_word);
    let word_end = word.chars().last().is_some_and(is_word);
    let mut from = 0;
    while let Some(pos) = line[from..].find(word) {
        let start = from + pos;
        let end = start + word.len();
        let before_ok = !word_start || !line[..start].chars().next_back().is_some_and(is_word);
        let after_ok = !word_end || !line[end..].chars().next().is_some_and(is_word);
        if before_ok && after_ok {
            return Some(start);
        }
        from = start + word.chars().next().map_or(1, char::len_utf8);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_only() {
        assert_eq!(find_word("x := get(1)", "get"), Some(5));
        assert_eq!(find_word("forget(); getUser(); get_all()", "get"), None);
        assert_eq!(find_word("forget(); get()", "get"), Some(10));
        assert_eq!(find_word("a.$b", "$b"), Some(2));
    }
    use crate::tools::search_symbols::tests::{file, line};

    #[test]
    fn a_line_zoekt_marks_as_a_definition_is_never_a_usage() {
        let f = file(vec![
            line(4, "func get() {", vec![(5, Some("get"))]),
            line(8, "get()", vec![(0, None)]),
            // Another symbol defined on a line that uses `get`: a usage.
            line(
                9,
                "func put() { get() }",
                vec![(5, Some("put")), (13, None)],
            ),
        ]);
        let u = usages_of(&f, "get");
        assert_eq!(u.iter().map(|u| u.line).collect::<Vec<_>>(), [8, 9]);
    }

    // Whole walks through the pager, against a fake Zoekt.

    use crate::engine::Pager;
    use crate::engine::backend::MatchedLine;
    use crate::engine::config::PagerConfig;
    use crate::engine::page::Page;
    use crate::engine::testing::FakeBackend;
    use crate::engine::tool::Total;
    use ReferenceRole::{Definition as Def, Reference as Ref};

    const FILTERS: &str = "lang:go";

    /// File `repo/path` with this score and these matching lines.
    fn at(repo: &str, path: &str, score: f64, lines: Vec<MatchedLine>) -> RankedFile {
        RankedFile {
            repo: repo.into(),
            path: path.into(),
            score,
            ..file(lines)
        }
    }

    /// What Zoekt would answer for `get`: the `sym:` query finds four definitions in three
    /// files, the content query finds ten lines in four files, four of them the definitions.
    /// Lines are listed out of position order and files out of page order on purpose.
    fn fixture() -> FakeBackend {
        let q = query::references_queries("get", FILTERS).unwrap();
        let definitions = vec![
            at(
                "r2",
                "cache.go",
                9.0,
                vec![
                    line(20, "func get() {}", vec![(5, Some("get"))]),
                    line(
                        3,
                        "func (c *Cache) get(k string) {",
                        vec![(16, Some("get"))],
                    ),
                ],
            ),
            at(
                "r0",
                "util.go",
                4.0,
                vec![line(7, "var get = 1", vec![(4, Some("get"))])],
            ),
            at(
                "r1",
                "store.go",
                9.0,
                vec![line(10, "func get() {", vec![(5, Some("get"))])],
            ),
        ];
        let usages = vec![
            at(
                "r0",
                "util.go",
                2.0,
                vec![
                    line(9, "y := get + get", vec![(5, None), (11, None)]),
                    line(7, "var get = 1", vec![(4, Some("get"))]),
                ],
            ),
            at(
                "r2",
                "cache.go",
                8.0,
                vec![
                    line(25, "\treturn c.get(k)", vec![(10, None)]),
                    line(
                        3,
                        "func (c *Cache) get(k string) {",
                        vec![(16, Some("get"))],
                    ),
                    line(20, "func get() {}", vec![(5, Some("get"))]),
                ],
            ),
            at(
                "r3",
                "main.go",
                6.0,
                vec![
                    line(9, "\tdefer get()", vec![(7, None)]),
                    line(5, "\tget()", vec![(1, None)]),
                ],
            ),
            at(
                "r1",
                "store.go",
                8.0,
                vec![
                    line(15, "\treturn get()", vec![(8, None)]),
                    line(10, "func get() {", vec![(5, Some("get"))]),
                    line(12, "x := get()", vec![(5, None)]),
                ],
            ),
        ];
        FakeBackend::new()
            .with(&q.definitions, definitions)
            .with(&q.words, usages.clone())
            .with(&q.usages, usages)
    }

    /// The whole result, by hand: definitions in page order (score desc, file key, then
    /// line), then the usages the same way, without the four definition lines. r1/store.go
    /// and r2/cache.go tie in both queries; r2/cache.go's key is the smaller
    /// (`keys_of_the_tied_files`).
    const EXPECTED: [(ReferenceRole, &str, &str, u32); 10] = [
        (Def, "r2", "cache.go", 3),
        (Def, "r2", "cache.go", 20),
        (Def, "r1", "store.go", 10),
        (Def, "r0", "util.go", 7),
        (Ref, "r2", "cache.go", 25),
        (Ref, "r1", "store.go", 12),
        (Ref, "r1", "store.go", 15),
        (Ref, "r3", "main.go", 5),
        (Ref, "r3", "main.go", 9),
        (Ref, "r0", "util.go", 9),
    ];

    #[test]
    fn keys_of_the_tied_files() {
        use crate::engine::order::file_key;
        assert!(file_key("r2", "cache.go", &[]) < file_key("r1", "store.go", &[]));
    }

    fn facts(items: &[ReferenceItem]) -> Vec<(ReferenceRole, &str, &str, u32)> {
        items
            .iter()
            .map(|i| (i.role, i.repo.as_str(), i.path.as_str(), i.line))
            .collect()
    }

    fn args(limit: u32, cursor: Option<String>) -> FindReferencesArgs {
        FindReferencesArgs {
            symbol: "get".into(),
            filters: Some(FILTERS.into()),
            limit: Some(limit),
            cursor,
            ..Default::default()
        }
    }

    /// Every page of a walk at this page size, following `next_cursor` to the end.
    async fn walk(pager: &Pager<FakeBackend>, limit: u32) -> Vec<Page<ReferenceItem>> {
        let mut pages = Vec::new();
        let mut cursor = None;
        loop {
            let page = pager
                .page::<FindReferences>(&args(limit, cursor))
                .await
                .expect("page");
            cursor = page.next_cursor.clone();
            pages.push(page);
            if cursor.is_none() || pages.len() > 20 {
                return pages;
            }
        }
    }

    #[tokio::test]
    async fn every_page_size_walks_definitions_then_usages_in_one_order() {
        let pager = Pager::new(fixture(), PagerConfig::default());
        for limit in [1, 2, 3, 7] {
            let pages = walk(&pager, limit).await;
            let items: Vec<ReferenceItem> =
                pages.iter().flat_map(|p| p.items.iter().cloned()).collect();
            assert_eq!(facts(&items), EXPECTED, "limit {limit}");
            assert!(
                pages
                    .iter()
                    .all(|p| p.count <= limit as usize && p.complete)
            );
            let last = pages.last().unwrap();
            assert!(!last.has_more);
            assert_eq!(
                last.total,
                Total {
                    value: EXPECTED.len() as u64,
                    exact: true,
                    at_least: false,
                },
                "limit {limit}"
            );
        }
        // The columns of the symbol, counted in characters (a tab is one).
        let page = pager.page::<FindReferences>(&args(10, None)).await.unwrap();
        let columns: Vec<u32> = page.items.iter().map(|i| i.column).collect();
        assert_eq!(columns, [17, 6, 6, 5, 11, 6, 9, 2, 8, 6]);
    }

    #[tokio::test]
    async fn a_first_page_takes_the_definitions_from_its_census_in_two_requests() {
        let q = query::references_queries("get", FILTERS).unwrap();
        let census = query::census_carrying(&q.definitions, &q.words);
        let pager = Pager::new(fixture(), PagerConfig::default());
        let page = pager.page::<FindReferences>(&args(5, None)).await.unwrap();
        assert_eq!(facts(&page.items), EXPECTED[..5]);
        // The usages' window and the census, which carried the definitions: no request of
        // the definitions' own.
        assert_eq!(page.zoekt_requests, 2);
        assert!(pager.backend().files_asked(&q.definitions).is_empty());
        assert_eq!(pager.backend().censuses_asked(&census), 1);
        // The same page, total and cursor as without suggestions, which asks the
        // definitions' own window.
        let plain = Pager::new(
            fixture(),
            PagerConfig {
                suggest_filters: false,
                ..PagerConfig::default()
            },
        );
        let alone = plain.page::<FindReferences>(&args(5, None)).await.unwrap();
        assert_eq!(plain.backend().files_asked(&q.definitions).len(), 1);
        assert_eq!(facts(&alone.items), facts(&page.items));
        assert_eq!(
            (alone.total, alone.next_cursor.clone(), alone.complete),
            (page.total, page.next_cursor.clone(), page.complete)
        );
        // The walk goes on from that cursor exactly.
        let mut cursor = page.next_cursor.clone();
        let mut rest = Vec::new();
        while let Some(c) = cursor {
            let next = pager
                .page::<FindReferences>(&args(5, Some(c)))
                .await
                .unwrap();
            rest.extend(next.items);
            cursor = next.next_cursor;
        }
        assert_eq!(facts(&rest), EXPECTED[5..]);
    }

    /// A census later than its wall time and the grace: the definitions are asked for on
    /// their own once it is given up, and the page is the same.
    #[tokio::test(start_paused = true)]
    async fn a_census_too_late_leaves_the_definitions_to_their_own_request() {
        let q = query::references_queries("get", FILTERS).unwrap();
        let backend = fixture();
        backend.slow_census(std::time::Duration::from_secs(60));
        let pager = Pager::new(backend, PagerConfig::default());
        let started = tokio::time::Instant::now();
        let page = pager.page::<FindReferences>(&args(5, None)).await.unwrap();
        assert_eq!(facts(&page.items), EXPECTED[..5]);
        assert_eq!(pager.backend().files_asked(&q.definitions).len(), 1);
        assert!(page.total.exact);
        // Given up after its wall time and a grace, never its whole 60 s.
        let wall = std::time::Duration::from_millis(PagerConfig::default().census_wall_time_ms);
        assert!((wall..wall * 2).contains(&started.elapsed()));
    }

    #[tokio::test]
    async fn usage_pages_after_a_cut_definition_list_still_say_so() {
        let backend = fixture();
        let q = query::references_queries("get", FILTERS).unwrap();
        // The per-shard cap cut the definitions query; the usages are whole.
        backend.cut(
            &q.definitions,
            crate::engine::backend::SearchStats {
                files_skipped: 3,
                ..Default::default()
            },
        );
        let pager = Pager::new(backend, PagerConfig::default());
        let pages = walk(&pager, 2).await;
        assert_eq!(pages.len(), 5);
        for (n, page) in pages.iter().enumerate() {
            assert!(!page.complete && !page.total.exact, "page {}", n + 1);
        }
        // Pages 4 and 5 start among the usages (the definitions query is not asked again:
        // only pages 1 to 3 asked it) and still carry the warning.
        assert!(
            pages[4]
                .warnings
                .contains(&crate::engine::warning::Warning::EarlierSectionCut { section: 1 }),
            "{:?}",
            pages[4].warnings
        );
        assert_eq!(pager.backend().files_asked(&q.definitions).len(), 3);
    }

    #[tokio::test]
    async fn a_page_inside_the_definitions_counts_them_all_when_zoekt_returned_them_all() {
        let backend = fixture();
        let q = query::references_queries("get", FILTERS).unwrap();
        let pager = Pager::new(backend, PagerConfig::default());
        let page = pager.page::<FindReferences>(&args(2, None)).await.unwrap();
        assert_eq!(facts(&page.items), EXPECTED[..2]);
        assert!(page.has_more);
        // The page lies inside the definitions, but Zoekt returned them all (3 files, fewer
        // than the window asked), and all the usages: the total is exact.
        assert_eq!(
            page.total,
            Total {
                value: 10,
                exact: true,
                at_least: false,
            }
        );
        // The usages were still asked, for their count.
        assert!(!pager.backend().files_asked(&q.usages).is_empty());
    }
}
