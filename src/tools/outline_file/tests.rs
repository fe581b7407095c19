//! Tests of `tools::outline_file`, kept beside it so the module reads as what it does.

use super::*;
use crate::engine::backend::{Fragment, MatchedLine, Symbol};
use crate::engine::testing::file;
use crate::form::write_items;

/// A definition line: `(line, name, kind, parent, parent_kind)`.
fn def(n: u32, name: &str, kind: &str, parent: &str, parent_kind: &str) -> MatchedLine {
    MatchedLine {
        text: format!("{kind} {name}\n"),
        number: n,
        fragments: vec![Fragment {
            byte_offset: 2,
            symbol: Some(Symbol {
                name: name.into(),
                kind: kind.into(),
                parent: parent.into(),
                parent_kind: parent_kind.into(),
            }),
        }],
        ..Default::default()
    }
}

/// The text of `items` as a page without `source` shows them.
fn shown(items: &[OutlineItem]) -> String {
    let mut items = items.to_vec();
    let no_source = Snippet {
        include: false,
        max_chars: 120,
    };
    items.iter_mut().for_each(|i| i.shape(&no_source));
    let mut out = String::new();
    write_items(&items, &mut out);
    out
}

#[test]
fn symbols_nest_under_their_scope_in_tree_order() {
    // Go: a method before its type, members, and everything in the package.
    let f = file(vec![
        def(30, "Close", "func", "http.conn", "struct"),
        def(1, "http", "package", "", ""),
        def(10, "conn", "struct", "http", "package"),
        def(11, "rwc", "member", "http.conn", "struct"),
        def(12, "werr", "member", "http.conn", "struct"),
        def(20, "Serve", "func", "http", "package"),
        def(40, "Other", "func", "http.Remote", "struct"),
        def(50, "Far", "func", "far.Away", "struct"),
        def(3, "url", "packageName", "", ""),
    ]);
    let items = outline(&f, &BTreeSet::new());
    let got: Vec<(u32, u32, &str)> = items
        .iter()
        .map(|i| (i.depth, i.line, i.definition.name.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (0, 1, "http"),
            (1, 10, "conn"),
            (2, 11, "rwc"),
            (2, 12, "werr"),
            (2, 30, "Close"),
            (1, 20, "Serve"),
            (1, 40, "Other"),
            (0, 3, "url"),
            (0, 50, "Far"),
        ]
    );
    // A scope the outline does not hold is said (`Other` nests in the package its
    // qualifier names); one it holds is the nesting.
    assert_eq!(items[6].definition.parent.as_deref(), Some("http.Remote"));
    assert_eq!(items[6].definition.parent_kind.as_deref(), Some("struct"));
    assert!(items[4].definition.parent.is_none());
    assert_eq!(
        shown(&items[..7]),
        "r/a.go\n1 package http\n 10 struct conn\n  11 member rwc\n  12 werr\n  30 func Close\n \
         20 func Serve\n 40 Other (in struct http.Remote)\n"
    );
    // The first item of a page says its kind.
    assert_eq!(shown(&items[3..4]), "r/a.go\n  12 member werr\n");
}

#[test]
fn the_nearest_scope_before_is_the_parent_and_kinds_must_fit() {
    // Rust: two impl blocks of one type, and a struct of the same name.
    let f = file(vec![
        def(1, "Registry", "struct", "", ""),
        def(5, "Registry", "implementation", "", ""),
        def(6, "new", "method", "Registry", "implementation"),
        def(9, "Registry", "implementation", "", ""),
        def(10, "len", "method", "Registry", "implementation"),
        def(12, "base", "field", "Registry", "struct"),
    ]);
    let items = outline(&f, &BTreeSet::new());
    let got: Vec<(u32, u32)> = items.iter().map(|i| (i.depth, i.line)).collect();
    assert_eq!(got, [(0, 1), (1, 12), (0, 5), (1, 6), (0, 9), (1, 10)]);
    // Only methods: their scope is left out, so they are roots that name it.
    let methods = BTreeSet::from(["method".to_string()]);
    let items = outline(&f, &methods);
    assert_eq!(items.len(), 2);
    assert!(items.iter().all(|i| i.depth == 0));
    assert_eq!(items[0].definition.parent.as_deref(), Some("Registry"));
}

#[test]
fn markdown_sections_nest_by_their_last_heading() {
    let f = file(vec![
        def(1, "Go", "chapter", "", ""),
        def(15, "Install", "section", "Go", "chapter"),
        def(17, "Binary v1.2", "subsection", "Go\"\"Install", "section"),
    ]);
    let depths: Vec<u32> = outline(&f, &BTreeSet::new())
        .iter()
        .map(|i| i.depth)
        .collect();
    assert_eq!(depths, [0, 1, 2]);
}

#[test]
fn a_scope_naming_itself_or_a_loop_makes_no_cycle() {
    let f = file(vec![
        def(1, "a", "class", "b", "class"),
        def(2, "b", "class", "a", "class"),
        def(3, "c", "class", "c", "class"),
    ]);
    let items = outline(&f, &BTreeSet::new());
    let got: Vec<(u32, u32)> = items.iter().map(|i| (i.depth, i.line)).collect();
    // `a` takes `b` as its parent; `b` may not then take `a`. `c` is its own scope only.
    assert_eq!(got, [(0, 2), (1, 1), (0, 3)]);
}

#[test]
fn the_same_definition_twice_is_one_item_and_file_name_matches_are_none() {
    let mut twice = def(4, "f", "func", "", "");
    twice.fragments.push(twice.fragments[0].clone());
    let name_match = MatchedLine {
        number: 0,
        text: "a.go".into(),
        ..Default::default()
    };
    let items = outline(&file(vec![twice, name_match]), &BTreeSet::new());
    assert_eq!(items.len(), 1);
}

#[test]
fn the_query_names_the_file_and_its_symbols_and_source_is_shown_on_request() {
    let args = OutlineFileArgs {
        repo: "alpha-rs".into(),
        path: "src/lib.rs".into(),
        ..Default::default()
    };
    let plan = OutlineFile::plan(&args, &PagerConfig::default()).unwrap();
    assert_eq!(
        plan.query,
        r"case:yes repo:^alpha-rs$ file:^src/lib\.rs$ (sym:. or file:^src/lib\.rs$)"
    );
    use crate::engine::tool::PagedArgs;
    assert_eq!(args.paging().include_snippet, Some(false));
    let asked = OutlineFileArgs {
        source: Some(true),
        ..args
    };
    assert_eq!(asked.paging().include_snippet, Some(true));
    let none = OutlineFileArgs {
        path: String::new(),
        ..asked
    };
    assert!(OutlineFile::plan(&none, &PagerConfig::default()).is_err());
}
