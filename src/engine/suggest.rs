//! Ways to narrow a broad result: the directories, repositories, runs of their names and
//! languages that hold its parts, each with how much of it they hold, counted over the
//! result's census (`census.rs`).
//!
//! A model's first query on a large monorepo is usually broad; paging through thousands of
//! items is not how it finds what it wants, and guessing a `repo:` or `file:` filter costs it
//! a round trip. Code-search UIs answer this with filter lists and counts; this is that list,
//! for a reader that is a model: one list, best first, each way with its count.
//!
//! The ways follow the result's tree, so that a model that follows only them reaches any large
//! part of the result in two or three calls. From the whole result down, a part that holds
//! more than half of it is no way to narrow (it keeps most of what it was meant to cut), so
//! the list goes down through it: the ways are the parts beside that chain of big parts, the
//! biggest first (the children of every part on the chain, but the next one on it). When
//! those named leave much of the deepest big part unnamed, or a large part of it, that part
//! is named too, so that its smaller children are one call away. A large part beside the
//! chain keeps its place whatever the deepest part's children hold: the list then holds every
//! large part of the result, itself or through the deepest big part; many small parts beside
//! the first big part, holding much between them, are one call away through the rest of the
//! result beside it (`-file:^test/`). A directory's own files
//! (`c-include/stdio.h` beside `c-include/node/`) are a part of their own. Languages that cut
//! the result come beside them. The engine states each way as data ([`NarrowBy`]); the tools
//! write it as a filter in the backend's syntax, and a directory inside a `file:` filter the
//! call already has replaces that filter rather than adding to it. Suggestions never change
//! which items a page holds.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::census::{CensusPart, CountUnit, FileFacts};

mod beyond;
mod group;
mod rest;
mod tree;
mod way;

pub use beyond::MAX_UNCOUNTED;
pub use group::Initial;
use tree::{Key, Tally, Tree, dir_of};
use way::NAMED_ENOUGH;
pub use way::{Narrow, NarrowBy, Narrowing, Run};

/// At most this many ways are suggested. Each costs a model a few words (the caller's query
/// is said once for all: `form/narrow.rs`), and more places reach a small part of a wide
/// result in fewer calls: of 59 target files on each real corpus, 8 ways reached the
/// directory within 3 calls on 32 and 36, 14 on 41 and 40 (`docs/narrowing.md`).
pub const MAX_WAYS: usize = 14;
/// A result is broad when it holds more than this many pages at the asked limit.
pub const BROAD_PAGES: u64 = 3;
/// A way must leave out at least half of the result: one that keeps nearly everything
/// (`lang:Go` on a Go monorepo) is no way to narrow, and the list goes down through it.
const MAX_SHARE: f64 = 0.5;
/// One that keeps at most a third cuts the result at least three times: those come first.
const CUTTING_SHARE: f64 = 1.0 / 3.0;
/// A way holding less than this share of the result comes after every other.
const TINY_SHARE: f64 = 0.01;
/// Most languages suggested: the list is mostly the result's tree.
const MAX_LANGUAGES: usize = 2;
/// The group of that part, and of the rest of the result beside the first big part: last,
/// after every other way, in a place kept for each.
const GATEWAY: u8 = 3;
/// A part beside that chain holding at least this share of the result keeps its place: the
/// big part's children, each bigger, would otherwise crowd it out, and a model following the
/// ways could not reach it (`find_references self` over 678 repositories: python-2.7, 6%,
/// beside eight Python 3s).
const BESIDE_SHARE: f64 = 0.05;

/// Whether a result of `total` items is broad at `limit` items a page, or past the paging
/// ceiling `max_offset`.
pub fn is_broad(total: u64, limit: u32, max_offset: u64) -> bool {
    total > BROAD_PAGES.saturating_mul(u64::from(limit.max(1))) || total > max_offset
}

/// A way a census offers, before the page it is shown on is known.
#[derive(Debug, Clone)]
struct Candidate {
    by: NarrowBy,
    tally: Tally,
    /// Its place in the list: cutting ways, then the others, then tiny ones, then the part
    /// named for its unnamed children and the rest beside the first big part.
    group: u8,
    /// A large part beside the chain of parts holding more than half, above its deepest: it
    /// keeps a place, so that the list holds every large part of the result, in it or one
    /// call away through the deepest big part.
    beside: bool,
    /// Inside the deepest big part, when that part stands by ([`RankedWays::standby`]).
    inside_deepest: bool,
}

impl Candidate {
    /// Whether it keeps a place whatever comes before it (`choose`).
    fn kept(&self) -> bool {
        self.group == GATEWAY
            || self.beside
            || (self.group == 1 && !matches!(self.by, NarrowBy::Language(_)))
    }
}

/// A census's ways, ranked, before the page they are shown on is known: what the census alone
/// decides, kept with it (`census.rs`) so that a page cut from a cached census does not count
/// tens of thousands of files again.
#[derive(Debug)]
pub struct RankedWays {
    ways: Vec<Candidate>,
    several_repos: bool,
    /// The repositories counted, when the backend left shards unsearched and they are
    /// several: what the ways into the others start after. Empty otherwise.
    counted_repos: Vec<String>,
    /// The rest beside the directories counted, when the census counted one repository and the
    /// backend left shards of it unsearched (`beyond.rs`).
    beside_counted: Option<NarrowBy>,
    /// The deepest big part, when the ways inside it that the list has places for name
    /// enough of it ([`Narrowing::standby`]).
    standby: Option<Candidate>,
}

/// Counts the parts of the result `census` counted and ranks its ways.
pub fn rank(census: &CensusPart) -> RankedWays {
    let files: Vec<(&str, &str, &str, f64)> = census
        .files
        .iter()
        .filter(|f| f.items > 0)
        .map(|f| {
            (
                f.repo.as_str(),
                f.path.as_str(),
                f.language.as_str(),
                f64::from(f.items),
            )
        })
        .collect();
    let whole: f64 = files.iter().map(|f| f.3).sum();
    let several_repos = files.iter().map(|f| f.0).collect::<HashSet<_>>().len() > 1;
    let tree = Tree::count(&files, several_repos);
    // Down through the parts that hold more than half of the result.
    // Each part's children are counted once: a run's tally sums its members.
    let mut chain = vec![Key::Root];
    let mut inside = vec![tree.children(Key::Root)];
    loop {
        let kids = inside.last().expect("the root's");
        let Some(&(big, _)) = kids
            .iter()
            .find(|(k, t)| t.items > whole * MAX_SHARE && !chain.contains(k))
        else {
            break;
        };
        chain.push(big);
        inside.push(tree.children(big));
    }
    // Each part with whether it lies above the deepest part of the chain, beside it.
    let deepest_at = inside.len() - 1;
    let mut frontier: Vec<(Key, Tally, bool)> = inside
        .into_iter()
        .enumerate()
        .flat_map(|(at, kids)| kids.into_iter().map(move |(k, t)| (k, t, at < deepest_at)))
        .filter(|(k, ..)| !chain.contains(k))
        .collect();
    frontier.sort_by(|(a, ta, _), (b, tb, _)| {
        tb.items
            .total_cmp(&ta.items)
            .then(a.order().cmp(&b.order()))
    });
    // Then whether it keeps its place (`Candidate::beside`): a large one of those, the
    // biggest first, leaving places for the deepest big part and one way inside it (the
    // rest beside the first big part, when there is one, takes one of the others').
    let mut kept_beside = 0;
    let frontier: Vec<(Key, Tally, bool)> = frontier
        .into_iter()
        .map(|(k, t, above)| {
            let kept = above && t.items >= whole * BESIDE_SHARE && kept_beside < MAX_WAYS - 2;
            kept_beside += usize::from(kept);
            (k, t, kept)
        })
        .collect();
    let group = |t: &Tally| {
        if t.items < whole * TINY_SHARE {
            2
        } else if t.items <= whole * CUTTING_SHARE {
            0
        } else {
            1
        }
    };
    let mut ways: Vec<Candidate> = frontier
        .iter()
        .filter_map(|(k, t, kept)| {
            Some(Candidate {
                by: k.owned()?,
                tally: *t,
                group: group(t),
                beside: *kept,
                inside_deepest: false,
            })
        })
        .collect();
    // Languages that cut the result, unless one holds the very files of a part. Not a tiny
    // one: the tree's ways hold each of its files already, and on a list cut to its
    // characters it would take the place of a small part of the tree that no other way holds
    // (`lang:C`, 3 files, for json/ in python-2.7's Lib).
    let mut languages: Vec<(Key, Tally)> = tree
        .tallies
        .iter()
        .filter(|(k, t)| {
            matches!(k, Key::Language(_))
                && t.items <= whole * MAX_SHARE
                && t.items >= whole * TINY_SHARE
        })
        .map(|(k, t)| (*k, *t))
        .collect();
    languages.sort_by(|(a, ta), (b, tb)| {
        tb.items
            .total_cmp(&ta.items)
            .then(a.order().cmp(&b.order()))
    });
    ways.extend(languages.into_iter().filter_map(|(k, t)| {
        Some(Candidate {
            by: k.owned()?,
            tally: t,
            group: group(&t),
            beside: false,
            inside_deepest: false,
        })
    }));
    // The deepest big part, when the parts named inside it would leave much of it unnamed;
    // else standing by, for a list cut shorter than its places.
    let mut standby = None;
    if let Some(&deepest) = chain.last().filter(|k| **k != Key::Root) {
        let inside = tree.tally(deepest);
        if inside.items < whole {
            // At most the ways left beside it, and only those inside it; and whether a large
            // part inside it is left out (eight Python 3s of 6% each, with python/2.7/ and
            // rust-crates/ beside them).
            let places = (MAX_WAYS - 1).saturating_sub(kept_beside);
            let (fit, left): (Vec<_>, Vec<_>) = frontier
                .iter()
                .filter(|(.., kept)| !kept)
                .enumerate()
                .filter(|(_, (k, ..))| tree.is_inside(*k, deepest))
                .partition(|(at, _)| *at < places);
            let named: f64 = fit.iter().map(|(_, (_, t, _))| t.items).sum();
            let large_left = left
                .iter()
                .any(|(_, (_, t, _))| t.items >= whole * BESIDE_SHARE);
            if let Some(by) = deepest.owned() {
                let part = Candidate {
                    by,
                    tally: inside,
                    group: GATEWAY,
                    beside: false,
                    inside_deepest: false,
                };
                if named < inside.items * NAMED_ENOUGH || large_left {
                    ways.push(part);
                } else {
                    for way in &mut ways {
                        way.inside_deepest = tree.is_inside(Key::of(&way.by), deepest);
                    }
                    standby = Some(part);
                }
            }
        }
    }
    // The rest beside the first big part, when the kept ways leave much of it unnamed.
    ways.extend(rest::beside(
        &tree,
        &chain,
        &ways,
        whole,
        files.iter().map(|f| f.1),
    ));
    // Best first: by group, then by what each holds (the sort is stable: the tree's order
    // among equals).
    ways.sort_by(|a, b| {
        a.group
            .cmp(&b.group)
            .then(b.tally.items.total_cmp(&a.tally.items))
            .then(Key::of(&a.by).order().cmp(&Key::of(&b.by).order()))
    });
    // The repositories counted, when the backend's time ran out before others (`beyond.rs`).
    let counted_repos = if several_repos && census.shards_unsearched {
        let repos: HashSet<&str> = files.iter().map(|f| f.0).collect();
        repos.into_iter().map(str::to_string).collect()
    } else {
        Vec::new()
    };
    // Inside one repository, the rest beside the directories counted, when whole shards of
    // it were not searched (`beyond.rs`). Not where Zoekt searched every shard and only
    // stopped in some at its per-shard cap: the files it left out are then in the directories
    // counted (`search_files src/` on the monorepo: 30 of 20,729, and a rest beside four
    // top directories that held none).
    let beside_counted = (!several_repos && census.shards_unsearched)
        .then(|| beyond::beside_counted(files.iter().map(|f| f.1)))
        .flatten();
    RankedWays {
        ways,
        several_repos,
        counted_repos,
        beside_counted,
        standby,
    }
}

/// The ways to narrow the result counted by `census`, leaving out those that hold only what
/// `on_page` (the page's files, each with its items on the page) already shows. `None` when
/// no way would cut it.
pub fn narrowing(census: &Arc<CensusPart>, on_page: &[(&FileFacts, usize)]) -> Option<Narrowing> {
    // Ranked once and kept with the census: a page cut from a cached census does not count
    // tens of thousands of files again.
    let ranked = census.memo(|| rank(census));
    let ranked = match &ranked {
        Some(kept) => kept.as_ref(),
        None => &rank(census),
    };
    let (ways, standby) = choose(ranked, on_page, census.unit);
    (!ways.is_empty()).then(|| Narrowing {
        ways,
        standby,
        counts: census.kind,
        unit: census.unit,
        files_read: census.files.len(),
        files_total: census.files_total,
        uncounted: beyond::after_counted(
            ranked.counted_repos.iter().map(String::as_str),
            on_page.iter().map(|(f, _)| f.repo.as_str()),
        )
        .into_iter()
        .map(NarrowBy::Group)
        .chain(ranked.beside_counted.clone())
        .collect(),
    })
}

/// The ways of `ranked` a page shows: not the page's own, none of the very files of one
/// named before, at most [`MAX_LANGUAGES`] languages, at most [`MAX_WAYS`], the last kept for
/// the part named for its unnamed children and the rest beside the first big part, when
/// there are; and the part standing by, unless the page shows all of it or a way holds its
/// very files. `unit` is what the ways' counts count.
fn choose(
    ranked: &RankedWays,
    on_page: &[(&FileFacts, usize)],
    unit: CountUnit,
) -> (Vec<Narrow>, Option<Narrow>) {
    // What the page shows of each part, in the counts' unit: a way whose every item is on it
    // is the page again.
    let mut shown: HashMap<Key, usize> = HashMap::new();
    for (f, items) in on_page {
        let counted = match unit {
            CountUnit::Results => *items,
            CountUnit::Files => 1,
        };
        let mut add = |key| *shown.entry(key).or_default() += counted;
        let repo = ranked.several_repos.then_some(f.repo.as_str());
        add(Key::Repo(&f.repo));
        add(Key::Language(&f.language));
        add(Key::Files(repo, dir_of(&f.path)));
        for (at, _) in f.path.match_indices('/') {
            add(Key::Directory(repo, &f.path[..=at]));
        }
    }
    let mut languages = 0;
    let mut said = HashSet::new();
    let mut ways = Vec::new();
    // Kept a place whatever comes before them: the part named for its unnamed children, the
    // rest beside the first big part, a large part beside the chain, and a part of the tree
    // holding more than a third of the result. That one cuts it less than
    // three times, so it ranks after every way that does; with many small parts that do, it
    // would never be named, and a model following the ways could not reach it
    // (`search_symbols main` over 678 repositories: go-toolchain, 2,957 of 7,816 files).
    let kept = Candidate::kept;
    let shows_all = |c: &Candidate| {
        shown
            .get(&Key::of(&c.by))
            .is_some_and(|&s| s as f64 >= c.tally.items)
    };
    let room = MAX_WAYS.saturating_sub(ranked.ways.iter().filter(|c| kept(c)).count());
    let mut others = 0;
    for c in &ranked.ways {
        if ways.len() == MAX_WAYS {
            break;
        }
        if others >= room && !kept(c) {
            continue;
        }
        if shows_all(c) {
            continue;
        }
        let language = matches!(c.by, NarrowBy::Language(_));
        if (language && languages == MAX_LANGUAGES) || !said.insert(c.tally.which) {
            continue;
        }
        languages += usize::from(language);
        others += usize::from(!kept(c));
        ways.push(Narrow {
            by: c.by.clone(),
            items: (c.tally.items.round() as u64).max(1),
            kept: kept(c),
            inside_standby: c.inside_deepest,
        });
    }
    let standby = (ranked.standby.as_ref())
        .filter(|part| !shows_all(part) && !said.contains(&part.tally.which))
        .map(|part| Narrow {
            by: part.by.clone(),
            items: (part.tally.items.round() as u64).max(1),
            kept: true,
            inside_standby: false,
        });
    (ways, standby)
}

#[cfg(test)]
mod tests;
