//! The merge of a fan-out's answers: the window one backend holding every shard would give,
//! the listing of every backend's repositories, and the totals added up.
//!
//! Each window goes to every backend with the same effort caps (a file's score does not depend
//! on which server holds it), and the answers merge in the pager's order (score descending,
//! then the file key: `engine/order.rs`). The merged answer is then an ordinary answer to the
//! window (`engine/window.rs`), which trusts the files scoring above its second-lowest score
//! while it holds as many files as asked (`answer::trusted_edge`):
//! - each backend is asked for one file more than the window (at least four: [`asked_of`]),
//!   and its lowest-scoring file is set aside: it may be one Zoekt's novelty boost left in
//!   the place of a better file (`docs/zoekt.md`, "Sort"). What is left is at least as many
//!   files as the window, and every file of the backend scoring above the lowest of them is
//!   among them;
//! - the union is sorted and cut to the window. A backend that did not run out gave at least
//!   a window of files scoring at or above its own lowest, so the merged window's lowest
//!   score is no higher than any backend's: every file anywhere scoring above it is in the
//!   merged window, which is what the window's trusted edge assumes;
//! - the merged answer holds fewer files than asked only when every backend ran out: then it
//!   is every file there is, as a single backend's short answer is.
//!
//! Statistics add up. A file two backends return (a repository served by both) is kept once
//! and counted once, and the backends are named (`SearchStats::shared_backends`); a
//! repository two backends list is counted once, with a warning naming them.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::engine::backend::{RankedFile, RankedFiles, RepoListing, SearchStats, SharedRepo};
use crate::engine::order::file_key;

/// How many files each backend is asked for when the window is `max_files`: one more (at
/// least four), so that its lowest file can be set aside ([`without_lowest`]). Zero asks for
/// every file: nothing to extend.
pub(super) fn asked_of(max_files: u32) -> u32 {
    if max_files == 0 {
        0
    } else {
        max_files.saturating_add(1).max(4)
    }
}

/// The merged answer to a window of `max_files`, from the answers of the backends that
/// answered (each with its index), each asked for `asked` files, `missing` those that did not.
pub(super) fn merged_answer(
    got: Vec<(usize, RankedFiles)>,
    missing: u64,
    asked: u32,
    max_files: u32,
) -> RankedFiles {
    let mut stats = SearchStats {
        missing_backends: missing,
        ..SearchStats::default()
    };
    let mut files = Vec::new();
    for (i, ranked) in got {
        add(&mut stats, &ranked.stats);
        let ran_out = asked == 0 || ranked.files.len() < asked as usize;
        files.extend(
            without_lowest(ranked.files, ran_out)
                .into_iter()
                .map(|f| (i, f)),
        );
    }
    let (files, shared) = merged_files(files, max_files);
    // A copy dropped is not counted either (copies not returned still are: the warning
    // says so).
    stats.shared_backends |= shared.backends;
    stats.file_count = stats.file_count.saturating_sub(shared.files);
    stats.match_count = stats.match_count.saturating_sub(shared.lines);
    RankedFiles {
        files,
        stats,
        cut_at_bytes: false,
    }
}

/// The backend's answer less its lowest-scoring file, when it did not run out: what is left
/// holds every file of the backend scoring above the lowest of them.
///
/// Zoekt's novelty boost can leave one file from below the cut in an answer, anywhere at
/// its end, in the place of a better file (`answer::trusted_edge`); past the second-lowest
/// score nothing is missing. Below three files the boost has no place to put a file.
fn without_lowest(mut files: Vec<RankedFile>, ran_out: bool) -> Vec<RankedFile> {
    if !ran_out && files.len() >= 3 {
        let lowest = files
            .iter()
            .enumerate()
            .min_by(|(_, a), (_, b)| a.score.total_cmp(&b.score))
            .map(|(i, _)| i);
        if let Some(i) = lowest {
            files.remove(i);
        }
    }
    files
}

/// Copies of files dropped by [`merged_files`]: one file returned by several backends.
#[derive(Debug, Default, PartialEq)]
struct Shared {
    /// The backends that returned a copy (a bit each, the kept copy's included).
    backends: u64,
    /// Copies dropped.
    files: u64,
    /// Matched lines of the copies dropped.
    lines: u64,
}

/// The window's worth of files of the union (each with its backend's index), in the pager's
/// order, each file once (a repository on two backends: the higher-scoring copy), and what
/// was dropped as a copy.
fn merged_files(files: Vec<(usize, RankedFile)>, max_files: u32) -> (Vec<RankedFile>, Shared) {
    // Each file's key once: computed inside the comparison it would be hashed at every
    // comparison of tied scores, which is most of a merge's cost on tie-heavy windows.
    let mut keyed: Vec<(u64, usize, RankedFile)> = files
        .into_iter()
        .map(|(i, f)| (file_key(&f.repo, &f.path, &f.branches), i, f))
        .collect();
    keyed.sort_by(|(ka, _, a), (kb, _, b)| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| ka.cmp(kb))
            .then_with(|| (&a.repo, &a.path, &a.branches).cmp(&(&b.repo, &b.path, &b.branches)))
    });
    let mut shared = Shared::default();
    let mut keep = vec![true; keyed.len()];
    {
        let mut first: HashMap<(&str, &str, &[String]), usize> = HashMap::new();
        for (at, (_, i, f)) in keyed.iter().enumerate() {
            match first.entry((&f.repo, &f.path, &f.branches)) {
                std::collections::hash_map::Entry::Occupied(e) => {
                    shared.backends |= (1 << *e.get()) | (1 << i);
                    shared.files += 1;
                    shared.lines += f.lines.len() as u64;
                    keep[at] = false;
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(*i);
                }
            }
        }
    }
    let mut kept: Vec<RankedFile> = keyed
        .into_iter()
        .zip(keep)
        .filter_map(|((_, _, f), keep)| keep.then_some(f))
        .collect();
    if max_files > 0 {
        kept.truncate(max_files as usize);
    }
    (kept, shared)
}

/// `s` added to `total`: counts summed, backend masks joined.
fn add(total: &mut SearchStats, s: &SearchStats) {
    total.file_count += s.file_count;
    total.match_count += s.match_count;
    total.files_skipped += s.files_skipped;
    total.shards_skipped += s.shards_skipped;
    total.crashes += s.crashes;
    total.duration_ms = total.duration_ms.max(s.duration_ms);
    total.missing_backends |= s.missing_backends;
    total.shared_backends |= s.shared_backends;
}

/// One listing of the listings of the backends that answered (each with its index), `missing`
/// those that did not. A repository served by two backends is listed and counted once, and
/// named in [`RepoListing::shared`] with both.
pub(super) fn merged_listing(got: Vec<(usize, RepoListing)>, missing: u64) -> RepoListing {
    let mut out = RepoListing {
        missing_backends: missing,
        ..RepoListing::default()
    };
    // Which backend serves each repository first; a second one is reported, and its
    // entry dropped (never counted twice).
    let mut served_by: HashMap<String, usize> = HashMap::new();
    let mut twice: Vec<(String, usize, usize)> = Vec::new();
    for (i, list) in got {
        out.crashes += list.crashes;
        out.missing_backends |= list.missing_backends;
        out.shared.extend(list.shared);
        out.stats.shards += list.stats.shards;
        out.stats.index_bytes += list.stats.index_bytes;
        for repo in list.repos {
            match served_by.get(&repo.name) {
                Some(&first) if first != i => {
                    if !twice.iter().any(|(n, ..)| *n == repo.name) {
                        twice.push((repo.name.clone(), first, i));
                    }
                }
                Some(_) => out.repos.push(repo),
                None => {
                    served_by.insert(repo.name.clone(), i);
                    out.repos.push(repo);
                }
            }
        }
    }
    let names: BTreeSet<&str> = out.repos.iter().map(|r| r.name.as_str()).collect();
    out.stats.repos = names.len() as u64;
    out.stats.documents = {
        let mut seen = HashSet::new();
        out.repos
            .iter()
            .filter(|r| seen.insert(r.name.as_str()))
            .map(|r| r.documents)
            .sum()
    };
    for (repo, a, b) in twice {
        out.shared.push(SharedRepo {
            repo,
            backends: (1 << a) | (1 << b),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::backend::MatchedLine;

    #[test]
    fn a_file_from_two_backends_is_kept_once_and_its_copy_is_accounted() {
        let f = |path: &str, score: f64, lines: u32| RankedFile {
            repo: "r".into(),
            path: path.into(),
            score,
            lines: (1..=lines)
                .map(|number| MatchedLine {
                    number,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        // a.go comes from backends 1 and 2; the copy scoring lower (backend 2's, 3 lines) goes.
        let (kept, shared) = merged_files(
            vec![
                (0, f("b.go", 5.0, 1)),
                (1, f("a.go", 10.0, 2)),
                (2, f("a.go", 9.0, 3)),
                (2, f("c.go", 7.0, 1)),
            ],
            0,
        );
        let order: Vec<(&str, f64)> = kept.iter().map(|f| (f.path.as_str(), f.score)).collect();
        assert_eq!(order, [("a.go", 10.0), ("c.go", 7.0), ("b.go", 5.0)]);
        assert_eq!(
            shared,
            Shared {
                backends: 0b110,
                files: 1,
                lines: 3
            }
        );
        // The window cut comes after the copies are gone.
        let (kept, _) = merged_files(
            vec![
                (1, f("a.go", 10.0, 1)),
                (2, f("a.go", 9.0, 1)),
                (2, f("c.go", 7.0, 1)),
            ],
            2,
        );
        assert_eq!(kept.len(), 2);
        // A backend that returns one file twice is named too.
        let (kept, shared) = merged_files(vec![(1, f("a.go", 10.0, 1)), (1, f("a.go", 8.0, 4))], 0);
        assert_eq!(kept.len(), 1);
        assert_eq!(
            shared,
            Shared {
                backends: 0b10,
                files: 1,
                lines: 4
            }
        );
    }
}
