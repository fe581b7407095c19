//! The seam between the engine and the tools: the trait a paged tool implements ([`Tool`]),
//! and what it declares through it: what a caller asks of a page ([`PageArgs`], through
//! [`PagedArgs`]), where the items come from ([`Source`]: the backend searches, each a
//! [`Search`], a listing of repositories, or a listing of file names), how one thing the backend found becomes items
//! ([`Found`], [`Tool::items`]), and the result's census ([`CensusQuery`]).
//!
//! The tool declares; the engine collects. The engine validates ([`Tool::plan`]), names the
//! request for the cursor ([`Tool::key`]), runs the searches the tool declares ([`Tool::source`])
//! through its windows and cache, turns each file into items with [`Tool::items`], and cuts
//! the page: no tool calls back into the engine. A tool's MCP face (its name, schema,
//! description) is not part of this seam: it lives with the tool in `src/tools/`.

use super::census::{CensusPart, FileFacts};
use std::cmp::Ordering;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;

use super::answer::ItemList;
use super::backend::{IndexedRepo, RankedFile, SearchStats};
use super::config::PagerConfig;
use super::cursor::RequestKey;
use super::order::Position;
use super::warning::Warning;
use super::window::{Cut, Section};

// What else a tool author needs, in one place: what a tool may refuse, the cursor scope it
// owns, how a page asks its source lines to show, and the census it declares.
pub use super::census::{CensusQuery, CountUnit};
pub use super::cursor::Scope;
pub use super::error::{ArgumentError, Error, QueryError};
pub use super::listed::{ListedFile, NameList, Names, NamesQuery};
pub use super::suggest::NarrowBy;
pub use super::text::Snippet;

/// What the engine asks of every paged tool's arguments: the page size and cursor they carry
/// (as `limit` and `cursor`), and how a suggestion narrows them.
pub trait PagedArgs {
    /// The page size and cursor.
    fn paging(&self) -> PageArgs;
    /// Replaces the page size and cursor (a walk moves the cursor).
    fn set_paging(&mut self, paging: PageArgs);
    /// This call narrowed by each of `ways` (a repository, language or directory each),
    /// written in the tool's own query syntax: how suggested ways to narrow (`suggest`) read
    /// as ready calls, the part they share said once. `None` (the default): the tool
    /// suggests none.
    fn narrowed(&self, _ways: &[NarrowBy]) -> Option<Narrowed> {
        None
    }
    /// Whether `way`, added to this call, can select nothing the call selects (a run of
    /// repositories beside a repository filter the call has that says otherwise). `false`
    /// (the default): not known.
    fn excludes(&self, _way: &NarrowBy) -> bool {
        false
    }
}

/// Ways to narrow as ready calls of a tool: set [`Narrowed::arg`] to [`Narrowed::base`], a
/// space, and one of [`Narrowed::added`] (either alone when the other is empty). The base is
/// said once, however many ways there are: a list of ways that each repeated the caller's
/// query fitted half as many in the same characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Narrowed {
    /// The argument to set (`query`, or `filters` for `find_references`).
    pub arg: &'static str,
    /// What every narrowed value starts with: the caller's value, but the filters some way
    /// replaces (a directory under a `file:` filter the call has).
    pub base: String,
    /// What each way adds to the base, in the order of the ways asked.
    pub added: Vec<String>,
}

/// A narrowed call's value: `base`, a space, then `added` (either alone when the other is
/// empty), as [`Narrowed`] says a ready call is written.
pub fn narrowed_value(base: &str, added: &str) -> String {
    match (base.is_empty(), added.is_empty()) {
        (true, _) => added.to_string(),
        (false, true) => base.to_string(),
        (false, false) => format!("{base} {added}"),
    }
}

/// A tool that answers with pages of items, as the engine sees it: the seam the engine
/// declares and each paged tool implements. Every method declares; none runs a search.
pub trait Tool: Send + Sync + 'static {
    /// The cursor scope id: written into every cursor, so never reused for another tool.
    const SCOPE_ID: u8;
    /// The cursor scope: this tool's id.
    const SCOPE: Scope = Scope { id: Self::SCOPE_ID };
    /// The arguments: the page size and cursor every paged tool takes, and its own.
    type Args: PagedArgs + Send + Sync + 'static;
    /// One item of a page. How it reads (its line of text, its row of the structured page)
    /// is the page's form's business, not the engine's: the engine only shapes its source
    /// lines as the page asks ([`Shaped`]).
    type Item: Serialize + JsonSchema + Shaped + Clone + Send + Sync + 'static;
    /// The validated, canonical request the arguments stand for.
    type Plan: Send + Sync;

    /// Validates the arguments and builds the request; refuses what cannot be searched.
    fn plan(args: &Self::Args, cfg: &PagerConfig) -> Result<Self::Plan, Error>;
    /// The parts of the plan that decide WHICH items come out, in order: the cursor's hash.
    fn key(plan: &Self::Plan) -> Vec<&str>;
    /// Where the request's items come from.
    fn source(plan: &Self::Plan) -> Source<'_>;
    /// The items one thing the backend found holds, in the order they come: a file of one
    /// of the source's searches (by its number), or a repository of a listing.
    fn items(plan: &Self::Plan, found: Found<'_>) -> Vec<Self::Item>;
    /// The census of the request's result (`engine/census.rs`): the query whose matching
    /// files hold its items, and what a file stands for. The engine sends it beside a first
    /// page's window, for the ways to narrow, and counts with it alone the `count_only` of a
    /// tool whose items are files. `None` (the default): the tool takes no census, and its
    /// suggestions count the page's own items.
    fn census(_plan: &Self::Plan) -> Option<CensusQuery> {
        None
    }
    /// What an item of a listing of names ([`Source::Names`]) is found again by when a
    /// cursor resumes: unique in the listing, such as its path. `None` (the default): its
    /// number in the listing.
    fn listed_key(_item: &Self::Item) -> Option<String> {
        None
    }

    // What a tool's files say beyond their items (`engine/empty.rs`): read for a
    // `Source::Search` by a tool whose query finds a file whether or not it holds items
    // (`outline_file` asks for one file by its name); `nothing_found` for a listing of
    // names too (`engine/names.rs`).

    /// Whether a file of the search's answer that holds no item is a fact the page tells
    /// (`Warning::FilesWithoutItems`, worded by the page's form): for a tool whose empty
    /// file must not read as no file at all (a file without symbols has no outline, but is
    /// there). `false` (the default): such a file passes unsaid.
    const TELLS_FILES_WITHOUT_ITEMS: bool = false;
    /// What a search (or a listing of names) whose whole answer holds no file at all stands
    /// for: an error (`outline_file`: no such file; `list_tree`: nothing under the path)
    /// rather than an empty page. Only when the answer is whole: a cut one (time, missing
    /// backends) says nothing of what is not in it. `None` (the default): an empty page.
    fn nothing_found(_plan: &Self::Plan) -> Option<Error> {
        None
    }
}

/// Where a request's items come from.
#[derive(Debug, Clone)]
pub enum Source<'a> {
    /// One ranked search: its files in the total order of `engine/order.rs`, each file's
    /// items in the order [`Tool::items`] gives.
    Search(Search<'a>),
    /// Ranked searches whose items are numbered one section after the other: every item of
    /// the first search, then those of the second (`find_references`: its definitions, then
    /// its usages). A page resumed in a later section asks nothing of the earlier ones.
    Sections(Vec<Search<'a>>),
    /// The repositories a query selects (empty: every one), listed by name.
    Repositories(&'a str),
    /// Every file under a directory, by name alone, listed whole (`names.rs`): the tool
    /// turns the listing into its items at once ([`Found::Names`]), in its own order.
    Names(Names<'a>),
}

/// One backend search a tool declares.
#[derive(Debug, Clone, Copy)]
pub struct Search<'a> {
    /// The backend query.
    pub query: &'a str,
    /// Lines of context around each matching line.
    pub context_lines: u32,
    /// How the backend's statistics estimate the search's items when its windows do not
    /// reach the end of its answer.
    pub estimate: Estimate,
}

/// How a search's items are estimated from the backend's statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Estimate {
    /// Its matches (matching lines, or symbols).
    Matches,
    /// Its files (one item per file).
    Files,
    /// Its matches, or its files where they are more (an item per file at least).
    MatchesOrFiles,
    /// Its matches, less the items of the sections before it, which the backend counted in
    /// this search too (`find_references`' usages query holds its definitions' `sym:` atom).
    MatchesAfterEarlierSections,
}

impl Estimate {
    /// Whether the estimate holds the items of the sections before the search too: where it
    /// is used, the total is the search's matches, whatever those sections held.
    pub(crate) fn holds_earlier(self) -> bool {
        self == Estimate::MatchesAfterEarlierSections
    }

    /// The estimate from `stats`, with `earlier` items in the sections before the search.
    pub(crate) fn of(self, stats: &SearchStats, earlier: u64) -> u64 {
        match self {
            Estimate::Matches => stats.match_count,
            Estimate::Files => stats.file_count,
            Estimate::MatchesOrFiles => stats.match_count.max(stats.file_count),
            Estimate::MatchesAfterEarlierSections => stats.match_count.saturating_sub(earlier),
        }
    }
}

/// One thing the backend found, which a tool turns into items ([`Tool::items`]).
#[derive(Debug, Clone, Copy)]
pub enum Found<'a> {
    /// A file of the answer to search number `search` of the tool's [`Source`] (0 for a
    /// single search).
    File {
        /// The search's number.
        search: usize,
        /// The file.
        file: &'a RankedFile,
    },
    /// A repository of a listing.
    Repository(&'a IndexedRepo),
    /// The whole listing of names a [`Source::Names`] declared.
    Names(&'a NameList),
}

impl<'a> Found<'a> {
    /// The file, whichever search it came from (`None` for a repository).
    pub fn file(self) -> Option<&'a RankedFile> {
        match self {
            Found::File { file, .. } => Some(file),
            Found::Repository(_) | Found::Names(_) => None,
        }
    }
}

/// An item whose source lines a page may show shorter or not at all (`include_snippet`,
/// `snippet_length`); nothing to do for an item without source lines.
pub trait Shaped {
    /// Shows the item's source lines as `snippet` asks.
    fn shape(&mut self, _snippet: &Snippet) {}
}

/// A count of items: exact when Zoekt returned every matching file, otherwise an estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Total {
    /// The number of items.
    pub value: u64,
    /// `false`: an estimate from Zoekt's match/file counts (may over- or under-count items),
    /// because Zoekt's answer was cut or the window did not reach the end.
    pub exact: bool,
    /// Zoekt did not finish counting (it ran out of time, or shards crashed): `value` is
    /// what it had found (at least the items served), a lower bound rather than an
    /// estimate. Never `true` with `exact`.
    pub at_least: bool,
}

/// Where a walk is and how its page shows, as a caller gives them: the arguments every
/// paged tool shares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageArgs {
    /// Items per page (`None`: the configured default).
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page (`None`: the first page).
    pub cursor: Option<String>,
    /// No items, only the total and the number of pages at `limit`.
    pub count_only: bool,
    /// Show source lines (`None`: yes).
    pub include_snippet: Option<bool>,
    /// Most characters of a source line shown (`None`: the configured default).
    pub snippet_length: Option<u32>,
}

/// What the engine collects for one page.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Want<'a> {
    /// Items from position 0 up to here (the page's end plus one) are needed.
    pub needed: usize,
    /// The last item served, when resuming: a tool may skip a whole section before it.
    pub after: Option<Position>,
    /// The request, as the cursor knows it: with the query and context lines of a window,
    /// it names that window's items in the cache.
    pub request: &'a RequestKey,
    /// Items the page after this one will need beyond `needed` (its limit): what the
    /// cache may fetch ahead.
    pub lookahead: usize,
    /// Counts the requests to the backend this page makes.
    pub(crate) requests: &'a std::sync::atomic::AtomicU32,
    /// `count_only`: Zoekt's statistics from the walk's first window, and every file only
    /// when they say the whole result is within reach ([`WindowSpec::count`]).
    ///
    /// [`WindowSpec::count`]: super::fetch::WindowSpec::count
    pub(crate) count: bool,
    /// The census on its way, when it carries the tool's first search (`survey.rs`): that
    /// search's window is read from it, when it came whole, instead of asked for.
    pub(crate) first_search: Option<&'a (dyn CarriedSearch + 'a)>,
}

/// The answer of a tool's first search that a census carries, on its way.
pub(crate) trait CarriedSearch: Send + Sync + std::fmt::Debug {
    /// The answer, whole (`None` when the census did not come whole), its item type erased
    /// (an `Answer` of the tool's items): the page's collection waits for it beside the
    /// page's own wait for the census.
    fn answer(
        &self,
    ) -> super::BoxedFuture<'_, Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>>;
}

/// Every item a request needs for one page, in page order, with what is known of the rest.
#[derive(Debug, Clone)]
pub(crate) struct Collected<T> {
    /// Items in page order, run after run: from number `first` up to at least the wanted
    /// end, when they exist.
    pub runs: Vec<Run<T>>,
    /// The number of the first item in the whole result (0 unless a tool left out a section
    /// that lies wholly before the page).
    pub first: u64,
    /// The items are in the total order of `engine/order.rs` (every ranked result), so a
    /// cursor whose item is gone can still find the place it stood. `false` for a listing in
    /// another order (repositories by name).
    pub ranked: bool,
    /// The items end where the backend's answer ends: no more items exist in it.
    pub ran_out: bool,
    /// What Zoekt's answers (every query's) left out: whether asking again later may find
    /// more (`Cut::is_transient`), and whether shards were still loading.
    pub cut: Cut,
    /// How many items the whole result holds.
    pub total: Total,
    /// Why the result may be partial.
    pub warnings: Vec<Warning>,
}

/// Leading items of a shared list, placed in a section of the order. Pages of a cached
/// answer share its list; a page copies only its own items out of it.
#[derive(Debug, Clone)]
pub(crate) struct Run<T> {
    list: Arc<ItemList<T>>,
    len: usize,
    section: Section,
}

impl<T> Run<T> {
    /// The first `len` items of `list`, in `section`.
    pub fn new(list: Arc<ItemList<T>>, len: usize, section: Section) -> Run<T> {
        debug_assert!(len <= list.items.len() && list.items.len() == list.positions.len());
        Run { list, len, section }
    }

    /// Every item of `list`, in section 0.
    pub fn all(list: ItemList<T>) -> Run<T> {
        let len = list.items.len();
        Run::new(Arc::new(list), len, Section::default())
    }

    fn position(&self, i: usize) -> Position {
        self.section.relabel(self.list.positions[i])
    }

    /// The files of the run's items, in order, each with how many of them it gave.
    fn files(&self) -> impl Iterator<Item = (&FileFacts, usize)> {
        let mut start = 0;
        self.list
            .files
            .iter()
            .take_while(move |_| start < self.len)
            .map(move |f| {
                let end = f.item_end.min(self.len);
                let items = end - start;
                start = end;
                (f, items)
            })
    }

    /// How many of the run's items come at or before `after` in `order`.
    fn not_after(&self, after: &Position) -> usize {
        self.list.positions[..self.len]
            .partition_point(|p| self.section.relabel(*p).order(after) != Ordering::Greater)
    }
}

impl<T> Collected<T> {
    /// A listing in an order of its own (not ranked), every item at once: `positions` find
    /// each item again by itself when a cursor resumes.
    pub(crate) fn listed(
        items: Vec<T>,
        positions: Vec<Position>,
        total: Total,
        cut: Cut,
        warnings: Vec<Warning>,
    ) -> Collected<T> {
        Collected {
            runs: vec![Run::all(ItemList {
                items,
                positions,
                files: Vec::new(),
            })],
            first: 0,
            ranked: false,
            ran_out: true,
            cut,
            total,
            warnings,
        }
    }

    /// The collected items counted as a census, for ways to narrow when no census of the
    /// result was taken (none declared, or its request failed or came too late): exact when
    /// they are the whole result, else lower bounds.
    pub(crate) fn own_count(&self) -> CensusPart {
        let all = self.leading_files(usize::MAX);
        let counted: usize = all.iter().map(|(_, n)| n).sum();
        let exact = self.total.exact
            && self.ran_out
            && self.first == 0
            && counted as u64 == self.total.value;
        CensusPart::of_files(&all, exact)
    }

    /// How many files the collected items are in.
    pub(crate) fn file_count(&self) -> usize {
        self.runs.iter().flat_map(Run::files).count()
    }

    /// The files of the first `max_items` items, each with how many of them it holds.
    pub(crate) fn leading_files(&self, max_items: usize) -> Vec<(&FileFacts, usize)> {
        let mut left = max_items;
        let mut files: Vec<(&FileFacts, usize)> = Vec::new();
        for (f, items) in self.runs.iter().flat_map(Run::files) {
            if left == 0 {
                break;
            }
            files.push((f, items.min(left)));
            left -= items.min(left);
        }
        files
    }

    /// How many items were collected.
    pub fn len(&self) -> usize {
        self.runs.iter().map(|r| r.len).sum()
    }

    /// No items were collected.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Item `i` (counted from `first`) and its position.
    pub(crate) fn get(&self, mut i: usize) -> Option<(&T, Position)> {
        for run in &self.runs {
            if i < run.len {
                return Some((&run.list.items[i], run.position(i)));
            }
            i -= run.len;
        }
        None
    }

    /// Where the first item after `after` is (counted from `first`).
    ///
    /// Ranked items are in `engine/order.rs`'s order, so the answer is the first one past
    /// `after` even when the item itself is gone. A listing in another order (repositories
    /// by name) can only find the item itself; `None` when that fails.
    pub fn seek(&self, after: &Position) -> Option<usize> {
        if self.ranked {
            return Some(self.runs.iter().map(|r| r.not_after(after)).sum());
        }
        let mut before = 0;
        for run in &self.runs {
            if let Some(i) = (0..run.len).position(|i| run.position(i).same_place(after)) {
                return Some(before + i + 1);
            }
            before += run.len;
        }
        None
    }
}

#[cfg(test)]
mod tests;
