//! The census of a result: which files hold its items, counted over the whole result where the
//! backend can give it, from one request of its own. What suggested ways to narrow are counted
//! from (`suggest.rs`), and what `count_only` of a tool whose items are files counts.
//!
//! Why a census, and not the page's own files: on real code a broad query's first thirty
//! results sit in one to three files, so counts over them say nothing of where the other tens
//! of thousands are. And why not the page's answer for thousands of files: a search of lines
//! stops at the backend's per-shard match cap long before it has visited every matching file
//! (`search "func main"` on a 100,000-file monorepo returned 4,493 files and skipped 72,538),
//! so it counts the files that rank best, not the result; and its answer, every matching line
//! of every file, can be too big to read at all. A search of names only ([`Shape::NamesOnly`])
//! returns each matching file once, with no lines, and counts a file as one match toward the
//! cap: the same query reaches every one of its 16,641 files in 7.7 MB.
//!
//! So a tool declares its census ([`CensusQuery`]): the query whose matching files are the
//! files holding its items, and what a counted file stands for ([`CountUnit`]: one result, or
//! the file holding results). A first page sends it beside its own window
//! (`paging.rs`), with a time bound of its own (`--census-wall-time-ms`), never retried: an
//! answer too big to read counts the files read before the bound (lower bounds); an error or
//! an answer too late leaves the page to count its own items instead.
//!
//! What a count is worth ([`CountKind`]) depends on what the census saw. Every file the query
//! matches, each returned: exact (when the tool keeps an item in every such file; otherwise
//! about, a count of files that may hold none of the items kept). Files the backend did not
//! reach (its wall time, its caps) or did not return (more than [`CENSUS_FILES`]): a lower
//! bound, since a narrowed call searches at least those files again and goes further.
//!
//! [`Shape::NamesOnly`]: super::backend::Shape::NamesOnly

use std::any::Any;
use std::sync::{Arc, OnceLock};

use super::backend::SearchStats;

/// Most files a census asks the backend for. Its answer holds about 450 bytes a file over
/// JSON (a path twice, once as the file-name match) and a third of that over gRPC, so this
/// many stay inside the default `--max-answer-bytes` (and a quarter of it over gRPC) for paths
/// of average length; a result with more files is counted as a lower bound.
pub const CENSUS_FILES: u32 = 40_000;

/// What a census's counts are worth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CountKind {
    /// The whole result: a narrowed call holds exactly this many.
    Exact,
    /// Every matching file was counted, but not every one holds an item the tool keeps (a
    /// filter the query cannot say, such as `search_symbols`' `kinds`): about this many.
    About,
    /// A lower bound: the backend did not reach, or did not return, every matching file. A
    /// narrowed call holds at least this many.
    AtLeast,
}

impl CountKind {
    /// The kind of counts added up over several censuses: the weakest of theirs.
    pub fn of_all(kinds: impl IntoIterator<Item = CountKind>) -> CountKind {
        kinds.into_iter().max().unwrap_or(CountKind::Exact)
    }
}

/// What one counted file stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CountUnit {
    /// One item: the tool lists files (`search_files`, `files_with_matches`), so a count of
    /// files is a count of results.
    Results,
    /// The file holding one or more items (lines, symbols, references): a count of files.
    Files,
}

/// The census a tool declares for a request: see the module comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CensusQuery {
    /// A backend query whose matching files are the files holding the request's items.
    pub query: String,
    /// What one counted file stands for.
    pub unit: CountUnit,
    /// Every file the query matches holds at least one item the tool keeps. `false` when the
    /// tool drops items the query cannot tell apart (`kinds`): counts are then about.
    pub every_file_holds_items: bool,
    /// The query is written to carry the files of the tool's first search with their lines
    /// ([`Shape::NamesCarryingLines`]): a first page takes that search's items from the
    /// census when it is whole, and sends no request of its own for them.
    ///
    /// [`Shape::NamesCarryingLines`]: super::backend::Shape::NamesCarryingLines
    pub carries: Option<Carried>,
}

/// What a census carrying the tool's first search asks for that search's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carried {
    /// Context lines around each line, as the first search itself asks.
    pub context_lines: u32,
    /// The census query without the search it carries: what a census that only counts asks
    /// (`count_only`), which needs no lines.
    pub names_only: String,
}

impl CensusQuery {
    /// The census of a file listing: the files `query` matches, each one result.
    pub fn results(query: &str) -> CensusQuery {
        CensusQuery {
            query: query.to_string(),
            unit: CountUnit::Results,
            every_file_holds_items: true,
            carries: None,
        }
    }

    /// The census of a tool whose items are lines, symbols or references: the files `query`
    /// matches, each holding one or more (`every_file_holds_items`: every one it matches).
    pub fn files(query: &str, every_file_holds_items: bool) -> CensusQuery {
        CensusQuery {
            query: query.to_string(),
            unit: CountUnit::Files,
            every_file_holds_items,
            carries: None,
        }
    }

    /// The same census asked as `carrying`, a query that also carries the tool's first
    /// search (written by `zoekt::query::census_carrying`), with `context_lines` around each
    /// of its lines.
    pub fn carrying_first_search(self, carrying: String, context_lines: u32) -> CensusQuery {
        CensusQuery {
            carries: Some(Carried {
                context_lines,
                names_only: self.query,
            }),
            query: carrying,
            ..self
        }
    }

    /// The same census, counting only: without the search it may carry.
    pub fn names_only(self) -> CensusQuery {
        match self.carries {
            Some(carried) => CensusQuery {
                query: carried.names_only,
                carries: None,
                ..self
            },
            None => self,
        }
    }
}

/// Where one file's items end in an item list, and what a filter can select it by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileFacts {
    /// Repository name.
    pub repo: String,
    /// Path inside the repository.
    pub path: String,
    /// Language, as the backend detected it (empty: unknown).
    pub language: String,
    /// One past the file's last item in the list.
    pub item_end: usize,
    /// The backend's matches in the file (its matching lines, and the file name when that
    /// matched), the unit of its own match count.
    pub matches: u32,
    /// The file came with matching lines, not by its name alone: in a census carrying a
    /// search, a file of that search ([`Answer::files_with_lines`]).
    ///
    /// [`Answer::files_with_lines`]: super::answer::Answer::files_with_lines
    pub with_lines: bool,
}

/// A census of a result: its files, and what their counts are worth.
#[derive(Debug)]
pub struct CensusPart {
    /// The files counted, each with how many of the unit it stands for.
    pub files: Vec<CountedFile>,
    /// What its counts are worth.
    pub kind: CountKind,
    /// What a counted file stands for.
    pub unit: CountUnit,
    /// Files that match the query, by the backend's count (at least those counted).
    pub files_total: u64,
    /// The backend searched every file (nothing cut by its time or caps): `files_total` is
    /// exact, even where more files matched than the census returned.
    pub complete: bool,
    /// The backend left whole shards unsearched (its time ran out, or its cross-shard cap was
    /// met): the repositories after those counted, in the order it searches, were not counted
    /// at all, nor, in a repository split into several shards, the files of those shards
    /// (`suggest/beyond.rs`).
    pub shards_unsearched: bool,
    /// What is worked out of the census once and kept with it (`suggest.rs` ranks its ways
    /// there), so that a page cut from a cached census does not count again.
    memo: OnceLock<Arc<dyn Any + Send + Sync>>,
}

/// One file of a census.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountedFile {
    /// Repository name.
    pub repo: String,
    /// Path inside the repository.
    pub path: String,
    /// Language, as the backend detected it (empty: unknown).
    pub language: String,
    /// What the file counts for: 1 in a census; the items collected, in a page's own count.
    pub items: u32,
}

impl CensusPart {
    /// The census of `files`, every file a names-only search of `query` returned (each once),
    /// with `stats`, the backend's statistics of that search, whether the backend `cut` it
    /// (left files unsearched: its caps or its time), and whether it left whole shards
    /// unsearched (its time ran out, or it stopped handing them out at its cross-shard cap).
    pub(crate) fn new(
        files: &[FileFacts],
        stats: &SearchStats,
        cut: bool,
        shards_unsearched: bool,
        query: &CensusQuery,
    ) -> CensusPart {
        let whole = !cut && files.len() as u64 >= stats.file_count;
        let kind = match (whole, query.every_file_holds_items) {
            (false, _) => CountKind::AtLeast,
            (true, true) => CountKind::Exact,
            (true, false) => CountKind::About,
        };
        CensusPart {
            files: files
                .iter()
                .map(|f| CountedFile {
                    repo: f.repo.clone(),
                    path: f.path.clone(),
                    language: f.language.clone(),
                    items: 1,
                })
                .collect(),
            kind,
            unit: query.unit,
            files_total: stats.file_count.max(files.len() as u64),
            complete: !cut,
            shards_unsearched,
            memo: OnceLock::new(),
        }
    }

    /// A census of these counted files (for tests of what reads a census).
    #[cfg(test)]
    pub(crate) fn of_counted(
        files: Vec<CountedFile>,
        kind: CountKind,
        unit: CountUnit,
        files_total: u64,
    ) -> CensusPart {
        CensusPart {
            files,
            complete: kind != CountKind::AtLeast,
            shards_unsearched: false,
            kind,
            unit,
            files_total,
            memo: OnceLock::new(),
        }
    }

    /// What `work` works out of this census, the first time it is asked (later, the same).
    /// `None` when what was kept is of another type (it is never replaced).
    pub(crate) fn memo<R: Any + Send + Sync>(&self, work: impl FnOnce() -> R) -> Option<Arc<R>> {
        let kept = self.memo.get_or_init(|| Arc::new(work()));
        Arc::clone(kept).downcast::<R>().ok()
    }

    /// A count of the items a page collected, when no census could be taken (none declared,
    /// its request failed, was too big to read, or came too late): the page's files, each
    /// with its items, exact when they are the whole result, else lower bounds.
    pub(crate) fn of_files(files: &[(&FileFacts, usize)], exact: bool) -> CensusPart {
        CensusPart {
            files: files
                .iter()
                .map(|(f, items)| CountedFile {
                    repo: f.repo.clone(),
                    path: f.path.clone(),
                    language: f.language.clone(),
                    items: u32::try_from(*items).unwrap_or(u32::MAX),
                })
                .collect(),
            kind: if exact {
                CountKind::Exact
            } else {
                CountKind::AtLeast
            },
            unit: CountUnit::Results,
            files_total: files.len() as u64,
            complete: exact,
            shards_unsearched: false,
            memo: OnceLock::new(),
        }
    }

    /// The result's count in the census's unit: its results when a file is one, else the
    /// files holding them.
    pub fn total(&self) -> u64 {
        self.files
            .iter()
            .map(|f| u64::from(f.items))
            .sum::<u64>()
            .max(
                // Files the backend counted but did not return still count toward the whole.
                self.files_total,
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(n: usize) -> Vec<FileFacts> {
        (0..n)
            .map(|i| FileFacts {
                repo: "r".into(),
                path: format!("d/f{i}.go"),
                language: "Go".into(),
                item_end: i + 1,
                matches: 1,
                with_lines: true,
            })
            .collect()
    }

    fn query(unit: CountUnit, every: bool) -> CensusQuery {
        CensusQuery {
            query: "q".into(),
            unit,
            every_file_holds_items: every,
            carries: None,
        }
    }

    fn stats(files: u64) -> SearchStats {
        SearchStats {
            file_count: files,
            match_count: files,
            ..SearchStats::default()
        }
    }

    #[test]
    fn a_whole_census_is_exact_a_cut_or_partial_one_a_lower_bound() {
        let q = query(CountUnit::Results, true);
        let whole = CensusPart::new(&facts(5), &stats(5), false, false, &q);
        assert_eq!(
            (whole.kind, whole.files_total, whole.total()),
            (CountKind::Exact, 5, 5)
        );
        // Zoekt counted more files than it returned (the census's own display cap).
        let partial = CensusPart::new(&facts(5), &stats(9), false, false, &q);
        assert_eq!((partial.kind, partial.files_total), (CountKind::AtLeast, 9));
        assert!(
            partial.complete,
            "Zoekt counted every file: the total is exact"
        );
        // Zoekt left files unsearched (its time, its caps).
        let cut = CensusPart::new(&facts(5), &stats(5), true, false, &q);
        assert_eq!(cut.kind, CountKind::AtLeast);
        assert!(!cut.complete);
        // A tool that drops items the query cannot tell apart counts about as many.
        let about = CensusPart::new(
            &facts(5),
            &stats(5),
            false,
            false,
            &query(CountUnit::Files, false),
        );
        assert_eq!(
            (about.kind, about.unit),
            (CountKind::About, CountUnit::Files)
        );
        assert!(about.files.iter().all(|f| f.items == 1));
    }

    #[test]
    fn counts_of_a_page_are_exact_only_when_they_are_the_whole_result() {
        let f = facts(2);
        let page = [(&f[0], 3), (&f[1], 1)];
        let exact = CensusPart::of_files(&page, true);
        assert_eq!((exact.kind, exact.total()), (CountKind::Exact, 4));
        assert_eq!(CensusPart::of_files(&page, false).kind, CountKind::AtLeast);
    }
}
