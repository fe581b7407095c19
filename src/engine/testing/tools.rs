//! Fake paged tools for the engine's own tests, over any backend: [`LineTool`] (one search,
//! an item per matching line) and [`SectionTool`] (several searches, section after section).

use schemars::JsonSchema;
use serde::Serialize;

use crate::engine::Pager;
use crate::engine::backend::{Backend, MatchedLine, RankedFile};
use crate::engine::config::PagerConfig;
use crate::engine::error::Error;
use crate::engine::page::Page;
use crate::engine::text::Snippet;
use crate::engine::tool::{
    CensusQuery, CountUnit, Estimate, Found, PageArgs, PagedArgs, Search, Shaped, Source, Tool,
};

/// A paged tool for the engine's own tests, over any backend: its query goes to the backend
/// as it is, and each file gives one item per matching line (one for the file itself when
/// it has no lines, as a file found by name), lines in the order of their numbers. Small on
/// purpose: the engine's tests page, cache and resume with it, and test no real tool.
pub(crate) struct LineTool;

/// The arguments of [`LineTool`]: the backend query, and the paging every tool takes.
#[derive(Debug, Clone, Default)]
pub(crate) struct LineArgs {
    /// Sent to the backend unchanged.
    pub(crate) query: String,
    pub(crate) limit: Option<u32>,
    pub(crate) cursor: Option<String>,
    pub(crate) count_only: bool,
    pub(crate) include_snippet: Option<bool>,
    pub(crate) snippet_length: Option<u32>,
}

impl PagedArgs for LineArgs {
    fn paging(&self) -> PageArgs {
        PageArgs {
            limit: self.limit,
            cursor: self.cursor.clone(),
            count_only: self.count_only,
            include_snippet: self.include_snippet,
            snippet_length: self.snippet_length,
        }
    }

    fn set_paging(&mut self, paging: PageArgs) {
        self.limit = paging.limit;
        self.cursor = paging.cursor;
        self.count_only = paging.count_only;
        self.include_snippet = paging.include_snippet;
        self.snippet_length = paging.snippet_length;
    }
}

/// One item of [`LineTool`]: a matching line of a file (line 0: the file itself).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct LineItem {
    pub(crate) repo: String,
    pub(crate) path: String,
    pub(crate) line: u32,
    pub(crate) text: String,
}

impl Shaped for LineItem {
    fn shape(&mut self, snippet: &Snippet) {
        snippet.apply(&mut self.text);
    }
}

impl Tool for LineTool {
    const SCOPE_ID: u8 = 200;
    type Args = LineArgs;
    type Item = LineItem;
    type Plan = String;

    fn plan(args: &LineArgs, _cfg: &PagerConfig) -> Result<String, Error> {
        Ok(args.query.clone())
    }

    fn key(plan: &String) -> Vec<&str> {
        vec![plan]
    }

    /// The files holding lines of the query (each holds one or more).
    fn census(plan: &String) -> Option<CensusQuery> {
        Some(CensusQuery {
            query: plan.clone(),
            unit: CountUnit::Files,
            every_file_holds_items: true,
            carries: None,
        })
    }

    fn source(plan: &String) -> Source<'_> {
        Source::Search(Search {
            query: plan,
            context_lines: 0,
            estimate: Estimate::MatchesOrFiles,
        })
    }

    fn items(_plan: &String, found: Found<'_>) -> Vec<LineItem> {
        found.file().map_or_else(Vec::new, lines_of)
    }
}

/// The items of one file: its lines by number, or the file itself.
fn lines_of(file: &RankedFile) -> Vec<LineItem> {
    let item = |line: u32, text: &str| LineItem {
        repo: file.repo.clone(),
        path: file.path.clone(),
        line,
        text: text.trim().to_string(),
    };
    if file.lines.is_empty() {
        return vec![item(0, "")];
    }
    let mut lines: Vec<&MatchedLine> = file.lines.iter().collect();
    lines.sort_by_key(|l| l.number);
    lines.iter().map(|l| item(l.number, &l.text)).collect()
}

/// `n` identical pages asked at once, each on a task of its own with its own clone of the
/// pager (sharing backend and cache), in the order they were asked.
pub(crate) async fn pages_at_once<B: Backend>(
    pager: &Pager<B>,
    args: &LineArgs,
    n: usize,
) -> Vec<Page<LineItem>> {
    let calls: Vec<_> = (0..n)
        .map(|_| {
            let (p, args) = (pager.clone(), args.clone());
            tokio::spawn(async move { p.page::<LineTool>(&args).await })
        })
        .collect();
    let mut pages = Vec::new();
    for call in calls {
        pages.push(call.await.expect("task").expect("page"));
    }
    pages
}

/// [`LineTool`] in sections: its query is several backend queries joined by ` then `, whose
/// items come section after section (as `find_references`' definitions, then usages), with
/// the census of the last. A query starting `all ` is estimated as `find_references`' usages
/// are: its matches hold the earlier sections' items too.
pub(crate) struct SectionTool;

impl Tool for SectionTool {
    const SCOPE_ID: u8 = 202;
    type Args = LineArgs;
    type Item = LineItem;
    type Plan = Vec<String>;

    fn plan(args: &LineArgs, _cfg: &PagerConfig) -> Result<Vec<String>, Error> {
        Ok(args.query.split(" then ").map(str::to_string).collect())
    }

    fn key(plan: &Vec<String>) -> Vec<&str> {
        plan.iter().map(String::as_str).collect()
    }

    fn census(plan: &Vec<String>) -> Option<CensusQuery> {
        Some(CensusQuery {
            query: plan.last()?.clone(),
            unit: CountUnit::Files,
            every_file_holds_items: true,
            carries: None,
        })
    }

    fn source(plan: &Vec<String>) -> Source<'_> {
        Source::Sections(
            plan.iter()
                .map(|query| Search {
                    query,
                    context_lines: 0,
                    estimate: if query.starts_with("all ") {
                        Estimate::MatchesAfterEarlierSections
                    } else {
                        Estimate::MatchesOrFiles
                    },
                })
                .collect(),
        )
    }

    fn items(_plan: &Vec<String>, found: Found<'_>) -> Vec<LineItem> {
        found.file().map_or_else(Vec::new, lines_of)
    }
}
