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

use super::expr::{Case, Expr, simplified, unsure};
use super::proto::Q;
use super::tokens::{Tok, next_token};
use super::words::{language, word};

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

// Expressions: Zoekt's parseExpr, parseExprList and parseOperators.

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zoekt::grpc::proto::{self, Node};

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
        // Go reads any escaped ASCII character but a letter or a digit as itself: a space
        // and `_` too, which are not punctuation (`read_file` names paths so).
        assert_eq!(tree(r#"a\ b\_c\"d"#), sub("a b_c\"d", false, false, false));
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
    fn a_path_may_hold_a_class_of_letters_and_digits() {
        let file_re = |regexp: &str, case_sensitive: bool| Q {
            node: Some(Node::Regexp(proto::Regexp {
                regexp: regexp.into(),
                file_name: true,
                content: false,
                case_sensitive,
            })),
        };
        // A capital in the class: matched as written, as Zoekt's `case:auto` does.
        assert_eq!(
            tree("file:^rust-crates/[p-rP-R]"),
            file_re("^rust-crates/[p-rP-R]", true)
        );
        assert_eq!(tree("file:^a/b[0-4]"), file_re("^a/b[0-4]", false));
        // A letter in both cases is Go's folded literal: a regexp where the word has
        // another operator (the anchor), left to Zoekt where it would be the whole word.
        assert_eq!(tree("f:^a/[mM]"), file_re("^a/[mM]", true));
        assert_eq!(tree("file:^a/[a-c][0-4]"), file_re("^a/[a-c][0-4]", false));
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
            "file:[a]",
            "file:[a-a]",
            "file:[mM]",
            "file:x[aA][bB]",
            "file:x[0-zA]",
            "file:x[z-a]",
            "file:x[]",
            "file:x[éa]",
            "file:x[aé]",
            "file:[^a-c]",
            "file:[a.]",
            "file:^x[a-c",
            "a|a",
            "or",
            "\"open",
        ] {
            assert!(matches!(parse(q), Parsed::Unsure(_)), "{q}");
        }
    }
}
