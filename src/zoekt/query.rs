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
pub use narrow::{and_filters, excludes, narrowing_filter};

mod narrow;

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
    /// The usages query without its `sym:` atom: the whole-word lines alone. Its files and
    /// the definitions' are the usages' files, so a census carrying the definitions names
    /// these ([`census_carrying`]) and Zoekt evaluates `sym:` once, not twice (`err` on 678
    /// repositories: 1.6 s, as `type:file` of the usages, against 2.4 s).
    pub words: String,
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
        words: join(&with_case, &format!("content:{lead}{escaped}{tail}")),
    })
}

/// A census of the files `names` matches that carries the files `lines` matches with their
/// lines ([`Shape::NamesCarryingLines`]): `(lines) or (type:file (names))`. Zoekt lifts a
/// `type:` over the list it stands in, here `names` alone, and gathers a file's matches from
/// each branch that matched it but the `type:file` one; so a file `lines` matches comes with
/// exactly the lines and the score that `lines` alone gives it (measured on real corpora:
/// the same files, lines and scores for `find_references`' definitions), and any other by
/// name. The census counts the files of both: `lines` and `names` together must match the
/// result's files (`find_references`: definitions, and whole-word lines without `sym:`).
///
/// [`Shape::NamesCarryingLines`]: crate::engine::backend::Shape::NamesCarryingLines
pub fn census_carrying(lines: &str, names: &str) -> String {
    format!("({lines}) or (type:file ({names}))")
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
mod tests;
