//! Tests of `zoekt::query`, kept beside it so the module reads as what it does.

use super::*;

#[test]
fn exact_file_query_is_anchored_and_escaped() {
    assert_eq!(
        exact_file_query("alpha-rs", "src/lib.rs").unwrap(),
        "case:yes repo:^alpha-rs$ file:^src/lib\\.rs$"
    );
    // Spaces, quotes, parentheses and a leading dash stay inside one literal token.
    let q = exact_file_query("-r", "a b/\"x\"(y).go").unwrap();
    assert_eq!(q, r#"case:yes repo:^\-r$ file:^a\ b/\"x\"\(y\)\.go$"#);
    assert_eq!(tokenize(&q).unwrap().len(), 3);
    // The pager's own parser reads it (a query it left to Zoekt's JSON API would fail on
    // a webserver without `-rpc`).
    use crate::zoekt::grpc::query::{Parsed, parse};
    assert!(matches!(parse(&q), Parsed::Tree(_)), "{:?}", parse(&q));
    assert!(exact_file_query("r", "").is_err());
    assert!(exact_file_query("r", "a\nb").is_err());
    // The escaped form is a regex that matches the original text and nothing longer.
    let re = regex::Regex::new(&format!("^{}$", escape_token_regex("src/ü.x+(1)"))).unwrap();
    assert!(re.is_match("src/ü.x+(1)"));
    assert!(!re.is_match("src/üAx+(1)"));
}

#[test]
fn symbol_filters_stay_filters() {
    assert_eq!(symbols_query("lang:go foo").unwrap(), "lang:go sym:foo");
    assert_eq!(symbols_query("sym:foo lang:go").unwrap(), "lang:go sym:foo");
    assert_eq!(
        symbols_query("-file:_test repo:^core$ case:yes Handler").unwrap(),
        "-file:_test repo:^core$ case:yes sym:Handler"
    );
}

#[test]
fn symbol_query_needs_exactly_one_pattern() {
    assert_eq!(symbols_query("lang:go"), Err(QueryError::MissingPattern));
    assert!(matches!(
        symbols_query("foo bar"),
        Err(QueryError::SeveralPatterns { .. })
    ));
    assert!(matches!(
        symbols_query("type:file foo"),
        Err(QueryError::ShapeAtom { .. })
    ));
}

/// Every way of writing a `type:` atom (grouped, negated, both, nested, beside `or` and
/// other atoms), through every query builder, is refused; quoted, it is only text.
#[test]
fn type_atoms_are_refused_however_they_are_wrapped() {
    let wrappers = ["", "(", "-", "-(", "(-", "((", "(-(", "-((-"];
    let closers = ["", ")", "))"];
    let mut tried = 0;
    for prefix in SHAPE_PREFIXES {
        for wrap in wrappers {
            for close in closers {
                let atom = format!("{wrap}{prefix}repo{close}");
                for query in [
                    atom.clone(),
                    format!("(a){atom}"),
                    format!("foo {atom}"),
                    format!("{atom} foo"),
                    format!("lang:go {atom} or bar"),
                    format!("(foo or {atom}) bar"),
                ] {
                    tried += 1;
                    let refused = |r: Result<String, QueryError>| {
                        matches!(r, Err(QueryError::ShapeAtom { .. }))
                    };
                    assert!(refused(search_query(&query)), "search {query:?}");
                    assert!(refused(files_query(&query)), "files {query:?}");
                    assert!(
                        matches!(symbols_query(&query), Err(QueryError::ShapeAtom { .. })),
                        "symbols {query:?}"
                    );
                    assert!(
                        matches!(parse_filters(&query), Err(QueryError::ShapeAtom { .. })),
                        "filters {query:?}"
                    );
                }
            }
        }
    }
    assert_eq!(tried, 2 * 8 * 3 * 6);
    // Not an atom: inside a word, or quoted.
    assert!(search_query("mytype:repo").is_ok());
    assert!(search_query("content:t:x").is_ok());
    assert_eq!(
        search_query("\"type:repo\" x"),
        Ok("\"type:repo\" x".into())
    );
}

#[test]
fn newlines_and_empty_input_never_pass() {
    assert_eq!(symbols_query("foo\nbar"), Err(QueryError::ControlCharacter));
    assert_eq!(search_query("a\r\nb"), Err(QueryError::ControlCharacter));
    assert_eq!(search_query("   "), Err(QueryError::Empty));
    assert_eq!(files_query(""), Err(QueryError::Empty));
    assert!(matches!(
        search_query(&"x".repeat(MAX_QUERY_CHARS + 1)),
        Err(QueryError::TooLong { .. })
    ));
}

#[test]
fn search_queries_are_canonical_outside_quotes() {
    assert_eq!(
        search_query("  foo   lang:go  \"a  b\" ").unwrap(),
        "foo lang:go \"a  b\""
    );
    assert_eq!(search_query("x lang:go").unwrap(), "x lang:go");
}

#[test]
fn quotes_keep_spaces_inside_one_token() {
    assert_eq!(
        tokenize(r#"lang:go "a \" b" c"#).unwrap(),
        vec!["lang:go", r#""a \" b""#, "c"]
    );
    assert_eq!(tokenize("\"open"), Err(QueryError::UnbalancedQuote));
}

#[test]
fn files_use_file_atoms_only() {
    assert_eq!(
        files_query("widgetry lang:go").unwrap(),
        "lang:go file:widgetry"
    );
    assert_eq!(files_query("src -test").unwrap(), "file:src -file:test");
    assert_eq!(files_query("repo:alpha").unwrap(), "repo:alpha file:.");
}

#[test]
fn references_are_escaped_whole_word_and_case_sensitive() {
    let q = references_queries("get", "lang:go").unwrap();
    assert_eq!(q.definitions, "case:yes lang:go sym:^get$");
    assert_eq!(q.usages, r"case:yes lang:go (sym:^get$ or content:\bget\b)");
    assert_eq!(q.words, r"case:yes lang:go content:\bget\b");
    assert_eq!(
        census_carrying(&q.definitions, &q.words),
        r"(case:yes lang:go sym:^get$) or (type:file (case:yes lang:go content:\bget\b))"
    );
    let q = references_queries("a.b$", "").unwrap();
    assert_eq!(q.usages, r"case:yes (sym:^a\.b\$$ or content:\ba\.b\$)");
    assert_eq!(q.words, r"case:yes content:\ba\.b\$");
    assert!(references_queries("get user", "").is_err());
    assert!(references_queries("get", "foo").is_err());
    // A caller's case: filter cannot switch off case sensitivity.
    let q = references_queries("get", "case:no").unwrap();
    assert_eq!(q.usages, r"case:yes (sym:^get$ or content:\bget\b)");
}

#[test]
fn files_with_a_matching_line_are_the_query_and_one_term_in_content() {
    assert_eq!(
        content_files_query("a b lang:go").as_deref(),
        Some("a b lang:go (c:a or c:b)")
    );
    // One term: no group around it (Zoekt reads `(c:x)` as nothing at all).
    assert_eq!(
        content_files_query(r#""func main" -file:_test"#).as_deref(),
        Some(r#""func main" -file:_test c:"func main""#)
    );
    // Negated terms and filters give no line; a negation of a negation does.
    assert_eq!(
        content_files_query("a -b -(c -d)").as_deref(),
        Some("a -b -(c -d) (c:a or c:d)")
    );
    // A query with `or` is grouped, with spaces inside its parentheses.
    assert_eq!(
        content_files_query("content:x or sym:Y").as_deref(),
        Some("( content:x or sym:Y ) (content:x or sym:Y)")
    );
    assert_eq!(
        content_files_query("(a or b) c").as_deref(),
        Some("( (a or b) c ) (c:a or c:b or c:c)")
    );
    // Nothing that gives a line, or a group this reading would guess at.
    assert_eq!(content_files_query("lang:go -x"), None);
    assert_eq!(content_files_query("f(x)"), None);
    assert_eq!(content_files_query("(a b"), None);
}
