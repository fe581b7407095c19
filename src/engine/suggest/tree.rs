//! The tree of a result as its census counts it: every repository, directory, directory's
//! own files and language, with what each holds, and each level's entries by name, which
//! runs (`group.rs`) group when a level holds more of them than the list can name.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::hash::{Hash, Hasher};

use super::MAX_WAYS;
use super::group::Initial;
use super::group::{Member, Part, around, held, in_run, split};
use super::way::{NarrowBy, Run};

/// An entry of a level cut into runs is named one by one beside them when it holds at least
/// this share of the level. Not tied to the places a list has: a smaller entry named alone
/// has the runs around it cut again, into more parts than the level's places, and the
/// smallest fall off the list with their results (a twelfth, c1aca16, reverted).
const ALONE_SHARE: f64 = 1.0 / 8.0;

/// A part of the result as it is counted, naming what it selects by borrowed names (counting
/// a census of tens of thousands of files allocates nothing per directory).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Key<'a> {
    /// The whole result.
    Root,
    Repo(&'a str),
    Language(&'a str),
    Directory(Option<&'a str>, &'a str),
    Files(Option<&'a str>, &'a str),
    /// A run of a level's entries by name (`group.rs`).
    Group(Level<'a>, &'a str, Initial),
    /// One file: a member of runs, never a way of its own.
    File(Option<&'a str>, &'a str),
    /// Everything but some parts (`NarrowBy::Rest`): a way, never a part of the tree.
    Rest(&'a [NarrowBy]),
}

/// A level of the tree whose entries a run groups: the repositories, or one directory's
/// subdirectories and files (in a repository of several, or in the only one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Level<'a> {
    Repos,
    Dir(Option<&'a str>, &'a str),
}

impl<'a> Key<'a> {
    /// The way `by` names, as counted.
    pub(super) fn of(by: &'a NarrowBy) -> Key<'a> {
        match by {
            NarrowBy::Repo(r) => Key::Repo(r),
            NarrowBy::Language(l) => Key::Language(l),
            NarrowBy::Directory { repo, dir } => Key::Directory(repo.as_deref(), dir),
            NarrowBy::Files { repo, dir } => Key::Files(repo.as_deref(), dir),
            NarrowBy::Group(run) => {
                let level = match &run.dir {
                    None => Level::Repos,
                    Some(dir) => Level::Dir(run.repo.as_deref(), dir),
                };
                Key::Group(level, &run.start, run.initial)
            }
            NarrowBy::Rest(parts) => Key::Rest(parts),
        }
    }

    /// A stable order among parts that hold as much: repositories, directories, files of a
    /// directory, then languages (a part of the tree leads on to the parts inside it), each
    /// by name.
    pub(super) fn order(&self) -> (u8, Option<&'a str>, &'a str) {
        match *self {
            Key::Root => (0, None, ""),
            Key::Repo(r) => (1, None, r),
            Key::Directory(repo, dir) => (2, repo, dir),
            Key::Files(repo, dir) => (3, repo, dir),
            Key::Group(Level::Repos, start, _) => (1, None, start),
            Key::Group(Level::Dir(repo, _), start, _) => (2, repo, start),
            Key::File(repo, path) => (3, repo, path),
            Key::Language(l) => (4, None, l),
            Key::Rest(_) => (5, None, ""),
        }
    }

    pub(super) fn owned(self) -> Option<NarrowBy> {
        Some(match self {
            Key::Root | Key::File(..) => return None,
            Key::Rest(parts) => NarrowBy::Rest(parts.to_vec()),
            Key::Repo(r) => NarrowBy::Repo(r.to_string()),
            Key::Language(l) => NarrowBy::Language(l.to_string()),
            Key::Directory(repo, dir) => NarrowBy::Directory {
                repo: repo.map(String::from),
                dir: dir.to_string(),
            },
            Key::Files(repo, dir) => NarrowBy::Files {
                repo: repo.map(String::from),
                dir: dir.to_string(),
            },
            Key::Group(level, start, initial) => {
                let (repo, dir) = match level {
                    Level::Repos => (None, None),
                    Level::Dir(repo, dir) => (repo.map(String::from), Some(dir.to_string())),
                };
                NarrowBy::Group(Run {
                    repo,
                    dir,
                    start: start.to_string(),
                    initial,
                })
            }
        })
    }
}

/// What one part holds.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Tally {
    /// The result's items (or files) it holds.
    pub(super) items: f64,
    /// Files it holds.
    pub(super) files: usize,
    /// Which files (XOR of their fingerprints): two parts of the same files say one thing.
    pub(super) which: u64,
}

/// Every part of a result: its repositories, directories, directories' own files and
/// languages, each with what it holds, and the entries of each level, which runs group.
pub(super) struct Tree<'a> {
    pub(super) tallies: HashMap<Key<'a>, Tally>,
    /// The parts directly inside each part (languages are no part of the tree).
    children: HashMap<Key<'a>, HashSet<Key<'a>>>,
    /// Each level's entries by name: repositories, or a directory's subdirectories (with
    /// their `/`) and files.
    entries: HashMap<Level<'a>, Vec<(&'a str, Key<'a>)>>,
    several_repos: bool,
}

impl<'a> Tree<'a> {
    pub(super) fn count(
        files: &[(&'a str, &'a str, &'a str, f64)],
        several_repos: bool,
    ) -> Tree<'a> {
        let mut tree = Tree {
            tallies: HashMap::default(),
            children: HashMap::default(),
            entries: HashMap::default(),
            several_repos,
        };
        for &(repo, path, language, items) in files {
            let file = fingerprint(repo, path);
            let repo_key = several_repos.then_some(repo);
            let mut parent = Key::Root;
            tree.add(Key::Root, items, file);
            if several_repos {
                if tree.link(Key::Root, Key::Repo(repo)) {
                    tree.enter(Level::Repos, repo, Key::Repo(repo));
                }
                tree.add(Key::Repo(repo), items, file);
                parent = Key::Repo(repo);
            }
            let mut name_at = 0;
            for (at, _) in path.match_indices('/') {
                let dir = Key::Directory(repo_key, &path[..=at]);
                if tree.link(parent, dir) {
                    let level = Level::Dir(repo_key, &path[..name_at]);
                    tree.enter(level, &path[name_at..=at], dir);
                }
                tree.add(dir, items, file);
                parent = dir;
                name_at = at + 1;
            }
            let own = Key::Files(repo_key, dir_of(path));
            tree.link(parent, own);
            tree.add(own, items, file);
            let one = Key::File(repo_key, path);
            tree.add(one, items, file);
            tree.enter(
                Level::Dir(repo_key, &path[..name_at]),
                &path[name_at..],
                one,
            );
            if !language.is_empty() {
                tree.add(Key::Language(language), items, file);
            }
        }
        tree
    }

    fn add(&mut self, key: Key<'a>, items: f64, file: u64) {
        self.tallies.entry(key).or_default().join(Tally {
            items,
            files: 1,
            which: file,
        });
    }

    /// Links `child` under `parent`: whether it is new there.
    fn link(&mut self, parent: Key<'a>, child: Key<'a>) -> bool {
        self.children.entry(parent).or_default().insert(child)
    }

    fn enter(&mut self, level: Level<'a>, name: &'a str, key: Key<'a>) {
        self.entries.entry(level).or_default().push((name, key));
    }

    pub(super) fn tally(&self, key: Key<'a>) -> Tally {
        match key {
            Key::Group(level, start, initial) => {
                let mut sum = Tally::default();
                for &(_, k) in self.members(level, |name| in_run(name, start, initial)) {
                    sum.join(self.tally(k));
                }
                sum
            }
            _ => self.tallies.get(&key).copied().unwrap_or_default(),
        }
    }

    fn items(&self, key: Key<'a>) -> f64 {
        self.tally(key).items
    }

    /// The level whose entries are the parts directly inside `key`, for a part of the tree.
    fn level(&self, key: Key<'a>) -> Option<Level<'a>> {
        match key {
            Key::Root if self.several_repos => Some(Level::Repos),
            Key::Root => Some(Level::Dir(None, "")),
            Key::Repo(r) => Some(Level::Dir(Some(r), "")),
            Key::Directory(repo, dir) => Some(Level::Dir(repo, dir)),
            Key::Group(level, ..) => Some(level),
            _ => None,
        }
    }

    /// The entries of `level` whose names `keep`.
    fn members(
        &self,
        level: Level<'a>,
        keep: impl Fn(&str) -> bool,
    ) -> impl Iterator<Item = &(&'a str, Key<'a>)> {
        self.entries
            .get(&level)
            .into_iter()
            .flatten()
            .filter(move |(name, _)| keep(name))
    }

    /// The parts directly inside `key`, each with what it holds, biggest first (then in a
    /// stable order). The files of a
    /// directory that has no subdirectory are the directory again: left out. A level of more
    /// entries than the list can name (or a directory of files only) is cut into runs by
    /// name, beside its biggest entries and its own files: each of its entries is then inside
    /// a part, one call away.
    pub(super) fn children(&self, key: Key<'a>) -> Vec<(Key<'a>, Tally)> {
        let mut kids = match key {
            Key::Group(level, start, initial) => self.runs(level, start.len(), false, |name| {
                in_run(name, start, initial)
            }),
            _ => {
                let real = self.real_children(key);
                match self.level(key) {
                    Some(level)
                        if real.len() > MAX_WAYS
                            || (real.is_empty()
                                && self
                                    .entries
                                    .get(&level)
                                    .is_some_and(|e| e.len() > MAX_WAYS)) =>
                    {
                        let files = real.iter().any(|k| matches!(k, Key::Files(..)));
                        let mut kids = self.runs(level, 0, files, |_| true);
                        kids.extend(real.into_iter().filter(|k| matches!(k, Key::Files(..))));
                        kids
                    }
                    _ => real,
                }
            }
        };
        kids.retain(|k| *k != key);
        // Tallied once: a run's sums its members.
        let mut kids: Vec<(Key<'a>, Tally)> =
            kids.into_iter().map(|k| (k, self.tally(k))).collect();
        kids.sort_by(|(a, ta), (b, tb)| {
            tb.items
                .total_cmp(&ta.items)
                .then(a.order().cmp(&b.order()))
        });
        kids
    }

    /// The subdirectories (or repositories) and own files directly inside `key`.
    fn real_children(&self, key: Key<'a>) -> Vec<Key<'a>> {
        let Some(kids) = self.children.get(&key) else {
            return Vec::new();
        };
        let subdirs = kids
            .iter()
            .any(|k| matches!(k, Key::Directory(..) | Key::Repo(_)));
        kids.iter()
            .copied()
            .filter(|k| subdirs || !matches!(k, Key::Files(..)))
            .collect()
    }

    /// The entries of `level` that `keep` (names sharing their first `known` bytes), as parts
    /// a list can name: those holding an eighth of them or more one by one, and runs by name
    /// over all (balanced over the rest, cut around those named alone), a file alone as the
    /// run of its whole name. Where the level's own files are a way of their own
    /// (`files_named`), parts of files only past the places are left to it; other parts past
    /// them are not dropped here, and the list keeps its biggest.
    fn runs(
        &self,
        level: Level<'a>,
        known: usize,
        files_named: bool,
        keep: impl Fn(&str) -> bool,
    ) -> Vec<Key<'a>> {
        let members: Vec<Member<'a, Key<'a>>> = self
            .members(level, keep)
            .map(|&(name, item)| Member {
                name,
                weight: self.items(item),
                item,
            })
            .collect();
        let total: f64 = members.iter().map(|m| m.weight).sum();
        let nameable = |k: &Key| matches!(k, Key::Repo(_) | Key::Directory(..));
        let (big, rest): (Vec<_>, Vec<_>) = members
            .into_iter()
            .partition(|m| nameable(&m.item) && m.weight >= total * ALONE_SHARE);
        let mut kids: Vec<Key<'a>> = big.iter().map(|m| m.item).collect();
        // Places for the runs, leaving some to the parts beside this level and to languages.
        // The cuts around the big entries can make the runs more than that, and a part past
        // the list's places falls off it, its entries out of reach. With the level's own files
        // a way of their own (`files_named`), a part of files only is one call away through
        // it: those give up their places first, the smallest first. (Fewer, coarser runs
        // instead, until the parts fit, cost reach: 39 and 38 target directories of 59
        // reached within 3 calls on the real corpora, against 41 and 41; docs/narrowing.md.)
        let places = (MAX_WAYS - 2).saturating_sub(kids.len()).max(2);
        let mut parts = cut_around(split(&rest, known, places), &big, &rest);
        let excess = parts.len().saturating_sub(places);
        if files_named && excess > 0 {
            let mut spare: Vec<(usize, f64)> = parts
                .iter()
                .enumerate()
                .filter(|(_, p)| held(&rest, **p).all(|m| matches!(m.item, Key::File(..))))
                .map(|(at, p)| (at, held(&rest, *p).map(|m| m.weight).sum()))
                .collect();
            // The smallest first (the first of equals, as the sort is stable).
            spare.sort_by(|a, b| a.1.total_cmp(&b.1));
            let gone: HashSet<usize> = spare.iter().take(excess).map(|s| s.0).collect();
            parts = parts
                .into_iter()
                .enumerate()
                .filter(|(at, _)| !gone.contains(at))
                .map(|(_, p)| p)
                .collect();
        }
        for part in parts {
            match part {
                Part::One(Key::File(_, path)) => {
                    let name = &path[dir_of(path).len()..];
                    kids.push(Key::Group(level, name, Initial::End));
                }
                Part::One(k) => kids.push(k),
                Part::Run { start, initial } => kids.push(Key::Group(level, start, initial)),
            }
        }
        kids
    }

    /// `key` is `outer` or lies inside it.
    pub(super) fn is_inside(&self, key: Key<'a>, outer: Key<'a>) -> bool {
        match (key, outer) {
            (_, Key::Root) => true,
            // A run inside a run of the same level: its first name is in it.
            (Key::Group(level, s, i), Key::Group(outer_level, start, initial))
                if level == outer_level =>
            {
                in_run(&i.first_name(s), start, initial)
            }
            (_, Key::Group(Level::Repos, start, initial)) => {
                repo_of(key).is_some_and(|r| in_run(r, start, initial))
            }
            (_, Key::Group(Level::Dir(ro, od), start, initial)) => {
                place_of(key).is_some_and(|(r, path)| {
                    r == ro
                        && path
                            .strip_prefix(od)
                            .is_some_and(|rest| !rest.is_empty() && in_run(rest, start, initial))
                })
            }
            (Key::Repo(r), Key::Repo(o)) => r == o,
            (_, Key::Repo(o)) => repo_of(key) == Some(o),
            (_, Key::Directory(ro, o)) => {
                place_of(key).is_some_and(|(r, path)| r == ro && path.starts_with(o))
            }
            (Key::Files(r, d), Key::Files(ro, o)) => r == ro && d == o,
            _ => false,
        }
    }
}

impl Tally {
    /// Adds `other`'s files, which are not this one's.
    fn join(&mut self, other: Tally) {
        self.items += other.items;
        self.files += other.files;
        self.which ^= other.which;
    }

    /// What this part holds outside `inner`, a part inside it.
    pub(super) fn without(self, inner: Tally) -> Tally {
        Tally {
            items: self.items - inner.items,
            files: self.files - inner.files,
            which: self.which ^ inner.which,
        }
    }
}

/// `parts` again, each run whose expression would also hold one of the `big` entries (named one
/// by one) cut around it, from `members`: no way counts a big entry a second time.
fn cut_around<'a>(
    mut parts: Vec<Part<'a, Key<'a>>>,
    big: &[Member<'a, Key<'a>>],
    members: &[Member<'a, Key<'a>>],
) -> Vec<Part<'a, Key<'a>>> {
    // Each big entry in turn: a part cut around one may still hold another.
    for b in big {
        parts = parts
            .into_iter()
            .flat_map(|part| match part {
                Part::Run { start, initial } if in_run(b.name, start, initial) => {
                    let inside: Vec<_> = held(members, part).copied().collect();
                    around(&inside, start.len(), b.name)
                }
                part => vec![part],
            })
            .collect();
    }
    parts
}

/// The repository a part is in, when it is in one of several.
fn repo_of<'a>(key: Key<'a>) -> Option<&'a str> {
    match key {
        Key::Repo(r) => Some(r),
        Key::Directory(r, _) | Key::Files(r, _) | Key::File(r, _) => r,
        Key::Group(Level::Dir(r, _), ..) => r,
        _ => None,
    }
}

/// Where a part of the paths is: its repository (of several) and its path (a directory's
/// ends with `/`; a run's is its level's and start's, which are one string only in part).
fn place_of<'a>(key: Key<'a>) -> Option<(Option<&'a str>, &'a str)> {
    match key {
        Key::Directory(r, d) | Key::Files(r, d) | Key::File(r, d) => Some((r, d)),
        Key::Group(Level::Dir(r, d), ..) => Some((r, d)),
        _ => None,
    }
}

/// The directory a path's file is in, with its `/` (empty at the top).
pub(super) fn dir_of(path: &str) -> &str {
    path.rfind('/').map_or("", |at| &path[..=at])
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
