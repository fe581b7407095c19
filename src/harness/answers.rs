//! A search's answer across the backend seam, in the form a recording keeps it: the serde
//! mirror of `RankedFiles`, converted both ways by destructuring every field (see
//! [`super::calls`] for why; the index's answers are [`super::index`]). Defaults (no branches,
//! no context, no fan-out bits) are left out of the file, so a recording reads like the
//! answer it holds.

use serde::{Deserialize, Serialize};

use super::mirror::mirror;
use crate::engine::backend::{Fragment, MatchedLine, RankedFile, RankedFiles, SearchStats, Symbol};

/// [`RankedFiles`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Files {
    /// The files, in the backend's order.
    pub files: Vec<File>,
    /// The search's statistics.
    pub stats: Stats,
    /// The start of an answer too big to read whole (absent: the whole answer).
    #[serde(default, skip_serializing_if = "is_false")]
    pub cut_at_bytes: bool,
}

/// [`RankedFile`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct File {
    /// Repository name.
    pub repo: String,
    /// Path inside the repository.
    pub path: String,
    /// Language (may be empty).
    #[serde(default)]
    pub language: String,
    /// Branches holding the file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<String>,
    /// The backend's score.
    pub score: f64,
    /// The path matched.
    #[serde(default, skip_serializing_if = "is_false")]
    pub path_matched: bool,
    /// Matching lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<Line>,
    /// The whole content, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// [`MatchedLine`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Line {
    /// 1-based line number.
    pub number: u32,
    /// The line, with its newline if it had one.
    pub text: String,
    /// Context before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Context after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// Matching parts of the line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fragments: Vec<Part>,
}

/// [`Fragment`], with its [`Symbol`] inline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part {
    /// Byte offset of the match in the line.
    pub byte_offset: u32,
    /// The symbol defined here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<Sym>,
}

/// [`Symbol`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sym {
    /// The symbol's name.
    pub name: String,
    /// Its ctags kind.
    pub kind: String,
    /// The enclosing scope's name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub parent: String,
    /// The enclosing scope's kind.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub parent_kind: String,
}

/// [`SearchStats`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stats {
    /// Files that matched.
    pub file_count: u64,
    /// Matches counted.
    pub match_count: u64,
    /// Files left out by a match budget.
    pub files_skipped: u64,
    /// Shards left out by the time budget.
    pub shards_skipped: u64,
    /// Shards crashed or loading.
    pub crashes: u64,
    /// The backend's time, normalised (see `recorder`).
    pub duration_ms: u64,
    /// Fan-out backends that did not answer (a bit each).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub missing_backends: u64,
    /// Fan-out backends that shared a file (a bit each).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub shared_backends: u64,
}

fn is_false(b: &bool) -> bool {
    !*b
}

pub(super) fn is_zero(n: &u64) -> bool {
    *n == 0
}

mirror!(RankedFiles <=> Files { files: each, stats: into, cut_at_bytes });
mirror!(RankedFile <=> File {
    repo,
    path,
    language,
    branches,
    score,
    path_matched,
    lines: each,
    content,
});
mirror!(MatchedLine <=> Line {
    number,
    text,
    before,
    after,
    fragments: each,
});
mirror!(Fragment <=> Part { byte_offset, symbol: maybe });
mirror!(Symbol <=> Sym { name, kind, parent, parent_kind });
mirror!(SearchStats <=> Stats {
    file_count,
    match_count,
    files_skipped,
    shards_skipped,
    crashes,
    duration_ms,
    missing_backends,
    shared_backends,
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_of_a_search_answer_survives_the_file() {
        let files = RankedFiles {
            files: vec![RankedFile {
                repo: "r".into(),
                path: "a/b.go".into(),
                language: "Go".into(),
                branches: vec!["main".into(), "dev".into()],
                score: 83000000008.29787,
                path_matched: true,
                lines: vec![
                    MatchedLine {
                        number: 5,
                        text: "func f() {\n".into(),
                        before: Some("x".into()),
                        after: Some("y".into()),
                        fragments: vec![Fragment {
                            byte_offset: 5,
                            symbol: Some(Symbol {
                                name: "f".into(),
                                kind: "func".into(),
                                parent: "p".into(),
                                parent_kind: "package".into(),
                            }),
                        }],
                    },
                    // Absent context and symbol stay absent (empty is not absent).
                    MatchedLine {
                        number: 6,
                        text: String::new(),
                        before: None,
                        after: Some(String::new()),
                        fragments: vec![Fragment {
                            byte_offset: 0,
                            symbol: None,
                        }],
                    },
                ],
                content: Some("whole".into()),
            }],
            stats: SearchStats {
                file_count: 1,
                match_count: 2,
                files_skipped: 3,
                shards_skipped: 4,
                crashes: 5,
                duration_ms: 6,
                missing_backends: 7,
                shared_backends: 8,
            },
            cut_at_bytes: true,
        };
        let text = serde_json::to_string(&Files::from(&files)).unwrap();
        let back: Files = serde_json::from_str(&text).unwrap();
        assert_eq!(RankedFiles::from(&back), files);
    }
}
