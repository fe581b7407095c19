//! Ways into the parts of a result a census did not reach: the repositories after those it
//! counted, and where it counted one repository, everything beside the directories it counted.
//!
//! Zoekt searches its shards in one order, by priority and then by repository name, and stops
//! at its wall time: a census cut there has counted the repositories at the start of that
//! order and none after. Over 678 repositories, `search the` counts the repositories from
//! `!proton…` to `prometheus-client`; the ways named from its counts hold 57% of the result,
//! and none of them leads to `python-3.12`, `serde` or `tokio`. A model that follows only
//! the ways could never reach them.
//!
//! So a census cut that way also offers runs of the names after the last one it counted, each
//! marked as not counted ([`after_counted`]: the next letters at the level where a repository
//! on the page parts from it, where the counted names part (`repo:^[q-zQ-Z]`), one separator
//! above that, and the rest of its own initial (`repo:^p[s-zS-Z]`)). Each is a result of its
//! own, whose census then counts what this one could not. A run is offered only when it holds
//! no counted repository: what it says, that none of its repositories was counted, is then
//! true whatever order Zoekt searched in (with priorities set, that is not the order of
//! names).
//!
//! A census of one repository is cut the same way, inside it: Zoekt splits a large
//! repository into shards of a few thousand files each, and the census counts the shards it
//! searched. `search a b` on a 90,898-file monorepo counts files under `go-modules/` and
//! `rust-crates/` only; `c-include/`, `python/` and the rest hold results that no way
//! named from its counts leads to. There the census also offers the rest of the result beside
//! the directories it counted ([`beside_counted`]: `-file:^go-modules/ -file:^rust-crates/`),
//! not counted either, which holds no counted file whatever order Zoekt searched in.

use super::group::Initial;
use super::group::{in_run, shared_start};
use super::tree::dir_of;
use super::way::{NarrowBy, Run};

/// At most this many directories the rest beside what a census of one repository counted
/// leaves out, each a negated filter of the call (`-file:^go-modules/`): more would take the
/// list's characters from the counted ways.
const MAX_LEFT_OUT: usize = 4;

/// The rest beside the directories a census of one repository counted `paths`
/// in: every part of the result that holds none of them, as a way of its own. Where the
/// counted paths part (the deepest directory holding all of them), each entry of that
/// directory holding some is left out (the files at the top by keeping only paths in a
/// directory), when they are at most [`MAX_LEFT_OUT`]; otherwise, or when files directly in
/// that directory (not the top) were counted, that whole directory is. `None` when the paths
/// part at the top into more than that many entries, or there are none.
pub(super) fn beside_counted<'a>(paths: impl IntoIterator<Item = &'a str>) -> Option<NarrowBy> {
    let paths: Vec<&str> = paths.into_iter().collect();
    let first = paths.first()?;
    // The deepest directory every path is in.
    let mut common = dir_of(first);
    for path in &paths {
        while !path.starts_with(common) {
            common = dir_of(&common[..common.len() - 1]);
        }
    }
    let mut dirs: Vec<&str> = Vec::new();
    let mut own_files = false;
    for path in &paths {
        match path[common.len()..].find('/') {
            Some(at) => dirs.push(&path[..common.len() + at + 1]),
            None => own_files = true,
        }
    }
    dirs.sort_unstable();
    dirs.dedup();
    let directory = |dir: &str| NarrowBy::Directory {
        repo: None,
        dir: dir.to_string(),
    };
    let at_top = common.is_empty();
    if (at_top || !own_files) && dirs.len() + usize::from(own_files) <= MAX_LEFT_OUT {
        let mut parts: Vec<NarrowBy> = dirs.into_iter().map(directory).collect();
        if own_files {
            parts.push(NarrowBy::Files {
                repo: None,
                dir: String::new(),
            });
        }
        return Some(NarrowBy::Rest(parts));
    }
    (!at_top).then(|| NarrowBy::Rest(vec![directory(common)]))
}

/// At most this many ways into what was not counted a page offers: the first of
/// [`after_counted`]'s runs and [`beside_counted`]'s rest that the call's own filters leave
/// room for.
pub const MAX_UNCOUNTED: usize = 2;

/// Runs of repository names after every one of `counted` (each once, in any order), none of
/// which holds a counted name, best first. `seen` are repositories known to hold results
/// (the page's own files): the first of them after the last name counted says at which
/// level the names part, and that run comes first. Then the letters after the last name
/// where the counted names part, one level above that, and the rest of its initial. Empty
/// when nothing follows, and for one name counted, which parts from no other.
pub(super) fn after_counted<'a>(
    counted: impl IntoIterator<Item = &'a str>,
    seen: impl IntoIterator<Item = &'a str>,
) -> Vec<Run> {
    let names: Vec<&str> = counted.into_iter().collect();
    if names.len() < 2 {
        return Vec::new();
    }
    // Zoekt's order of names among equal priorities: by bytes.
    let Some(last) = names.iter().copied().max() else {
        return Vec::new();
    };
    let next_seen = seen.into_iter().filter(|n| *n > last).min();
    let shared = shared_start(names.iter().copied(), 0).len();
    // One level up from where the counted names part: after the separator before it
    // (`gen-` above `gen-go-`, `github.com/org-` above `github.com/org-a/`), the shared
    // start's last character left out (a separator itself).
    let head = &last[..shared];
    let head = &head[..head.len() - head.chars().next_back().map_or(0, char::len_utf8)];
    let above = head.rfind(['/', '-', '.', '_', '@']).map(|at| at + 1);
    // The rest of the last name's initial.
    let initial_len = last.chars().next().map_or(0, char::len_utf8);
    let depths = [
        next_seen.map(|n| shared_start([last, n].into_iter(), 0).len()),
        Some(shared),
        above,
        Some(initial_len),
    ];
    let mut runs: Vec<Run> = Vec::new();
    for depth in depths.into_iter().flatten() {
        let Some(initial) = after(last[depth..].chars().next()) else {
            continue;
        };
        let run = Run {
            repo: None,
            dir: None,
            start: last[..depth].to_string(),
            initial,
        };
        if !runs.contains(&run) && !names.iter().any(|n| in_run(n, &run.start, run.initial)) {
            runs.push(run);
        }
    }
    runs
}

/// The names after a name whose next character is `next`, as one initial: the letters after
/// it (both cases) when it is a letter, the digits after it when it is a digit but 9, every
/// letter when it comes before them (9, most marks, or nothing), none after `z`.
fn after(next: Option<char>) -> Option<Initial> {
    match next {
        Some(c) if c.is_ascii_alphabetic() => {
            let c = c.to_ascii_lowercase();
            (c < 'z').then(|| Initial::Letters(char::from(c as u8 + 1), 'z'))
        }
        Some(c) if c.is_ascii_digit() && c < '9' => {
            Some(Initial::Digits(char::from(c as u8 + 1), '9'))
        }
        Some(c) if c > 'z' => None,
        _ => Some(Initial::Letters('a', 'z')),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(runs: &[Run]) -> Vec<String> {
        runs.iter().map(|r| r.pattern(|s| s.to_string())).collect()
    }

    const NONE: [&str; 0] = [];

    #[test]
    fn a_cut_census_of_repositories_offers_the_letters_after_the_last_and_the_rest_of_its_initial()
    {
        // `search the` over 678 repositories, cut at `prometheus-client`.
        let counted = [
            "!proton!mail-go-crypto",
            "anyhow-1.0.102",
            "go-toolchain",
            "prometheus-client-0.24.1",
        ];
        assert_eq!(
            said(&after_counted(counted, NONE)),
            ["[q-zQ-Z]", "p[s-zS-Z]"]
        );
        // The page showed `python-3.12`: the level where it parts from the last one first.
        let seen = ["go-toolchain", "python-3.12", "tokio-1.54.1"];
        assert_eq!(
            said(&after_counted(counted, seen)),
            ["p[s-zS-Z]", "[q-zQ-Z]"]
        );
    }

    #[test]
    fn names_sharing_a_start_part_where_the_page_shows_them_part() {
        // Counted: two of six repositories named `gen-*`. Where the counted names part,
        // `gen-go-`, is no place for the others; `gen-py-a` on the page says where, and so
        // does the level above it without the page.
        let counted = ["gen-go-a", "gen-go-b"];
        assert_eq!(
            said(&after_counted(counted, ["gen-py-a", "gen-go-a"])),
            ["gen-[h-zH-Z]", "gen-go-[c-zC-Z]", "g[f-zF-Z]"]
        );
        assert_eq!(
            said(&after_counted(counted, NONE)),
            ["gen-go-[c-zC-Z]", "gen-[h-zH-Z]", "g[f-zF-Z]"]
        );
        // Counted in a call narrowed to `repo:^gen-[h-zH-Z]`: `g[f-zF-Z]` leaves that filter,
        // and the page drops it (`zoekt::query::excludes`).
        assert_eq!(
            said(&after_counted(["gen-py-b", "gen-rs-a"], NONE)),
            ["gen-[s-zS-Z]", "g[f-zF-Z]"]
        );
        // Hosts: the letters after `m` under `github.com/`, then after `github.`.
        let counted = ["github.com/a/x", "github.com/b/y", "github.com/m/z"];
        assert_eq!(
            said(&after_counted(counted, NONE)),
            ["github.com/[n-zN-Z]", "github.[d-zD-Z]", "g[j-zJ-Z]"]
        );
        let counted = ["github.com/org-a/x", "github.com/org-a/y"];
        assert_eq!(
            said(&after_counted(counted, NONE)),
            [
                "github.com/org-a/[zZ]",
                "github.com/org-[b-zB-Z]",
                "g[j-zJ-Z]"
            ]
        );
        // Digits after a digit.
        assert_eq!(
            said(&after_counted(
                ["python-3.10", "python-3.11"],
                ["python-3.12"]
            )),
            ["python-3.1[2-9]", "python-3.[2-9]", "p[zZ]"]
        );
    }

    #[test]
    fn no_run_holds_a_counted_name() {
        // `Quux` sorts before every lower-case name, and was counted: q is not after the rest.
        assert_eq!(
            said(&after_counted(["Quux", "apple", "mango"], NONE)),
            ["m[b-zB-Z]"]
        );
        // Counted up to z: nothing after it but the rest of its initial.
        assert_eq!(said(&after_counted(["alpha", "zeta"], NONE)), ["z[f-zF-Z]"]);
        assert!(after_counted(["alpha", "zz"], NONE).is_empty());
        assert!(after_counted(NONE, NONE).is_empty());
    }

    fn rest(paths: &[&str]) -> Option<String> {
        let parts = match beside_counted(paths.iter().copied())? {
            NarrowBy::Rest(parts) => parts,
            other => panic!("not a rest: {other:?}"),
        };
        let said: Vec<String> = parts
            .iter()
            .map(|p| match p {
                NarrowBy::Directory { dir, .. } => dir.clone(),
                NarrowBy::Files { dir, .. } if dir.is_empty() => "the top's files".into(),
                other => panic!("not a part of a rest: {other:?}"),
            })
            .collect();
        Some(said.join(" "))
    }

    #[test]
    fn a_cut_census_of_one_repository_offers_all_but_the_directories_it_counted() {
        // `search a b` on the monorepo: counted under two top directories.
        let counted = [
            "go-modules/grpc@v1.82.1/server.go",
            "rust-crates/tokio-1.54.1/src/lib.rs",
            "go-modules/x-sys@v0.47.0/unix/a.go",
        ];
        assert_eq!(rest(&counted).as_deref(), Some("go-modules/ rust-crates/"));
        // Files at the top counted too: the rest keeps only paths in a directory.
        assert_eq!(
            rest(&["README.md", "go-modules/a/b.go"]).as_deref(),
            Some("go-modules/ the top's files")
        );
        // All under one directory: its entries, where the counted paths part.
        assert_eq!(
            rest(&["go-modules/a/x.go", "go-modules/b/y/z.go"]).as_deref(),
            Some("go-modules/a/ go-modules/b/")
        );
        // Too many entries there, or files directly in it: the whole directory.
        let many: Vec<String> = (0..=MAX_LEFT_OUT)
            .map(|i| format!("go/m{i}/x.go"))
            .collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(rest(&many).as_deref(), Some("go/"));
        assert_eq!(rest(&["go/x.go", "go/a/y.go"]).as_deref(), Some("go/"));
        // One file: its directory.
        assert_eq!(rest(&["a/b/c.go"]).as_deref(), Some("a/b/"));
        // Too many at the top: nothing a few filters leave out.
        let top: Vec<String> = (0..=MAX_LEFT_OUT).map(|i| format!("t{i}/x.go")).collect();
        assert_eq!(
            rest(&top.iter().map(String::as_str).collect::<Vec<_>>()),
            None
        );
        assert_eq!(rest(&[]), None);
    }

    #[test]
    fn a_census_of_one_repository_offers_no_run_of_names() {
        // One name parts from no other: whether the index holds more is not known.
        assert!(after_counted(["go-toolchain"], ["tokio"]).is_empty());
    }
}
