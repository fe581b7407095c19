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
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '[' if classes && simple_class(&mut chars) => operator = true,
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

/// Reads a class after its `[` up to its `]`: whether it is one of ASCII letters, digits and
/// ranges of them (no negation, no escape) holding at least two characters. A class of one
/// character Go reads as that character, a literal: left to Zoekt.
fn simple_class(chars: &mut std::str::Chars) -> bool {
    let mut inner = String::new();
    let mut closed = false;
    for c in chars.by_ref() {
        if c == ']' {
            closed = true;
            break;
        }
        inner.push(c);
    }
    let ok = closed
        && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !inner.starts_with('-')
        && !inner.ends_with('-')
        && !inner.contains("--");
    let one = inner.chars().count() == 1 || (inner.len() == 3 && inner[..1] == inner[2..]);
    ok && !one
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
