//! What a way to narrow is, as the engine states it ([`NarrowBy`]) for the tools to write in
//! their backend's syntax, and the list of them a page carries ([`Narrowing`]), which a
//! form cuts to fit its characters one way at a time.

use super::group::Initial;
use crate::engine::census::{CountKind, CountUnit};

/// The deepest big part is named too when the ways inside it hold less than this share of
/// it: its unnamed children are then one call away.
pub(super) const NAMED_ENOUGH: f64 = 2.0 / 3.0;

/// What a narrowing selects.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NarrowBy {
    /// One repository, by its whole name.
    Repo(String),
    /// One language, by the backend's name for it.
    Language(String),
    /// Paths that start with `dir` (ends with `/`): in `repo` when set, else in every
    /// repository (a result of one repository).
    Directory {
        /// The repository the directory is in; `None` when the result has only one.
        repo: Option<String>,
        /// The directory, ending with `/`.
        dir: String,
    },
    /// The files directly in `dir` (ends with `/`; empty: the repository's top), not in its
    /// subdirectories: in `repo` when set, else in every repository.
    Files {
        /// The repository the directory is in; `None` when the result has only one.
        repo: Option<String>,
        /// The directory, ending with `/`, or empty for the top.
        dir: String,
    },
    /// A run of siblings by name, where a level holds more than the list can name one by
    /// one.
    Group(Run),
    /// Everything but the parts it holds: the rest of a result beside a part that holds most
    /// of it, whose own parts are each too small for the list, or the rest beside the
    /// directories a census of one repository counted, when the backend left shards of it
    /// unsearched (`Narrowing::uncounted`). Each part is a repository, a directory of the
    /// only repository, a run of repositories or of that repository's entries, or the files
    /// at its top: a part one filter selects, which one negated filter leaves out.
    Rest(Vec<NarrowBy>),
}

/// A run of siblings by name: the repositories (`dir` is `None`), or the entries of `dir`
/// (its subdirectories, ending with `/`, and its files; empty: the top; in `repo` when set),
/// whose names start with `start` followed by `initial`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Run {
    /// The repository the level is in; `None` when the result has only one, or for
    /// repositories.
    pub repo: Option<String>,
    /// The directory whose entries are grouped; `None`: the repositories.
    pub dir: Option<String>,
    /// The start the names share, as written in the names.
    pub start: String,
    /// The character after it.
    pub initial: Initial,
}

impl Run {
    /// The names' pattern, start and initial, each mark of the start escaped by `escape`:
    /// `issue1[0-4]`.
    pub fn pattern(&self, escape: impl Fn(&str) -> String) -> String {
        format!("{}{}", escape(&self.start), self.initial.regex(escape))
    }
}

/// One way to narrow, with how much of the result it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Narrow {
    /// What it selects.
    pub by: NarrowBy,
    /// What it holds of the whole result, in [`Narrowing::unit`], as [`Narrowing::counts`]
    /// says: exactly, about or at least.
    pub items: u64,
    /// Kept when the list is cut to fit (the ways before it go first): a big part a model
    /// reaches the rest of the result through, which ranks after the ways that cut more, or
    /// the rest of the result beside one ([`NarrowBy::Rest`]).
    pub kept: bool,
    /// Inside [`Narrowing::standby`]: what it holds counts as naming part of it.
    pub inside_standby: bool,
}

/// The ways to narrow a result, best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Narrowing {
    /// Best first.
    pub ways: Vec<Narrow>,
    /// What the counts are worth.
    pub counts: CountKind,
    /// What they count: results, or the files holding them.
    pub unit: CountUnit,
    /// How many files the counts were read from.
    pub files_read: usize,
    /// How many files the result holds, by the backend's count.
    pub files_total: u64,
    /// Ways into the parts the census did not reach, whose counts are not known
    /// (`beyond.rs`): when the backend left shards unsearched, runs of the names after the
    /// repositories counted, best first; where it counted one repository, everything beside
    /// the directories counted. The form offers the first the call's own filters leave room
    /// for, after the ways.
    pub uncounted: Vec<NarrowBy>,
    /// The deepest big part, when the ways inside it name enough of it for it to need no
    /// place of its own, as long as the list keeps them: a list cut to fit its characters may
    /// not, and this part then takes a kept place ([`Narrowing::drop_one`]), so that the
    /// children the list no longer names are one call away (`search_files src/` over 678
    /// repositories: `src/` of go-toolchain holds half of the result, and with only three of
    /// its runs left after the cut, a third of it was in no way).
    pub standby: Option<Narrow>,
}

impl Narrowing {
    /// Drops one way, for a list that must fit in fewer characters: the last one not kept
    /// (the last of all when each is). When the ways left inside [`Narrowing::standby`] then
    /// name less than two thirds of it, it takes a kept place at the end. False when there
    /// was no way left to drop.
    pub fn drop_one(&mut self) -> bool {
        let Some(at) =
            (self.ways.iter().rposition(|w| !w.kept)).or_else(|| self.ways.len().checked_sub(1))
        else {
            return false;
        };
        self.ways.remove(at);
        if let Some(part) = &self.standby {
            let named: u64 = (self.ways.iter())
                .filter(|w| w.inside_standby)
                .map(|w| w.items)
                .sum();
            if (named as f64) < part.items as f64 * NAMED_ENOUGH {
                self.ways.extend(self.standby.take());
            }
        }
        true
    }
}
