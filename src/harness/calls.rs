//! One call across the engine's backend seam as a recording keeps it: what the engine asked
//! ([`Ask`]) and what came back ([`Answer`]; the answers' own forms are [`super::answers`]).
//!
//! The seam's types (`engine::backend`) carry no serde: the engine has no business with file
//! formats. So the forms here mirror them, converted both ways by destructuring every field:
//! a field added to the seam fails to compile here until the recording keeps it, rather than
//! being dropped from recordings without a word.

use serde::{Deserialize, Serialize};

use super::answers::Files;
use super::index::{Ready, Repos};
use crate::engine::backend::{BackendError, BackendErrorKind, FileSearch, Shape};
use crate::engine::config::Effort;

/// One recorded call: the question and its answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// What the engine asked.
    pub ask: Ask,
    /// What the backend answered (normalised when it was recorded).
    pub answer: Answer,
}

/// What the engine asked of its backend: exactly what identifies the request, so that a
/// replay serves an answer only to the very same question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ask {
    /// `Backend::search`.
    Search(SearchAsk),
    /// `Backend::repos`.
    Repos {
        /// The listing's query (`""`: every repository).
        query: String,
        /// Its time bound, in milliseconds.
        wall_time_ms: u64,
    },
    /// `Backend::readiness`.
    Readiness,
}

impl Ask {
    /// One line for a report: the kind of call and its arguments as compact JSON.
    pub fn one_line(&self) -> String {
        match self {
            Ask::Readiness => "readiness".into(),
            Ask::Search(s) => format!("search {}", compact(s)),
            Ask::Repos {
                query,
                wall_time_ms,
            } => format!(
                "repos {}",
                serde_json::json!({"query": query, "wall_time_ms": wall_time_ms})
            ),
        }
    }
}

fn compact<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// [`FileSearch`], field for field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchAsk {
    /// The backend query.
    pub query: String,
    /// How hard the backend may work.
    pub effort: Effort,
    /// Most files asked for.
    pub max_files: u32,
    /// Context lines around each match.
    pub context_lines: u32,
    /// What each file of the answer holds (matching lines when the field is absent).
    #[serde(default, skip_serializing_if = "is_lines")]
    pub shape: ShapeAsk,
}

/// [`Shape`], by name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeAsk {
    /// [`Shape::Lines`].
    #[default]
    Lines,
    /// [`Shape::WholeContent`].
    WholeContent,
    /// [`Shape::NamesOnly`]: a census.
    NamesOnly,
    /// [`Shape::NamesCarryingLines`]: a census carrying a search's lines.
    NamesCarryingLines,
}

fn is_lines(shape: &ShapeAsk) -> bool {
    *shape == ShapeAsk::Lines
}

impl From<Shape> for ShapeAsk {
    fn from(shape: Shape) -> Self {
        match shape {
            Shape::Lines => ShapeAsk::Lines,
            Shape::WholeContent => ShapeAsk::WholeContent,
            Shape::NamesOnly => ShapeAsk::NamesOnly,
            Shape::NamesCarryingLines => ShapeAsk::NamesCarryingLines,
        }
    }
}

impl From<&FileSearch> for SearchAsk {
    fn from(s: &FileSearch) -> Self {
        let FileSearch {
            query,
            effort,
            max_files,
            context_lines,
            shape,
        } = s.clone();
        SearchAsk {
            query,
            effort,
            max_files,
            context_lines,
            shape: shape.into(),
        }
    }
}

/// What came back for one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// A search's files.
    Files(Files),
    /// A listing's repositories.
    Repos(Repos),
    /// A readiness probe's answer.
    Readiness(Ready),
    /// The call failed.
    Error(Failure),
}

/// [`BackendError`], its kind by [`BackendErrorKind::as_str`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Failure {
    /// The kind of failure (`timeout`, `query_error`, ...).
    pub kind: String,
    /// The backend's words.
    pub message: String,
    /// For `too_big`: files an answer within the bound would hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_within: Option<u32>,
}

const KINDS: [BackendErrorKind; 7] = [
    BackendErrorKind::Unreachable,
    BackendErrorKind::Timeout,
    BackendErrorKind::BadQuery,
    BackendErrorKind::ServerError,
    BackendErrorKind::Malformed,
    BackendErrorKind::NotReady,
    BackendErrorKind::TooBig,
];

impl From<&BackendError> for Failure {
    fn from(e: &BackendError) -> Self {
        let BackendError {
            kind,
            message,
            files_within,
        } = e.clone();
        Failure {
            kind: kind.as_str().into(),
            message,
            files_within,
        }
    }
}

impl Failure {
    /// The error again; a kind this build does not know is a server error that says so.
    pub fn to_error(&self) -> BackendError {
        match KINDS.iter().find(|k| k.as_str() == self.kind) {
            Some(&kind) => BackendError {
                kind,
                message: self.message.clone(),
                files_within: self.files_within,
            },
            None => BackendError {
                kind: BackendErrorKind::ServerError,
                message: format!(
                    "recorded error of unknown kind {:?}: {}",
                    self.kind, self.message
                ),
                files_within: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_error_survives_the_file() {
        for kind in KINDS {
            let e = BackendError {
                kind,
                message: "m".into(),
                files_within: Some(3),
            };
            let text = serde_json::to_string(&Answer::Error(Failure::from(&e))).unwrap();
            let Answer::Error(back) = serde_json::from_str(&text).unwrap() else {
                panic!("{text}")
            };
            assert_eq!(back.to_error(), e);
        }
        let unknown = Failure {
            kind: "new_kind".into(),
            message: "m".into(),
            files_within: None,
        };
        assert_eq!(unknown.to_error().kind, BackendErrorKind::ServerError);
    }

    #[test]
    fn a_question_reads_on_one_line() {
        let ask = Ask::Repos {
            query: "r".into(),
            wall_time_ms: 5,
        };
        assert_eq!(ask.one_line(), r#"repos {"query":"r","wall_time_ms":5}"#);
        assert_eq!(Ask::Readiness.one_line(), "readiness");
    }
}
