//! Turning Zoekt file matches into items, one function per tool.
//!
//! Each function sees ONE file and returns its items in position order (line, then column):
//! Zoekt orders matches inside a file by score, which would make item numbering depend on
//! scoring details. The window fetch orders the files; together they give every item a
//! stable place.

use std::collections::BTreeSet;

use super::item::{FileItem, MatchItem, ReferenceItem, ReferenceRole, SymbolItem};
use crate::zoekt::wire::{FileMatch, LineMatch};

/// Longest `text` an item carries, in characters. Keeps a default page well inside an
/// assistant's token budget even on minified or generated code.
pub const MAX_TEXT_CHARS: usize = 200;

/// Trims the line (and its newline) and shortens it to [`MAX_TEXT_CHARS`].
pub fn clip_text(line: &str) -> String {
    let t = line.trim();
    match t.char_indices().nth(MAX_TEXT_CHARS) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.to_string(),
    }
}

/// 1-based character column of a byte offset into `line` (clamped, never panics on a
/// non-boundary offset).
fn column(line: &str, byte_offset: u32) -> u32 {
    let mut off = (byte_offset as usize).min(line.len());
    while !line.is_char_boundary(off) {
        off -= 1;
    }
    line[..off].chars().count() as u32 + 1
}

/// A match on a line of content (not on the file's path).
fn is_content_line(lm: &&LineMatch) -> bool {
    !lm.file_name && lm.line_number > 0
}

/// Symbol items: only fragments carrying SymbolInfo (a `sym:` match on a ctags-indexed repo),
/// optionally restricted to some ctags kinds.
pub fn symbols(file: &FileMatch, kinds: &BTreeSet<String>) -> Vec<SymbolItem> {
    let mut out: Vec<SymbolItem> = Vec::new();
    for lm in file.line_matches.iter().filter(is_content_line) {
        let line = lm.line.as_str();
        for frag in &lm.line_fragments {
            let Some(sym) = &frag.symbol_info else {
                continue;
            };
            if !kinds.is_empty() && !kinds.contains(&sym.kind.to_lowercase()) {
                continue;
            }
            out.push(SymbolItem {
                name: sym.sym.clone(),
                kind: sym.kind.clone(),
                parent: Some(sym.parent.clone()).filter(|p| !p.is_empty()),
                parent_kind: Some(sym.parent_kind.clone()).filter(|p| !p.is_empty()),
                repo: file.repository.clone(),
                path: file.file_name.clone(),
                line: lm.line_number,
                column: column(line, frag.line_offset),
                text: clip_text(line),
            });
        }
    }
    out.sort_by(|a, b| (a.line, a.column, &a.name).cmp(&(b.line, b.column, &b.name)));
    out.dedup_by(|a, b| (a.line, a.column, &a.name) == (b.line, b.column, &b.name));
    out
}

/// File items: a file counts only if its PATH matched (a file-name match), or if Zoekt sent
/// no match lines at all (a pure filter query). A file that matched by content only is
/// never listed.
pub fn files(file: &FileMatch) -> Vec<FileItem> {
    let by_name = file.line_matches.iter().any(|lm| lm.file_name)
        || file.chunk_matches.iter().any(|cm| cm.file_name);
    let no_matches = file.line_matches.is_empty() && file.chunk_matches.is_empty();
    if !(by_name || no_matches) {
        return Vec::new();
    }
    vec![FileItem {
        repo: file.repository.clone(),
        path: file.file_name.clone(),
        language: file.language.clone(),
        branches: file.branches.clone(),
    }]
}

/// Definition items of exactly `symbol` (the `sym:^symbol$` query may still carry other
/// symbol fragments on the same line).
pub fn definitions(file: &FileMatch, symbol: &str) -> Vec<ReferenceItem> {
    let mut out: Vec<ReferenceItem> = symbols(file, &BTreeSet::new())
        .into_iter()
        .filter(|s| s.name == symbol)
        .map(|s| ReferenceItem {
            role: ReferenceRole::Definition,
            repo: s.repo,
            path: s.path,
            line: s.line,
            column: s.column,
            text: s.text,
            kind: Some(s.kind),
        })
        .collect();
    out.dedup_by_key(|d| d.line);
    out
}

/// Usage items: one per line holding `symbol` as a whole, case-sensitive word, skipping the
/// lines listed in `definition_lines` (a definition is not also listed as its own usage).
pub fn usages(
    file: &FileMatch,
    symbol: &str,
    definition_lines: &BTreeSet<(String, String, u32)>,
) -> Vec<ReferenceItem> {
    let mut out = Vec::new();
    for lm in file.line_matches.iter().filter(is_content_line) {
        let line = lm.line.as_str();
        let Some(at) = find_word(line, symbol) else {
            continue;
        };
        let key = (
            file.repository.clone(),
            file.file_name.clone(),
            lm.line_number,
        );
        if definition_lines.contains(&key) {
            continue;
        }
        out.push(ReferenceItem {
            role: ReferenceRole::Reference,
            repo: file.repository.clone(),
            path: file.file_name.clone(),
            line: lm.line_number,
            column: column(line, at as u32),
            text: clip_text(line),
            kind: None,
        });
    }
    out.sort_by_key(|r| r.line);
    out.dedup_by_key(|r| r.line);
    out
}

/// Byte offset of the first whole-word occurrence of `word` in `line`.
pub fn find_word(line: &str, word: &str) -> Option<usize> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let word_start = word.chars().next().is_some_and(is_word);
    let word_end = word.chars().last().is_some_and(is_word);
    let mut from = 0;
    while let Some(pos) = line[from..].find(word) {
        let start = from + pos;
        let end = start + word.len();
        let before_ok = !word_start || !line[..start].chars().next_back().is_some_and(is_word);
        let after_ok = !word_end || !line[end..].chars().next().is_some_and(is_word);
        if before_ok && after_ok {
            return Some(start);
        }
        from = start + word.chars().next().map_or(1, char::len_utf8);
    }
    None
}

/// Match items for `search`: one per matching line; a path match is item line 0.
pub fn matches(file: &FileMatch) -> Vec<MatchItem> {
    let mut out: Vec<MatchItem> = file
        .line_matches
        .iter()
        .map(|lm| {
            if lm.file_name {
                return MatchItem {
                    repo: file.repository.clone(),
                    path: file.file_name.clone(),
                    line: 0,
                    column: 1,
                    text: clip_text(&file.file_name),
                    before: Vec::new(),
                    after: Vec::new(),
                };
            }
            let line = lm.line.as_str();
            let first = lm.line_fragments.iter().map(|f| f.line_offset).min();
            MatchItem {
                repo: file.repository.clone(),
                path: file.file_name.clone(),
                line: lm.line_number,
                column: column(line, first.unwrap_or(0)),
                text: clip_text(line),
                before: context(lm.before.as_ref().map(|b| b.as_str())),
                after: context(lm.after.as_ref().map(|a| a.as_str())),
            }
        })
        .collect();
    out.sort_by_key(|m| m.line);
    out.dedup_by_key(|m| m.line);
    out
}

fn context(block: Option<&str>) -> Vec<String> {
    block
        .filter(|b| !b.is_empty())
        .map(|b| {
            b.strip_suffix('\n')
                .unwrap_or(b)
                .split('\n')
                .map(clip_text_keep_indent)
                .collect()
        })
        .unwrap_or_default()
}

/// Context lines keep their indentation (it shows the structure) but are shortened too.
fn clip_text_keep_indent(line: &str) -> String {
    let t = line.trim_end();
    match t.char_indices().nth(MAX_TEXT_CHARS) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zoekt::wire::{B64Text, LineFragmentMatch, SymbolInfo};

    fn line(n: u32, text: &str, frags: Vec<(u32, Option<&str>)>) -> LineMatch {
        LineMatch {
            line: B64Text(format!("{text}\n")),
            line_number: n,
            line_fragments: frags
                .into_iter()
                .map(|(off, sym)| LineFragmentMatch {
                    line_offset: off,
                    match_length: 3,
                    symbol_info: sym.map(|s| SymbolInfo {
                        sym: s.into(),
                        kind: "function".into(),
                        ..Default::default()
                    }),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    fn file(lines: Vec<LineMatch>) -> FileMatch {
        FileMatch {
            file_name: "a.go".into(),
            repository: "r".into(),
            line_matches: lines,
            ..Default::default()
        }
    }

    #[test]
    fn symbols_are_ordered_by_position_not_by_zoekt_score() {
        let f = file(vec![
            line(9, "func b() {}", vec![(5, Some("b"))]),
            line(2, "func a() {} // x", vec![(5, Some("a")), (14, None)]),
        ]);
        let s = symbols(&f, &BTreeSet::new());
        assert_eq!(
            s.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!((s[0].line, s[0].column), (2, 6));
    }

    #[test]
    fn kinds_filter_and_missing_symbol_info() {
        let f = file(vec![line(1, "get()", vec![(0, None)])]);
        assert!(symbols(&f, &BTreeSet::new()).is_empty());
        let f = file(vec![line(1, "func a()", vec![(5, Some("a"))])]);
        let only_structs = BTreeSet::from(["struct".to_string()]);
        assert!(symbols(&f, &only_structs).is_empty());
    }

    #[test]
    fn files_skip_content_only_matches() {
        let content_only = file(vec![line(3, "widgetry", vec![(0, None)])]);
        assert!(files(&content_only).is_empty());
        let mut by_name = file(vec![]);
        by_name.line_matches.push(LineMatch {
            file_name: true,
            ..Default::default()
        });
        assert_eq!(files(&by_name).len(), 1);
    }

    #[test]
    fn whole_words_only() {
        assert_eq!(find_word("x := get(1)", "get"), Some(5));
        assert_eq!(find_word("forget(); getUser(); get_all()", "get"), None);
        assert_eq!(find_word("forget(); get()", "get"), Some(10));
        assert_eq!(find_word("a.$b", "$b"), Some(2));
    }

    #[test]
    fn usage_on_a_definition_line_is_not_repeated() {
        let f = file(vec![
            line(4, "func get() {", vec![]),
            line(8, "get()", vec![]),
        ]);
        let defs = BTreeSet::from([("r".to_string(), "a.go".to_string(), 4)]);
        let u = usages(&f, "get", &defs);
        assert_eq!(u.iter().map(|u| u.line).collect::<Vec<_>>(), [8]);
    }

    #[test]
    fn long_lines_are_clipped_and_columns_count_characters() {
        let long = "é".repeat(500);
        assert_eq!(clip_text(&long).chars().count(), MAX_TEXT_CHARS + 1);
        assert_eq!(column("éé x", 4), 3);
        assert_eq!(column("é", 1), 1); // inside a char: clamped, no panic
    }
}
