//! Zoekt's query tokens (its `nextToken`): words with the parentheses that belong to them,
//! quoted strings, backslashes kept, `-`, `or`, and the `prefix:` filters.

use super::expr::unsure;

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Tok {
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

pub(super) struct Token {
    pub(super) kind: Tok,
    pub(super) text: Vec<u8>,
    /// Bytes of input the token took.
    pub(super) used: usize,
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

pub(super) fn next_token(input: &[u8]) -> Result<Option<Token>, String> {
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
