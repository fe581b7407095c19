//! Clipping text: the one way the crate shortens a line, a snippet or a quoted input, and
//! how a page's snippets show ([`Snippet`]). Reading matches (columns, context blocks,
//! words) is the flattening tools' (`src/tools/`).

/// Longest source line an item keeps, in characters: the most any `snippet_length` can show.
/// Items are kept (and cached) at this length; a page clips them to the caller's
/// `snippet_length` (see [`Snippet`]), so that choice never changes which items come out.
pub const MAX_TEXT_CHARS: usize = 1_000;

/// How the source lines of a page's items show: the caller's `include_snippet` and
/// `snippet_length`, validated. Applied to a page's items after the cut, so it changes what
/// an item shows, never which items a page holds (and is not in the cursor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snippet {
    /// Show source lines at all (the line and its context lines).
    pub include: bool,
    /// Most characters of a line shown, `…` included when the line is cut.
    pub max_chars: usize,
}

impl Snippet {
    /// The snippet of every line: dropped, or clipped to `max_chars`.
    pub fn apply(&self, line: &mut String) {
        if self.include {
            clip(line, self.max_chars);
        } else {
            line.clear();
        }
    }

    /// The same for a block of context lines: dropped, or each line clipped.
    pub fn apply_all(&self, lines: &mut Vec<String>) {
        if self.include {
            lines.iter_mut().for_each(|l| self.apply(l));
        } else {
            lines.clear();
        }
    }

    /// An item's source line and the context lines around it.
    pub fn apply_with_context(
        &self,
        line: &mut String,
        before: &mut Vec<String>,
        after: &mut Vec<String>,
    ) {
        self.apply(line);
        self.apply_all(before);
        self.apply_all(after);
    }
}

/// Cuts `text` to at most `max_chars` characters, the last being `…` when it was cut: the one
/// way this crate shortens a line, a snippet or a quoted input.
pub fn clip(text: &mut String, max_chars: usize) {
    if let Some((i, _)) = text.char_indices().nth(max_chars) {
        // Cut one character earlier to make room for the `…`.
        let keep = text[..i].char_indices().next_back().map_or(0, |(j, _)| j);
        text.truncate(keep);
        text.push('…');
    }
}

/// [`clip`] for borrowed text: copies only what is kept, so a long line costs no more than
/// its first `max_chars` characters.
pub fn clipped(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((i, _)) => {
            let keep = text[..i].char_indices().next_back().map_or(0, |(j, _)| j);
            format!("{}…", &text[..keep])
        }
        None => text.to_string(),
    }
}

/// Trims the line (and its newline) and shortens it to [`MAX_TEXT_CHARS`].
pub fn clip_text(line: &str) -> String {
    shorten(line.trim())
}

/// Context lines keep their indentation (it shows the structure) but are shortened too.
pub fn clip_text_keep_indent(line: &str) -> String {
    shorten(line.trim_end())
}

/// `text` cut to [`MAX_TEXT_CHARS`] characters, the last being `…` when it was cut.
fn shorten(text: &str) -> String {
    clipped(text, MAX_TEXT_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snippet_shapes_the_line_and_its_context_alike() {
        let lines = || {
            (
                "abcdefgh".to_string(),
                vec!["before line".to_string()],
                vec!["after".to_string(), "second after".to_string()],
            )
        };
        let (mut line, mut before, mut after) = lines();
        let clipped = Snippet {
            include: true,
            max_chars: 6,
        };
        clipped.apply_with_context(&mut line, &mut before, &mut after);
        assert_eq!(line, "abcde…");
        assert_eq!(before, ["befor…"]);
        assert_eq!(after, ["after", "secon…"]);

        let (mut line, mut before, mut after) = lines();
        let dropped = Snippet {
            include: false,
            max_chars: 6,
        };
        dropped.apply_with_context(&mut line, &mut before, &mut after);
        assert_eq!((line.as_str(), before.len(), after.len()), ("", 0, 0));
    }

    #[test]
    fn long_lines_are_clipped_and_columns_count_characters() {
        let long = "é".repeat(1_500);
        let clipped = clip_text(&long);
        assert_eq!(clipped.chars().count(), MAX_TEXT_CHARS);
        assert!(clipped.ends_with("é…"));
    }

    #[test]
    fn clipped_copies_what_clip_keeps() {
        for (text, max, want) in [
            ("abc", 3, "abc"),
            ("abcd", 3, "ab…"),
            ("ééé", 2, "é…"),
            ("ééé", 3, "ééé"),
            ("", 4, ""),
        ] {
            assert_eq!(clipped(text, max), want, "{text:?} at {max}");
            let mut owned = text.to_string();
            clip(&mut owned, max);
            assert_eq!(owned, want, "{text:?} at {max}");
        }
    }

    #[test]
    fn snippets_clip_to_their_length_ellipsis_included_or_go() {
        let clip = |n: usize, text: &str| {
            let mut s = text.to_string();
            Snippet {
                include: true,
                max_chars: n,
            }
            .apply(&mut s);
            s
        };
        assert_eq!(clip(5, "abcdef"), "abcd…");
        assert_eq!(clip(6, "abcdef"), "abcdef");
        assert_eq!(clip(3, "ééééé"), "éé…");
        assert_eq!(clip(1, "ab"), "…");
        let mut lines = vec!["x".to_string()];
        Snippet {
            include: false,
            max_chars: 9,
        }
        .apply_all(&mut lines);
        assert!(lines.is_empty());
    }
}
