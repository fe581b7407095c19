//! The parse tree of a query while it is read (`query.rs`): Zoekt's own node kinds, the
//! case still to be set, and the markers its lists consume; then the gRPC [`Q`] it becomes,
//! flattened as Zoekt flattens it.

use super::proto::{self, Node, Q};

/// Why the parser leaves a query to Zoekt (see `query.rs`).
pub(super) fn unsure(why: &str) -> String {
    why.to_string()
}

/// A parsed expression, before it becomes a [`Q`]: the case still to be set.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Expr {
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
pub(super) enum Case {
    Yes,
    No,
    Auto,
}

impl Expr {
    /// `setCase`, run over the tree as Zoekt's `query.Map` does (it does not enter a case
    /// scope; a symbol passes it to its expression).
    pub(super) fn set_case(&mut self, case: Case) {
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

    pub(super) fn into_q(self) -> Q {
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
pub(super) fn simplified(q: Q) -> Q {
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
