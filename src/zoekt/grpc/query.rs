//! Zoekt's query language parsed into the query tree its gRPC API takes.
//!
//! `/api/search` parses the query string on the server; gRPC's `Search` takes the tree, so
//! the client parses. This parser follows Zoekt's own (`query/parse.go` in the pinned
//! archive) step for step: the same tokens (prefixes, quotes, backslashes, parentheses that
//! belong to a word), the same `or` and `-`, `case:` applied to the list it stands in (an
//! inner list's own `case:` kept), `type:` wrapping its list, and each word made a substring
//! when it is a literal and a regular expression otherwise.
//!
//! Where Zoekt's answer would depend on something this parser does not reproduce exactly,
//! it says so ([`Parsed::Unsure`]) instead of guessing, and the query goes over the JSON API:
//! - whether a word is a literal comes from Go's regexp parser and simplifier; words with
//!   parentheses, brackets or braces, `\Q`, `\p`, hex or octal escapes, or an alternation with
//!   equal branches are left to Zoekt (a literal is matched as a substring, which finds
//!   overlapping matches a regular expression does not);
//! - `lang:` names outside a small table of common languages (Zoekt resolves aliases
//!   through go-enry's table);
//! - `archived:`, `fork:`, `public:` and `meta.` filters.
//!
//! A query Zoekt itself refuses (an unbalanced parenthesis, `case:maybe`) is also `Unsure`:
//! the JSON API words its error.

use super::proto::{self, Node, Q};

/// What the parser made of a query string.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// The tree Zoekt's own parser would build (up to its simplification, which the
    /// server applies again).
    Tree(Q),
    /// This parser cannot be sure it would build the tree Zoekt builds: the reason.
    Unsure(String),
}

/// Parses `query` as Zoekt's `query.Parse` does.
pub fn parse(query: &str) -> Parsed {
    let input = query.as_bytes();
    let result = expr_list(input).and_then(|(list, used)| {
        if used != input.len() {
            return Err(unsure("extra tokens at the end"));
        }
        operators(list)
    });
    match result {
        Ok(expr) => Parsed::Tree(simplified(expr.into_q())),
        Err(reason) => Parsed::Unsure(reason),
    }
}

fn unsure(why: &str) -> String {
    why.to_string()
}

/// A parsed expression, before it becomes a [`Q`]: the case still to be set.
#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Substring {
        pattern: String,
        file_name: bool,
        content: bool,
        case_sensitive: bool,
    },
    Regexp {
        regexp: String,
        file_name: bool,
        content: bool,
        case_sensitive: bool,
        /// What Zoekt's `case:auto` makes of it: the expression has an upper-case letter
        /// (or a class with one at a bound, as `\w` is).
        upper: bool,
    },
    Symbol(Box<Expr>),
    Language(String),
    Repo(String),
    Branch(String),
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Type(i32, Box<Expr>),
    /// `case:` while its list is read.
    Case(Case),
    /// `type:` while its list is read.
    TypeMark(i32),
    /// `or` while its list is read.
    OrOp,
    /// An inner list with its own `case:`: the outer one does not reach inside.
    CaseScope(Box<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Case {
    Yes,
    No,
    Auto,
}

impl Expr {
    /// `setCase`, run over the tree as Zoekt's `query.Map` does (it does not enter a case
    /// scope; a symbol passes it to its expression).
    fn set_case(&mut self, case: Case) {
        match self {
            Expr::Substring {
                pattern,
                case_sensitive,
                ..
            } => {
                *case_sensitive = match case {
                    Case::Yes => true,
                    Case::No => false,
                    Case::Auto => pattern.bytes().any(|b| b.is_ascii_uppercase()),
                }
            }
            Expr::Regexp {
                case_sensitive,
                upper,
                ..
            } => {
                *case_sensitive = match case {
                    Case::Yes => true,
                    Case::No => false,
                    Case::Auto => *upper,
                }
            }
            Expr::Symbol(inner) => inner.set_case(case),
            Expr::Not(inner) | Expr::Type(_, inner) => inner.set_case(case),
            Expr::And(children) | Expr::Or(children) => {
                children.iter_mut().for_each(|c| c.set_case(case))
            }
            _ => {}
        }
    }

    fn into_q(self) -> Q {
        let node = match self {
            Expr::Substring {
                pattern,
                file_name,
                content,
                case_sensitive,
            } => Node::Substring(proto::Substring {
                pattern,
                case_sensitive,
                file_name,
                content,
            }),
            Expr::Regexp {
                regexp,
                file_name,
                content,
                case_sensitive,
                ..
            } => Node::Regexp(proto::Regexp {
                regexp,
                file_name,
                content,
                case_sensitive,
            }),
            Expr::Symbol(inner) => Node::Symbol(Box::new(proto::Symbol {
                expr: Some(Box::new(inner.into_q())),
            })),
            Expr::Language(language) => Node::Language(proto::Language { language }),
            Expr::Repo(regexp) => Node::Repo(proto::Repo { regexp }),
            Expr::Branch(pattern) => Node::Branch(proto::Branch {
                pattern,
                exact: false,
            }),
            Expr::Not(inner) => Node::Not(Box::new(proto::Not {
                child: Some(Box::new(inner.into_q())),
            })),
            Expr::And(children) => Node::And(proto::And {
                children: children.into_iter().map(Expr::into_q).collect(),
            }),
            Expr::Or(children) => Node::Or(proto::Or {
                children: children.into_iter().map(Expr::into_q).collect(),
            }),
            Expr::Type(kind, inner) => Node::Type(Box::new(proto::Type {
                child: Some(Box::new(inner.into_q())),
                kind,
            })),
            Expr::CaseScope(inner) => return inner.into_q(),
            // Consumed by the list that held them.
            Expr::Case(_) | Expr::TypeMark(_) | Expr::OrOp => Node::Const(true),
        };
        Q { node: Some(node) }
    }
}

/// Zoekt's `flatten`: an `And` or `Or` of one child is that child, and one inside another
/// of its kind is merged into it.
fn simplified(q: Q) -> Q {
    let node = match q.node {
        Some(Node::And(and)) => {
            let children = merged(and.children, |n| match n {
                Node::And(inner) => Ok(inner.children),
                other => Err(other),
            });
            if children.len() == 1 {
                return children.into_iter().next().expect("one child");
            }
            Node::And(proto::And { children })
        }
        Some(Node::Or(or)) => {
            let children = merged(or.children, |n| match n {
                Node::Or(inner) => Ok(inner.children),
                other => Err(other),
            });
            if children.len() == 1 {
                return children.into_iter().next().expect("one child");
            }
            Node::Or(proto::Or { children })
        }
        Some(Node::Not(mut not)) => {
            not.child = not.child.map(|c| Box::new(simplified(*c)));
            Node::Not(not)
        }
        Some(Node::Type(mut t)) => {
            t.child = t.child.map(|c| Box::new(simplified(*c)));
            Node::Type(t)
        }
        Some(Node::Symbol(mut s)) => {
            s.expr = s.expr.map(|c| Box::new(simplified(*c)));
            Node::Symbol(s)
        }
        Some(other) => other,
        None => return Q { node: None },
    };
    Q { node: Some(node) }
}

/// The children simplified, each one of the same kind replaced by its own children.
fn merged(children: Vec<Q>, same: impl Fn(Node) -> Result<Vec<Q>, Node> + Copy) -> Vec<Q> {
    let mut out = Vec::with_capacity(children.len());
    for child in children {
        let child = simplified(child);
        match child.node {
            Some(node) => match same(node) {
                Ok(inner) => out.extend(merged(inner, same)),
                Err(node) => out.push(Q { node: Some(node) }),
            },
            None => out.push(child),
        }
    }
    out
}

// ---- Tokens (Zoekt's nextToken) ----

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok {
    Text,
    File,
    Repo,
    Case,
    Branch,
    ParenOpen,
    ParenClose,
    Negate,
    Regex,
    Or,
    Content,
    Lang,
    Sym,
    Type,
    Unsupported,
}

struct Token {
    kind: Tok,
    text: Vec<u8>,
    /// Bytes of input the token took.
    used: usize,
}

/// Zoekt's prefixes. `archived:`, `fork:`, `public:` and `meta.` are recognised so that
/// they are refused, not read as words.
const PREFIXES: [(&str, Tok); 18] = [
    ("archived:", Tok::Unsupported),
    ("b:", Tok::Branch),
    ("branch:", Tok::Branch),
    ("c:", Tok::Content),
    ("case:", Tok::Case),
    ("content:", Tok::Content),
    ("f:", Tok::File),
    ("file:", Tok::File),
    ("fork:", Tok::Unsupported),
    ("public:", Tok::Unsupported),
    ("r:", Tok::Repo),
    ("regex:", Tok::Regex),
    ("repo:", Tok::Repo),
    ("lang:", Tok::Lang),
    ("sym:", Tok::Sym),
    ("t:", Tok::Type),
    ("type:", Tok::Type),
    ("meta.", Tok::Unsupported),
];

fn next_token(input: &[u8]) -> Result<Option<Token>, String> {
    if input.is_empty() {
        return Ok(None);
    }
    if input[0] == b'-' {
        return Ok(Some(Token {
            kind: Tok::Negate,
            text: vec![b'-'],
            used: 1,
        }));
    }
    let mut text = Vec::new();
    let mut at = 0;
    let mut parens = 0usize;
    let mut found_space = false;
    while at < input.len() {
        let c = input[at];
        match c {
            b'(' => {
                parens += 1;
                text.push(c);
                at += 1;
            }
            b')' => {
                if parens == 0 {
                    if text.is_empty() {
                        text.push(b')');
                        at += 1;
                    }
                    break;
                }
                text.push(c);
                at += 1;
                parens -= 1;
            }
            b'"' => {
                let (literal, used) = string_literal(&input[at..])?;
                text.extend_from_slice(&literal);
                at += used;
            }
            b'\\' => {
                at += 1;
                if at >= input.len() {
                    return Err(unsure("a lone \\ at the end"));
                }
                text.push(b'\\');
                text.push(input[at]);
                at += 1;
            }
            b' ' | b'\n' | b'\t' => {
                if parens > 0 {
                    found_space = true;
                }
                break;
            }
            _ => {
                text.push(c);
                at += 1;
            }
        }
    }
    if text.is_empty() {
        return Ok(None);
    }
    let used = if found_space && text[0] == b'(' {
        text.truncate(1);
        1
    } else {
        at
    };
    let raw = &input[..used];
    let mut kind = Tok::Text;
    if text == b"(" {
        kind = Tok::ParenOpen;
    }
    if text == b")" {
        kind = Tok::ParenClose;
    }
    if text == b"or" && raw == b"or" {
        kind = Tok::Or;
    }
    for (prefix, prefixed) in PREFIXES {
        if raw.starts_with(prefix.as_bytes()) {
            text.drain(..prefix.len().min(text.len()));
            kind = prefixed;
            break;
        }
    }
    Ok(Some(Token { kind, text, used }))
}

/// A quoted string from its opening quote: its text (a backslash takes the next byte as it
/// is) and the bytes it took.
fn string_literal(input: &[u8]) -> Result<(Vec<u8>, usize), String> {
    let mut out = Vec::new();
    let mut at = 1;
    while at < input.len() {
        let c = input[at];
        at += 1;
        match c {
            b'"' => return Ok((out, at)),
            b'\\' => {
                if at >= input.len() {
                    return Err(unsure("missing character after \\"));
                }
                out.push(input[at]);
                at += 1;
            }
            _ => out.push(c),
        }
    }
    Err(unsure("an unterminated quoted string"))
}

// ---- Expressions (Zoekt's parseExpr, parseExprList, parseOperators) ----

fn is_space(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

fn text_of(bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|_| unsure("a word that is not UTF-8"))
}

fn expr(input: &[u8]) -> Result<Option<(Expr, usize)>, String> {
    let mut at = 0;
    while at < input.len() && is_space(input[at]) {
        at += 1;
    }
    let Some(tok) = next_token(&input[at..])? else {
        return Ok(None);
    };
    at += tok.used;
    let text = tok.text;
    let e = match tok.kind {
        Tok::Case => Expr::Case(match text.as_slice() {
            b"yes" => Case::Yes,
            b"no" => Case::No,
            b"auto" => Case::Auto,
            _ => return Err(unsure("an unknown case: argument")),
        }),
        Tok::Repo => Expr::Repo(text_of(text)?),
        Tok::Branch => Expr::Branch(text_of(text)?),
        Tok::Text | Tok::Regex => word(&text_of(text)?, false, false)?,
        Tok::File => word(&text_of(text)?, false, true)?,
        Tok::Content => word(&text_of(text)?, true, false)?,
        Tok::Lang => Expr::Language(language(&text_of(text)?)?),
        Tok::Sym => {
            if text.is_empty() {
                return Err(unsure("sym: without an argument"));
            }
            Expr::Symbol(Box::new(word(&text_of(text)?, false, false)?))
        }
        Tok::ParenClose => return Ok(None),
        Tok::ParenOpen => {
            let (list, used) = expr_list(&input[at..])?;
            at += used;
            match next_token(&input[at..])? {
                Some(close) if close.kind == Tok::ParenClose => at += close.used,
                _ => return Err(unsure("a missing close parenthesis")),
            }
            operators(list)?
        }
        Tok::Negate => match expr(&input[at..])? {
            Some((inner, used)) => {
                at += used;
                Expr::Not(Box::new(inner))
            }
            None => return Err(unsure("'-' without an argument")),
        },
        Tok::Type => Expr::TypeMark(match text.as_slice() {
            b"filematch" => 1,
            b"filename" | b"file" => 2,
            b"repo" => 3,
            _ => return Err(unsure("an unknown type: argument")),
        }),
        Tok::Or => return Err(unsure("`or` where an expression was expected")),
        Tok::Unsupported => return Err(unsure("archived:, fork:, public: or meta. filters")),
    };
    Ok(Some((e, at)))
}

fn expr_list(input: &[u8]) -> Result<(Vec<Expr>, usize), String> {
    let mut at = 0;
    let mut list = Vec::new();
    while at < input.len() {
        while at < input.len() && is_space(input[at]) {
            at += 1;
        }
        // Zoekt ignores a token error here; the expression below meets it again.
        match next_token(&input[at..]) {
            Ok(Some(tok)) if tok.kind == Tok::ParenClose => break,
            Ok(Some(tok)) if tok.kind == Tok::Or => {
                list.push(Expr::OrOp);
                at += tok.used;
                continue;
            }
            _ => {}
        }
        match expr(&input[at..])? {
            Some((e, used)) => {
                list.push(e);
                at += used;
            }
            None => break,
        }
    }
    let mut case = Case::Auto;
    let mut scoped = false;
    let mut kind: Option<i32> = None;
    let mut rest = Vec::with_capacity(list.len());
    for e in list {
        match e {
            Expr::Case(c) => {
                case = c;
                scoped = true;
            }
            Expr::TypeMark(t) => kind = Some(kind.map_or(t, |k| k.min(t))),
            other => rest.push(other),
        }
    }
    for e in &mut rest {
        e.set_case(case);
    }
    if let Some(kind) = kind {
        rest = vec![Expr::Type(kind, Box::new(operators(rest)?))];
    }
    if scoped {
        rest = rest
            .into_iter()
            .map(|e| match e {
                Expr::OrOp => Expr::OrOp,
                other => Expr::CaseScope(Box::new(other)),
            })
            .collect();
    }
    Ok((rest, at))
}

fn operators(list: Vec<Expr>) -> Result<Expr, String> {
    let mut top = Vec::new();
    let mut current = Vec::new();
    let mut seen_or = false;
    for e in list {
        if e == Expr::OrOp {
            seen_or = true;
            if current.is_empty() {
                return Err(unsure("`or` without an operand"));
            }
            top.push(Expr::And(std::mem::take(&mut current)));
        } else {
            current.push(e);
        }
    }
    if seen_or && current.is_empty() {
        return Err(unsure("`or` without an operand"));
    }
    top.push(Expr::And(current));
    Ok(Expr::Or(top))
}

// ---- Words (Zoekt's RegexpQuery) ----

/// A word as Zoekt reads it: a substring when it is a literal, a regular expression
/// otherwise (`content` and `file_name`: where it must match).
fn word(text: &str, content: bool, file_name: bool) -> Result<Expr, String> {
    match literal(text)? {
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
/// an error where only Go's parser could tell.
fn literal(text: &str) -> Result<Option<String>, String> {
    if text.is_empty() {
        return Err(unsure("an empty word"));
    }
    let mut out = String::with_capacity(text.len());
    let mut operator = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '(' | ')' | '[' | ']' | '{' | '}' => {
                return Err(unsure("a word with parentheses, brackets or braces"));
            }
            '.' | '*' | '+' | '?' | '^' | '$' => operator = true,
            '|' => operator = true,
            '\\' => match chars.next() {
                Some(e) if e.is_ascii_punctuation() => out.push(e),
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
fn language(name: &str) -> Result<String, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(pattern: &str, case_sensitive: bool, file_name: bool, content: bool) -> Q {
        Q {
            node: Some(Node::Substring(proto::Substring {
                pattern: pattern.into(),
                case_sensitive,
                file_name,
                content,
            })),
        }
    }

    fn re(regexp: &str, case_sensitive: bool) -> Q {
        Q {
            node: Some(Node::Regexp(proto::Regexp {
                regexp: regexp.into(),
                file_name: false,
                content: false,
                case_sensitive,
            })),
        }
    }

    fn and(children: Vec<Q>) -> Q {
        Q {
            node: Some(Node::And(proto::And { children })),
        }
    }

    fn tree(query: &str) -> Q {
        match parse(query) {
            Parsed::Tree(q) => q,
            Parsed::Unsure(why) => panic!("{query:?}: {why}"),
        }
    }

    #[test]
    fn words_are_substrings_when_literal_and_case_is_auto() {
        assert_eq!(tree("foo"), sub("foo", false, false, false));
        assert_eq!(tree("Foo"), sub("Foo", true, false, false));
        assert_eq!(
            tree(r"fmt\.Println"),
            sub("fmt.Println", true, false, false)
        );
        assert_eq!(tree("foo.bar"), re("foo.bar", false));
        assert_eq!(tree(r"\w+"), re(r"\w+", true), "\\w is bounded by A-Z");
        assert_eq!(tree(r"\bfoo"), re(r"\bfoo", false));
        assert_eq!(tree("case:yes foo"), sub("foo", true, false, false));
        assert_eq!(tree("case:no Foo"), sub("Foo", false, false, false));
    }

    #[test]
    fn filters_quotes_and_operators_build_zoekts_tree() {
        assert_eq!(
            tree("foo file:\\.go$"),
            and(vec![
                sub("foo", false, false, false),
                Q {
                    node: Some(Node::Regexp(proto::Regexp {
                        regexp: "\\.go$".into(),
                        file_name: true,
                        content: false,
                        case_sensitive: false,
                    })),
                },
            ])
        );
        assert_eq!(tree("\"fn main\""), sub("fn main", false, false, false));
        let Node::Or(or) = tree("a or b").node.unwrap() else {
            panic!("an Or")
        };
        assert_eq!(
            or.children,
            [sub("a", false, false, false), sub("b", false, false, false)]
        );
        let Node::Not(not) = tree("-file:test").node.unwrap() else {
            panic!("a Not")
        };
        assert_eq!(*not.child.unwrap(), sub("test", false, true, false));
        assert!(matches!(tree("lang:go").node, Some(Node::Language(l)) if l.language == "Go"));
        assert!(matches!(tree("sym:Handler").node, Some(Node::Symbol(_))));
        // A parenthesis that belongs to a word stays in it (and makes it Zoekt's to read).
        assert!(matches!(parse("foo(bar)"), Parsed::Unsure(_)));
        assert!(matches!(tree("(a b)").node, Some(Node::And(_))));
    }

    #[test]
    fn an_inner_case_is_kept_and_the_outer_reaches_the_rest() {
        let Node::And(and) = tree("case:yes foo (case:no bar)").node.unwrap() else {
            panic!("an And")
        };
        assert_eq!(
            and.children,
            [
                sub("foo", true, false, false),
                sub("bar", false, false, false)
            ]
        );
        let Node::And(and) = tree("case:yes foo ( bar )").node.unwrap() else {
            panic!("an And")
        };
        assert_eq!(
            and.children,
            [
                sub("foo", true, false, false),
                sub("bar", true, false, false)
            ]
        );
    }

    #[test]
    fn what_only_zoekt_can_read_is_left_to_it() {
        for q in [
            "(a",
            "case:maybe x",
            "archived:yes x",
            "lang:cobolish",
            r"\p{Lu}x",
            "[abc]",
            "a|a",
            "or",
            "\"open",
        ] {
            assert!(matches!(parse(q), Parsed::Unsure(_)), "{q}");
        }
    }
}
