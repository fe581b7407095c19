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
use std::hash::Hash;
use std::sync::Arc;

use super::census::{CensusPart, CountKind, CountUnit, FileFacts};

mod beyond;
mod group;
mod rest;
mod tree;

pub use beyond::MAX_UNCOUNTED;
pub use group::Initial;
use tree::{Key, Tally, Tree, dir_of};

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
    /// Everything but the part it holds: the rest of a result beside a part that holds most
    /// of it, whose own parts are each too small for the list. It holds a repository, a
    /// directory of the only repository, or a run of repositories or of that repository's
    /// entries: a part one filter selects, which one negated filter leaves out.
    Rest(Box<NarrowBy>),
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
    /// Ways into the repositories the census did not reach, when the backend left shards
    /// unsearched (`beyond.rs`): runs of the names after those counted, best first, whose
    /// counts are not known. The form offers the first the call's own filters leave room
    /// for, after the ways.
    pub uncounted: Vec<NarrowBy>,
}

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
/// The deepest big part is named too when the ways inside it hold less than this share of
/// it: its unnamed children are then one call away.
const NAMED_ENOUGH: f64 = 2.0 / 3.0;
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
        })
    }));
    // The deepest big part, when the parts named inside it would leave much of it unnamed.
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
            if (named < inside.items * NAMED_ENOUGH || large_left)
                && let Some(by) = deepest.owned()
            {
                ways.push(Candidate {
                    by,
                    tally: inside,
                    group: GATEWAY,
                    beside: false,
                });
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
    RankedWays {
        ways,
        several_repos,
        counted_repos,
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
    let ways = choose(ranked, on_page, census.unit);
    (!ways.is_empty()).then(|| Narrowing {
        ways,
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
        .collect(),
    })
}

/// The ways of `ranked` a page shows: not the page's own, none of the very files of one
/// named before, at most [`MAX_LANGUAGES`] languages, at most [`MAX_WAYS`], the last kept for
/// the part named for its unnamed children and the rest beside the first big part, when
/// there are. `unit` is what the ways' counts count.
fn choose(ranked: &RankedWays, on_page: &[(&FileFacts, usize)], unit: CountUnit) -> Vec<Narrow> {
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
    let room = MAX_WAYS.saturating_sub(ranked.ways.iter().filter(|c| kept(c)).count());
    let mut others = 0;
    for c in &ranked.ways {
        if ways.len() == MAX_WAYS {
            break;
        }
        if others >= room && !kept(c) {
            continue;
        }
        if shown
            .get(&Key::of(&c.by))
            .is_some_and(|&s| s as f64 >= c.tally.items)
        {
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
        });
    }
    ways
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::census::CountedFile;

    /// A census of one file per entry: `repo path language`, entries separated by `;`, each
    /// repeated `N` times as `path` with `#` replaced by 0..N when it is `repo path lang *N`.
    fn census(table: &str, unit: CountUnit) -> Arc<CensusPart> {
        let mut files = Vec::new();
        for entry in table.split(';').map(str::trim).filter(|e| !e.is_empty()) {
            let f: Vec<&str> = entry.split_whitespace().collect();
            let copies: usize = f
                .get(3)
                .map_or(1, |n| n.trim_start_matches('*').parse().unwrap());
            for i in 0..copies {
                files.push(CountedFile {
                    repo: f[0].into(),
                    path: f[1].replace('#', &i.to_string()),
                    language: f[2].into(),
                    items: 1,
                });
            }
        }
        let n = files.len() as u64;
        Arc::new(CensusPart::of_counted(files, CountKind::Exact, unit, n))
    }

    /// A way in short words (the form words it for a reader; the engine's tests name it
    /// plainly).
    fn words(by: &NarrowBy) -> String {
        match by {
            NarrowBy::Repo(r) => format!("repository {r}"),
            NarrowBy::Language(l) => format!("language {l}"),
            NarrowBy::Directory { repo: None, dir } => format!("directory {dir}"),
            NarrowBy::Directory { repo: Some(r), dir } => format!("directory {dir} of {r}"),
            NarrowBy::Files { dir, .. } => format!("the files directly in {dir}"),
            NarrowBy::Group(run) => format!(
                "run {}{}",
                run.dir.as_deref().unwrap_or("repo "),
                run.pattern(|s| s.into())
            ),
            NarrowBy::Rest(part) => format!("all but {}", words(part)),
        }
    }

    /// The ways, best first, as `way: items` separated by `; `.
    fn ways(n: &Narrowing) -> String {
        let ways: Vec<String> = n
            .ways
            .iter()
            .map(|w| format!("{}: {}", words(&w.by), w.items))
            .collect();
        ways.join("; ")
    }

    #[test]
    fn a_census_cut_before_later_repositories_offers_runs_into_them_not_counted() {
        let table = "anyhow src/a#.rs Rust *30; go-toolchain src/b#.go Go *50; \
                     pin-project src/c#.rs Rust *20";
        let whole = narrowing(&census(table, CountUnit::Files), &[]).expect("ways");
        assert!(whole.uncounted.is_empty(), "Zoekt searched every shard");
        let mut cut = Arc::try_unwrap(census(table, CountUnit::Files)).expect("one owner");
        cut.shards_unsearched = true;
        let n = narrowing(&Arc::new(cut), &[]).expect("ways");
        // After pin-project, the last name counted: the letters after p, and the rest of p.
        let runs: Vec<String> = n.uncounted.iter().map(words).collect();
        assert_eq!(runs, ["run repo [q-zQ-Z]", "run repo p[j-zJ-Z]"]);
        // The counted ways are the same.
        assert_eq!(ways(&n), ways(&whole));
        // One repository counted: whether the index holds others is not known.
        let mut one = Arc::try_unwrap(census("solo a/b#.go Go *40", CountUnit::Files)).unwrap();
        one.shards_unsearched = true;
        assert!(
            narrowing(&Arc::new(one), &[])
                .expect("ways")
                .uncounted
                .is_empty()
        );
    }

    #[test]
    fn a_result_spread_over_the_top_directories_names_them_biggest_first() {
        let c = census(
            "m go-toolchain/src/a#.go Go *40; m go-modules/x/b#.go Go *30; \
             m rust-crates/t/c#.rs Rust *20; m python/3.11/d#.py Python *6; \
             m npm/p/e#.js JavaScript *3; m c-include/f#.h C *1",
            CountUnit::Files,
        );
        let n = narrowing(&c, &[]).expect("ways");
        assert_eq!(
            (n.counts, n.unit, n.files_read, n.files_total),
            (CountKind::Exact, CountUnit::Files, 100, 100)
        );
        // Each top directory cuts the result, the biggest first; Rust is rust-crates/ again
        // and Python python/ again (the same files), so no language is named.
        // Go (70 of 100) keeps most of the result: no way to narrow.
        assert_eq!(
            ways(&n),
            "directory go-modules/: 30; directory rust-crates/: 20; directory python/: 6; \
             directory npm/: 3; directory c-include/: 1; directory go-toolchain/: 40"
        );
    }

    #[test]
    fn the_list_goes_down_through_a_part_holding_most_and_names_it_when_much_is_unnamed() {
        // One crate; its src/ holds 90 of 100 files, in twenty subdirectories of 4 or 5,
        // more than the list has places (the tokio: four named directories held
        // 3,748 of 5,239 results, and neither src/task/ nor src/ itself was named).
        let mut table = String::from("m t/tests/x#.rs Rust *6; m t/benches/y#.rs Rust *4;");
        for (i, d) in [
            "io", "net", "runtime", "sync", "task", "time", "fs", "process", "signal", "util",
            "macros", "loom", "doc", "fuzz", "future", "stream", "blocking", "coop", "trace",
            "park",
        ]
        .iter()
        .enumerate()
        {
            let n = if i < 9 { 5 } else { 4 };
            table.push_str(&format!(" m t/src/{d}/f#.rs Rust *{n};"));
        }
        table.push_str(" m t/src/lib.rs Rust");
        let n = narrowing(&census(&table, CountUnit::Files), &[]).expect("ways");
        let said = ways(&n);
        // Not the crate, not t/src/ (each keeps most of the result): src/'s twenty-one
        // entries in runs by name and directories, then the parts beside src/, biggest first.
        assert_eq!(
            said,
            "run t/src/[sS]: 14; run t/src/[tT]: 14; run t/src/[fF]: 13; \
             run t/src/[l-mL-M]: 9; run t/src/[pP]: 9; run t/src/[b-cB-C]: 8; \
             directory t/tests/: 6; directory t/src/io/: 5; directory t/src/net/: 5; \
             directory t/src/runtime/: 5; directory t/benches/: 4; directory t/src/doc/: 4; \
             directory t/src/util/: 4; the files directly in t/src/: 1"
        );
        // Every file of the result is in a way: a model following them reaches any of it.
        for f in &census(&table, CountUnit::Files).files {
            let holding = n.ways.iter().filter(|w| holds(&w.by, &f.path)).count();
            assert!(holding >= 1, "{} is in no way: {said}", f.path);
        }
        // Called, a run is the whole result: its directories one by one (those that cut it
        // three times first).
        let run: String = table
            .split(';')
            .filter(|e| {
                ["/time/", "/task/", "/trace/"]
                    .iter()
                    .any(|d| e.contains(d))
            })
            .collect::<Vec<_>>()
            .join(";");
        let deeper = narrowing(&census(&run, CountUnit::Files), &[]).expect("ways");
        assert_eq!(
            ways(&deeper),
            "directory t/src/trace/: 4; directory t/src/task/: 5; directory t/src/time/: 5"
        );
    }

    /// Whether the way `by` holds `path` (of the only repository), as Zoekt's filter would.
    fn holds(by: &NarrowBy, path: &str) -> bool {
        match by {
            NarrowBy::Directory { dir, .. } => path.starts_with(dir.as_str()),
            NarrowBy::Files { dir, .. } => path
                .strip_prefix(dir.as_str())
                .is_some_and(|rest| !rest.contains('/')),
            NarrowBy::Group(Run {
                dir: Some(dir),
                start,
                initial,
                ..
            }) => path
                .strip_prefix(dir.as_str())
                .is_some_and(|rest| group::in_run(rest, start, *initial)),
            NarrowBy::Rest(part) => !holds(part, path),
            _ => false,
        }
    }

    /// `func main` in python-3.12: `test/` holds 62% of the result, and its runs, each
    /// bigger than any of the small directories beside it, took every place. Here test/
    /// holds 312 of 492 files in 26 directories, cut into runs of 24; beside it twenty
    /// directories of nine files each, cut into runs of 18.
    #[test]
    fn the_rest_beside_a_big_part_is_a_way_when_its_parts_fall_off_the_list() {
        let mut table = String::new();
        for t in 'a'..='z' {
            table.push_str(&format!("m test/{t}x/x#.py Python *12; "));
        }
        let beside: Vec<String> = ('a'..='t').map(|c| format!("{c}{c}/")).collect();
        for dir in &beside {
            table.push_str(&format!("m {dir}y#.py Python *9; "));
        }
        let n = narrowing(&census(&table, CountUnit::Files), &[]).expect("ways");
        let said = ways(&n);
        assert!(n.ways.len() <= MAX_WAYS, "{said}");
        // 492 files, 312 of them in test/.
        let rest = n
            .ways
            .iter()
            .find(|w| matches!(w.by, NarrowBy::Rest(_)))
            .unwrap_or_else(|| panic!("no rest: {said}"));
        assert_eq!(words(&rest.by), "all but directory test/", "{said}");
        assert_eq!(rest.items, 180, "{said}");
        assert!(rest.kept, "{said}");
        // Without it, some directory beside test/ would be in no way.
        let other: Vec<&Narrow> = n.ways.iter().filter(|w| !w.kept).collect();
        assert!(
            beside
                .iter()
                .any(|dir| !other.iter().any(|w| holds(&w.by, &format!("{dir}y0.py")))),
            "{said}"
        );
        // Called, the rest (those twenty directories) names each of them in a way.
        let table: String = beside
            .iter()
            .map(|d| format!("m {d}y#.py Python *9; "))
            .collect();
        let called = narrowing(&census(&table, CountUnit::Files), &[]).expect("ways");
        for dir in &beside {
            let path = format!("{dir}y0.py");
            let held = called.ways.iter().any(|w| holds(&w.by, &path));
            assert!(held, "{path}: {}", ways(&called));
        }
    }

    /// The same over repositories: one holds 600 of 860 files, 52 small ones beside it
    /// (`alib`, `autil` .. `zutil`) 5 each, in runs of under 5% of the result.
    #[test]
    fn the_rest_beside_a_big_repository_leaves_it_out() {
        let mut table = String::from("big a/x#.go Go *600; ");
        for c in 'a'..='z' {
            table.push_str(&format!("{c}lib s/y#.go Go *5; {c}util s/y#.go Go *5; "));
        }
        let n = narrowing(&census(&table, CountUnit::Files), &[]).expect("ways");
        let said = ways(&n);
        assert!(said.contains("all but repository big: 260"), "{said}");
    }

    /// A directory named without capitals is matched in either case: with a twin in another
    /// case beside it, leaving it out would leave out the twin too, which the rest counts.
    #[test]
    fn no_rest_beside_a_directory_with_a_twin_in_another_case() {
        let mut table = String::new();
        for t in 'a'..='z' {
            table.push_str(&format!("m test/{t}x/x#.py Python *12; "));
        }
        for c in 'a'..='t' {
            table.push_str(&format!("m {c}{c}/y#.py Python *9; "));
        }
        table.push_str("m Test/z.py Python");
        let n = narrowing(&census(&table, CountUnit::Files), &[]).expect("ways");
        assert!(!ways(&n).contains("all but"), "{}", ways(&n));
    }

    /// Beside a big part, two directories each holding a large share keep their own places:
    /// the rest would say nothing more.
    #[test]
    fn no_rest_when_the_parts_beside_the_big_one_are_named() {
        let mut table = String::new();
        for t in 'a'..='z' {
            table.push_str(&format!("m test/{t}x/x#.py Python *12; "));
        }
        table.push_str("m aa/y#.py Python *90; m bb/y#.py Python *90");
        let n = narrowing(&census(&table, CountUnit::Files), &[]).expect("ways");
        let said = ways(&n);
        assert!(
            said.contains("directory aa/: 90") && said.contains("directory bb/: 90"),
            "{said}"
        );
        assert!(!said.contains("all but"), "{said}");
    }

    /// `find_references self` on the monorepo: python/ holds most, its Python 3s each hold
    /// more than python/2.7/ beside them, and took every place: 6% of the result was in no
    /// way. Here sixteen Python 3s, more than the list's places, so that python/ is cut into
    /// runs and the chain goes down through the run of Python 3s.
    #[test]
    fn a_large_part_beside_the_big_one_keeps_its_place() {
        let mut table = String::from(
            "m python/2.7/a#.py Python *105; m rust-crates/x/b#.rs Rust *70; \
             m go/c#.go Go *65;",
        );
        for minor in 0..=15 {
            table.push_str(&format!(" m python/3.{minor}/d#.py Python *110;"));
        }
        let n = narrowing(&census(&table, CountUnit::Files), &[]).expect("ways");
        let said = ways(&n);
        assert!(said.contains("directory python/2.7/: 105"), "{said}");
        let kept: Vec<_> = n.ways.iter().filter(|w| w.kept).map(|w| &w.by).collect();
        assert!(
            kept.contains(&&NarrowBy::Directory {
                repo: None,
                dir: "python/2.7/".into()
            }),
            "{said}"
        );
        assert!(n.ways.len() <= MAX_WAYS, "{said}");
    }

    /// The same with four large parts beside python/, which keep their places: of its
    /// thirteen Python 3s (as many entries as the list has places, so not cut into runs),
    /// those that fit are most of it, but each one left out holds 5.6% of the result; the
    /// part is named too, so that they are one call away.
    #[test]
    fn a_large_part_left_out_inside_the_big_one_is_one_call_away() {
        let mut table = String::from(
            "m rust-crates/x/b#.rs Rust *60; m go/c#.go Go *60; m npm/d#.js JavaScript *60; \
             m c-include/e#.h C *60;",
        );
        for minor in 0..=12 {
            table.push_str(&format!(" m python/3.{minor}/d#.py Python *50;"));
        }
        let n = narrowing(&census(&table, CountUnit::Files), &[]).expect("ways");
        let said = ways(&n);
        assert!(said.contains("directory python/: 650"), "{said}");
        assert!(!said.contains("directory python/3.9/"), "{said}");
        assert!(n.ways.len() <= MAX_WAYS, "{said}");
    }

    /// A census of repositories: `big` (name, files) and four small ones of one file for each
    /// letter from a to z; with every repository's name.
    fn repositories(big: &[(&str, u32)]) -> (Arc<CensusPart>, Vec<String>) {
        let mut table = String::new();
        let mut names = Vec::new();
        for (name, files) in big {
            table.push_str(&format!("{name} src/a#.go Go *{files}; "));
            names.push(name.to_string());
        }
        for letter in 'a'..='z' {
            for i in 0..4 {
                table.push_str(&format!("{letter}{i} b.go Go; "));
                names.push(format!("{letter}{i}"));
            }
        }
        (census(table.trim_end(), CountUnit::Files), names)
    }

    /// The repositories of `names` no way selects, by its name or in a run.
    fn unnamed<'n>(n: &Narrowing, names: &'n [String]) -> Vec<&'n String> {
        names
            .iter()
            .filter(|name| {
                !n.ways.iter().any(|w| match &w.by {
                    NarrowBy::Repo(r) => r == *name,
                    NarrowBy::Group(run) => {
                        run.dir.is_none() && group::in_run(name, &run.start, run.initial)
                    }
                    _ => false,
                })
            })
            .collect()
    }

    /// A level of a hundred small repositories and one or two of a tenth (`go-toolchain` and
    /// `c-include` for `search_symbols parse`; `x-sys` among other `x` repositories for
    /// `files_with_matches "func main"`): its runs name every repository. Entries of a tenth
    /// named alone (c1aca16, reverted) had the runs around them cut again into more than the
    /// level's places, and the smallest, left out of the list, took their results with them.
    #[test]
    fn a_level_of_one_or_two_big_entries_among_many_small_ones_names_every_entry() {
        for big in [&[("go", 12), ("c-inc", 11)][..], &[("x-sys", 10)][..]] {
            let (c, names) = repositories(big);
            let n = narrowing(&c, &[]).expect("ways");
            let said = ways(&n);
            assert_eq!(unnamed(&n, &names), Vec::<&String>::new(), "{said}");
            assert!(n.ways.len() <= MAX_WAYS, "{said}");
        }
    }

    #[test]
    fn a_run_never_holds_a_big_entry_named_beside_it() {
        // /usr/include: linux/ and llvm-14/ hold most; dozens of small headers and folders
        // beside them, some starting with `l` too.
        let mut table = String::from("m inc/linux/a#.h C *40; m inc/llvm-14/b#.h C *30;");
        let mut paths = Vec::new();
        for name in [
            "limits", "locale", "libgen", "link", "assert", "ctype", "errno", "fcntl", "math",
            "stdio", "stdlib", "string", "time", "unistd", "wchar", "zlib",
        ] {
            table.push_str(&format!(" m inc/{name}.h C; m inc/{name}x/c#.h C *2;"));
            paths.push(format!("inc/{name}.h"));
            paths.push(format!("inc/{name}x/c0.h"));
        }
        let n = narrowing(&census(&table, CountUnit::Files), &[]).expect("ways");
        let said = ways(&n);
        // Cut around both, the parts beside them still hold every header and folder.
        let unreached: Vec<&String> = paths
            .iter()
            .filter(|p| !n.ways.iter().any(|w| holds(&w.by, p)))
            .collect();
        assert_eq!(unreached, Vec::<&String>::new(), "{said}");
        for big in ["linux/", "llvm-14/"] {
            assert!(said.contains(&format!("directory inc/{big}")), "{said}");
            for w in &n.ways {
                if let NarrowBy::Group(run) = &w.by {
                    assert!(
                        !group::in_run(big, &run.start, run.initial),
                        "{big} in {said}"
                    );
                }
            }
        }
    }

    /// `search_symbols init` in python-2.7 (its `Lib/`, raw Zoekt's `type:file`): test/ and
    /// idlelib/ named alone, 18 directories and 130 files beside them. The run that would
    /// hold idlelib/ was cut finer around it, into more parts than the level had places, and
    /// the smallest (json/, `[j-kJ-K]`) fell off the list: no way held decoder.py.
    #[test]
    fn a_level_cut_around_its_big_entries_still_names_every_entry() {
        let dirs = "bsddb 7 compiler 9 config 2 ctypes 9 curses 2 distutils 48 email 16 \
                    encodings 6 hotshot 3 idlelib 68 json 2 lib-tk 15 lib2to3 17 logging 3 \
                    multiprocessing 12 sqlite3 1 test 156 unittest 14 wsgiref 4 xml 12";
        let files = "Bastion ConfigParser Cookie DocXMLRPCServer HTMLParser MimeWriter Queue \
            SimpleXMLRPCServer SocketServer StringIO UserDict UserList UserString __future__ \
            _abcoll _osx_support _pyio _strptime _weakrefset aifc argparse asynchat asyncore \
            audiodev bdb binhex calendar cgi cgitb chunk cmd code codecs codeop collections \
            contextlib cookielib copy csv decimal difflib doctest dumbdbm dummy_thread filecmp \
            fileinput formatter ftplib functools getopt gettext gzip hmac htmllib httplib \
            ihooks imaplib imputil inspect locale mailbox markupbase mhlib mimetools mimetypes \
            mimify modulefinder multifile mutex netrc nntplib optparse os pdb pickle \
            pickletools pipes pkgutil platform plistlib popen2 poplib pprint profile pstats \
            py_compile pyclbr pydoc random re repr rexec rfc822 rlcompleter robotparser runpy \
            sched sets sgmllib shelve site smtpd smtplib socket sre_parse ssl string \
            subprocess sunau symtable sysconfig tabnanny telnetlib tempfile textwrap \
            threading timeit tokenize trace urllib urllib2 uuid warnings wave weakref \
            webbrowser xdrlib xmllib xmlrpclib zipfile";
        let mut table = String::new();
        let mut paths = Vec::new();
        let words: Vec<&str> = dirs.split_whitespace().collect();
        for pair in words.chunks(2) {
            table.push_str(&format!("m {}/d#.py Python *{}; ", pair[0], pair[1]));
            paths.push(format!("{}/d0.py", pair[0]));
        }
        for name in files.split_whitespace() {
            table.push_str(&format!("m {name}.py Python; "));
            paths.push(format!("{name}.py"));
        }
        // Three C files: a language of under 1%, which would take a place of the tree's.
        table.push_str("m ctypes/c#.c C *3");
        let n = narrowing(&census(&table, CountUnit::Files), &[]).expect("ways");
        let said = ways(&n);
        let unreached: Vec<&String> = paths
            .iter()
            .filter(|p| !n.ways.iter().any(|w| holds(&w.by, p)))
            .collect();
        assert_eq!(unreached, Vec::<&String>::new(), "{said}");
        assert!(n.ways.len() <= MAX_WAYS, "{said}");
        assert!(!said.contains("language C"), "{said}");
    }

    #[test]
    fn a_flat_directory_of_many_files_is_cut_into_runs_by_name() {
        // go-toolchain/test/fixedbugs/: 2,047 files, no subdirectory; here bug* and issue*.
        let n = narrowing(
            &census(
                "m test/fixedbugs/bug#.go Go *40; m test/fixedbugs/issue#.go Go *200; \
                 m test/a#.go Go *5",
                CountUnit::Files,
            ),
            &[],
        )
        .expect("ways");
        let said = ways(&n);
        assert!(said.contains("run test/fixedbugs/issue"), "{said}");
        // bug* as one run, issue* by the digit after `issue`, a file alone to its end, and
        // test/'s own files.
        assert_eq!(
            said,
            "run test/fixedbugs/[bB]: 40; run test/fixedbugs/issue2: 11; \
             run test/fixedbugs/issue3: 11; run test/fixedbugs/issue4: 11; \
             run test/fixedbugs/issue5: 11; run test/fixedbugs/issue6: 11; \
             run test/fixedbugs/issue7: 11; run test/fixedbugs/issue8: 11; \
             run test/fixedbugs/issue9: 11; the files directly in test/: 5; \
             run test/fixedbugs/issue1: 111; run test/fixedbugs/issue0.go$: 1"
        );
        for f in &census(
            "m test/fixedbugs/bug#.go Go *40; m test/fixedbugs/issue#.go Go *200",
            CountUnit::Files,
        )
        .files
        {
            assert!(
                n.ways.iter().any(|w| holds(&w.by, &f.path)),
                "{}: {said}",
                f.path
            );
        }
    }

    #[test]
    fn a_directorys_own_files_are_a_way_of_their_own() {
        // `printf lang:C`: c-include/ holds most of the result, in node/ and linux/ and in
        // its own files (stdio.h): those are reachable too.
        let n = narrowing(
            &census(
                "m c-include/node/n#.h C *30; m c-include/linux/l#.h C *25; \
                 m c-include/s#.h C *20; m go-toolchain/src/c#.c C *15; m python/p#.c C *10",
                CountUnit::Files,
            ),
            &[],
        )
        .expect("ways");
        let said = ways(&n);
        assert!(
            said.contains("the files directly in c-include/: 20"),
            "{said}"
        );
        assert!(said.contains("directory c-include/node/: 30"), "{said}");
        assert!(said.contains("directory go-toolchain/: 15"), "{said}");
    }

    #[test]
    fn several_repositories_are_parts_and_a_big_one_is_gone_down_through() {
        // Repository a holds 60 of 100 files: its directories, named with it, and the other
        // repositories.
        let n = narrowing(
            &census(
                "a src/x#.go Go *35; a lib/y#.go Go *25; b z#.py Python *25; c w#.rs Rust *15",
                CountUnit::Results,
            ),
            &[],
        )
        .expect("ways");
        // Those that cut three times first (Python and Rust are b and c again), then a's
        // src/ (35 of 100).
        assert_eq!(
            ways(&n),
            "repository b: 25; directory lib/ of a: 25; repository c: 15; \
             directory src/ of a: 35"
        );
    }

    #[test]
    fn a_part_that_cuts_less_than_three_times_is_named_beside_many_that_do() {
        // One repository holds 38 of 100 files, twenty-four others 2 or 3 each (in Python),
        // more than the list has places: they cut the result more, but the big one is the
        // way to most of it.
        let mut table = String::from("go-toolchain src/m#.go Go *38;");
        for i in 0..24 {
            let n = if i < 14 { 3 } else { 2 };
            table.push_str(&format!(" r{i} x/m#.py Python *{n};"));
        }
        let n = narrowing(&census(&table, CountUnit::Files), &[]).expect("ways");
        // go-toolchain one by one; the twenty-four r* repositories (62 of 100) share their
        // start, so their runs are by the digit after `r` (r1, r10 to r19): together they
        // hold all twenty-four.
        assert_eq!(
            ways(&n),
            "run repo r1: 27; run repo r2: 11; repository r0: 3; repository r3: 3; \
             repository r4: 3; repository r5: 3; repository r6: 3; repository r7: 3; \
             repository r8: 3; repository r9: 3; repository go-toolchain: 38"
        );
        // go-toolchain (38 of 100) cuts the result less than three times: it keeps a place.
        let kept: Vec<_> = n.ways.iter().filter(|w| w.kept).map(|w| &w.by).collect();
        assert_eq!(kept, [&NarrowBy::Repo("go-toolchain".into())]);
    }

    #[test]
    fn a_way_the_page_shows_whole_is_left_out() {
        let c = census(
            "m docs/a.md Markdown; m docs/b.md Markdown; m go/x#.go Go *4; m rust/y#.rs Rust *4",
            CountUnit::Results,
        );
        let facts = |path: &str| FileFacts {
            repo: "m".into(),
            path: path.into(),
            language: "Markdown".into(),
            item_end: 0,
            matches: 1,
            with_lines: false,
        };
        let (a, b) = (facts("docs/a.md"), facts("docs/b.md"));
        let n = narrowing(&c, &[(&a, 1), (&b, 1)]).expect("ways");
        let said = ways(&n);
        assert!(
            !said.contains("docs/") && !said.contains("Markdown"),
            "{said}"
        );
        assert!(said.contains("directory go/: 4"), "{said}");
    }

    #[test]
    fn a_result_all_in_one_place_has_no_way_to_narrow() {
        let c = census("a x/1.go Go; a x/2.go Go", CountUnit::Results);
        assert_eq!(narrowing(&c, &[]), None);
    }

    #[test]
    fn broad_means_more_than_three_pages_or_past_the_ceiling() {
        assert!(!is_broad(90, 30, 5_000));
        assert!(is_broad(91, 30, 5_000));
        assert!(is_broad(6_000, 100, 5_000));
        assert!(!is_broad(3, 1, 5_000));
    }
}
