//! A word of a query as Zoekt reads it (its `RegexpQuery`): a substring when its regular
//! expression is a literal, a regular expression otherwise; and `lang:` names.

use super::expr::{Expr, unsure};

/// A word as Zoekt reads it: a substring when it is a literal, a regular expression
/// otherwise (`content` and `file_name`: where it must match).
pub(super) fn word(text: &str, content: bool, file_name: bool) -> Result<Expr, String> {
    // A path may hold a class of letters and digits (the runs of names the suggestions
    // write, `file:^rust-crates/[p-rP-R]`): which files match does not depend on whether
    // Go would read the rest as a literal, only on case, which `has_upper` reads as Zoekt
    // does for such a class.
    let classes = file_name && !content;
    match literal(text, classes)? {
        Some(pattern) => Ok(Expr::Substring {
            pattern,
            file_name,
            content,
            case_sensitive: false,
        }),
        None => Ok(Expr::Regexp {
            upper: has_upper(text),
            regexp: text.to_string(),
            file_name,
            content,
            case_sensitive: false,
        }),
    }
}

/// The literal `text` stands for as a regular expression (`None`: it is not a literal), or
/// an error where only Go's parser could tell. `classes`: a class of ASCII letters, digits
/// and ranges of them with more than one character (`[p-rP-R]`, `[0-4]`) makes it a regular
/// expression.
fn literal(text: &str, classes: bool) -> Result<Option<String>, String> {
    if text.is_empty() {
        return Err(unsure("an empty word"));
    }
    let mut out = String::with_capacity(text.len());
    let mut operator = false;
    // A class Go reads as a (folded) literal: whether the word is a literal then depends on
    // Go's simplifier.
    let mut folded_class = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '[' if classes => match simple_class(&mut chars) {
                Class::Several => operator = true,
                Class::Literal => folded_class = true,
                Class::Unsure => {
                    return Err(unsure("a word with a class only Go's parser reads"));
                }
            },
            '(' | ')' | '[' | ']' | '{' | '}' => {
                return Err(unsure("a word with parentheses, brackets or braces"));
            }
            '.' | '*' | '+' | '?' | '^' | '$' => operator = true,
            '|' => operator = true,
            '\\' => match chars.next() {
                // Go reads an escaped ASCII character that is not a letter or a digit as
                // itself (`\.`, `\ `, `\_`).
                Some(e) if e.is_ascii() && !e.is_ascii_alphanumeric() => out.push(e),
                Some('b' | 'B' | 'A' | 'z' | 'd' | 'D' | 'w' | 'W' | 's' | 'S') => operator = true,
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some('f') => out.push('\u{c}'),
                Some('v') => out.push('\u{b}'),
                Some('a') => out.push('\u{7}'),
                _ => return Err(unsure("an escape only Go's parser reads")),
            },
            c => out.push(c),
        }
    }
    if folded_class && !operator {
        return Err(unsure("a word whose classes Go reads as literals"));
    }
    if operator {
        // `a|a` or `a|` may simplify to a literal: leave those to Zoekt.
        let branches: Vec<&str> = text.split('|').collect();
        if branches.len() > 1 {
            let mut seen = std::collections::HashSet::new();
            if branches.iter().any(|b| b.is_empty() || !seen.insert(*b)) {
                return Err(unsure("an alternation Go may simplify"));
            }
        }
        return Ok(None);
    }
    Ok(Some(out))
}

/// What a class read by [`simple_class`] is to Go's parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Not one this parser is sure of: left to Zoekt.
    Unsure,
    /// A class of several characters: an operator.
    Several,
    /// One character, or one letter in both cases (`[a]`, `[mM]`): Go reads it as a literal
    /// (folded), so it is an operator only in a word that has another.
    Literal,
}

/// Reads a class after its `[` up to its `]`: ASCII letters and digits and ranges of them of
/// one kind (`a-c`, `A-C`, `0-4`, first not after last), no negation, no escape.
fn simple_class(chars: &mut std::str::Chars) -> Class {
    let mut inner = Vec::new();
    let mut closed = false;
    for c in chars.by_ref() {
        if c == ']' {
            closed = true;
            break;
        }
        inner.push(c);
    }
    if !closed || inner.is_empty() {
        return Class::Unsure;
    }
    let kind = |c: char| {
        if c.is_ascii_digit() {
            1
        } else if c.is_ascii_lowercase() {
            2
        } else if c.is_ascii_uppercase() {
            3
        } else {
            0
        }
    };
    let mut members = std::collections::BTreeSet::new();
    let mut at = 0;
    while at < inner.len() {
        let c = inner[at];
        if kind(c) == 0 {
            return Class::Unsure;
        }
        if at + 2 < inner.len() && inner[at + 1] == '-' {
            let last = inner[at + 2];
            if kind(last) != kind(c) || last < c {
                return Class::Unsure;
            }
            members.extend(c..=last);
            at += 3;
        } else if inner.get(at + 1) == Some(&'-') {
            return Class::Unsure;
        } else {
            members.insert(c);
            at += 1;
        }
    }
    let folded: std::collections::BTreeSet<char> =
        members.iter().map(|c| c.to_ascii_lowercase()).collect();
    if folded.len() == 1 {
        Class::Literal
    } else {
        Class::Several
    }
}

/// What Zoekt's `case:auto` sees in a regular expression of the forms [`literal`] lets
/// through: an upper-case ASCII letter outside an escape, or `\w` (a class bounded by `A`
/// and `Z`).
fn has_upper(text: &str) -> bool {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if chars.next() == Some('w') {
                return true;
            }
        } else if c.is_ascii_uppercase() {
            return true;
        }
    }
    false
}

/// The canonical name Zoekt's `lang:` resolves `name` to, for the common languages (the
/// alias key is the name lower-cased, spaces as `_`).
pub(super) fn language(name: &str) -> Result<String, String> {
    const KNOWN: [&str; 33] = [
        "Assembly",
        "C",
        "C#",
        "C++",
        "CSS",
        "Dockerfile",
        "Go",
        "Go Module",
        "HTML",
        "Java",
        "JavaScript",
        "JSON",
        "Kotlin",
        "Lua",
        "Makefile",
        "Markdown",
        "Objective-C",
        "Perl",
        "PHP",
        "Protocol Buffer",
        "Python",
        "R",
        "Ruby",
        "Rust",
        "Scala",
        "Shell",
        "SQL",
        "Swift",
        "Text",
        "TOML",
        "TypeScript",
        "XML",
        "YAML",
    ];
    let key = name
        .split(',')
        .next()
        .unwrap_or_default()
        .replace(' ', "_")
        .to_lowercase();
    KNOWN
        .iter()
        .find(|known| known.replace(' ', "_").to_lowercase() == key)
        .map(|known| known.to_string())
        .ok_or_else(|| unsure("a language outside the parser's table"))
}
