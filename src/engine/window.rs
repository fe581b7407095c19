//! The window: the trusted items of an answer for a number of files, the section of the
//! total order they stand in, and what Zoekt's answer left out ([`Cut`]). How a window is
//! fetched and grown is `fetch.rs`; how an answer is ordered is `answer.rs`.

use std::sync::Arc;

use super::answer::Answer;
use super::backend::SearchStats;
use super::config::Effort;
use super::order::Position;

/// The trusted items of a window and what Zoekt said about the search.
#[derive(Debug, Clone)]
pub struct Window<T> {
    /// The answer the window was read from (possibly a bigger one, from the cache).
    pub(crate) answer: Arc<Answer<T>>,
    /// How many leading items of the answer are the window's.
    pub(crate) len: usize,
    /// Zoekt returned fewer files than asked: the items are every item of the candidate set
    /// Zoekt searched. Whether that set is the whole result is [`Window::cut`]'s question.
    pub ran_out: bool,
    /// The window reached `max_files` before its certain files held `needed` items: the
    /// files at its edge were kept, in the pager's order, and their tied partners beyond the
    /// window (if any) are not reachable. For a window [`Window::counted_by_stats`]: the
    /// walk's window would reach `max_files` (Zoekt counted that many files or more).
    pub capped: bool,
    /// The cap was the answer-size budget, not `max_files`: the next bigger window's answer
    /// was too big to read ([`BackendErrorKind::TooBig`]), so this window, the biggest that
    /// fit, is served as if it were the cap (and is `capped` when that left items out).
    ///
    /// [`BackendErrorKind::TooBig`]: super::backend::BackendErrorKind::TooBig
    pub bytes_bound: bool,
    /// What Zoekt's answer may have left out, under the fetch's effort caps.
    pub cut: Cut,
    /// `MaxDocDisplayCount` of the last window; for a window [`Window::counted_by_stats`]
    /// and `capped`, the walk's cap (`max_files`), which its warning names.
    pub files_asked: u32,
    /// Where the items stand: see [`Window::in_section`].
    pub(crate) section: Section,
    /// A count's window that holds only the first files of the result, not all of them
    /// ([`WindowSpec::count`]): the walk's first window of a result no window holds whole,
    /// or a window of every file Zoekt counted that did not run out after all. Zoekt's
    /// statistics stand for the rest.
    ///
    /// [`WindowSpec::count`]: super::fetch::WindowSpec::count
    pub counted_by_stats: bool,
}

/// The part of the total order a window's items belong to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Section {
    /// Section number (`find_references`: 0 definitions, 1 usages).
    pub number: u8,
    /// Items before the section.
    pub start: u32,
    /// An earlier section was incomplete.
    pub earlier_cut: bool,
}

/// Why Zoekt's answer may leave out files that match.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cut {
    /// Shards skipped (the wall time ran out, or the search was cancelled).
    pub shards_skipped: u64,
    /// Files skipped inside searched shards (a shard reached its match cap, or the time ran
    /// out inside it).
    pub files_skipped: u64,
    /// Shards that crashed or were still loading.
    pub crashes: u64,
    /// The cross-shard cap (`--total-max-match-count`, off by default) was passed: Zoekt
    /// stopped sending shards to search at a point that depends on timing.
    pub total_cap: Option<u32>,
    /// Backends of a fan-out that did not answer (a bit per backend): their results are
    /// missing, and asking again later may find them.
    pub missing_backends: u64,
    /// Zoekt ran out of its wall time (`--max-wall-time-ms`) before it finished: it skipped
    /// shards, or searched until the wall time. Its files and counts are what it found by
    /// then, so the total is only a lower bound, and a bigger window would run out of time
    /// again rather than find the items a smaller one lacked.
    pub out_of_time: bool,
}

impl Cut {
    /// What Zoekt's statistics say was left out, under these caps.
    pub fn of(stats: &SearchStats, effort: &Effort) -> Cut {
        let total = effort.total_max_match_count;
        Cut {
            shards_skipped: stats.shards_skipped,
            files_skipped: stats.files_skipped,
            crashes: stats.crashes,
            total_cap: (total > 0 && stats.match_count > u64::from(total)).then_some(total),
            missing_backends: stats.missing_backends,
            out_of_time: stats.shards_skipped > 0
                || (effort.max_wall_time_ms > 0 && stats.duration_ms >= effort.max_wall_time_ms),
        }
    }

    /// Nothing was left out.
    pub fn is_none(&self) -> bool {
        *self == Cut::default()
    }

    /// Both cuts together: what two queries' answers left out.
    pub fn merged(self, other: Cut) -> Cut {
        Cut {
            shards_skipped: self.shards_skipped + other.shards_skipped,
            files_skipped: self.files_skipped + other.files_skipped,
            crashes: self.crashes + other.crashes,
            total_cap: self.total_cap.or(other.total_cap),
            missing_backends: self.missing_backends | other.missing_backends,
            out_of_time: self.out_of_time || other.out_of_time,
        }
    }

    /// The same request may find more later: the cut depends on timing or on shards still
    /// loading, not only on the per-shard cap.
    pub fn is_transient(&self) -> bool {
        self.out_of_time
            || self.crashes > 0
            || self.total_cap.is_some()
            || self.missing_backends != 0
    }
}

impl<T> Window<T> {
    /// A window of every item of `list`, with these statistics (for tests of what reads
    /// windows).
    #[cfg(test)]
    pub(crate) fn whole(
        list: super::answer::ItemList<T>,
        ran_out: bool,
        stats: SearchStats,
        cut: Cut,
    ) -> Window<T> {
        let len = list.items.len();
        let answer = Answer::whole(list, stats);
        Window {
            answer: Arc::new(answer),
            len,
            ran_out,
            capped: false,
            bytes_bound: false,
            cut,
            files_asked: 0,
            section: Section::default(),
            counted_by_stats: false,
        }
    }

    /// The window's items, in page order.
    #[cfg(test)]
    pub(crate) fn items(&self) -> &[T] {
        &self.answer.list.items[..self.len]
    }

    /// Statistics of the search (the same for every window of one query).
    pub fn stats(&self) -> &SearchStats {
        &self.answer.stats
    }

    /// The answer the window was read from: what the cache keeps and grows.
    pub fn answer(&self) -> &Arc<Answer<T>> {
        &self.answer
    }

    /// The positions of [`Window::items`], in their section.
    #[cfg(test)]
    pub(crate) fn positions(&self) -> impl Iterator<Item = Position> + '_ {
        self.answer.list.positions[..self.len]
            .iter()
            .map(|p| self.section.relabel(*p))
    }

    /// How many items the window holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The window holds no item.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Zoekt returned every matching file: the items are the whole result.
    pub fn exhausted(&self) -> bool {
        self.ran_out && self.cut.is_none()
    }

    /// Where the window's items stand in the total order.
    pub fn section(&self) -> Section {
        self.section
    }

    /// The same window with its items placed in `section`, numbered from `section_start`,
    /// after sections that were incomplete (`earlier_cut`) or not.
    pub fn in_section(mut self, section: u8, section_start: u32, earlier_cut: bool) -> Window<T> {
        self.section = Section {
            number: section,
            start: section_start,
            earlier_cut,
        };
        self
    }
}

impl Section {
    /// `p` placed in this section.
    pub fn relabel(&self, p: Position) -> Position {
        Position {
            section: self.number,
            section_start: self.start,
            earlier_cut: self.earlier_cut,
            ..p
        }
    }
}
