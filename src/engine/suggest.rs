//! Ways to narrow a broad result: the repositories, languages and directories that hold the
//! most of its items, each with how many it holds, read off the files a page already fetched.
//!
//! A model's first query on a large monorepo is usually broad; paging through thousands of
//! items is not how it finds what it wants, and guessing a `repo:` or `lang:` filter costs it
//! a round trip. Code-search UIs answer this with filter lists and counts; this is that list,
//! for a reader that is a model.
//!
//! The counts come from the fetched window, never from an extra request: exact when the window
//! holds the whole result, and otherwise counts among the window's items, said so ("12 of
//! the first 31 results"). The window holds the best-ranked files, not a random sample, so a
//! count is never scaled up to the whole result: that would claim more than is known. Suggestions never change which items a page
//! holds: they are read after the page is cut. The engine states each narrowing as data
//! ([`Narrow`]); the tools write it as a query in the backend's syntax.

use std::collections::HashMap;

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
}

/// What a narrowing selects.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NarrowBy {
    /// One repository, by its whole name.
    Repo(String),
    /// One language, by the backend's name for it.
    Language(String),
    /// Paths that start with this directory (ends with `/`), in any repository.
    Directory(String),
}

impl std::fmt::Display for NarrowBy {
    /// In words: `repository gen-py-b`, `language Go`, `directory src/net/`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NarrowBy::Repo(r) => write!(f, "repository {r}"),
            NarrowBy::Language(l) => write!(f, "language {l}"),
            NarrowBy::Directory(d) => write!(f, "directory {d}"),
        }
    }
}

/// One way to narrow, with how many of the result's items it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Narrow {
    /// What it selects.
    pub by: NarrowBy,
    /// Items it holds: in the whole result when [`Narrowing::exact`], else among the items
    /// of the files read (the best-ranked ones: not a random sample, so never scaled up).
    pub items: u64,
}

/// The ways to narrow a result, best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Narrowing {
    /// Best first: those that cut the result at least three times, then by items held.
    pub ways: Vec<Narrow>,
    /// The counts are exact: the files read hold the whole result.
    pub exact: bool,
    /// How many files the counts were read from (the best-ranked ones).
    pub files_read: usize,
    /// How many items those files hold.
    pub items_read: usize,
}

/// The most characters suggestions take in either form of a page (the MCP layer drops ways
/// until they fit): a page with suggestions leaves them this much of its token budget.
pub const MAX_CHARS: usize = 700;
/// At most this many ways are suggested.
pub const MAX_WAYS: usize = 8;
/// A result is broad when it holds more than this many pages at the asked limit.
pub const BROAD_PAGES: u64 = 3;
/// A narrowing must leave out at least half of what the files read hold.
const MAX_SHARE: f64 = 0.5;
/// One that leaves at most a third cuts the result at least three times: it comes first.
const CUTTING_SHARE: f64 = 1.0 / 3.0;
/// Most suggestions of one kind (repositories, languages, directories).
const MAX_OF_A_KIND: usize = 3;

/// Whether a result of `total` items is broad at `limit` items a page, or past the paging
/// ceiling `max_offset`.
pub fn is_broad(total: u64, limit: u32, max_offset: u64) -> bool {
    total > BROAD_PAGES.saturating_mul(u64::from(limit.max(1))) || total > max_offset
}

/// The ways to narrow a result, read off `files` (the files fetched, best first, each with
/// its items' count). `exact`: those files are the whole result. `None` when no way would
/// cut it (one repository, one language and one directory everywhere).
pub fn narrowing(files: &[(&FileFacts, usize)], exact: bool) -> Option<Narrowing> {
    let read: usize = files.iter().map(|(_, items)| items).sum();
    if read == 0 {
        return None;
    }
    // Per way: items, files, and a fingerprint of which files (to drop a way that selects
    // the very files another one does, such as a language only one repository has).
    let mut counts: HashMap<NarrowBy, (usize, usize, u64)> = HashMap::new();
    let mut add = |by: NarrowBy, items: usize, file: u64| {
        let c = counts.entry(by).or_default();
        c.0 += items;
        c.1 += 1;
        c.2 ^= file;
    };
    for (i, (f, items)) in files
        .iter()
        .enumerate()
        .filter(|(_, (_, items))| *items > 0)
    {
        let file = fingerprint(i);
        add(NarrowBy::Repo(f.repo.clone()), *items, file);
        if !f.language.is_empty() {
            add(NarrowBy::Language(f.language.clone()), *items, file);
        }
        // Every directory the file is in, but not the file itself.
        for (at, _) in f.path.match_indices('/') {
            add(NarrowBy::Directory(f.path[..=at].to_string()), *items, file);
        }
    }
    // A directory is worth naming only at the depth where it stops holding everything its
    // parent holds (`a/b/c/` rather than `a/` and `a/b/`, when those hold the same items).
    let mut most_in_a_child: HashMap<String, usize> = HashMap::new();
    for (by, (items, _, _)) in &counts {
        if let NarrowBy::Directory(dir) = by
            && let Some(parent) = parent_dir(dir)
        {
            let most = most_in_a_child.entry(parent.to_string()).or_default();
            *most = (*most).max(*items);
        }
    }
    let mut candidates: Vec<(NarrowBy, usize, u64)> = counts
        .into_iter()
        .filter(|(by, (items, files, _))| match by {
            // A directory of one file is the file: no way to narrow.
            NarrowBy::Directory(dir) => *files >= 2 && most_in_a_child.get(dir) != Some(items),
            _ => true,
        })
        .map(|(by, (items, _, which))| (by, items, which))
        .filter(|(_, items, _)| (*items as f64) <= read as f64 * MAX_SHARE)
        .collect();
    // Best first: those that cut what was read at least three times; among them the most
    // specific kinds (a repository, then a directory, then a language: the first results are
    // the best-ranked, not a sample, and a narrow kind cuts the whole result surely), then
    // the most items; then a stable order.
    let specific = |by: &NarrowBy| match by {
        NarrowBy::Repo(_) => 0,
        NarrowBy::Directory(_) => 1,
        NarrowBy::Language(_) => 2,
    };
    candidates.sort_by(|a, b| {
        let cuts = |items: usize| (items as f64) <= read as f64 * CUTTING_SHARE;
        cuts(b.1)
            .cmp(&cuts(a.1))
            .then(specific(&a.0).cmp(&specific(&b.0)))
            .then(b.1.cmp(&a.1))
            .then(a.0.cmp(&b.0))
    });
    let mut of_kind = [0usize; 3];
    let mut ways = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (by, items, which) in candidates {
        let kind = match by {
            NarrowBy::Repo(_) => 0,
            NarrowBy::Language(_) => 1,
            NarrowBy::Directory(_) => 2,
        };
        if of_kind[kind] == MAX_OF_A_KIND || ways.len() == MAX_WAYS || !seen.insert(which) {
            continue;
        }
        of_kind[kind] += 1;
        ways.push(Narrow {
            by,
            items: items as u64,
        });
    }
    (!ways.is_empty()).then_some(Narrowing {
        ways,
        exact,
        files_read: files.len(),
        items_read: read,
    })
}

/// A number standing for file `i` of the sample: XORed together, they tell sets of files
/// apart (splitmix64, so that small indexes spread over all bits).
fn fingerprint(i: usize) -> u64 {
    let mut z = (i as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `a/b/` for `a/b/c/`; `None` for a top directory.
fn parent_dir(dir: &str) -> Option<&str> {
    let inner = dir.strip_suffix('/')?;
    inner.rfind('/').map(|i| &dir[..=i])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(repo: &str, path: &str, language: &str) -> FileFacts {
        FileFacts {
            repo: repo.into(),
            path: path.into(),
            language: language.into(),
            item_end: 0,
        }
    }

    fn ways(n: &Narrowing) -> Vec<(String, u64)> {
        n.ways.iter().map(|w| (w.by.to_string(), w.items)).collect()
    }

    #[test]
    fn exact_counts_best_first_at_the_depth_that_tells_files_apart() {
        let files = [
            file("a", "src/net/x.go", "Go"),
            file("a", "src/net/y.go", "Go"),
            file("b", "lib/z.py", "Python"),
            file("c", "lib/w.py", "Python"),
            file("d", "top.rs", "Rust"),
            file("e", "top2.rs", "Rust"),
        ];
        let sample: Vec<(&FileFacts, usize)> = files.iter().zip([3, 3, 2, 2, 1, 1]).collect();
        let n = narrowing(&sample, true).expect("ways");
        assert!(n.exact);
        assert_eq!(n.files_read, 6);
        // `src/` and `src/net/` hold the same 6 items: only the deeper one is named. Those
        // that cut three times or more come first (a third of 12 items at most), the most
        // specific kinds first (repositories, directories, languages), then by items; a way
        // that selects the very files of one before it is left out (`Python` are the files
        // of `lib/`, `Go` those of `src/net/`). At most 3 of a kind: not repository `e`.
        assert_eq!(
            ways(&n),
            [
                ("repository b".to_string(), 2),
                ("repository c".to_string(), 2),
                ("repository d".to_string(), 1),
                ("directory lib/".to_string(), 4),
                ("language Rust".to_string(), 2),
                ("directory src/net/".to_string(), 6),
            ]
        );
    }

    #[test]
    fn a_result_all_in_one_place_has_no_way_to_narrow() {
        let files = [file("a", "x/1.go", "Go"), file("a", "x/2.go", "Go")];
        let sample: Vec<(&FileFacts, usize)> = files.iter().map(|f| (f, 5)).collect();
        assert_eq!(narrowing(&sample, true), None);
        assert_eq!(narrowing(&[], true), None);
    }

    #[test]
    fn counts_from_part_of_the_result_stay_counts_of_that_part() {
        let files = [
            file("a", "1.go", "Go"),
            file("b", "2.go", "Go"),
            file("c", "3.go", "Go"),
        ];
        let sample: Vec<(&FileFacts, usize)> = files.iter().map(|f| (f, 2)).collect();
        let n = narrowing(&sample, false).expect("ways");
        assert!(!n.exact);
        assert_eq!((n.files_read, n.items_read), (3, 6));
        assert!(n.ways.iter().all(|w| w.items == 2), "{:?}", ways(&n));
    }

    #[test]
    fn broad_means_more_than_three_pages_or_past_the_ceiling() {
        assert!(!is_broad(90, 30, 5_000));
        assert!(is_broad(91, 30, 5_000));
        assert!(is_broad(6_000, 100, 5_000));
        assert!(!is_broad(3, 1, 5_000));
    }
}
