//! Tests of the filters a way to narrow is written as, and of what a call's own filters exclude.

use super::*;
use crate::zoekt::query::parse;

/// `query` narrowed by `filter` alone, as one query.
fn and_filter(query: &str, filter: &str) -> String {
    let (base, added) = and_filters(query, &[filter.to_string()]);
    narrowed_value(&base, &added[0])
}

#[test]
fn a_repository_run_the_callers_own_contradicts_is_excluded() {
    // The caller followed `repo:^gen-[h-zH-Z]`: nothing starting `g[f-z]` is in it.
    assert!(excludes(". repo:^gen-[h-zH-Z]", "repo:^g[f-zF-Z]"));
    assert!(excludes("x repo:^gen-go-", "repo:^gen-[h-zH-Z]"));
    assert!(excludes(r"x repo:^tokio$", "repo:^tokio[a-zA-Z]"));
    assert!(excludes("x r:^[a-cA-C]", "repo:^[q-zQ-Z]"));
    // Inside it, beside it, or not readable: kept.
    assert!(!excludes(". repo:^gen-[h-zH-Z]", "repo:^gen-[s-zS-Z]"));
    assert!(!excludes(". repo:^gen-[h-zH-Z]", "repo:^g"));
    assert!(!excludes("x", "repo:^[q-zQ-Z]"));
    assert!(!excludes("x file:^src/", "repo:^[q-zQ-Z]"));
    assert!(!excludes("x repo:gen", "repo:^[q-zQ-Z]"));
    assert!(!excludes("x repo:^(a|b)", "repo:^[q-zQ-Z]"));
    assert!(!excludes("(x or y) repo:^a", "repo:^[q-zQ-Z]"));
    // A name that ends where the other goes on.
    assert!(!excludes(r"x repo:^tokio$", r"repo:^tokio$"));
}

#[test]
fn a_rest_leaving_out_the_callers_own_directory_is_excluded() {
    // The call is inside go-modules/: all but go-modules/ holds nothing of it.
    assert!(excludes("x file:^go-modules/", "-file:^go-modules/"));
    assert!(excludes(
        "x file:^go-modules/[a-cA-C]",
        "-file:^rust-crates/ -file:^go-modules/"
    ));
    assert!(excludes(r"x file:^Go/x\.go$", "-file:^go/"));
    assert!(excludes("x repo:^tokio$", "-repo:^tokio"));
    // Beside it, inside it, or a class where the literal goes on: kept.
    assert!(!excludes("x file:^go-modules/", "-file:^rust-crates/"));
    assert!(!excludes("x file:^go-modules/", "-file:^go-modules/a/"));
    assert!(!excludes(
        "x file:^go-modules/[a-cA-C]",
        "-file:^go-modules/a"
    ));
    assert!(!excludes("x file:go-modules/", "-file:^go-modules/"));
    assert!(!excludes("x file:^Go/", "-file:^go/[a-c]"));
    assert!(!excludes("x file:^go/", "-file:^Go/"));
    assert!(!excludes("x repo:^tokio$", "-file:^tokio"));
    // An atom the call negates, or negates an atom of the call: nothing in common.
    assert!(excludes("x -file:/", "-file:^a/ file:/"));
    assert!(excludes("x file:^a/", "-file:^b/ -file:^a/"));
    assert!(!excludes("x -file:/", "-file:^a/"));
}

#[test]
fn narrowing_filters_read_plainly_and_parse_as_their_atoms() {
    use crate::engine::suggest::{Initial, NarrowBy, Run};
    let dir = |repo: Option<&str>, dir: &str| NarrowBy::Directory {
        repo: repo.map(String::from),
        dir: dir.into(),
    };
    let cases = [
        (
            NarrowBy::Repo("tokio-1.54.1".into()),
            r"repo:^tokio-1\.54\.1$",
        ),
        (
            NarrowBy::Repo("github.com/o/x+y".into()),
            r"repo:^github\.com/o/x\+y$",
        ),
        (NarrowBy::Language("Go".into()), "lang:Go"),
        (NarrowBy::Language("C++".into()), "lang:C++"),
        (
            NarrowBy::Language("Protocol Buffer".into()),
            "lang:\"Protocol Buffer\"",
        ),
        (dir(None, "src/a b/"), r"file:^src/a\x{20}b/"),
        (
            dir(None, "x-sys@v0.38.0/unix/"),
            r"file:^x-sys@v0\.38\.0/unix/",
        ),
        (
            dir(Some("tokio-1.54.1"), "src/(x)/"),
            r"repo:^tokio-1\.54\.1$ file:^src/\(x\)/",
        ),
        // The rest beside a big part: its one atom negated.
        (NarrowBy::Rest(vec![dir(None, "test/")]), r"-file:^test/"),
        (
            NarrowBy::Rest(vec![NarrowBy::Repo("go-toolchain".into())]),
            r"-repo:^go-toolchain$",
        ),
        // The rest beside what a cut census counted: each part negated, the files at
        // the top too (any path in a directory).
        (
            NarrowBy::Rest(vec![
                dir(None, "go-modules/"),
                dir(None, "rust-crates/"),
                NarrowBy::Files {
                    repo: None,
                    dir: String::new(),
                },
            ]),
            r"-file:^go-modules/ -file:^rust-crates/ file:/",
        ),
        // A directory's own files: in it, in none of its subdirectories; no brackets,
        // which the gRPC parser leaves to Zoekt's JSON API.
        (
            NarrowBy::Files {
                repo: None,
                dir: "c-include/".into(),
            },
            r"file:^c-include/ -file:^c-include/.+/",
        ),
        (
            NarrowBy::Files {
                repo: Some("a.b".into()),
                dir: String::new(),
            },
            r"repo:^a\.b$ -file:/",
        ),
        // Runs of names: a class of letters in both cases (a capital in the atom: Zoekt
        // matches the start as written), a digit bare, a name alone to its end.
        (
            NarrowBy::Group(Run {
                repo: None,
                dir: Some("rust-crates/".into()),
                start: String::new(),
                initial: Initial::Letters('p', 'r'),
            }),
            r"file:^rust-crates/[p-rP-R]",
        ),
        (
            NarrowBy::Group(Run {
                repo: Some("go".into()),
                dir: Some("test/fixedbugs/".into()),
                start: "issue1".into(),
                initial: Initial::Digits('0', '4'),
            }),
            r"repo:^go$ file:^test/fixedbugs/issue1[0-4]",
        ),
        (
            NarrowBy::Group(Run {
                repo: None,
                dir: None,
                start: "python-3.1".into(),
                initial: Initial::Digits('2', '2'),
            }),
            r"repo:^python-3\.12",
        ),
        (
            NarrowBy::Group(Run {
                repo: None,
                dir: Some(String::new()),
                start: "a.go".into(),
                initial: Initial::End,
            }),
            r"file:^a\.go$",
        ),
        (
            NarrowBy::Group(Run {
                repo: None,
                dir: Some("npm/".into()),
                start: String::new(),
                initial: Initial::Char('@'),
            }),
            r"file:^npm/@",
        ),
    ];
    for (by, want) in cases {
        let filter = narrowing_filter(&by);
        assert_eq!(filter, want);
        // The pager's own parser keeps each atom as one filter.
        let parsed = parse(&format!("foo {filter}")).unwrap();
        let atoms: Vec<String> = filter.split(' ').map(String::from).collect();
        let atoms = if filter.starts_with("lang:\"") {
            vec![filter.clone()]
        } else {
            atoms
        };
        assert_eq!(parsed.filters, atoms, "{filter}");
    }
    assert_eq!(and_filter("a or b", "lang:Go"), "(a or b) lang:Go");
    assert_eq!(and_filter("foo", "lang:Go"), "foo lang:Go");
    assert_eq!(and_filter("  ", "lang:Go"), "lang:Go");
}

#[test]
fn ways_said_once_for_all_are_the_calls_said_one_by_one() {
    let filters: Vec<String> = [
        r"file:^go-toolchain/src/net/",
        "lang:Go",
        r"file:^go-toolchain/src/[a-cA-C]",
        "repo:^x$",
    ]
    .map(String::from)
    .to_vec();
    // The directory the query has is replaced by three ways and kept by one.
    let q = r"func file:^go-toolchain/src/ main";
    let (base, added) = and_filters(q, &filters);
    assert_eq!(base, "func main");
    assert_eq!(
        added,
        [
            r"file:^go-toolchain/src/net/",
            r"file:^go-toolchain/src/ lang:Go",
            r"file:^go-toolchain/src/[a-cA-C]",
            r"file:^go-toolchain/src/ repo:^x$",
        ]
    );
    // Each is the one-by-one call, atom for atom (the query's atoms hold together).
    for (filter, added) in filters.iter().zip(&added) {
        let mut one: Vec<String> = tokenize(&and_filter(q, filter)).unwrap();
        let mut all: Vec<String> = tokenize(&narrowed_value(&base, added)).unwrap();
        one.sort();
        all.sort();
        assert_eq!(one, all, "{filter}");
    }
    // A filter the query holds already is said once, by the way that adds it.
    let (base, added) = and_filters("a lang:Go", &["lang:Go".into(), "repo:^x$".into()]);
    assert_eq!(
        (base.as_str(), added),
        ("a", vec!["lang:Go".into(), "lang:Go repo:^x$".to_string()])
    );
    // With `or`, the query is one group every way keeps; none replaces inside it.
    let (base, added) = and_filters(r"a or b file:^x/", &[r"file:^x/y/".into()]);
    assert_eq!(
        (base.as_str(), added),
        ("(a or b file:^x/)", vec![r"file:^x/y/".to_string()])
    );
    // A lone `-` negates the next atom: nothing moves around it.
    let (base, added) = and_filters(r"- file:^a/ err", &[r"file:^a/b/".into()]);
    assert_eq!(
        (base.as_str(), added),
        (r"- file:^a/ err", vec![r"file:^a/b/".to_string()])
    );
    // No query (find_references' filters): the ways alone.
    assert_eq!(
        and_filters("", &["lang:Go".into()]),
        (String::new(), vec!["lang:Go".to_string()])
    );
}

#[test]
fn a_narrower_directory_replaces_the_file_filter_it_refines() {
    let q = r"func main file:^go-toolchain/src/";
    // (query, filter added, the query that holds both)
    let cases = [
        (
            q,
            r"file:^go-toolchain/src/runtime/",
            r"func main file:^go-toolchain/src/runtime/",
        ),
        // Its own files: the directory filter is kept by the new one, said once.
        (
            q,
            r"file:^go-toolchain/src/ -file:^go-toolchain/src/.+/",
            r"func main file:^go-toolchain/src/ -file:^go-toolchain/src/.+/",
        ),
        // A repository said again is said once.
        (
            r"x repo:^a$",
            r"repo:^a$ file:^src/",
            r"x repo:^a$ file:^src/",
        ),
        // Not a refinement: both hold.
        (r"x file:^a/", r"file:^b/", r"x file:^a/ file:^b/"),
        (r"x f:^a/b\.", r"file:^a/bc/", r"x f:^a/b\. file:^a/bc/"),
        (r"x f:^a/b.", r"file:^a/bc/", r"x f:^a/b. file:^a/bc/"),
        // A run of names and what is inside it: the narrower replaces it.
        (r"x f:^a/b", r"file:^a/bc/", r"x file:^a/bc/"),
        // A directory inside a run of letters replaces it, with a capital or without.
        (
            r"x file:^src/[a-cA-C]",
            r"file:^src/cmd/",
            r"x file:^src/cmd/",
        ),
        (
            r"x file:^src/[a-cA-C]",
            r"file:^src/Bin/",
            r"x file:^src/Bin/",
        ),
        (
            r"x file:^src/[a-cA-C]",
            r"file:^src/dev/",
            r"x file:^src/[a-cA-C] file:^src/dev/",
        ),
        (
            r"x file:^src/[a-cA-C]",
            r"file:^src/[bB]",
            r"x file:^src/[bB]",
        ),
        (
            r"x file:^src/[a-cA-C]",
            r"file:^src/[b-dB-D]",
            r"x file:^src/[a-cA-C] file:^src/[b-dB-D]",
        ),
        (r"x repo:^[a-cA-C]", r"repo:^abc$", r"x repo:^abc$"),
        (
            r"x repo:^[a-cA-C]",
            r"file:^abc/",
            r"x repo:^[a-cA-C] file:^abc/",
        ),
        (r"x -file:^a/", r"file:^a/b/", r"x -file:^a/ file:^a/b/"),
        // With `or` or groups, every atom stays where it is.
        (
            r"x or y file:^a/",
            r"file:^a/b/",
            r"(x or y file:^a/) file:^a/b/",
        ),
        (r"(x file:^a/)", r"file:^a/b/", r"(x file:^a/) file:^a/b/"),
    ];
    for (query, filter, both) in cases {
        assert_eq!(and_filter(query, filter), both, "{query} + {filter}");
    }
}
