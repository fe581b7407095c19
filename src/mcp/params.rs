//! Tool inputs. Unknown fields are refused so a misspelt argument (`curosr`) is an error the
//! caller sees, not a silently ignored one that restarts a walk at page one.

use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchSymbolsArgs {
    /// A symbol name regex (RE2), optionally with filters: `lang:go`, `repo:REGEX`,
    /// `file:REGEX`, `case:yes`, and negations like `-file:_test`. Example: `Handler$ lang:go`.
    pub query: String,
    /// Keep only these ctags kinds, e.g. ["function", "method"].
    #[serde(default)]
    pub kinds: Option<Vec<String>>,
    /// Items per page.
    #[serde(default)]
    pub limit: Option<u32>,
    /// `next_cursor` from the previous page of the same call.
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFilesArgs {
    /// Path regexes (all must match), optionally with filters: `lang:`, `repo:`, `-file:`.
    /// Example: `handler\.go$ repo:core`. Filters alone list every file they select.
    pub query: String,
    /// Items per page.
    #[serde(default)]
    pub limit: Option<u32>,
    /// `next_cursor` from the previous page of the same call.
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindReferencesArgs {
    /// The exact identifier, matched as a whole word, case-sensitively (`get` never matches
    /// `forget` or `getUser`).
    pub symbol: String,
    /// Optional filters only: `lang:go repo:core -file:_test`.
    #[serde(default)]
    pub filters: Option<String>,
    /// Items per page.
    #[serde(default)]
    pub limit: Option<u32>,
    /// `next_cursor` from the previous page of the same call.
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// A Zoekt query, e.g. `ctx.Done lang:go -file:_test` (terms are RE2 regexes matching
    /// content or path; `content:`, `file:`, `repo:`, `lang:`, `sym:`, `case:`, `or`, `-`).
    pub query: String,
    /// Lines of context before and after each matching line.
    #[serde(default)]
    pub context_lines: Option<u32>,
    /// Items per page.
    #[serde(default)]
    pub limit: Option<u32>,
    /// `next_cursor` from the previous page of the same call.
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListReposArgs {
    /// Optional Zoekt query to filter repositories, e.g. `repo:^services/`.
    #[serde(default)]
    pub query: Option<String>,
    /// Items per page.
    #[serde(default)]
    pub limit: Option<u32>,
    /// `next_cursor` from the previous page of the same call.
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// Repository name exactly as list_repos or a search result gives it.
    pub repo: String,
    /// Path inside the repository exactly as a search result gives it (case-sensitive).
    pub path: String,
    /// First line to return, 1-based (default 1).
    #[serde(default)]
    pub start_line: Option<u32>,
    /// Last line to return, inclusive (default: as far as the size bounds allow).
    #[serde(default)]
    pub end_line: Option<u32>,
}

/// `health` takes no arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HealthArgs {}
