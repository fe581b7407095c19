//! Zoekt's answer, ordered: the files of one answer re-sorted into the total order of
//! `engine/order.rs` and flattened into items, with what is needed to read any smaller
//! window out of it, and Zoekt's ordering quirks that decide where a window's trusted edge is.
//!
//! Zoekt sorts files with an unstable sort and no tie-break, and may move one "novel
//! extension" file up to position 3, at every shard's answer it folds in, cutting the list
//! each time (`docs/zoekt.md`, "Ordering"). So files are re-sorted (score descending, then
//! the hash of the file's identity), each item gets its [`Position`], and while Zoekt may hold
//! more files, only files scoring above the second-lowest score it returned are certain
//! ([`trusted_edge`]).
//!
//! Zoekt's answer for `n` files holds, above its trusted edge, the same files as its answer
//! for more (its statistics do not depend on `n` either; `docs/zoekt.md`, "Windows"). So an
//! [`Answer`] fetched for many files also answers, exactly, every smaller window
//! ([`Answer::covers`]): the window cache (`engine/cache/`) serves a walk's pages from one
//! growing answer, and every page is the one a fresh request would have given.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::backend::{RankedFile, RankedFiles, SearchStats};
use super::census::{CensusPart, CensusQuery, FileFacts};
use super::order::{Position, file_key};

/// Items in page order with their positions: what pages are cut from, shared (behind an
/// `Arc`) by every page a cached answer serves.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ItemList<T> {
    /// The items.
    pub items: Vec<T>,
    /// Each item's place in the total order (section 0; a [`Run`](super::tool::Run) relabels
    /// the section).
    pub positions: Vec<Position>,
    /// The files the items came from, in page order, and where each one's items end: what
    /// [`super::suggest`] counts to suggest ways to narrow (empty for lists not made of files).
    pub files: Vec<FileFacts>,
}

/// How a tool turns one file of the backend's answer into its items, in file order.
pub trait Flatten<T>: Fn(&RankedFile) -> Vec<T> + Sync {}

impl<T, F: Fn(&RankedFile) -> Vec<T> + Sync> Flatten<T> for F {}

/// An item the engine can collect, share between tasks and weigh in the window cache.
pub trait Collectable: Serialize + Send + Sync + 'static {}

impl<T: Serialize + Send + Sync + 'static> Collectable for T {}

/// One answer of Zoekt, ordered into page order and flattened into items, with what is
/// needed to tell the window of any smaller request apart inside it.
#[derive(Debug)]
pub struct Answer<T> {
    pub(crate) list: Arc<ItemList<T>>,
    /// The files in page order: score and where their items end in `list`.
    files: Vec<FileSpan>,
    /// The scores of the files as Zoekt returned them, in its order: a smaller window is a
    /// prefix of it.
    zoekt_scores: Vec<f64>,
    /// `MaxDocDisplayCount` sent; for an answer cut at the byte bound, the files it holds.
    asked: u32,
    /// The answer was cut at the client's byte bound ([`RankedFiles::cut_at_bytes`]): Zoekt's
    /// answer for `asked` files, and no more files can be read for this query.
    cut_at_bytes: bool,
    pub(crate) stats: SearchStats,
    /// When Zoekt answered.
    fetched_at: Instant,
    /// Bytes the answer holds, as the cache that keeps it weighed them (0: not weighed).
    weight: u32,
    /// Its census, once a page asked for it (`census.rs`): kept with the answer, so that the
    /// pages a cached answer serves count its files once.
    census: OnceLock<Arc<CensusPart>>,
    /// Its files with lines, once a first page asked for them ([`Answer::files_with_lines`]):
    /// kept with it, so that the first pages a cached census serves copy them once.
    with_lines: OnceLock<Arc<Answer<T>>>,
}

#[derive(Debug, Clone, Copy)]
struct FileSpan {
    score: f64,
    item_end: usize,
}

/// What Zoekt's answer for a given number of files is, read off a (possibly bigger) answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct View {
    /// Zoekt returned fewer files than asked.
    pub(crate) ran_out: bool,
    /// Files certain to lead the order (in page order).
    pub(crate) certain_files: usize,
    /// Items of the files certain to lead the order.
    pub(crate) certain_items: usize,
    /// Items of every file of the window (the certain ones and the edge).
    pub(crate) all_items: usize,
}

impl<T> Answer<T> {
    /// An answer holding `list` and nothing else of Zoekt's (for tests of what reads
    /// windows).
    #[cfg(test)]
    pub(crate) fn whole(list: ItemList<T>, stats: SearchStats) -> Answer<T> {
        Answer {
            list: Arc::new(list),
            files: Vec::new(),
            zoekt_scores: Vec::new(),
            asked: 0,
            cut_at_bytes: false,
            stats,
            fetched_at: Instant::now(),
            weight: 0,
            census: OnceLock::new(),
            with_lines: OnceLock::new(),
        }
    }

    /// Orders `ranked`, Zoekt's answer to a request for `asked` files, and flattens it. An
    /// answer cut at the byte bound is the answer for the files it holds, whatever was asked.
    pub fn new<F>(ranked: &RankedFiles, asked: u32, flatten: F) -> Answer<T>
    where
        F: Fn(&RankedFile) -> Vec<T>,
    {
        let asked = match ranked.cut_at_bytes {
            true => clamp_u32(ranked.files.len()).min(asked),
            false => asked,
        };
        let zoekt_scores: Vec<f64> = ranked.files.iter().map(|f| f.score).collect();
        let mut list = ItemList {
            items: Vec::new(),
            positions: Vec::new(),
            files: Vec::new(),
        };
        let mut files = Vec::new();
        for (key, f) in page_order(&ranked.files) {
            for (index, item) in flatten(f).into_iter().enumerate() {
                list.items.push(item);
                list.positions.push(Position {
                    section: 0,
                    section_start: 0,
                    earlier_cut: false,
                    score: f.score,
                    file: key,
                    index: clamp_u32(index),
                });
            }
            files.push(FileSpan {
                score: f.score,
                item_end: list.items.len(),
            });
            list.files.push(FileFacts {
                repo: f.repo.clone(),
                path: f.path.clone(),
                language: f.language.clone(),
                item_end: list.items.len(),
                matches: clamp_u32(f.lines.len() + usize::from(f.path_matched)),
                with_lines: !f.lines.is_empty(),
            });
        }
        Answer {
            list: Arc::new(list),
            files,
            zoekt_scores,
            asked,
            cut_at_bytes: ranked.cut_at_bytes,
            stats: ranked.stats,
            fetched_at: Instant::now(),
            weight: 0,
            census: OnceLock::new(),
            with_lines: OnceLock::new(),
        }
    }

    /// The same answer, which Zoekt gave at `at` (a prefetched answer is ordered later).
    pub fn fetched_at(mut self, at: Instant) -> Answer<T> {
        self.fetched_at = at;
        self
    }

    /// The same answer, weighing `weight` bytes (see [`Answer::weight`]).
    pub fn weighed(mut self, weight: u32) -> Answer<T> {
        self.weight = weight;
        self
    }

    /// Bytes the answer holds, as the cache weighed them (0 when it was not).
    pub fn weight(&self) -> u32 {
        self.weight
    }

    /// How long ago Zoekt gave this answer.
    pub fn age(&self) -> Duration {
        self.fetched_at.elapsed()
    }

    /// What Zoekt's statistics say of this answer.
    pub fn search_stats(&self) -> &SearchStats {
        &self.stats
    }

    /// `MaxDocDisplayCount` this answer was fetched with.
    pub fn asked(&self) -> u32 {
        self.asked
    }

    /// The answer was cut at the client's byte bound: it holds Zoekt's answer for
    /// [`Answer::asked`] files, and the answer for more is too big to read.
    pub fn cut_at_bytes(&self) -> bool {
        self.cut_at_bytes
    }

    /// This answer is cut at the byte bound below `files` files: it stands for Zoekt's
    /// answer for `files` too, since no more can be read.
    pub fn cut_below(&self, files: u32) -> bool {
        self.cut_at_bytes && self.asked < files
    }

    /// Zoekt returned fewer files than asked: this is every file it has for the query.
    pub fn ran_out(&self) -> bool {
        self.zoekt_scores.len() < self.asked as usize
    }

    /// Whether this answer holds Zoekt's answer for `files` files: it asked for as many or
    /// more, or it already holds every file.
    pub fn covers(&self, files: u32) -> bool {
        files <= self.asked || self.ran_out()
    }

    /// How many files the answer holds (each once).
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// The items, in page order.
    pub fn list(&self) -> &Arc<ItemList<T>> {
        &self.list
    }

    /// The census this answer, a search of names of `query`'s census query (maybe carrying a
    /// search's lines), holds
    /// (`census.rs`): every file it returned, each once. `cut`: Zoekt's statistics say it left
    /// files unsearched; `shards_unsearched`: whole shards among them. Worked out once: a
    /// cached census serves every first page and count of its request.
    pub(crate) fn census(
        &self,
        cut: bool,
        shards_unsearched: bool,
        query: &CensusQuery,
    ) -> Arc<CensusPart> {
        let census = self.census.get_or_init(|| {
            Arc::new(CensusPart::new(
                &self.list.files,
                &self.stats,
                cut,
                shards_unsearched,
                query,
            ))
        });
        Arc::clone(census)
    }

    /// The files of this answer that came with lines, alone, as an answer of every file (it
    /// ran out): what a census that carried a search's lines holds of that search, the same
    /// files, items and statistics as that search's own answer for every file (`survey.rs`).
    /// A file with lines and no items stays, as in that answer. Worked out once.
    pub(crate) fn files_with_lines(&self) -> Arc<Answer<T>>
    where
        T: Clone,
    {
        Arc::clone(self.with_lines.get_or_init(|| Arc::new(self.lines_alone())))
    }

    /// [`Answer::files_with_lines`], worked out.
    fn lines_alone(&self) -> Answer<T>
    where
        T: Clone,
    {
        let mut list = ItemList {
            items: Vec::new(),
            positions: Vec::new(),
            files: Vec::new(),
        };
        let mut files = Vec::new();
        let mut start = 0;
        for (facts, span) in self.list.files.iter().zip(&self.files) {
            let end = facts.item_end;
            if facts.with_lines {
                list.items.extend_from_slice(&self.list.items[start..end]);
                list.positions
                    .extend_from_slice(&self.list.positions[start..end]);
                list.files.push(FileFacts {
                    item_end: list.items.len(),
                    ..facts.clone()
                });
                files.push(FileSpan {
                    score: span.score,
                    item_end: list.items.len(),
                });
            }
            start = end;
        }
        // Zoekt's statistics of that search: its files and their matches, nothing skipped
        // (the census was whole), and no file found twice (a census that found one twice is
        // not carried: `survey.rs`).
        let stats = SearchStats {
            file_count: files.len() as u64,
            match_count: list.files.iter().map(|f| u64::from(f.matches)).sum(),
            shared_backends: 0,
            ..self.stats
        };
        Answer {
            zoekt_scores: files.iter().map(|f| f.score).collect(),
            list: Arc::new(list),
            files,
            // More than it holds: every file there is.
            asked: u32::MAX,
            cut_at_bytes: false,
            stats,
            fetched_at: self.fetched_at,
            weight: 0,
            census: OnceLock::new(),
            with_lines: OnceLock::new(),
        }
    }

    /// Zoekt's answer for `files` files, which this answer must cover.
    pub(crate) fn view(&self, files: u32) -> View {
        debug_assert!(self.covers(files));
        let returned = self.zoekt_scores.len().min(files as usize);
        let ran_out = returned < files as usize;
        let all_items = self.list.items.len();
        if ran_out {
            return View {
                ran_out,
                certain_files: self.files.len(),
                certain_items: all_items,
                all_items,
            };
        }
        let Some(edge) = trusted_edge(&self.zoekt_scores[..returned]) else {
            return View {
                ran_out,
                certain_files: 0,
                certain_items: 0,
                all_items: 0,
            };
        };
        // Every file scoring above the window's edge is in the window, whatever its size; the
        // files of the window at the edge are only all of this answer's when it is the same
        // window (at `--max-window`, the only case that serves them).
        let certain = self.files.partition_point(|f| f.score > edge);
        let certain_items = certain.checked_sub(1).map_or(0, |i| self.files[i].item_end);
        View {
            ran_out,
            certain_files: certain,
            certain_items,
            all_items: if files == self.asked {
                all_items
            } else {
                certain_items
            },
        }
    }
}

/// `n`, or `u32::MAX` when it does not fit.
pub fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The score above which every file Zoekt holds is among `scores`, its answer for exactly
/// `scores.len()` files (in its order); `None` for no files.
///
/// Zoekt folds in each shard's files as they come: it sorts what it holds, moves the first
/// file whose extension the top two lack up to third place (its novelty boost), and cuts the
/// list to the window, every time. A file the boost pulled up from below the cut can outlive
/// the round that pulled it up and sit at the end of the answer, in the place of a better
/// file the cut dropped then (seen live: 33 of 73 files tied at the top score, and a file
/// a billion points lower, in an answer of 34). Each round keeps all but one of the files
/// scoring at least as well as any it drops, so a missing file leaves at least `n - 1` files
/// of the answer scoring as well as it: every file scoring above the second-lowest score of
/// the answer is there. Below three files the boost has no place to put a file, and the
/// lowest score is the edge.
pub(crate) fn trusted_edge(scores: &[f64]) -> Option<f64> {
    // The two lowest in one pass: a cached answer of thousands of files is read at every page.
    let (mut lowest, mut second) = (f64::INFINITY, f64::INFINITY);
    for &s in scores {
        if s.total_cmp(&lowest).is_lt() {
            (lowest, second) = (s, lowest);
        } else if s.total_cmp(&second).is_lt() {
            second = s;
        }
    }
    match scores.len() {
        0 => None,
        1 | 2 => Some(lowest),
        _ => Some(second),
    }
}

/// `files` in page order, each with its [`file_key`], one per identity: a file on several
/// branches with one content is one file match; with different contents, each version is a
/// file of its own. The key hashes exactly that identity (repository, path, sorted branches);
/// repository and path guard against a 64-bit collision.
pub(crate) fn page_order(files: &[RankedFile]) -> Vec<(u64, &RankedFile)> {
    let mut seen = HashSet::new();
    let mut keyed: Vec<(u64, &RankedFile)> = files
        .iter()
        .map(|f| (file_key(&f.repo, &f.path, &f.branches), f))
        .filter(|(key, f)| seen.insert((*key, f.repo.as_str(), f.path.as_str())))
        .collect();
    keyed.sort_by(|(ka, a), (kb, b)| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| ka.cmp(kb))
            // Only a 64-bit hash collision gets here.
            .then_with(|| (&a.repo, &a.path, &a.branches).cmp(&(&b.repo, &b.path, &b.branches)))
    });
    keyed
}

#[cfg(test)]
mod tests;
