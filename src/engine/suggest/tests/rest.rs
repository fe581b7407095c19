//! The rest of a result beside its big part as a way of its own: when it is offered, and
//! when the ways already name what it holds.

use super::*;

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
