//! Ways to narrow a broad result: the repositories, languages and directories that hold the
//! most of its items, each with how many it holds, counted over the result's census
//! (`census.rs`: the whole result, or its best-ranked thousand files scaled to the total).
//!
//! A model's first query on a large monorepo is usually broad; paging through thousands of
//! items is not how it finds what it wants, and guessing a `repo:` or `lang:` filter costs it
//! a round trip. Code-search UIs answer this with filter lists and counts; this is that list,
//! for a reader that is a model: one list, best first, each way with its count, exact or
//! estimated as the census is.
//!
//! What makes a way good: it holds many results and still cuts the total (at least three
//! times for the first ones); it is not the page already on screen; it says something no way
//! before it says (not the same files, not a directory inside one already named). Directories
//! are named at the depth where they stop holding everything their parent holds, and with
//! their repository when the result spans several (`src/` means nothing across repositories).
//! Suggestions never change which items a page holds. The engine states each narrowing as
//! data ([`Narrow`]); the tools write it as a query in the backend's syntax.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::census::{CensusPart, CountKind, FileFacts};

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
}

impl std::fmt::Display for NarrowBy {
    /// In words: `repository gen-py-b`, `language Go`, `directory src/net/ of tokio`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NarrowBy::Repo(r) => write!(f, "repository {r}"),
            NarrowBy::Language(l) => write!(f, "language {l}"),
            NarrowBy::Directory { repo: None, dir } => write!(f, "directory {dir}"),
            NarrowBy::Directory {
                repo: Some(repo),
                dir,
            } => write!(f, "directory {dir} of {repo}"),
        }
    }
}

/// One way to narrow, with how many of the result's items it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Narrow {
    /// What it selects.
    pub by: NarrowBy,
    /// Items it holds in the whole result, as [`Narrowing::counts`] says: exactly, about
    /// (its share of the census, scaled to the total), or at least.
    pub items: u64,
}

/// The ways to narrow a result, best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Narrowing {
    /// Best first.
    pub ways: Vec<Narrow>,
    /// What the counts are worth.
    pub counts: CountKind,
    /// How many files the counts were read from (the best-ranked ones).
    pub files_read: usize,
    /// How many files the result holds, by the backend's count.
    pub files_total: u64,
}

/// At most this many ways are suggested.
pub const MAX_WAYS: usize = 8;
/// A result is broad when it holds more than this many pages at the asked limit.
pub const BROAD_PAGES: u64 = 3;
/// A narrowing must leave out at least half of the result: one that keeps nearly everything
/// (`lang:Go` on a Go monorepo) is no way to narrow.
const MAX_SHARE: f64 = 0.5;
/// One that keeps at most a third cuts the result at least three times: those come first.
const CUTTING_SHARE: f64 = 1.0 / 3.0;
/// The same with lower bounds: a fifth of what was counted, since the narrowed call finds
/// more than was counted (Zoekt searches further when fewer results fill its caps; measured
/// on a real monorepo, a way holding a quarter of the counted results held a third of the
/// narrowed call's).
const CUTTING_SHARE_AT_LEAST: f64 = 1.0 / 5.0;
/// A way holding less than this share of the result comes after every other.
const TINY_SHARE: f64 = 0.01;
/// Most suggestions of one kind (repositories, languages, directories), so that the list
/// offers different ways rather than the ten biggest directories.
const MAX_OF_A_KIND: usize = 4;

/// Whether a result of `total` items is broad at `limit` items a page, or past the paging
/// ceiling `max_offset`.
pub fn is_broad(total: u64, limit: u32, max_offset: u64) -> bool {
    total > BROAD_PAGES.saturating_mul(u64::from(limit.max(1))) || total > max_offset
}

/// What one candidate way holds.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    /// The result's items it holds (scaled).
    items: f64,
    /// Items counted (unscaled).
    counted: u64,
    /// Files it holds.
    files: usize,
    /// Which files (XOR of their fingerprints): two ways of the same files say one thing.
    which: u64,
}

/// A way as it is counted, naming what it selects by borrowed names (counting a census of
/// thousands of files allocates nothing per directory).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key<'a> {
    Repo(&'a str),
    Language(&'a str),
    Directory(Option<&'a str>, &'a str),
}

impl<'a> Key<'a> {
    /// The way `by` names, as counted.
    fn of(by: &'a NarrowBy) -> Key<'a> {
        match by {
            NarrowBy::Repo(r) => Key::Repo(r),
            NarrowBy::Language(l) => Key::Language(l),
            NarrowBy::Directory { repo, dir } => Key::Directory(repo.as_deref(), dir),
        }
    }

    /// A stable order among ways that hold as many results: repositories, languages, then
    /// directories, each by name (as [`NarrowBy`] orders).
    fn order(&self) -> (u8, Option<&'a str>, &'a str) {
        match *self {
            Key::Repo(r) => (0, None, r),
            Key::Language(l) => (1, None, l),
            Key::Directory(repo, dir) => (2, repo, dir),
        }
    }

    fn owned(self) -> NarrowBy {
        match self {
            Key::Repo(r) => NarrowBy::Repo(r.to_string()),
            Key::Language(l) => NarrowBy::Language(l.to_string()),
            Key::Directory(repo, dir) => NarrowBy::Directory {
                repo: repo.map(String::from),
                dir: dir.to_string(),
            },
        }
    }
}

/// A census's candidate ways, ranked, before the page they are shown on is known: what the
/// census alone decides, kept with it (`census.rs`) so that a page cut from a cached answer
/// does not count thousands of files again.
#[derive(Debug)]
pub struct RankedWays {
    ways: Vec<(NarrowBy, Tally)>,
    several_repos: bool,
    counts: CountKind,
    files_read: usize,
    files_total: u64,
}

/// Candidates kept after ranking: the page's own ways are left out of them afterwards, and a
/// page shows at most a hundred files' worth.
const MAX_CANDIDATES: usize = 256;

/// Counts and ranks the ways to narrow the result `census` (one part per backend query)
/// counted.
pub fn rank(census: &[&CensusPart]) -> RankedWays {
    let counts = CountKind::of_all(census.iter().map(|p| p.kind));
    let files_read = census.iter().map(|p| p.files.len()).sum();
    let files_total = census.iter().map(|p| p.files_total).sum();
    // One entry per file: a file of two parts (a definition and a usage) is one file.
    let mut files: HashMap<(&str, &str), (&str, f64, u64)> = HashMap::new();
    for part in census {
        for f in part.files.iter().filter(|f| f.items > 0) {
            let e = files.entry((f.repo.as_str(), f.path.as_str())).or_insert((
                f.language.as_str(),
                0.0,
                0,
            ));
            e.1 += f64::from(f.items) * part.scale;
            e.2 += u64::from(f.items);
        }
    }
    let whole: f64 = files.values().map(|(_, items, _)| items).sum();
    let several_repos = files
        .keys()
        .map(|(repo, _)| repo)
        .collect::<HashSet<_>>()
        .len()
        > 1;
    let mut tallies: HashMap<Key, Tally> = HashMap::new();
    for (&(repo, path), &(language, items, counted)) in &files {
        let file = fingerprint(repo, path);
        let mut add = |key| {
            let t: &mut Tally = tallies.entry(key).or_default();
            t.items += items;
            t.counted += counted;
            t.files += 1;
            t.which ^= file;
        };
        if several_repos {
            add(Key::Repo(repo));
        }
        if !language.is_empty() {
            add(Key::Language(language));
        }
        // Every directory the file is in, but not the file itself.
        for (at, _) in path.match_indices('/') {
            add(Key::Directory(several_repos.then_some(repo), &path[..=at]));
        }
    }
    // A directory is worth naming only at the depth where it stops holding every file its
    // parent holds (`a/b/c/` rather than `a/` and `a/b/`, when those hold the same files).
    let mut same_as_a_child: HashSet<Key> = HashSet::new();
    for (key, t) in &tallies {
        if let Key::Directory(repo, dir) = *key
            && let Some(parent) = parent_dir(dir)
        {
            let parent = Key::Directory(repo, parent);
            if tallies.get(&parent).is_some_and(|p| p.which == t.which) {
                same_as_a_child.insert(parent);
            }
        }
    }
    let mut candidates: Vec<(Key, Tally)> = tallies
        .into_iter()
        .filter(|(key, t)| match key {
            // A directory of one file is the file: no way to narrow.
            Key::Directory(..) => t.files >= 2 && !same_as_a_child.contains(key),
            _ => true,
        })
        .filter(|(_, t)| t.items <= whole * MAX_SHARE)
        .collect();
    // Best first: those that cut the result at least three times and still hold a share of
    // it worth naming, then those that cut it less, then the tiny ones (a language of twenty
    // results in tens of thousands is rarely what a broad query was after); in each group by
    // items held (the most that still cuts), then a stable order.
    let cutting = match counts {
        CountKind::AtLeast => CUTTING_SHARE_AT_LEAST,
        CountKind::Exact | CountKind::About => CUTTING_SHARE,
    };
    let group = |t: &Tally| {
        if t.items < whole * TINY_SHARE {
            2
        } else if t.items <= whole * cutting {
            0
        } else {
            1
        }
    };
    candidates.sort_by(|(a, ta), (b, tb)| {
        group(ta)
            .cmp(&group(tb))
            .then(tb.items.total_cmp(&ta.items))
            .then(a.order().cmp(&b.order()))
    });
    candidates.truncate(MAX_CANDIDATES);
    RankedWays {
        ways: candidates
            .into_iter()
            .map(|(key, t)| (key.owned(), t))
            .collect(),
        several_repos,
        counts,
        files_read,
        files_total,
    }
}

/// The ways to narrow the result counted by `census` (one part per backend query), leaving
/// out those that hold only what `on_page` (the page's files, each with its items on the
/// page) already shows. `None` when no way would cut it.
pub fn narrowing(census: &[Arc<CensusPart>], on_page: &[(&FileFacts, usize)]) -> Option<Narrowing> {
    let parts: Vec<&CensusPart> = census.iter().map(|p| p.as_ref()).collect();
    // Ranked once and kept with the first census, with the others it was ranked with
    // (find_references pairs its definitions' census with its usages'): a page cut from
    // cached answers does not count thousands of files again.
    let kept = census.split_first().and_then(|(first, others)| {
        let ranked = first.memo(|| (others.to_vec(), rank(&parts)))?;
        let same = ranked.0.len() == others.len()
            && ranked.0.iter().zip(others).all(|(a, b)| Arc::ptr_eq(a, b));
        same.then_some(ranked)
    });
    match kept {
        Some(ranked) => choose(&ranked.1, on_page),
        None => choose(&rank(&parts), on_page),
    }
}

/// The ways of `ranked` a page shows: not the page's own, at most [`MAX_OF_A_KIND`] of a
/// kind, none inside one already named nor of the very files of one, at most [`MAX_WAYS`].
fn choose(ranked: &RankedWays, on_page: &[(&FileFacts, usize)]) -> Option<Narrowing> {
    // What the page shows of each way: a way whose every counted item is on it is the
    // page again, not a way to narrow.
    let mut shown: HashMap<Key, u64> = HashMap::new();
    for (f, items) in on_page {
        let mut add = |key| *shown.entry(key).or_default() += *items as u64;
        add(Key::Repo(&f.repo));
        add(Key::Language(&f.language));
        for (at, _) in f.path.match_indices('/') {
            add(Key::Directory(
                ranked.several_repos.then_some(f.repo.as_str()),
                &f.path[..=at],
            ));
        }
    }
    let mut of_kind = [0usize; 3];
    let mut ways: Vec<Narrow> = Vec::new();
    let mut said = HashSet::new();
    for (by, t) in &ranked.ways {
        if ways.len() == MAX_WAYS {
            break;
        }
        if shown.get(&Key::of(by)).is_some_and(|&s| s >= t.counted) {
            continue;
        }
        let kind = match by {
            NarrowBy::Repo(_) => 0,
            NarrowBy::Language(_) => 1,
            NarrowBy::Directory { .. } => 2,
        };
        let nested = ways.iter().any(|w| nested(&w.by, by));
        if of_kind[kind] == MAX_OF_A_KIND || nested || !said.insert(t.which) {
            continue;
        }
        of_kind[kind] += 1;
        ways.push(Narrow {
            by: by.clone(),
            items: (t.items.round() as u64).max(1),
        });
    }
    (!ways.is_empty()).then_some(Narrowing {
        ways,
        counts: ranked.counts,
        files_read: ranked.files_read,
        files_total: ranked.files_total,
    })
}

/// One way inside the other (a directory of a repository, a directory inside another, in
/// the same repository): the second says little the first does not, and a narrowed call's
/// own first page suggests the deeper ways.
fn nested(a: &NarrowBy, b: &NarrowBy) -> bool {
    match (a, b) {
        (NarrowBy::Directory { repo: ra, dir: da }, NarrowBy::Directory { repo: rb, dir: db }) => {
            ra == rb && (da.starts_with(db.as_str()) || db.starts_with(da.as_str()))
        }
        (NarrowBy::Repo(r), NarrowBy::Directory { repo: Some(d), .. })
        | (NarrowBy::Directory { repo: Some(d), .. }, NarrowBy::Repo(r)) => r == d,
        _ => false,
    }
}

/// A number standing for one file: XORed together, they tell sets of files apart (the
/// standard library's SipHash with its fixed keys, so the same in every run).
fn fingerprint(repo: &str, path: &str) -> u64 {
    #[allow(deprecated)]
    let mut h = std::hash::SipHasher::new();
    repo.hash(&mut h);
    path.hash(&mut h);
    h.finish()
}

/// `a/b/` for `a/b/c/`; `None` for a top directory.
fn parent_dir(dir: &str) -> Option<&str> {
    let inner = dir.strip_suffix('/')?;
    inner.rfind('/').map(|i| &dir[..=i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::census::CountedFile;

    fn file(repo: &str, path: &str, language: &str, items: u32) -> CountedFile {
        CountedFile {
            repo: repo.into(),
            path: path.into(),
            language: language.into(),
            items,
        }
    }

    /// Files from a table: `repo path language items`, entries separated by `;`.
    fn files(table: &str) -> Vec<CountedFile> {
        table
            .split(';')
            .map(|entry| {
                let f: Vec<&str> = entry.split_whitespace().collect();
                file(f[0], f[1], f[2], f[3].parse().expect("items"))
            })
            .collect()
    }

    fn part(files: Vec<CountedFile>, exact: bool, scale: f64) -> CensusPart {
        let n = files.len() as u64;
        let kind = if exact {
            CountKind::Exact
        } else {
            CountKind::About
        };
        CensusPart::of_counted(files, kind, scale, if exact { n } else { n * 10 })
    }

    fn refs(census: [CensusPart; 1]) -> Vec<Arc<CensusPart>> {
        census.into_iter().map(Arc::new).collect()
    }

    /// The ways, best first, as `way: items` separated by `; `.
    fn ways(n: &Narrowing) -> String {
        let ways: Vec<String> = n
            .ways
            .iter()
            .map(|w| format!("{}: {}", w.by, w.items))
            .collect();
        ways.join("; ")
    }

    #[test]
    fn exact_counts_best_first_at_the_depth_that_tells_files_apart() {
        let census = [part(
            files(
                "a src/net/x.go Go 3; a src/net/y.go Go 3; b lib/z.py Python 2; \
                 c lib/w.py Python 2; d top.rs Rust 1; e top2.rs Rust 1",
            ),
            true,
            1.0,
        )];
        let n = narrowing(&refs(census), &[]).expect("ways");
        assert_eq!(n.counts, CountKind::Exact);
        assert_eq!((n.files_read, n.files_total), (6, 6));
        // Those that cut three times or more first (4 of 12 items at most), by items; then
        // the rest. `src/` and `src/net/` of `a` hold the same files: only the deeper one is
        // named, and it is `Go` again (the same files), so it is left out; so is repository
        // `a`, a fifth repository. Directories are named with their repository here (`lib/`
        // of `b` is one file: none).
        assert_eq!(
            ways(&n),
            "language Python: 4; repository b: 2; repository c: 2; language Rust: 2; \
             repository d: 1; repository e: 1; language Go: 6"
        );
    }

    #[test]
    fn a_sample_is_scaled_and_a_way_on_the_page_alone_is_left_out() {
        // One repository: directories alone, no `repo:`. The page shows the two items of
        // `docs/`, all it holds: not a way to narrow.
        let census = [part(
            files(
                "mono docs/a.md Markdown 1; mono docs/b.md Markdown 1; mono go/net/x.go Go 4; \
                 mono go/net/y.go Go 4; mono go/os/z.go Go 4; mono rust/a/x.rs Rust 3; \
                 mono rust/a/y.rs Rust 3; mono rust/b/y.rs Rust 3; mono c/a/x.c C 5; \
                 mono c/a/y.c C 5",
            ),
            false,
            10.0,
        )];
        let facts = |path: &str| FileFacts {
            repo: "mono".into(),
            path: path.into(),
            language: "Markdown".into(),
            item_end: 0,
            matches: 1,
        };
        let (a, b) = (facts("docs/a.md"), facts("docs/b.md"));
        let n = narrowing(&refs(census), &[(&a, 1), (&b, 1)]).expect("ways");
        assert_eq!(n.counts, CountKind::About);
        assert_eq!((n.files_read, n.files_total), (10, 100));
        // 33 items counted, 330 in all: a third is 110. Those that cut three times, by
        // items, then `Go` (120 of 330); `go/` is inside `go/net/`, and `C` and `c/a/` are
        // the same files. Markdown and `docs/` are the page's.
        assert_eq!(
            ways(&n),
            "language C: 100; language Rust: 90; directory go/net/: 80; directory rust/a/: 60; \
             language Go: 120"
        );
    }

    #[test]
    fn a_result_all_in_one_place_has_no_way_to_narrow() {
        let census = [part(
            vec![file("a", "x/1.go", "Go", 5), file("a", "x/2.go", "Go", 5)],
            true,
            1.0,
        )];
        assert_eq!(narrowing(&refs(census), &[]), None);
        assert_eq!(narrowing(&[], &[]), None);
    }

    #[test]
    fn two_parts_count_a_file_once_and_add_its_items() {
        // find_references: definitions and usages of one file are one file.
        let defs = part(vec![file("a", "d/x.go", "Go", 1)], true, 1.0);
        let uses = part(
            files("a d/x.go Go 2; b d/y.go Go 3; c e/z.go Go 4; d e/w.go Go 5"),
            true,
            1.0,
        );
        let n = narrowing(&[Arc::new(defs), Arc::new(uses)], &[]).expect("ways");
        assert_eq!(n.files_read, 5);
        assert!(ways(&n).contains("repository a: 3"), "{n:?}");
    }

    #[test]
    fn broad_means_more_than_three_pages_or_past_the_ceiling() {
        assert!(!is_broad(90, 30, 5_000));
        assert!(is_broad(91, 30, 5_000));
        assert!(is_broad(6_000, 100, 5_000));
        assert!(!is_broad(3, 1, 5_000));
    }
}
