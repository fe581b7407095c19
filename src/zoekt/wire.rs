//! Wire types of Zoekt's JSON API (`/api/search`, `/api/list`).
//!
//! They mirror the Go structs field for field (Go field names are the JSON keys), with the
//! traps of that encoding handled here once so the rest of the crate never sees them:
//! - every Go `[]byte` arrives as standard padded base64 and may hold non-UTF-8 bytes, so it
//!   is decoded *lossily* into a `String` ([`B64Text`]);
//! - Go encodes empty slices as `null` (`Files`, `Branches`, `SymbolInfo`, ...), so every list
//!   is read as a `list` field of `read_object!`, `null` as empty;
//! - the search statistics are flattened into `Result` (there is no `Result.Stats`);
//! - durations are integer nanoseconds.
//!
//! Fields the pager never reads are left out (a line's score and byte offsets, a fragment's
//! file offset and length): they are skipped without building values, and building them was
//! a quarter of the time spent decoding a large answer. Each answer type says which keys it
//! reads with `read_object!` (`zoekt/read.rs`), which skips every other key with its nesting
//! bounded.

use base64::Engine as _;
use serde::{Deserialize, Deserializer, Serialize};

use super::read::read_object;

/// Body of `POST /api/search`.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "PascalCase")]
pub struct SearchRequest {
    /// The Zoekt query. Must be non-empty: Zoekt answers 400 otherwise.
    pub q: String,
    /// Search options (Zoekt's `Opts`).
    pub opts: SearchOptions,
}

/// The subset of Zoekt's `SearchOptions` the pager sends. Zero values are omitted so the
/// request shows exactly what was chosen (and so Zoekt's own defaults stay in charge of the
/// rest).
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "PascalCase")]
pub struct SearchOptions {
    /// Number of FILES returned, cut after Zoekt's own sort.
    #[serde(skip_serializing_if = "is_zero")]
    pub max_doc_display_count: u32,
    /// Per-shard match budget. Always sent explicitly by the pager: when it is 0 Zoekt derives
    /// it from `MaxDocDisplayCount`, so a bigger window would search a different candidate set.
    #[serde(skip_serializing_if = "is_zero")]
    pub shard_max_match_count: u32,
    /// Whole-search match budget (same reason as above).
    #[serde(skip_serializing_if = "is_zero")]
    pub total_max_match_count: u32,
    /// Server-side time budget in nanoseconds (0 means Zoekt's default, 20 s).
    #[serde(skip_serializing_if = "is_zero_u64")]
    pub max_wall_time: u64,
    /// Lines of context around each match (Zoekt does not bound it: callers must).
    #[serde(skip_serializing_if = "is_zero")]
    pub num_context_lines: u32,
    /// `true` asks for `ChunkMatches` instead of `LineMatches`.
    #[serde(skip_serializing_if = "is_false")]
    pub chunk_matches: bool,
    /// `true` returns each file's whole content (base64) in `Content`.
    #[serde(skip_serializing_if = "is_false")]
    pub whole: bool,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}
fn is_zero_u64(v: &u64) -> bool {
    *v == 0
}
fn is_false(v: &bool) -> bool {
    !*v
}

/// `{"Result": {...}}`, the envelope of a search answer.
#[derive(Debug, Clone, Default)]
pub struct SearchResponse {
    /// The answer itself (Zoekt's `Result` object).
    pub result: SearchResult,
}

/// A search answer: the statistics (flattened, as Zoekt sends them) and the files.
///
/// `FileCount` and `MatchCount` are required: Zoekt always sends every statistic (its Go
/// struct has no `omitempty`), so an answer without them is not Zoekt's (`{"Result": {}}`
/// would otherwise read as an exact, empty result). The rest default to 0 and empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchResult {
    /// Files that matched, counted BEFORE display truncation.
    pub file_count: u64,
    /// Matches found, counted before display truncation.
    pub match_count: u64,
    /// Files on which every atom of the query (negations included) held, so Zoekt evaluated them.
    pub files_considered: u64,
    /// Files whose content Zoekt loaded to confirm substring matches.
    pub files_loaded: u64,
    /// Files skipped because a budget ran out.
    pub files_skipped: u64,
    /// Shards skipped (timeout or cancellation).
    pub shards_skipped: u64,
    /// Shards Zoekt searched for matches.
    pub shards_scanned: u64,
    /// Shards that panicked; also >= 1 while shards are still loading.
    pub crashes: u64,
    /// Wall time in nanoseconds.
    pub duration: i64,
    /// The matching files in Zoekt's order, cut to `MaxDocDisplayCount` (`null` if none).
    pub files: Vec<FileMatch>,
}

/// One matching file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileMatch {
    /// Path of the file inside its repository.
    pub file_name: String,
    /// Name of the repository holding the file.
    pub repository: String,
    /// Language Zoekt detected for the file.
    pub language: String,
    /// Omitted by Zoekt when 0.
    pub score: f64,
    /// Omitted for repositories indexed by `zoekt-index` (no git).
    pub branches: Vec<String>,
    /// Commit (hex SHA-1) of the repository the file was indexed from; omitted when unknown.
    pub version: String,
    /// Matching lines, ordered by score rather than by line number.
    pub line_matches: Vec<LineMatch>,
    /// Matching chunks, sent instead of line matches when `ChunkMatches: true` was asked for.
    pub chunk_matches: Vec<ChunkMatch>,
    /// Whole file content, present only with `Whole: true`.
    pub content: Option<B64Text>,
}

/// One matching line (or, with `file_name == true`, a match on the file's path).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineMatch {
    /// The whole line including its trailing newline; for a file-name match, the path.
    pub line: B64Text,
    /// 1-based; 0 for file-name matches.
    pub line_number: u32,
    /// Context lines before the match (`NumContextLines`); `null` when none.
    pub before: Option<B64Text>,
    /// Context lines after the match (`NumContextLines`); `null` when none.
    pub after: Option<B64Text>,
    /// `true` when this is a match on the file's path, not its content.
    pub file_name: bool,
    /// The individual matches inside `line`.
    pub line_fragments: Vec<LineFragmentMatch>,
}

/// One match inside a line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineFragmentMatch {
    /// Byte offset into `Line`.
    pub line_offset: u32,
    /// Set only for matches produced by a `sym:` atom on a repo indexed with ctags.
    pub symbol_info: Option<SymbolInfo>,
}

/// What ctags said about a symbol.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SymbolInfo {
    /// The symbol's name.
    pub sym: String,
    /// ctags kind of the symbol (e.g. `function`, `method`).
    pub kind: String,
    /// Name of the enclosing symbol; empty when there is none.
    pub parent: String,
    /// ctags kind of the enclosing symbol; empty when there is none.
    pub parent_kind: String,
}

/// A chunk of consecutive lines holding one or more matches (`ChunkMatches: true`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChunkMatch {
    /// Whole lines, context included.
    pub content: B64Text,
    /// Where `content` begins in the file.
    pub content_start: Location,
    /// `true` when the chunk is a match on the file's path, not its content.
    pub file_name: bool,
    /// Offsets are from the start of the FILE, not of `content`.
    pub ranges: Vec<Range>,
    /// Not reliably aligned with `ranges` outside pure `sym:` queries.
    pub symbol_info: Vec<Option<SymbolInfo>>,
    /// Zoekt's score of this chunk within its file (higher is better).
    pub score: f64,
}

/// A position in a file, as Zoekt reports it in chunk matches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Location {
    /// Bytes from the start of the file.
    pub byte_offset: u32,
    /// 1-based line number.
    pub line_number: u32,
    /// 1-based column, counted in characters, not bytes.
    pub column: u32,
}

/// The extent of one match inside a chunk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Range {
    /// Where the match begins.
    pub start: Location,
    /// Where the match ends.
    pub end: Location,
}

/// Body of `POST /api/list`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListRequest {
    /// Empty lists every repository; any query filters.
    pub q: String,
    /// List options (Zoekt's `Opts`).
    pub opts: ListOptions,
}

/// The subset of Zoekt's `ListOptions` the pager sends.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListOptions {
    /// 0 = full `RepoList.Repos` entries.
    pub field: u8,
}

/// `{"List": {...}}`, the envelope of a list answer.
#[derive(Debug, Clone, Default)]
pub struct ListResponse {
    /// The answer itself (Zoekt's `List` object).
    pub list: RepoList,
}

/// A list answer: the matching repositories and their combined statistics.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RepoList {
    /// In no particular order: callers sort.
    pub repos: Vec<RepoListEntry>,
    /// Shards that crashed; also >= 1 while shards are still loading.
    pub crashes: u64,
    /// Statistics aggregated over the listed repositories.
    pub stats: RepoStats,
}

/// One indexed repository with its index metadata and statistics.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RepoListEntry {
    /// The repository's own metadata.
    pub repository: Repository,
    /// Metadata of the index the repository was read from.
    pub index_metadata: IndexMetadata,
    /// Statistics of this repository alone (its `Repos` count is 0).
    pub stats: RepoStats,
}

/// Metadata of one indexed repository.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Repository {
    /// The repository's name, as used by `repo:` and in `FileMatch.Repository`.
    pub name: String,
    /// The repository's URL, if the indexer recorded one.
    pub url: String,
    /// Indexed branches; empty for repositories indexed from a folder.
    pub branches: Vec<RepositoryBranch>,
    /// `true` when the repository was indexed with ctags symbols, so `sym:` can find them.
    pub has_symbols: bool,
}

/// One indexed branch: a name and the version indexed for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepositoryBranch {
    /// The branch name.
    pub name: String,
    /// The commit indexed for this branch.
    pub version: String,
}

/// Metadata the indexer stored in the index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexMetadata {
    /// RFC 3339 time as Go writes it.
    pub index_time: String,
    /// Version of Zoekt that wrote the index (may be empty).
    pub zoekt_version: String,
}

/// Size statistics of one repository or of a set of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepoStats {
    /// Number of repositories counted (0 in a per-repository entry).
    pub repos: u64,
    /// Number of index shards.
    pub shards: u64,
    /// Number of indexed documents (files).
    pub documents: u64,
    /// Memory taken by index structures, in bytes.
    pub index_bytes: u64,
    /// Memory taken by raw file content, in bytes.
    pub content_bytes: u64,
}

/// Bytes Zoekt sends for text (Go's `[]byte`: content need not be UTF-8) as a `String`,
/// lossily; valid UTF-8, the usual case, is kept without a copy. The gRPC answer's bytes are
/// read the same way (`zoekt/backend.rs`).
pub(crate) fn lossy_text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Text carried as base64 on the wire, decoded lossily (content need not be UTF-8). Invalid
/// base64 is kept as the raw string rather than failing the whole response: one odd field
/// must not make a page unreadable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct B64Text(pub String);

impl B64Text {
    /// The decoded text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl B64Text {
    /// Decodes `raw` (base64), or keeps it as it is (lossily) when it is not base64.
    fn decode(raw: &[u8]) -> B64Text {
        match base64::engine::general_purpose::STANDARD.decode(raw) {
            Ok(bytes) => B64Text(lossy_text(bytes)),
            Err(_) => B64Text(String::from_utf8_lossy(raw).into_owned()),
        }
    }
}

impl<'de> Deserialize<'de> for B64Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // A visitor rather than `Option<String>`: the base64 text is decoded straight from
        // the response's bytes, without an intermediate `String` per line (answers carry
        // tens of thousands of lines).
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = B64Text;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("base64 text or null")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<B64Text, E> {
                Ok(B64Text::decode(v.as_bytes()))
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<B64Text, E> {
                Ok(B64Text::decode(v))
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<B64Text, E> {
                Ok(B64Text::default())
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<B64Text, E> {
                Ok(B64Text::default())
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<B64Text, D::Error> {
                // As bytes: serde_json then hands the string over without checking that it
                // is UTF-8, which base64 always is; the decoded text is checked once, above.
                d.deserialize_bytes(Visitor)
            }
        }
        d.deserialize_option(Visitor)
    }
}

// How each answer object is read (`zoekt/read.rs`): these keys into these fields, every
// other key skipped with its nesting bounded. Go writes a nil slice as `null`: a `list` field
// reads it as empty.
read_object!(SearchResponse { "Result" => result } required: ["Result"]);
read_object!(SearchResult {
    "FileCount" => file_count,
    "MatchCount" => match_count,
    "FilesConsidered" => files_considered,
    "FilesLoaded" => files_loaded,
    "FilesSkipped" => files_skipped,
    "ShardsSkipped" => shards_skipped,
    "ShardsScanned" => shards_scanned,
    "Crashes" => crashes,
    "Duration" => duration,
    "Files" => files: list,
} required: ["FileCount", "MatchCount"]);
read_object!(FileMatch {
    "FileName" => file_name,
    "Repository" => repository,
    "Language" => language,
    "Score" => score,
    "Branches" => branches: list,
    "Version" => version,
    "LineMatches" => line_matches: list,
    "ChunkMatches" => chunk_matches: list,
    "Content" => content,
});
read_object!(LineMatch {
    "Line" => line,
    "LineNumber" => line_number,
    "Before" => before,
    "After" => after,
    "FileName" => file_name,
    "LineFragments" => line_fragments: list,
});
read_object!(LineFragmentMatch { "LineOffset" => line_offset, "SymbolInfo" => symbol_info });
read_object!(SymbolInfo {
    "Sym" => sym,
    "Kind" => kind,
    "Parent" => parent,
    "ParentKind" => parent_kind,
});
read_object!(ChunkMatch {
    "Content" => content,
    "ContentStart" => content_start,
    "FileName" => file_name,
    "Ranges" => ranges: list,
    "SymbolInfo" => symbol_info: list,
    "Score" => score,
});
read_object!(Location {
    "ByteOffset" => byte_offset,
    "LineNumber" => line_number,
    "Column" => column,
});
read_object!(Range { "Start" => start, "End" => end });
read_object!(ListResponse { "List" => list } required: ["List"]);
read_object!(RepoList { "Repos" => repos: list, "Crashes" => crashes, "Stats" => stats });
read_object!(RepoListEntry {
    "Repository" => repository,
    "IndexMetadata" => index_metadata,
    "Stats" => stats,
});
read_object!(Repository {
    "Name" => name,
    "URL" => url,
    "Branches" => branches: list,
    "HasSymbols" => has_symbols,
});
read_object!(RepositoryBranch { "Name" => name, "Version" => version });
read_object!(IndexMetadata { "IndexTime" => index_time, "ZoektVersion" => zoekt_version });
read_object!(RepoStats {
    "Repos" => repos,
    "Shards" => shards,
    "Documents" => documents,
    "IndexBytes" => index_bytes,
    "ContentBytes" => content_bytes,
});

#[cfg(test)]
mod tests;
