//! Building Zoekt query strings from what a tool caller typed.
//!
//! Zoekt's query language is powerful and full of traps for generated queries (see
//! `docs/zoekt.md`, section 4): a token starting with `-` negates, `type:` changes the shape of the
//! whole answer, newlines are parse errors, `sym:lang:go` silently searches for a symbol named
//! `lang:go`. So tools never paste user text into a template. The text is split into tokens;
//! filter atoms (`lang:`, `repo:`, `file:`, `case:` ... and their negations) are kept as
//! filters; what remains is the pattern, wrapped in the atom the tool needs.

/// Atoms that narrow WHICH files are searched without producing matches of their own kind
/// that would confuse a tool. Checked after an optional leading `-`.
use crate::engine::suggest::NarrowBy;

const FILTER_PREFIXES: &[&str] = &[
    "lang:",
    "repo:",
    "r:",
    "file:",
    "f:",
    "case:",
    "branch:",
    "b:",
    "archived:",
    "fork:",
    "public:",
    "meta:",
];

/// Atoms that change the result shape of the whole expression: never sent.
const SHAPE_PREFIXES: &[&str] = &["type:", "t:"];

/// Longest query text accepted (characters); longer input is an error, not a truncation.
pub const MAX_QUERY_CHARS: usize = 1000;

/// Why a query cannot be built: the engine's error, which this builder produces.
pub use crate::engine::error::QueryError;

/// A user query split into filter atoms and pattern tokens.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedQuery {
    /// Filter atoms, verbatim (e.g. `lang:go`, `-file:_test`).
    pub filters: Vec<String>,
    /// Everything else, verbatim.
    pub patterns: Vec<String>,
}

/// Splits on whitespace, keeping double-quoted parts (with `\"` escapes) inside one token.
pub fn tokenize(input: &str) -> Result<Vec<String>, QueryError> {
    check_text(input)?;
    let mut tokens = Vec::new();
    let mut current = String::new();
    let mut in_quote = false;
    let mut chars = input.chars();
    while let Some(c) = chars.next() {
        match c {
            // Zoekt keeps a backslash and the character after it in the token, inside quotes
            // and out (`a\ b` is one token, a regex matching `a b`).
            '\\' => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            '"' => {
                in_quote = !in_quote;
                current.push(c);
            }
            c if c.is_whitespace() && !in_quote => {
                if !current.is_empty() {
                    tokens.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if in_quote {
        return Err(QueryError::UnbalancedQuote);
    }
    if !current.is_empty() {
        tokens.push(current);
    }
    if tokens.is_empty() {
        return Err(QueryError::Empty);
    }
    Ok(tokens)
}

/// Rejects what must never reach Zoekt whatever the tool: empty, oversized, control characters
/// other than plain spaces between tokens (a newline is a Zoekt parse error).
fn check_text(input: &str) -> Result<(), QueryError> {
    if input.trim().is_empty() {
        return Err(QueryError::Empty);
    }
    let chars = input.chars().count();
    if chars > MAX_QUERY_CHARS {
        return Err(QueryError::TooLong {
            what: "query",
            chars,
            max: MAX_QUERY_CHARS,
        });
    }
    if input.chars().any(|c| c.is_control()) {
        return Err(QueryError::ControlCharacter);
    }
    Ok(())
}

fn has_prefix(token: &str, prefixes: &[&str]) -> bool {
    let bare = token.strip_prefix('-').unwrap_or(token);
    prefixes.iter().any(|p| bare.starts_with(p))
}

/// Whether `token` holds a `type:` atom. Zoekt opens and closes groups and negates with `(`,
/// `)` and `-` glued to atoms, in any mix: `(type:repo x)`, `-(type:repo)` and
/// `(a)(type:repo b)` all hold one. So any `type:` at the token's start or right after one
/// of those characters counts; a quoted token is text.
fn is_shape_atom(token: &str) -> bool {
    if token.starts_with('"') {
        return false;
    }
    SHAPE_PREFIXES.iter().any(|p| {
        token.match_indices(p).any(|(at, _)| {
            token[..at]
                .chars()
                .next_back()
                .is_none_or(|c| matches!(c, '(' | ')' | '-'))
        })
    })
}

/// Splits a query into filters and patterns; `type:` atoms are refused.
pub fn parse(input: &str) -> Result<ParsedQuery, QueryError> {
    let mut parsed = ParsedQuery::default();
    for token in tokenize(input)? {
        if is_shape_atom(&token) {
            return Err(QueryError::ShapeAtom { token });
        }
        if has_prefix(&token, FILTER_PREFIXES) {
            parsed.filters.push(token);
        } else {
            parsed.patterns.push(token);
        }
    }
    Ok(parsed)
}

/// Parses a string that must hold only filter atoms (find_references' `filters`).
pub fn parse_filters(input: &str) -> Result<Vec<String>, QueryError> {
    if input.trim().is_empty() {
        return Ok(Vec::new());
    }
    let parsed = parse(input)?;
    if let Some(token) = parsed.patterns.into_iter().next() {
        return Err(QueryError::NotAFilter { token });
    }
    Ok(parsed.filters)
}

fn join(filters: &[String], atom: &str) -> String {
    let mut parts: Vec<&str> = filters.iter().map(String::as_str).collect();
    parts.push(atom);
    parts.join(" ")
}

/// `search_symbols`: one pattern (bare or already `sym:`-prefixed) becomes a `sym:` atom;
/// filters stay filters, so `lang:go foo` is `lang:go sym:foo`, never `sym:lang:go`.
pub fn symbols_query(input: &str) -> Result<String, QueryError> {
    let parsed = parse(input)?;
    let pattern = single_pattern(parsed.patterns)?;
    let pattern = pattern.strip_prefix("sym:").unwrap_or(&pattern);
    if pattern.is_empty() {
        return Err(QueryError::MissingPattern);
    }
    Ok(join(&parsed.filters, &format!("sym:{pattern}")))
}

/// `search_files`: each pattern becomes a `file:` atom (all must match the path). Filters
/// alone list every file they select (`file:.` matches any path).
pub fn files_query(input: &str) -> Result<String, QueryError> {
    let parsed = parse(input)?;
    let mut atoms = parsed.filters;
    if parsed.patterns.is_empty() {
        atoms.push("file:.".to_string());
    }
    for p in parsed.patterns {
        if let Some(negated) = p.strip_prefix('-') {
            // A negated bare term is a content condition in Zoekt; as a path condition it is
            // what the caller meant.
            atoms.push(format!("-file:{negated}"));
        } else {
            atoms.push(format!("file:{p}"));
        }
    }
    Ok(atoms.join(" "))
}

/// `search`: the caller's Zoekt query as given, once it passes the universal checks.
pub fn search_query(input: &str) -> Result<String, QueryError> {
    let parsed = parse(input)?;
    if parsed.patterns.is_empty() && parsed.filters.is_empty() {
        return Err(QueryError::Empty);
    }
    // Zoekt reads any run of spaces between tokens as one separator: one canonical space makes
    // `a  b` and `a b` the same request, and so the same cursor. Quoted text stays as typed.
    Ok(tokenize(input)?.join(" "))
}

/// The query whose matching files are those `query` (a `search` query) finds at least one
/// line in: the files `files_with_matches` lists, for its census. Zoekt's bare terms match a
/// file's path or its content; a file lists only when a term Zoekt reports as a line matched
/// its content. So: `query`, and at least one of its positive pattern atoms in content,
/// `(query) (c:a or c:b)`. `None` when the query has no such atom (only filters or
/// negations), or glues parentheses to a term in a way this reading would have to guess at.
pub fn content_files_query(query: &str) -> Option<String> {
    let mut negated_groups: Vec<bool> = Vec::new();
    let mut positive = Vec::new();
    for token in tokenize(query).ok()? {
        let mut core = token.as_str();
        if !core.starts_with('"') {
            loop {
                if let Some(rest) = core.strip_prefix("-(") {
                    negated_groups.push(true);
                    core = rest;
                } else if let Some(rest) = core.strip_prefix('(') {
                    negated_groups.push(false);
                    core = rest;
                } else {
                    break;
                }
            }
        }
        let closing = if core.starts_with('"') {
            0
        } else {
            core.len() - core.trim_end_matches(')').len()
        };
        let atom = &core[..core.len() - closing];
        let (negated, bare) = match atom.strip_prefix('-') {
            Some(bare) => (true, bare),
            None => (false, atom),
        };
        let in_negation = negated_groups.iter().filter(|n| **n).count() % 2 == 1;
        if !bare.is_empty() && !bare.eq_ignore_ascii_case("or") && negated == in_negation {
            if !bare.starts_with('"') && bare.contains(['(', ')']) {
                return None;
            }
            if has_prefix(bare, &["content:", "c:", "sym:"]) {
                positive.push(bare.to_string());
            } else if !has_prefix(bare, FILTER_PREFIXES) && !has_prefix(bare, SHAPE_PREFIXES) {
                positive.push(format!("c:{bare}"));
            }
        }
        for _ in 0..closing {
            negated_groups.pop()?;
        }
    }
    if !negated_groups.is_empty() || positive.is_empty() {
        return None;
    }
    // Zoekt reads a group of one field atom, `(c:x)`, as matching nothing (its closing
    // parenthesis goes into the atom's value), so a group holds an `or` or spaces inside its
    // parentheses; and `a or b c` binds as `a or (b c)`, so a query with `or` is grouped.
    let has_or = tokenize(query).is_ok_and(|t| t.iter().any(|t| t.eq_ignore_ascii_case("or")));
    let query = if has_or {
        format!("( {query} )")
    } else {
        query.to_string()
    };
    Some(match positive.as_slice() {
        [one] => format!("{query} {one}"),
        many => format!("{query} ({})", many.join(" or ")),
    })
}

/// The two queries behind `find_references`: definitions of exactly `symbol` (from `sym:`),
/// and whole-word, case-sensitive usages (from content).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceQueries {
    /// `sym:` query for the definitions of the symbol.
    pub definitions: String,
    /// Content query for whole-word, case-sensitive usages of the symbol. It also holds the
    /// `sym:` atom, so Zoekt marks definition lines with their symbol and a usage list can
    /// leave them out on its own, whatever the definition list reached.
    pub usages: String,
}

/// Builds the [`ReferenceQueries`] for `symbol`, narrowed by the filter atoms in `filters`.
pub fn references_queries(symbol: &str, filters: &str) -> Result<ReferenceQueries, QueryError> {
    let symbol = symbol.trim();
    check_text(symbol)?;
    if symbol.chars().any(|c| c.is_whitespace()) {
        return Err(QueryError::BadSymbol {
            reason: "it contains whitespace",
        });
    }
    if symbol.chars().any(|c| matches!(c, '"' | '(' | ')')) {
        return Err(QueryError::BadSymbol {
            reason: "it contains a quote or a parenthesis",
        });
    }
    let filters = parse_filters(filters)?;
    let escaped = escape_regex(symbol);
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let lead = if word(symbol.chars().next()) {
        "\\b"
    } else {
        ""
    };
    let tail = if word(symbol.chars().last()) {
        "\\b"
    } else {
        ""
    };
    let mut with_case = vec!["case:yes".to_string()];
    with_case.extend(filters.iter().filter(|f| !f.starts_with("case:")).cloned());
    Ok(ReferenceQueries {
        definitions: join(&with_case, &format!("sym:^{escaped}$")),
        usages: join(
            &with_case,
            &format!("(sym:^{escaped}$ or content:{lead}{escaped}{tail})"),
        ),
    })
}

fn single_pattern(patterns: Vec<String>) -> Result<String, QueryError> {
    match patterns.len() {
        0 => Err(QueryError::MissingPattern),
        1 => Ok(patterns.into_iter().next().expect("one pattern")),
        _ => Err(QueryError::SeveralPatterns { patterns }),
    }
}

/// Escapes RE2 metacharacters so `symbol` matches literally.
pub fn escape_regex(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Escapes `text` into a regex matching only `text`, safe as a BARE query token: a backslash
/// before every ASCII character but a letter, a digit, `_`, `/` or an inner `-`. Zoekt's
/// tokenizer keeps `\` and the next character in the token; Go's regexp and the pager's gRPC
/// parser read `\.` `\ ` `\"` as the character (`\x{..}` would need the JSON API: `-rpc`).
pub fn escape_token_regex(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        let inner_dash = c == '-' && !out.is_empty();
        if c.is_ascii() && !(c.is_ascii_alphanumeric() || "_/".contains(c) || inner_dash) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The query atoms that select what `by` names, safe to append to any query and written
/// for a reader: a repository anchored at both ends, a language by name, or paths under a
/// directory (with its repository when it has one), each one token that matches only its
/// name ([`readable_regex`]).
pub fn narrowing_filter(by: &NarrowBy) -> String {
    match by {
        NarrowBy::Repo(repo) => format!("repo:^{}$", readable_regex(repo)),
        // Language names are not regexes; a few hold spaces ("Protocol Buffer"): quoted then.
        NarrowBy::Language(lang)
            if lang
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+#-_.'".contains(c)) =>
        {
            format!("lang:{lang}")
        }
        NarrowBy::Language(lang) => {
            let quoted = lang.replace('\\', "\\\\").replace('"', "\\\"");
            format!("lang:\"{quoted}\"")
        }
        NarrowBy::Directory { repo, dir } => {
            format!("{}file:^{}", repo_atom(repo), readable_regex(dir))
        }
        // Its files and none of its subdirectories', without brackets (which the gRPC query
        // parser leaves to Zoekt's JSON API): at the top, any path without a `/`.
        NarrowBy::Files { repo, dir } if dir.is_empty() => format!("{}-file:/", repo_atom(repo)),
        NarrowBy::Files { repo, dir } => {
            let dir = readable_regex(dir);
            format!("{}file:^{dir} -file:^{dir}.+/", repo_atom(repo))
        }
        // A run of names: their start, then a class of the character after it. A class of
        // letters names both cases, so the atom holds a capital and Zoekt matches it as
        // written, as the census counted it.
        NarrowBy::Group {
            repo,
            dir,
            start,
            initial,
        } => {
            let run = format!("{}{}", readable_regex(start), initial.regex(readable_regex));
            match dir {
                None => format!("repo:^{run}"),
                Some(dir) => format!("{}file:^{}{run}", repo_atom(repo), readable_regex(dir)),
            }
        }
    }
}

/// `repo:^NAME$ ` for a way inside one repository of several, else nothing.
fn repo_atom(repo: &Option<String>) -> String {
    match repo {
        Some(repo) => format!("repo:^{}$ ", readable_regex(repo)),
        None => String::new(),
    }
}

/// `text` as a regex matching only itself, written as plainly as Zoekt's parser takes it in
/// one bare token: letters, digits and most of a name as they are, an ASCII mark that means
/// something to a regex or to the query parser (`.`, `(`, `+`) escaped with a backslash
/// (`tokio-1\.54\.1`: Zoekt's tokenizer keeps a backslash and the character after it in the
/// token, and RE2 reads an escaped mark as the mark itself), and only what could end a token
/// or a quoted string for a less faithful parser (spaces, `"`, control characters) as
/// `\x{..}`.
pub fn readable_regex(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    for c in text.chars() {
        if c.is_control() || c.is_whitespace() || c == '"' {
            out.push_str(&format!("\\x{{{:x}}}", c as u32));
        } else if c.is_ascii_punctuation() && !"_/-@~,:%=!<>&;".contains(c) {
            out.push('\\');
            out.push(c);
        } else {
            out.push(c);
        }
    }
    out
}

/// `query` and `filter`, both to hold: the query in parentheses when it has a top-level `or`
/// (Zoekt binds `a or b c` as `a or (b c)`). A filter the query already holds is not said
/// twice, and a directory inside a `file:^DIR/` the query holds replaces it: the narrowed
/// call reads as a refinement (`file:^go/src/runtime/`), not as
/// `file:^go/src/ file:^go/src/runtime/`. Only in a query without `or` or parentheses, whose
/// atoms all hold at once.
pub fn and_filter(query: &str, filter: &str) -> String {
    let Ok(tokens) = tokenize(query) else {
        return filter.to_string();
    };
    let added = tokenize(filter).unwrap_or_default();
    let has_or = tokens.iter().any(|t| t.eq_ignore_ascii_case("or"));
    let grouped = tokens
        .iter()
        .any(|t| !t.starts_with('"') && t.contains(['(', ')']));
    let kept: Vec<&str> = if has_or || grouped {
        tokens.iter().map(String::as_str).collect()
    } else {
        tokens
            .iter()
            .filter(|t| !added.contains(t) && !added.iter().any(|a| refines(a, t)))
            .map(String::as_str)
            .collect()
    };
    match (kept.join(" "), has_or) {
        (q, _) if q.is_empty() => filter.to_string(),
        (q, true) => format!("({q}) {filter}"),
        (q, false) => format!("{q} {filter}"),
    }
}

/// `new` selects paths (or repositories) inside those `old` selects (`file:^a/b/` inside
/// `file:^a/`, `file:^src/cmd/` inside the run `file:^src/[a-cA-C]`, `repo:^go$` inside
/// `repo:^[e-gE-G]`): `old` is an anchored literal start,
/// maybe followed by a class of characters, and `new` is an anchored expression without `|`
/// that starts with that literal and then a character of that class. So `old` says nothing
/// `new` does not.
fn refines(new: &str, old: &str) -> bool {
    // The field (a path or a repository) and its anchored expression.
    let anchored = |t: &str| {
        [("file:^", 'f'), ("f:^", 'f'), ("repo:^", 'r'), ("r:^", 'r')]
            .iter()
            .find_map(|(p, field)| t.strip_prefix(p).map(|rest| (*field, rest.to_string())))
    };
    let (Some((field, new)), Some((old_field, old))) = (anchored(new), anchored(old)) else {
        return false;
    };
    if field != old_field {
        return false;
    }
    if new == old || new.contains('|') || old.contains('|') {
        return false;
    }
    let (literal, class) = match old.strip_suffix(']').and_then(|o| o.rsplit_once('[')) {
        Some((literal, class)) => (literal, Some(class)),
        None => (old.as_str(), None),
    };
    if !is_literal(literal) {
        return false;
    }
    let Some(rest) = new.strip_prefix(literal) else {
        return false;
    };
    match class {
        None => !rest.is_empty(),
        Some(class) => {
            // A narrower class in the same place: each of its characters is in `old`'s.
            if let Some(inner) = rest.strip_prefix('[').and_then(|r| r.split_once(']')) {
                return class_chars(inner.0)
                    .is_some_and(|cs| cs.iter().all(|&c| class_holds(class, c)));
            }
            // The next character of `new`, itself or escaped.
            let mut chars = rest.chars();
            let next = match chars.next() {
                Some('\\') => chars.next().filter(|c| c.is_ascii_punctuation()),
                Some(c) if c.is_ascii_alphanumeric() || c == '/' => Some(c),
                _ => None,
            };
            next.is_some_and(|c| class_holds(class, c))
        }
    }
}

/// Whether `regex` matches only itself: every character but a letter, a digit or one of
/// the marks `readable_regex` leaves bare is escaped.
fn is_literal(regex: &str) -> bool {
    let mut chars = regex.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if !chars.next().is_some_and(|e| e.is_ascii_punctuation()) {
                return false;
            }
        } else if c.is_ascii_punctuation() && !"_/-@~,:%=!<>&;".contains(c) {
            return false;
        }
    }
    true
}

/// Every character of the class written `class` (its inside), when it is a few ASCII
/// letters and digits and ranges of them.
fn class_chars(class: &str) -> Option<Vec<char>> {
    let chars: Vec<char> = class.chars().collect();
    let mut out = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        if !chars[at].is_ascii_alphanumeric() {
            return None;
        }
        if at + 2 < chars.len() && chars[at + 1] == '-' {
            out.extend(chars[at]..=chars[at + 2]);
            at += 3;
        } else {
            out.push(chars[at]);
            at += 1;
        }
    }
    Some(out)
}

/// Whether the class written `class` (its inside: `a-cA-C`, `mM`, `0-4`) holds `c`.
fn class_holds(class: &str, c: char) -> bool {
    let chars: Vec<char> = class.chars().collect();
    let mut at = 0;
    while at < chars.len() {
        if at + 2 < chars.len() && chars[at + 1] == '-' {
            if (chars[at]..=chars[at + 2]).contains(&c) {
                return true;
            }
            at += 3;
        } else {
            if chars[at] == c {
                return true;
            }
            at += 1;
        }
    }
    false
}

/// The query that selects exactly one file: repository and path anchored at both ends,
/// escaped, and case-sensitive (Zoekt's case "auto" would make an all-lower-case path match
/// `README.MD` too). Callers still compare the names they get back.
pub fn exact_file_query(repo: &str, path: &str) -> Result<String, QueryError> {
    for (what, v) in [("repository name", repo), ("path", path)] {
        if v.is_empty() {
            return Err(QueryError::Empty);
        }
        if v.chars().any(char::is_control) {
            return Err(QueryError::ControlCharacter);
        }
        if v.chars().count() > MAX_QUERY_CHARS / 2 {
            return Err(QueryError::TooLong {
                what,
                chars: v.chars().count(),
                max: MAX_QUERY_CHARS / 2,
            });
        }
    }
    Ok(format!(
        "case:yes repo:^{}$ file:^{}$",
        escape_token_regex(repo),
        escape_token_regex(path)
    ))
}

#[cfg(test)]
mod tests {
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
        let q = references_queries("a.b$", "").unwrap();
        assert_eq!(q.usages, r"case:yes (sym:^a\.b\$$ or content:\ba\.b\$)");
        assert!(references_queries("get user", "").is_err());
        assert!(references_queries("get", "foo").is_err());
        // A caller's case: filter cannot switch off case sensitivity.
        let q = references_queries("get", "case:no").unwrap();
        assert_eq!(q.usages, r"case:yes (sym:^get$ or content:\bget\b)");
    }

    #[test]
    fn narrowing_filters_read_plainly_and_parse_as_their_atoms() {
        use crate::engine::suggest::{Initial, NarrowBy};
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
                NarrowBy::Group {
                    repo: None,
                    dir: Some("rust-crates/".into()),
                    start: String::new(),
                    initial: Initial::Letters('p', 'r'),
                },
                r"file:^rust-crates/[p-rP-R]",
            ),
            (
                NarrowBy::Group {
                    repo: Some("go".into()),
                    dir: Some("test/fixedbugs/".into()),
                    start: "issue1".into(),
                    initial: Initial::Digits('0', '4'),
                },
                r"repo:^go$ file:^test/fixedbugs/issue1[0-4]",
            ),
            (
                NarrowBy::Group {
                    repo: None,
                    dir: None,
                    start: "python-3.1".into(),
                    initial: Initial::Digits('2', '2'),
                },
                r"repo:^python-3\.12",
            ),
            (
                NarrowBy::Group {
                    repo: None,
                    dir: Some(String::new()),
                    start: "a.go".into(),
                    initial: Initial::End,
                },
                r"file:^a\.go$",
            ),
            (
                NarrowBy::Group {
                    repo: None,
                    dir: Some("npm/".into()),
                    start: String::new(),
                    initial: Initial::Char('@'),
                },
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
}
