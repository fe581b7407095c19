//! The engine's tests of the ways to narrow: censuses written as tables of files, and the
//! ways each ranks, checked against what Zoekt's filters would select.

use super::*;
use crate::engine::census::{CountKind, CountedFile};

mod rest;
mod runs;

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
        NarrowBy::Rest(parts) => {
            let parts: Vec<String> = parts.iter().map(words).collect();
            format!("all but {}", parts.join(" and "))
        }
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
    // One repository counted: whether the index holds others is not known, so no run of
    // names; the rest beside the directory counted holds every path outside a/, in it and
    // in any other repository.
    let mut one = Arc::try_unwrap(census("solo a/b#.go Go *40", CountUnit::Files)).unwrap();
    one.shards_unsearched = true;
    let n = narrowing(&Arc::new(one), &[]).expect("ways");
    let beside: Vec<String> = n.uncounted.iter().map(words).collect();
    assert_eq!(beside, ["all but directory a/"]);
}

/// `search a b` on the monorepo: Zoekt's time ran out after the shards holding `go-modules/`
/// and `rust-crates/`; `c-include/`, `python/` and the rest hold results no counted way
/// leads to.
#[test]
fn a_cut_census_of_one_repository_offers_all_but_the_directories_it_counted() {
    let table = "m go-modules/g/a#.go Go *60; m go-modules/x/b#.go Go *30; \
                 m rust-crates/t/c#.rs Rust *40";
    let whole = narrowing(&census(table, CountUnit::Files), &[]).expect("ways");
    assert!(whole.uncounted.is_empty(), "Zoekt searched every file");
    let mut cut = Arc::try_unwrap(census(table, CountUnit::Files)).expect("one owner");
    cut.complete = false;
    let per_shard_cap = narrowing(&Arc::new(cut), &[]).expect("ways");
    assert!(per_shard_cap.uncounted.is_empty(), "every shard searched");
    let mut cut = Arc::try_unwrap(census(table, CountUnit::Files)).expect("one owner");
    (cut.complete, cut.shards_unsearched) = (false, true);
    let n = narrowing(&Arc::new(cut), &[]).expect("ways");
    let beside: Vec<String> = n.uncounted.iter().map(words).collect();
    assert_eq!(
        beside,
        ["all but directory go-modules/ and directory rust-crates/"]
    );
    // It holds no counted file; the counted ways are the same.
    let paths: Vec<String> = Arc::try_unwrap(census(table, CountUnit::Files))
        .expect("one owner")
        .files
        .into_iter()
        .map(|f| f.path)
        .collect();
    assert!(paths.iter().all(|p| !holds(&n.uncounted[0], p)));
    assert!(holds(&n.uncounted[0], "python/2.7/json/decoder.py"));
    assert_eq!(ways(&n), ways(&whole));
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

/// One crate; its src/ holds 90 of 100 files, in twenty subdirectories of 4 or 5 (more than
/// the list has places) and one file of its own; tests/ holds 6 and benches/ 4.
fn one_crate_with_a_wide_src() -> String {
    let mut table = String::from("m t/tests/x#.rs Rust *6; m t/benches/y#.rs Rust *4;");
    for (i, d) in [
        "io", "net", "runtime", "sync", "task", "time", "fs", "process", "signal", "util",
        "macros", "loom", "doc", "fuzz", "future", "stream", "blocking", "coop", "trace", "park",
    ]
    .iter()
    .enumerate()
    {
        let n = if i < 9 { 5 } else { 4 };
        table.push_str(&format!(" m t/src/{d}/f#.rs Rust *{n};"));
    }
    table.push_str(" m t/src/lib.rs Rust");
    table
}

#[test]
fn the_list_goes_down_through_a_part_holding_most_and_names_it_when_much_is_unnamed() {
    // One crate; its src/ holds 90 of 100 files, in twenty subdirectories of 4 or 5,
    // more than the list has places (the tokio: four named directories held
    // 3,748 of 5,239 results, and neither src/task/ nor src/ itself was named).
    let table = one_crate_with_a_wide_src();
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

#[test]
fn a_list_cut_to_its_characters_names_the_big_part_once_its_ways_inside_name_too_little() {
    // The same crate, with 14 places: the ways inside t/src/ name all of it, so it needs no
    // place of its own while the list keeps them. It stands by.
    let table = one_crate_with_a_wide_src();
    let n = narrowing(&census(&table, CountUnit::Files), &[]).expect("ways");
    let standby = n.standby.as_ref().expect("t/src/ stands by");
    assert_eq!(
        (words(&standby.by), standby.items),
        ("directory t/src/".into(), 90)
    );
    assert!(!ways(&n).contains("directory t/src/:"), "{}", ways(&n));
    // Cut from the end, as the form cuts a list too long for its characters (t/tests/, a
    // large part beside, keeps its place): seven ways dropped leave 67 of t/src/'s 90 files
    // named, and it still stands by; the eighth leaves 59, under two thirds, and t/src/
    // takes a kept place at the end.
    let mut cut = n.clone();
    for _ in 0..7 {
        assert!(cut.drop_one());
    }
    assert!(cut.standby.is_some(), "{}", ways(&cut));
    assert!(cut.drop_one());
    assert_eq!(
        ways(&cut),
        "run t/src/[sS]: 14; run t/src/[tT]: 14; run t/src/[fF]: 13; \
         run t/src/[l-mL-M]: 9; run t/src/[pP]: 9; directory t/tests/: 6; \
         directory t/src/: 90"
    );
    assert!(cut.ways.last().is_some_and(|w| w.kept));
    // Kept, it stays while the ways before it go.
    for _ in 0..5 {
        assert!(cut.drop_one());
    }
    assert_eq!(ways(&cut), "directory t/tests/: 6; directory t/src/: 90");
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
        NarrowBy::Rest(parts) => !parts.iter().any(|part| holds(part, path)),
        _ => false,
    }
}

/// The `paths` (of the only repository) no way of `n` holds.
fn unreached<'p>(n: &Narrowing, paths: &'p [String]) -> Vec<&'p String> {
    paths
        .iter()
        .filter(|p| !n.ways.iter().any(|w| holds(&w.by, p)))
        .collect()
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
