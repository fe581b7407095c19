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

use super::census::{CensusPart, CountKind};

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
    /// Zoekt's matches in the file (its matching lines, and the file name when that
    /// matched), the unit of Zoekt's own match count.
    pub matches: u32,
}

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

/// The most characters suggestions take in either form of a page (the MCP layer drops ways
/// until they fit): a page with suggestions leaves them this much of its token budget.
pub const MAX_CHARS: usize = 700;
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
#[derive(Default)]
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

/// The ways to narrow the result counted by `census` (one part per backend query), leaving
/// out those that hold only what `on_page` (the page's files, each with its items on the
/// page) already shows. `None` when no way would cut it.
pub fn narrowing(census: &[CensusPart], on_page: &[(&FileFacts, usize)]) -> Option<Narrowing> {
    let counts = CountKind::of_all(census.iter().map(|p| p.kind));
    let whole: f64 = census
        .iter()
        .flat_map(|p| p.files.iter().map(move |f| f64::from(f.items) * p.scale))
        .sum();
    if whole <= 0.0 {
        return None;
    }
    let repos: HashSet<&str> = census
        .iter()
        .flat_map(|p| p.files.iter().map(|f| f.repo.as_str()))
        .collect();
    let several_repos = repos.len() > 1;
    let dir_of = |repo: &str, dir: &str| NarrowBy::Directory {
        repo: several_repos.then(|| repo.to_string()),
        dir: dir.to_string(),
    };
    let mut tallies: HashMap<NarrowBy, Tally> = HashMap::new();
    // A file of two parts (a definition and a usage) is one file of each way it is in.
    let mut seen_files: HashSet<(NarrowBy, u64)> = HashSet::new();
    for part in census {
        for f in part.files.iter().filter(|f| f.items > 0) {
            let file = fingerprint(&f.repo, &f.path);
            let mut add = |by: NarrowBy| {
                let new_file = seen_files.insert((by.clone(), file));
                let t = tallies.entry(by).or_default();
                t.items += f64::from(f.items) * part.scale;
                t.counted += u64::from(f.items);
                if new_file {
                    t.files += 1;
                    t.which ^= file;
                }
            };
            if several_repos {
                add(NarrowBy::Repo(f.repo.clone()));
            }
            if !f.language.is_empty() {
                add(NarrowBy::Language(f.language.clone()));
            }
            // Every directory the file is in, but not the file itself.
            for (at, _) in f.path.match_indices('/') {
                add(dir_of(&f.repo, &f.path[..=at]));
            }
        }
    }
    // What the page shows of each way: a way whose every counted item is on it is the
    // page again, not a way to narrow.
    let mut shown: HashMap<NarrowBy, u64> = HashMap::new();
    for (f, items) in on_page {
        let mut add = |by: NarrowBy| *shown.entry(by).or_default() += *items as u64;
        add(NarrowBy::Repo(f.repo.clone()));
        add(NarrowBy::Language(f.language.clone()));
        for (at, _) in f.path.match_indices('/') {
            add(dir_of(&f.repo, &f.path[..=at]));
        }
    }
    // A directory is worth naming only at the depth where it stops holding every file its
    // parent holds (`a/b/c/` rather than `a/` and `a/b/`, when those hold the same files).
    let mut same_as_a_child: HashSet<NarrowBy> = HashSet::new();
    for (by, t) in &tallies {
        if let NarrowBy::Directory { repo, dir } = by
            && let Some(parent) = parent_dir(dir)
        {
            let parent = NarrowBy::Directory {
                repo: repo.clone(),
                dir: parent.to_string(),
            };
            if tallies.get(&parent).is_some_and(|p| p.which == t.which) {
                same_as_a_child.insert(parent);
            }
        }
    }
    let mut candidates: Vec<(NarrowBy, Tally)> = tallies
        .into_iter()
        .filter(|(by, t)| match by {
            // A directory of one file is the file: no way to narrow.
            NarrowBy::Directory { .. } => t.files >= 2 && !same_as_a_child.contains(by),
            _ => true,
        })
        .filter(|(_, t)| t.items <= whole * MAX_SHARE)
        .filter(|(by, t)| shown.get(by).is_none_or(|&s| s < t.counted))
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
            .then(a.cmp(b))
    });
    let mut of_kind = [0usize; 3];
    let mut ways: Vec<Narrow> = Vec::new();
    let mut said = HashSet::new();
    for (by, t) in candidates {
        let kind = match by {
            NarrowBy::Repo(_) => 0,
            NarrowBy::Language(_) => 1,
            NarrowBy::Directory { .. } => 2,
        };
        if ways.len() == MAX_WAYS {
            break;
        }
        let nested = ways.iter().any(|w| nested_dirs(&w.by, &by));
        if of_kind[kind] == MAX_OF_A_KIND || nested || !said.insert(t.which) {
            continue;
        }
        of_kind[kind] += 1;
        ways.push(Narrow {
            by,
            items: (t.items.round() as u64).max(1),
        });
    }
    (!ways.is_empty()).then(|| Narrowing {
        ways,
        counts,
        files_read: census.iter().map(|p| p.files.len()).sum(),
        files_total: census.iter().map(|p| p.files_total).sum(),
    })
}

/// One directory inside the other, in the same repository: the second says little more.
fn nested_dirs(a: &NarrowBy, b: &NarrowBy) -> bool {
    match (a, b) {
        (NarrowBy::Directory { repo: ra, dir: da }, NarrowBy::Directory { repo: rb, dir: db }) => {
            ra == rb && (da.starts_with(db.as_str()) || db.starts_with(da.as_str()))
        }
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

    fn part(files: Vec<CountedFile>, exact: bool, scale: f64) -> CensusPart {
        let n = files.len() as u64;
        CensusPart {
            files,
            kind: if exact {
                CountKind::Exact
            } else {
                CountKind::About
            },
            scale,
            files_total: if exact { n } else { n * 10 },
        }
    }

    fn ways(n: &Narrowing) -> Vec<(String, u64)> {
        n.ways.iter().map(|w| (w.by.to_string(), w.items)).collect()
    }

    #[test]
    fn exact_counts_best_first_at_the_depth_that_tells_files_apart() {
        let census = [part(
            vec![
                file("a", "src/net/x.go", "Go", 3),
                file("a", "src/net/y.go", "Go", 3),
                file("b", "lib/z.py", "Python", 2),
                file("c", "lib/w.py", "Python", 2),
                file("d", "top.rs", "Rust", 1),
                file("e", "top2.rs", "Rust", 1),
            ],
            true,
            1.0,
        )];
        let n = narrowing(&census, &[]).expect("ways");
        assert_eq!(n.counts, CountKind::Exact);
        assert_eq!((n.files_read, n.files_total), (6, 6));
        // Those that cut three times or more first (4 of 12 items at most), by items; then
        // the rest. `src/` and `src/net/` of `a` hold the same files: only the deeper one is
        // named, and it is `Go` again (the same files), so it is left out; so is repository
        // `a`, a fifth repository. Directories are named with their repository here (`lib/`
        // of `b` is one file: none).
        assert_eq!(
            ways(&n),
            [
                ("language Python".to_string(), 4),
                ("repository b".to_string(), 2),
                ("repository c".to_string(), 2),
                ("language Rust".to_string(), 2),
                ("repository d".to_string(), 1),
                ("repository e".to_string(), 1),
                ("language Go".to_string(), 6),
            ]
        );
    }

    #[test]
    fn a_sample_is_scaled_and_a_way_on_the_page_alone_is_left_out() {
        // One repository: directories alone, no `repo:`. The page shows the two items of
        // `docs/`, all it holds: not a way to narrow.
        let census = [part(
            vec![
                file("mono", "docs/a.md", "Markdown", 1),
                file("mono", "docs/b.md", "Markdown", 1),
                file("mono", "go/net/x.go", "Go", 4),
                file("mono", "go/net/y.go", "Go", 4),
                file("mono", "go/os/z.go", "Go", 4),
                file("mono", "rust/a/x.rs", "Rust", 3),
                file("mono", "rust/a/y.rs", "Rust", 3),
                file("mono", "rust/b/y.rs", "Rust", 3),
                file("mono", "c/a/x.c", "C", 5),
                file("mono", "c/a/y.c", "C", 5),
            ],
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
        let n = narrowing(&census, &[(&a, 1), (&b, 1)]).expect("ways");
        assert_eq!(n.counts, CountKind::About);
        assert_eq!((n.files_read, n.files_total), (10, 100));
        // 33 items counted, 330 in all: a third is 110. Those that cut three times, by
        // items, then `Go` (120 of 330); `go/` is inside `go/net/`, and `C` and `c/a/` are
        // the same files. Markdown and `docs/` are the page's.
        assert_eq!(
            ways(&n),
            [
                ("language C".to_string(), 100),
                ("language Rust".to_string(), 90),
                ("directory go/net/".to_string(), 80),
                ("directory rust/a/".to_string(), 60),
                ("language Go".to_string(), 120),
            ]
        );
    }

    #[test]
    fn a_result_all_in_one_place_has_no_way_to_narrow() {
        let census = [part(
            vec![file("a", "x/1.go", "Go", 5), file("a", "x/2.go", "Go", 5)],
            true,
            1.0,
        )];
        assert_eq!(narrowing(&census, &[]), None);
        assert_eq!(narrowing(&[], &[]), None);
    }

    #[test]
    fn two_parts_count_a_file_once_and_add_its_items() {
        // find_references: definitions and usages of one file are one file.
        let defs = part(vec![file("a", "d/x.go", "Go", 1)], true, 1.0);
        let uses = part(
            vec![
                file("a", "d/x.go", "Go", 2),
                file("b", "d/y.go", "Go", 3),
                file("c", "e/z.go", "Go", 4),
                file("d", "e/w.go", "Go", 5),
            ],
            true,
            1.0,
        );
        let n = narrowing(&[defs, uses], &[]).expect("ways");
        assert_eq!(n.files_read, 5);
        assert!(ways(&n).contains(&("repository a".to_string(), 3)), "{n:?}");
    }

    #[test]
    fn broad_means_more_than_three_pages_or_past_the_ceiling() {
        assert!(!is_broad(90, 30, 5_000));
        assert!(is_broad(91, 30, 5_000));
        assert!(is_broad(6_000, 100, 5_000));
        assert!(!is_broad(3, 1, 5_000));
    }
}
