//! The query validator and builders: any text as a query, symbol or filter is built or
//! refused with a reason, never a panic. A query every builder accepts holds no `type:` atom
//! the validator let through: checked by a plain scan of the built query's words, written
//! apart from the validator's tokenizer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zoekt_pager::zoekt::query;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (first, second) = text.split_once('\0').unwrap_or((text, ""));
    let _ = query::tokenize(first);
    let _ = query::parse(first);
    let _ = query::parse_filters(first);
    let typed = plainly_typed(first);
    for built in [
        query::symbols_query(first),
        query::files_query(first),
        query::search_query(first),
    ] {
        assert!(!(typed && built.is_ok()), "{first:?} -> {built:?}");
    }
    let _ = query::references_queries(first, second);
    let _ = query::exact_file_query(first, second);
    let _ = query::escape_regex(first);
    let _ = query::escape_token_regex(first);
});

/// A query without quotes or backslashes in which `type:` or `t:` starts a word or follows
/// `(`, `)` or `-` (Zoekt reads those as grouping and negation glued to an atom): every
/// builder must refuse it.
fn plainly_typed(text: &str) -> bool {
    if text.contains('"') || text.contains('\\') {
        return false;
    }
    text.split_whitespace().any(|word| {
        let bytes = word.as_bytes();
        (0..bytes.len()).any(|at| {
            let starts_atom = at == 0 || matches!(bytes[at - 1], b'(' | b')' | b'-');
            starts_atom && (bytes[at..].starts_with(b"type:") || bytes[at..].starts_with(b"t:"))
        })
    })
}
