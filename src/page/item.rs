//! The items pages are made of: one symbol, one file, one reference, one matching line or
//! one repository. They serialise as the `items` of a tool's structured output, so field
//! names are part of the public contract.

use schemars::JsonSchema;
use serde::Serialize;

/// One symbol definition found by ctags (a `sym:` match).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SymbolItem {
    pub name: String,
    /// ctags kind, e.g. `function`, `method`, `struct`.
    pub kind: String,
    /// Enclosing scope (class, impl, module), when ctags knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_kind: Option<String>,
    pub repo: String,
    pub path: String,
    /// 1-based.
    pub line: u32,
    /// 1-based, in characters.
    pub column: u32,
    /// The defining line, trimmed and shortened.
    pub text: String,
}

/// One file whose path matched.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct FileItem {
    pub repo: String,
    pub path: String,
    pub language: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<String>,
}

/// Whether a reference item defines the symbol or uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReferenceRole {
    Definition,
    Reference,
}

/// One definition or one usage of a symbol.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ReferenceItem {
    pub role: ReferenceRole,
    pub repo: String,
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub text: String,
    /// ctags kind, for definitions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// One matching line for `search` (line 0 means the file's path matched).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct MatchItem {
    pub repo: String,
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub text: String,
    /// Lines before the match, oldest first (only with `context_lines`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<String>,
    /// Lines after the match (only with `context_lines`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<String>,
}

/// One indexed repository.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RepoItem {
    pub name: String,
    /// Number of indexed documents.
    pub files: u64,
    /// Whether it was indexed with ctags (needed by search_symbols/find_references).
    pub has_symbols: bool,
    /// When it was indexed (RFC 3339), if Zoekt says.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub index_time: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<String>,
}
