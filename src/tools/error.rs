//! Engine errors as a caller sees them: a stable code, the message, and a hint saying what to
//! send instead. The one place codes and hints are decided, for the MCP layer and the CLI
//! alike. It lives with the tools because it names them: a cursor of another tool is refused
//! with that tool's name, and a hint gives a tool's own bounds.

use schemars::JsonSchema;
use serde::Serialize;

use crate::engine::backend::BackendErrorKind;
use crate::engine::cursor::{CursorError, Scope};
use crate::engine::error::QueryError;
use crate::engine::error::{ArgumentError, Error};
use crate::tools::list_repos::REPO_LISTING;
use crate::tools::search_symbols::MAX_KINDS;

/// Machine-readable error codes shared by every tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// An argument is missing, malformed or out of range.
    InvalidArgument,
    /// The cursor is not one this server minted, or is beyond the paging ceiling.
    InvalidCursor,
    /// The cursor belongs to another tool or another query.
    CursorMismatch,
    /// Zoekt did not answer.
    BackendUnavailable,
    /// Zoekt rejected the query.
    BackendQueryError,
    /// Zoekt answered too late.
    BackendTimeout,
    /// Zoekt answered before its index was loaded: retry shortly.
    BackendNotReady,
    /// Zoekt failed or sent something unreadable.
    BackendError,
    /// `read_file`: no such repository/path in the index.
    NotFound,
}

impl ErrorCode {
    /// The wire name, e.g. `INVALID_CURSOR` (same as the serde form).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::InvalidCursor => "INVALID_CURSOR",
            ErrorCode::CursorMismatch => "CURSOR_MISMATCH",
            ErrorCode::BackendUnavailable => "BACKEND_UNAVAILABLE",
            ErrorCode::BackendQueryError => "BACKEND_QUERY_ERROR",
            ErrorCode::BackendTimeout => "BACKEND_TIMEOUT",
            ErrorCode::BackendNotReady => "BACKEND_NOT_READY",
            ErrorCode::BackendError => "BACKEND_ERROR",
            ErrorCode::NotFound => "NOT_FOUND",
        }
    }

    /// A refused cursor (counted apart in the metrics).
    pub fn is_cursor_error(self) -> bool {
        matches!(self, ErrorCode::InvalidCursor | ErrorCode::CursorMismatch)
    }
}

/// A failed call: a code, what happened and what to do about it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ToolError {
    /// The error code.
    pub code: ErrorCode,
    /// What happened.
    pub message: String,
    /// What to send instead.
    pub hint: String,
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} ({})",
            self.code.as_str(),
            self.message,
            self.hint
        )
    }
}

impl ToolError {
    /// A call that ran past its deadline; its Zoekt requests were dropped.
    pub fn call_timeout(after: std::time::Duration) -> Self {
        ToolError {
            code: ErrorCode::BackendTimeout,
            message: format!(
                "the call did not finish within {} ms (--call-timeout-ms); its Zoekt requests \
                 were dropped",
                after.as_millis()
            ),
            hint: "Narrow the query with repo:, file: or lang:, or ask the operator to raise \
                   --call-timeout-ms."
                .into(),
        }
    }

    /// Arguments that do not fit the tool's input schema.
    pub fn bad_arguments(tool: &str, error: &serde_json::Error) -> Self {
        ToolError {
            code: ErrorCode::InvalidArgument,
            message: excerpt(&format!("bad arguments for {tool}: {error}")),
            hint: "Check the tool's input schema: argument names and types.".into(),
        }
    }
}

impl From<&Error> for ToolError {
    fn from(e: &Error) -> Self {
        if let Error::Cursor(CursorError::OtherTool { minted_by }) = e {
            return other_scope(*minted_by);
        }
        let (code, hint) = match e {
            Error::Argument(a) => (ErrorCode::InvalidArgument, argument_hint(a)),
            Error::Query(q) => (ErrorCode::InvalidArgument, query_hint(q)),
            Error::Cursor(c) => cursor_code_and_hint(c),
            Error::NoSuchFile { .. } => (
                ErrorCode::NotFound,
                "Names are exact and case-sensitive: find the path with search_files and the \
                 repository with list_repos."
                    .into(),
            ),
            Error::NoSuchDirectory { .. } => (
                ErrorCode::NotFound,
                "Paths are exact and case-sensitive: list_tree with a shorter path (or none) \
                 shows what is there, and list_repos the repositories."
                    .into(),
            ),
            Error::Backend(b) => backend_code_and_hint(b.kind),
        };
        ToolError {
            code,
            message: excerpt(&e.to_string()),
            hint,
        }
    }
}

/// Longest error message, in characters. Messages may quote what the caller sent (a query,
/// an argument that failed to parse) or what Zoekt said; an excerpt is enough to act on, and a
/// 1 MB argument must not come back as a 2 MB error.
pub const MAX_MESSAGE_CHARS: usize = 400;

/// `text` cut to [`MAX_MESSAGE_CHARS`] characters, ending in `…` when cut.
pub fn excerpt(text: &str) -> String {
    crate::engine::text::clipped(text, MAX_MESSAGE_CHARS)
}

fn argument_hint(e: &ArgumentError) -> String {
    match e {
        ArgumentError::Limit { default, max, .. } => {
            format!("Use a limit from 1 to {max} (default {default}).")
        }
        ArgumentError::ContextLines { max, .. } => format!("Use 0 to {max} context lines."),
        ArgumentError::SnippetLength { max, .. } => {
            format!("Use a snippet_length from 1 to {max} characters, or include_snippet=false.")
        }
        ArgumentError::TooManyKinds { .. } => {
            format!("Pass at most {MAX_KINDS} ctags kinds, e.g. [\"function\", \"method\"].")
        }
        ArgumentError::NotAKind { .. } => {
            "Use ctags kind names such as function, method, struct, class, interface, variable."
                .into()
        }
        ArgumentError::OutOfRange { name, min, max, .. } => {
            format!("Use a {name} from {min} to {max}.")
        }
        ArgumentError::StartLineZero => "Lines are numbered from 1.".into(),
        ArgumentError::EndBeforeStart { .. } => {
            "Give end_line >= start_line, or omit it to read as far as the bounds allow.".into()
        }
        ArgumentError::StartPastEnd { total, .. } => {
            format!("Use a start_line from 1 to {}.", total.max(&1))
        }
    }
}

fn query_hint(e: &QueryError) -> String {
    match e {
        QueryError::Empty => "Pass a non-empty query, e.g. \"parseConfig lang:go\".".into(),
        QueryError::TooLong { what, max, .. } => {
            format!("Keep the {what} to at most {max} characters.")
        }
        QueryError::ControlCharacter => {
            "Zoekt queries are one line: remove newlines, tabs inside quotes and other control characters.".into()
        }
        QueryError::UnbalancedQuote => "Close the double quote, or escape it as \\\".".into(),
        QueryError::ShapeAtom { .. } => {
            "Drop type:/t: atoms; pick the tool instead (search_files for file names, search for lines).".into()
        }
        QueryError::MissingPattern => {
            "Add a pattern besides the filters, e.g. \"Handler lang:go\".".into()
        }
        QueryError::SeveralPatterns { .. } => {
            "Give one pattern (a regex); combine alternatives inside it with |, e.g. \"get|put\".".into()
        }
        QueryError::NotAFilter { .. } => {
            "Filters take the form lang:X, repo:X, file:X, case:yes, branch:X, or a negation like -file:test.".into()
        }
        QueryError::BadSymbol { .. } => {
            "Pass the bare identifier, e.g. \"getUser\" (no spaces, quotes or parentheses).".into()
        }
    }
}

/// A cursor of another scope, named here: the engine knows scopes as numbers only. A scope
/// no tool has is not a cursor this server minted.
fn other_scope(minted_by: Scope) -> ToolError {
    let (owner, hint) = if minted_by == REPO_LISTING {
        (
            "the repository listing".to_string(),
            "Pass this cursor to resources/list, or omit cursor to start over.".to_string(),
        )
    } else if let Some(tool) = crate::tools::tool_of_scope(minted_by) {
        (
            format!("the tool {tool}"),
            format!(
                "Pass this cursor to {tool} with the same arguments, or omit cursor to start over."
            ),
        )
    } else {
        return ToolError::from(&Error::Cursor(CursorError::Malformed("unknown tool id")));
    };
    ToolError {
        code: ErrorCode::CursorMismatch,
        message: excerpt(&format!("this cursor belongs to {owner}")),
        hint,
    }
}

fn cursor_code_and_hint(e: &CursorError) -> (ErrorCode, String) {
    match e {
        CursorError::OtherTool { .. } => (
            ErrorCode::CursorMismatch,
            "Pass this cursor to the tool that made it, or omit cursor to start over.".into(),
        ),
        CursorError::OtherQuery => (
            ErrorCode::CursorMismatch,
            "Cursors only continue the query that produced them; omit cursor to start this query from the first page.".into(),
        ),
        CursorError::OtherSettings => (
            ErrorCode::CursorMismatch,
            "This server orders results differently from the one that made the cursor (other effort caps, --max-window, or another release); omit cursor to start the walk again here.".into(),
        ),
        CursorError::OffsetTooLarge { .. } => (
            ErrorCode::InvalidCursor,
            "Narrow the query (add repo:, lang: or file: filters) instead of paging this deep.".into(),
        ),
        CursorError::Malformed(_) => (
            ErrorCode::InvalidCursor,
            "Pass next_cursor exactly as the previous page returned it, or omit cursor to start over.".into(),
        ),
    }
}

fn backend_code_and_hint(kind: BackendErrorKind) -> (ErrorCode, String) {
    let (code, hint) = match kind {
        BackendErrorKind::Unreachable => (
            ErrorCode::BackendUnavailable,
            "Check that zoekt-webserver runs at ZOEKT_URL (with -rpc for --zoekt-transport json); retry in a moment if it is restarting.",
        ),
        BackendErrorKind::Timeout => (
            ErrorCode::BackendTimeout,
            "Narrow the query (repo:, lang:, file: filters) or retry; the backend was too slow.",
        ),
        BackendErrorKind::BadQuery => (
            ErrorCode::BackendQueryError,
            "Fix the query syntax: patterns are RE2 regexes (escape metacharacters like ( [ . with \\).",
        ),
        BackendErrorKind::TooBig => (
            ErrorCode::BackendError,
            "Narrow the query (repo:, file:, lang:) or ask for fewer context_lines: Zoekt's \
             answer was too big to read.",
        ),
        BackendErrorKind::NotReady => (
            ErrorCode::BackendNotReady,
            "Zoekt is still loading its index: retry in a few seconds (a cursor stays valid).",
        ),
        BackendErrorKind::ServerError | BackendErrorKind::Malformed => (
            ErrorCode::BackendError,
            "The backend failed on this request; retry, and report it if it persists.",
        ),
    };
    (code, hint.into())
}

/// The text block of an error: `Error CODE: message`, then its hint.
pub fn error_text(e: &ToolError) -> String {
    format!("Error {}: {}\nHint: {}", e.code.as_str(), e.message, e.hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_cut_to_an_excerpt() {
        let short = "x".repeat(MAX_MESSAGE_CHARS);
        assert_eq!(excerpt(&short), short);
        let long = excerpt(&"é".repeat(MAX_MESSAGE_CHARS + 1));
        assert_eq!(long.chars().count(), MAX_MESSAGE_CHARS);
        assert!(long.ends_with("é…"));
    }
}
