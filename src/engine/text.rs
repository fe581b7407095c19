//! Text helpers every tool's flattening shares: clipping long lines, character columns,
//! whole-word search, context blocks.

use super::backend::MatchedLine;

/// Longest `text` an item carries, in characters. Keeps a default page well inside an
/// assistant's token budget even on minified or generated code.
pub const MAX_TEXT_CHARS: usize = 200;

/// Trims the line (and its newline) and shortens it to [`MAX_TEXT_CHARS`].
pub fn clip_text(line: &str) -> String {
    shorten(line.trim())
}

/// Context lines keep their indentation (it shows the structure) but are shortened too.
fn clip_text_keep_indent(line: &str) -> String {
    shorten(line.trim_end())
}

/// `text` cut after [`MAX_TEXT_CHARS`] characters, with `…` when it was cut.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// 1-based character column of a byte offset into `line` (clamped, never panics on a
/// non-boundary offset).
pub fn column(line: &str, byte_offset: u32) -> u32 {
    let mut off = (byte_offset as usize).min(line.len());
    while !line.is_char_boundary(off) {
        off -= 1;
    }
    line[..off].chars().count() as u32 + 1
}

/// 1-based character column of the first match on `line` (column 1 when it has no fragment).
pub fn first_match_column(line: &MatchedLine) -> u32 {
    let first = line.fragments.iter().map(|f| f.byte_offset).min();
    column(&line.text, first.unwrap_or(0))
}

/// A context block (newline-separated lines) as clipped lines; none when absent or empty.
pub fn context_lines(block: Option<&str>) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_only() {
        assert_eq!(find_word("x := get(1)", "get"), Some(5));
        assert_eq!(find_word("forget(); getUser(); get_all()", "get"), None);
        assert_eq!(find_word("forget(); get()", "get"), Some(10));
        assert_eq!(find_word("a.$b", "$b"), Some(2));
    }

    #[test]
    fn long_lines_are_clipped_and_columns_count_characters() {
        let long = "é".repeat(500);
        assert_eq!(clip_text(&long).chars().count(), MAX_TEXT_CHARS + 1);
        assert_eq!(column("éé x", 4), 3);
        assert_eq!(column("é", 1), 1); // inside a char: clamped, no panic
    }

    #[test]
    fn context_blocks_keep_indentation() {
        assert_eq!(context_lines(Some("  a\n\tb\n")), ["  a", "\tb"]);
        assert!(context_lines(Some("")).is_empty());
        assert!(context_lines(None).is_empty());
    }
}
