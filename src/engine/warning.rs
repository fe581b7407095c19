//! Why a page may be partial, as values: what happened, with its numbers. The engine says
//! which of these hold for a page; the page's form (`src/form/warning.rs`) words them for a
//! model, in the text and the structured page alike, as `tools/error.rs` words errors. A page
//! with none is complete.

use super::census::{CountKind, CountUnit};
use super::suggest::{NarrowBy, Narrowing};

/// One reason a page, a count or a listing may be partial or moved, with what to do about
/// it (the form says that part).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// The backend ran out of time (`--max-wall-time-ms`) before it had searched every
    /// shard: what it found by then, and a total it had counted by then.
    OutOfTime {
        /// The wall time it was given, in milliseconds.
        wall_time_ms: u64,
        /// Shards it left unsearched (0: not said).
        shards_skipped: u64,
    },
    /// The backend stopped at its per-shard match cap and left files out.
    ShardCap {
        /// The cap (`--shard-max-match-count`).
        cap: u32,
        /// Files it left out.
        files_skipped: u64,
    },
    /// Shards crashed: their files are missing.
    Crashed {
        /// How many.
        shards: u64,
    },
    /// Backends of a fan-out did not answer: their files are missing.
    MissingBackends {
        /// Their names.
        names: Vec<String>,
    },
    /// Files were found on more than one backend of a fan-out: each is shown once.
    SharedFiles {
        /// The backends that served them.
        names: Vec<String>,
    },
    /// A repository is served by two backends of a fan-out: listed and counted once.
    SharedRepository {
        /// The repository.
        repo: String,
        /// The two backends.
        backends: [String; 2],
    },
    /// The backend passed the cross-shard match cap, at a point that depends on timing.
    TotalCap {
        /// The cap (`--total-max-match-count`).
        cap: u32,
    },
    /// The backend's answer for more than this many files was too big to read
    /// (`--max-answer-bytes`): results beyond them are unreachable.
    TooBigToRead {
        /// The files the biggest answer read held.
        files: u32,
    },
    /// Results beyond the first this many files (`--max-window`) are unreachable.
    WindowCap {
        /// The window's files.
        files: u32,
    },
    /// The items of one section of a sectioned result (find_references' definitions) go on
    /// beyond the window: they are not listed, in it or as later items.
    SectionBeyondWindow {
        /// The section, by its number.
        section: u8,
    },
    /// The section before this page's items was incomplete (see the first pages' warnings).
    EarlierSectionCut {
        /// The section whose items follow the incomplete one.
        section: u8,
    },
    /// The results changed since the cursor was made: the page continues right after the
    /// last item served, which now stands at `offset`.
    Resynced {
        /// Where the page starts now.
        offset: u64,
        /// Where the cursor said.
        cursor_offset: u64,
    },
    /// Results go on past the paging ceiling (`--max-offset`).
    Ceiling {
        /// The ceiling.
        max_offset: u64,
        /// The best way to narrow the result, when it has one.
        best: Option<BestWay>,
    },
    /// The backend's answer ended early (time or crashed shards): the cursor asks again from
    /// here.
    EndedEarly,
    /// The page is empty because the backend's answer ended early, before the place the walk
    /// has reached: the cursor asks again from the same place.
    HeldPlace,
    /// A count that is an estimate from the backend's match count.
    Estimate,
    /// A count by census that the backend cut short: a lower bound.
    CensusCut,
    /// A listing of names left parts cut, which splitting could not make whole (one
    /// directory holding more files than a request lists, or the most requests a listing
    /// makes): counts over them are lower bounds.
    ListingCut {
        /// The parts left cut.
        parts: u32,
        /// The files listed.
        files: u64,
    },
    /// A count whose every line was too big to read, counted by its census instead.
    TooBigToCount {
        /// What the census counted.
        unit: CountUnit,
    },
    /// Files of the answer that hold no item, for a tool that tells them
    /// (`Tool::TELLS_FILES_WITHOUT_ITEMS`: a file without symbols is not a missing file).
    FilesWithoutItems {
        /// Each file, as (repository, path), in page order.
        files: Vec<(String, String)>,
    },
    /// Backends of a fan-out did not answer a listing: their repositories, documents and
    /// shards are not counted.
    NotCounted {
        /// Their names.
        names: Vec<String>,
    },
}

/// The best way to narrow a result, as a warning names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BestWay {
    /// What it selects.
    pub by: NarrowBy,
    /// What it holds.
    pub items: u64,
    /// What the count is worth.
    pub counts: CountKind,
    /// What it counts.
    pub unit: CountUnit,
}

impl BestWay {
    /// The first (best) way of `narrowing`, if any.
    pub fn of(narrowing: Option<&Narrowing>) -> Option<BestWay> {
        let n = narrowing?;
        let best = n.ways.first()?;
        Some(BestWay {
            by: best.by.clone(),
            items: best.items,
            counts: n.counts,
            unit: n.unit,
        })
    }
}
