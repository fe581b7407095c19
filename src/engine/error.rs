//! What can go wrong with a page, as types. The engine says what happened; the tools' one
//! mapping (`tools::error`) decides the error code and the hint a caller sees, for MCP and
//! the CLI alike.

use super::backend::BackendError;
use super::cursor::CursorError;

/// Why a tool call produced no answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// An argument is out of range or malformed.
    #[error(transparent)]
    Argument(#[from] ArgumentError),
    /// The query cannot be turned into a backend query.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// The cursor was refused.
    #[error(transparent)]
    Cursor(#[from] CursorError),
    /// `read_file`: no such file in the index.
    #[error("no file `{path}` in repository `{repo}`")]
    NoSuchFile {
        /// The repository asked for.
        repo: String,
        /// The path asked for.
        path: String,
    },
    /// A listing of names found no file under a directory of a repository.
    #[error("no file under `{path}` in repository `{repo}`")]
    NoSuchDirectory {
        /// The repository asked for.
        repo: String,
        /// The directory asked for.
        path: String,
    },
    /// The backend failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

/// An argument the engine refuses, with the numbers a caller needs to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgumentError {
    /// `limit` is 0 or above the maximum.
    #[error("limit is {given}")]
    Limit {
        /// The limit given.
        given: u32,
        /// The limit used when none is given.
        default: u32,
        /// The largest limit accepted.
        max: u32,
    },
    /// `context_lines` is above the maximum.
    #[error("context_lines is {given}")]
    ContextLines {
        /// The number given.
        given: u32,
        /// The largest number accepted.
        max: u32,
    },
    /// `snippet_length` is 0 or above the maximum.
    #[error("snippet_length is {given}")]
    SnippetLength {
        /// The number given.
        given: u32,
        /// The largest number accepted.
        max: u32,
    },
    /// More `kinds` than accepted.
    #[error("{count} kinds given")]
    TooManyKinds {
        /// How many were given.
        count: usize,
    },
    /// A `kinds` entry that cannot be a ctags kind.
    #[error("`{kind}` is not a ctags kind")]
    NotAKind {
        /// The entry, trimmed and lower-cased.
        kind: String,
    },
    /// A whole-number argument of a tool is outside its range.
    #[error("{name} is {given}")]
    OutOfRange {
        /// The argument's name.
        name: &'static str,
        /// The number given.
        given: u32,
        /// The smallest accepted.
        min: u32,
        /// The largest accepted.
        max: u32,
    },
    /// `start_line` is 0.
    #[error("start_line is 0")]
    StartLineZero,
    /// `end_line` is before `start_line`.
    #[error("end_line {end} is before start_line {start}")]
    EndBeforeStart {
        /// The start line given.
        start: u32,
        /// The end line given.
        end: u32,
    },
    /// `start_line` is past the end of the file.
    #[error("start_line {start} is past the end of the file ({total} lines)")]
    StartPastEnd {
        /// The start line given.
        start: u32,
        /// Lines in the file.
        total: u32,
    },
}

/// Why a query cannot be built: the engine's vocabulary, produced by the backend's query
/// builder (`zoekt::query`). Every variant maps to the tool error `INVALID_ARGUMENT`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// The query is empty or only whitespace.
    #[error("the query is empty")]
    Empty,
    /// The query (or a name in it) is longer than its limit.
    #[error("the {what} has {chars} characters (max {max})")]
    TooLong {
        /// What is too long: "query", "repository name", "path".
        what: &'static str,
        /// Characters in it.
        chars: usize,
        /// The most it may have.
        max: usize,
    },
    /// The query holds a newline or another control character.
    #[error("the query contains a newline or control character")]
    ControlCharacter,
    /// A double quote is never closed.
    #[error("the query has an unclosed double quote")]
    UnbalancedQuote,
    /// A `type:`/`t:` atom, which would change the shape of Zoekt's answer.
    #[error("`{token}` changes the shape of Zoekt's answer and is not accepted")]
    ShapeAtom {
        /// The atom.
        token: String,
    },
    /// There are filters but no pattern where the tool needs one.
    #[error("the query has filters but no pattern")]
    MissingPattern,
    /// More than one pattern where the tool takes exactly one.
    #[error("the query has several patterns: {}", patterns.join(", "))]
    SeveralPatterns {
        /// The patterns found.
        patterns: Vec<String>,
    },
    /// A token that must be a filter atom is not one.
    #[error("`{token}` is not a filter atom")]
    NotAFilter {
        /// The token.
        token: String,
    },
    /// The symbol cannot be searched as one literal identifier.
    #[error("invalid symbol: {reason}")]
    BadSymbol {
        /// What is wrong with it.
        reason: &'static str,
    },
}
