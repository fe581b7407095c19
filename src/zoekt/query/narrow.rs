//! A way to narrow written as query atoms, and added to a query so that the narrowed call
//! reads as a refinement.

use crate::engine::suggest::{NarrowBy, Run};
use crate::engine::tool::narrowed_value;

use super::{readable_regex, tokenize};

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
        NarrowBy::Group(run) => {
            let names = run.pattern(readable_regex);
            match &run.dir {
                None => format!("repo:^{names}"),
                Some(dir) => format!(
                    "{}file:^{}{names}",
                    repo_atom(&run.repo),
                    readable_regex(dir)
                ),
            }
        }
        // Each part's one atom, negated. The engine sets a rest only beside parts one filter
        // selects (`engine/suggest/rest.rs`, `beyond.rs`): a directory's own files, or a
        // directory of one repository of several, would be two atoms here, and negating the
        // first alone selects something else. The files at the top are one atom, itself a
        // negation (`-file:/`): theirs is `file:/`, any path in a directory.
        NarrowBy::Rest(parts) => {
            let negated: Vec<String> = parts
                .iter()
                .map(|part| {
                    debug_assert!(
                        match part {
                            NarrowBy::Files { repo: None, dir } => dir.is_empty(),
                            NarrowBy::Repo(_)
                            | NarrowBy::Directory { repo: None, .. }
                            | NarrowBy::Group(Run { repo: None, .. }) => true,
                            _ => false,
                        },
                        "no rest beside {part:?}"
                    );
                    let atom = narrowing_filter(part);
                    match atom.strip_prefix('-') {
                        Some(positive) => positive.to_string(),
                        None => format!("-{atom}"),
                    }
                })
                .collect();
            negated.join(" ")
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

/// `query` and each of `filters` to hold, said once for all: the part of `query` every
/// narrowed call keeps, and for each filter what follows it (the atoms of `query` that this
/// filter keeps but another replaces, then the filter), so that each narrowed call is
/// `base`, a space, then `added[i]` (either alone when the other is empty). The query goes
/// in parentheses when it has a top-level `or` (Zoekt binds `a or b c` as `a or (b c)`). A
/// filter the query already holds is not said twice, and a directory inside a `file:^DIR/`
/// the query holds replaces it: the narrowed call reads as a refinement
/// (`file:^go/src/runtime/`), not as `file:^go/src/ file:^go/src/runtime/`. Only in a query
/// without `or`, parentheses or a lone `-`, whose atoms all hold at once. A query the pager
/// cannot read is left out: each call is then its filter alone.
pub fn and_filters(query: &str, filters: &[String]) -> (String, Vec<String>) {
    let Ok(tokens) = tokenize(query) else {
        return (String::new(), filters.to_vec());
    };
    let has_or = tokens.iter().any(|t| t.eq_ignore_ascii_case("or"));
    // A lone `-` negates the atom after it (Zoekt skips the space): no atom is moved or
    // left out of such a query, as none is of a group.
    let grouped = tokens
        .iter()
        .any(|t| t == "-" || (!t.starts_with('"') && t.contains(['(', ')'])));
    if tokens.is_empty() || has_or || grouped {
        let base = match tokens.join(" ") {
            q if has_or => format!("({q})"),
            q => q,
        };
        return (base, filters.to_vec());
    }
    // For each filter, which of the query's atoms it replaces (by index: a query may say an
    // atom twice).
    let replaced: Vec<Vec<bool>> = filters
        .iter()
        .map(|filter| {
            let added = tokenize(filter).unwrap_or_default();
            (tokens.iter())
                .map(|t| added.contains(t) || added.iter().any(|a| refines(a, t)))
                .collect()
        })
        .collect();
    let by_any: Vec<bool> = (0..tokens.len())
        .map(|at| replaced.iter().any(|r| r[at]))
        .collect();
    let base: Vec<&str> = (0..tokens.len())
        .filter(|&at| !by_any[at])
        .map(|at| tokens[at].as_str())
        .collect();
    let added = filters
        .iter()
        .zip(&replaced)
        .map(|(filter, mine)| {
            let kept: Vec<&str> = (0..tokens.len())
                .filter(|&at| by_any[at] && !mine[at])
                .map(|at| tokens[at].as_str())
                .collect();
            narrowed_value(&kept.join(" "), filter)
        })
        .collect();
    (base.join(" "), added)
}

/// `new` selects paths (or repositories) inside those `old` selects (`file:^a/b/` inside
/// `file:^a/`, `file:^src/Cmd/` inside the run `file:^src/[a-cA-C]`, `repo:^go$` inside
/// `repo:^[e-gE-G]`): `old` is an anchored literal start,
/// maybe followed by a class of characters, and `new` is an anchored expression without `|`
/// that starts with that literal and then a character of that class. So `old` says nothing
/// `new` does not, but for case: a path atom without a capital matches either case, which
/// a run of letters (its capitals) does not (see below).
fn refines(new: &str, old: &str) -> bool {
    let (Some((field, new)), Some((old_field, old))) = (anchored(new), anchored(old)) else {
        return false;
    };
    if field != old_field {
        return false;
    }
    // Zoekt matches a path atom without a capital in either case, so `file:^src/cmd/` also
    // matches `SRC/cmd/`, which `file:^src/[a-cA-C]` (a capital: as written) leaves out. It
    // replaces the run all the same: the census counts every directory as written, the way
    // a directory's count is read whether or not a run came before it, and a tree whose
    // paths differ only by case is one no count of a lowercase directory is exact on.
    // Keeping the run beside it made every filter inside a run longer, and a refinement
    // said its filter twice (`file:^go-modules/[x-zX-Z] file:^go-modules/x-sys@v0\.47\.0/`).
    if new == old || new.contains('|') || old.contains('|') {
        return false;
    }
    let (literal, class) = match old.strip_suffix(']').and_then(|o| o.rsplit_once('[')) {
        Some((literal, class)) => (literal, Some(class)),
        None => (old, None),
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

/// The field of an anchored path or repository atom (`f` or `r`) and its expression after
/// the `^`: `repo:^tokio$` is `('r', "tokio$")`.
fn anchored(atom: &str) -> Option<(char, &str)> {
    [("file:^", 'f'), ("f:^", 'f'), ("repo:^", 'r'), ("r:^", 'r')]
        .iter()
        .find_map(|(p, field)| atom.strip_prefix(p).map(|rest| (*field, rest)))
}

/// Whether `filter`, added to `query`, can select nothing `query` selects: `query` holds an
/// anchored repository expression (`repo:^gen-[h-zH-Z]`) that `filter`'s own contradicts at
/// some character (`repo:^g[f-zF-Z]`: its second character is never `e`), or at the end of
/// a name; or `filter` negates a start of paths or names that covers one of `query`'s
/// (`-file:^go-modules/` on a call inside `file:^go-modules/[a-cA-C]`: `leaves_out_all`);
/// or it negates an atom of `query` as written (`file:/` on a call with `-file:/`). A way
/// into what a census did not reach is offered only where it can hold some
/// (`engine/suggest/beyond.rs`). Zoekt matches a repository expression as written, in
/// either case only where a class names both. A query the pager cannot read, and any
/// expression but an anchored start of literal characters, classes and an end, never do.
pub fn excludes(query: &str, filter: &str) -> bool {
    let (Ok(tokens), Ok(added)) = (tokenize(query), tokenize(filter)) else {
        return false;
    };
    let grouped = |t: &String| {
        t.eq_ignore_ascii_case("or") || t == "-" || (!t.starts_with('"') && t.contains(['(', ')']))
    };
    if tokens.iter().any(grouped) {
        return false;
    }
    let repo_positions = |t: &String| match anchored(t) {
        Some(('r', regex)) => positions(regex),
        _ => None,
    };
    let theirs: Vec<Vec<Position>> = tokens.iter().filter_map(repo_positions).collect();
    let contradicted = added
        .iter()
        .filter_map(repo_positions)
        .any(|mine| theirs.iter().any(|t| contradict(&mine, t)));
    // An atom and its negation: `file:/` (the rest beside the top's files a census counted)
    // on a call that followed `-file:/` (the top's files) selects nothing.
    let negates = |a: &String| {
        tokens
            .iter()
            .any(|t| a.strip_prefix('-') == Some(t.as_str()) || t.strip_prefix('-') == Some(a))
    };
    contradicted
        || added
            .iter()
            .any(|a| leaves_out_all(&tokens, a) || negates(a))
}

/// Whether `added` is a negated anchored literal (`-file:^go-modules/`) that leaves out every
/// name one of the query's anchored atoms of the same field selects: that atom starts with
/// that literal (`file:^go-modules/[a-cA-C]`). The rest beside what a census of one
/// repository counted is such a way (`engine/suggest/beyond.rs`), where the call is already
/// inside the directory it leaves out.
fn leaves_out_all(tokens: &[String], added: &str) -> bool {
    let Some((field, literal)) = added.strip_prefix('-').and_then(anchored) else {
        return false;
    };
    let Some(literal) = positions(literal) else {
        return false;
    };
    // A path literal without a capital leaves out either case, as Zoekt matches it.
    let either_case = field == 'f'
        && !literal
            .iter()
            .any(|p| matches!(p, Position::Chars(cs) if cs.iter().any(char::is_ascii_uppercase)));
    let same = |c: &char, l: &char| c == l || (either_case && c.eq_ignore_ascii_case(l));
    tokens
        .iter()
        .filter_map(|t| anchored(t).filter(|(f, _)| *f == field))
        .filter_map(|(_, regex)| positions(regex))
        .any(|theirs| {
            theirs.len() >= literal.len()
                && literal.iter().zip(&theirs).all(|pair| match pair {
                    (Position::Chars(l), Position::Chars(cs)) => {
                        l.len() == 1 && !cs.is_empty() && cs.iter().all(|c| same(c, &l[0]))
                    }
                    _ => false,
                })
        })
}

/// One character of an anchored expression: the characters it may be, or the name's end.
#[derive(Debug, PartialEq)]
enum Position {
    Chars(Vec<char>),
    End,
}

/// The characters of an anchored expression (after its `^`), one by one: each a literal
/// character (maybe escaped), a class, or the end `$` last. `None` for anything else.
fn positions(regex: &str) -> Option<Vec<Position>> {
    let mut out = Vec::new();
    let mut chars = regex.chars();
    while let Some(c) = chars.next() {
        let position = match c {
            '\\' => Position::Chars(vec![chars.next().filter(char::is_ascii_punctuation)?]),
            '[' => {
                let inside: String = chars.by_ref().take_while(|&c| c != ']').collect();
                Position::Chars(class_chars(&inside)?)
            }
            '$' if chars.as_str().is_empty() => Position::End,
            c if c.is_ascii_alphanumeric() || "_/-@~,:%=!<>&;".contains(c) => {
                Position::Chars(vec![c])
            }
            _ => return None,
        };
        out.push(position);
    }
    Some(out)
}

/// Whether no name matches both anchored expressions: at some character they allow none in
/// common, or one ends where the other needs a character.
fn contradict(a: &[Position], b: &[Position]) -> bool {
    a.iter().zip(b).any(|pair| match pair {
        (Position::Chars(x), Position::Chars(y)) => !x.iter().any(|c| y.contains(c)),
        (Position::End, Position::End) => false,
        _ => true,
    })
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

#[cfg(test)]
mod tests;
