//! The entries of a tree, counted from a listing of names.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::entry::{EntryKind, TreeEntry};
use crate::engine::tool::NameList;

/// The tree a call asks for.
pub(super) struct Tree<'a> {
    /// The repository.
    pub repo: &'a str,
    /// The directory (ending in `/`, or empty for the top).
    pub dir: &'a str,
    /// Levels shown below it.
    pub depth: u32,
    /// Entries shown per directory.
    pub per_directory: u32,
}

/// Most languages shown for a directory.
const LANGUAGES_SHOWN: usize = 3;

/// A directory of the tree, as the listing counts it.
#[derive(Default)]
struct Dir {
    files: u64,
    languages: HashMap<Arc<str>, u64>,
    /// Subdirectories (their paths).
    dirs: Vec<String>,
    /// Files directly in it, with their language, when it is shown with its entries.
    own_files: Vec<(String, Arc<str>)>,
}

impl Dir {
    fn top_languages(&self) -> Vec<String> {
        let mut by_count: Vec<(&Arc<str>, &u64)> = self
            .languages
            .iter()
            .filter(|(l, _)| !l.is_empty())
            .collect();
        by_count.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        by_count
            .into_iter()
            .take(LANGUAGES_SHOWN)
            .map(|(l, _)| l.to_string())
            .collect()
    }
}

/// The tree's entries, in page order: the path itself, then each directory's entries under
/// it, depth first.
pub(super) fn entries(plan: &Tree<'_>, list: &NameList) -> Vec<TreeEntry> {
    let mut dirs: BTreeMap<String, Dir> = BTreeMap::new();
    for f in list.files.iter().filter(|f| *f.repo == *plan.repo) {
        let Some(rest) = f.path.strip_prefix(plan.dir) else {
            continue;
        };
        let mut dir = plan.dir.to_string();
        let mut depth = 0;
        let mut parts = rest.split('/').peekable();
        while let Some(part) = parts.next() {
            let d = dirs.entry(dir.clone()).or_default();
            d.files += 1;
            *d.languages.entry(Arc::clone(&f.language)).or_default() += 1;
            if depth == plan.depth {
                break;
            }
            if parts.peek().is_none() {
                d.own_files
                    .push((format!("{dir}{part}"), Arc::clone(&f.language)));
                break;
            }
            let sub = format!("{dir}{part}/");
            // The listing is sorted by path: a directory's files come one after another.
            if d.dirs.last() != Some(&sub) {
                d.dirs.push(sub.clone());
            }
            dir = sub;
            depth += 1;
        }
    }
    let mut out = Vec::new();
    if let Some(top) = dirs.get(plan.dir) {
        out.push(TreeEntry {
            repo: plan.repo.to_string(),
            path: plan.dir.to_string(),
            kind: EntryKind::Dir,
            depth: 0,
            files: top.files,
            files_at_least: !list.whole_under(plan.dir),
            languages: top.top_languages(),
            more_dirs: 0,
            more_files: 0,
        });
        walk(plan, list, &dirs, plan.dir, 0, &mut out);
    }
    out
}

/// Appends the entries of directory `path` (at `depth`), then those of each subdirectory
/// shown, depth first.
fn walk(
    plan: &Tree<'_>,
    list: &NameList,
    dirs: &BTreeMap<String, Dir>,
    path: &str,
    depth: u32,
    out: &mut Vec<TreeEntry>,
) {
    let Some(dir) = dirs.get(path) else { return };
    let entry = |path: &str, kind, files, at_least, languages| TreeEntry {
        repo: plan.repo.to_string(),
        path: path.to_string(),
        kind,
        depth: depth + 1,
        files,
        files_at_least: at_least,
        languages,
        more_dirs: 0,
        more_files: 0,
    };
    // The largest entries are shown (a file counts one), ties by name.
    let mut all: Vec<(u64, &str, bool)> = dir
        .dirs
        .iter()
        .map(|d| (dirs.get(d).map_or(0, |s| s.files), d.as_str(), true))
        .chain(dir.own_files.iter().map(|(f, _)| (1, f.as_str(), false)))
        .collect();
    all.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let keep = (plan.per_directory as usize).min(all.len());
    let (shown, rest) = all.split_at(keep);
    let mut shown_dirs: Vec<&str> = shown.iter().filter(|e| e.2).map(|e| e.1).collect();
    shown_dirs.sort_unstable();
    let mut shown_files: Vec<&str> = shown.iter().filter(|e| !e.2).map(|e| e.1).collect();
    shown_files.sort_unstable();
    for d in &shown_dirs {
        let sub = &dirs[*d];
        out.push(entry(
            d,
            EntryKind::Dir,
            sub.files,
            !list.whole_under(d),
            sub.top_languages(),
        ));
    }
    let language: HashMap<&str, &Arc<str>> =
        dir.own_files.iter().map(|(f, l)| (f.as_str(), l)).collect();
    for f in shown_files {
        let languages = language
            .get(f)
            .filter(|l| !l.is_empty())
            .map(|l| vec![l.to_string()])
            .unwrap_or_default();
        out.push(entry(f, EntryKind::File, 1, false, languages));
    }
    if !rest.is_empty() {
        let more_dirs = rest.iter().filter(|e| e.2).count() as u64;
        let more_files = rest.len() as u64 - more_dirs;
        let at_least = rest.iter().any(|e| e.2 && !list.whole_under(e.1))
            || (more_files > 0 && !list.whole_under(path));
        let mut more = entry(
            path,
            EntryKind::More,
            rest.iter().map(|e| e.0).sum(),
            at_least,
            Vec::new(),
        );
        more.more_dirs = more_dirs;
        more.more_files = more_files;
        out.push(more);
    }
    if depth + 1 < plan.depth {
        for d in shown_dirs {
            walk(plan, list, dirs, d, depth + 1, out);
        }
    }
}
