//! The messages of Zoekt's gRPC API (`zoekt.webserver.v1`) the pager sends and reads,
//! declared here with prost's derives rather than generated from Zoekt's `.proto` files.
//!
//! Only the fields the pager uses are declared: protobuf skips the others on decode without
//! building them (a line's score and byte offsets, a file's checksum and debug text), which
//! is what keeps decoding cheap. Field numbers and types are Zoekt's wire format (checked
//! against the pinned archive's `grpc/protos/zoekt/webserver/v1/*.proto`); a number that
//! drifted would decode as a missing field, which `tests/live/grpc.rs` would see as a page that
//! differs from the JSON API's.

/// `google.protobuf.Duration`.
#[derive(Clone, Copy, PartialEq, Eq, prost::Message)]
pub struct Duration {
    /// Whole seconds.
    #[prost(int64, tag = "1")]
    pub seconds: i64,
    /// Nanoseconds past `seconds`.
    #[prost(int32, tag = "2")]
    pub nanos: i32,
}

impl Duration {
    /// A duration of `ms` milliseconds.
    pub fn from_millis(ms: u64) -> Duration {
        Duration {
            seconds: i64::try_from(ms / 1000).unwrap_or(i64::MAX),
            nanos: ((ms % 1000) * 1_000_000) as i32,
        }
    }

    /// In whole milliseconds (negative durations are 0).
    pub fn as_millis(&self) -> u64 {
        let seconds = u64::try_from(self.seconds).unwrap_or(0);
        let nanos = u64::try_from(self.nanos).unwrap_or(0);
        seconds.saturating_mul(1000) + nanos / 1_000_000
    }
}

/// `SearchRequest`: a parsed query tree and the options.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SearchRequest {
    /// The query, parsed by the client (there is no field for a query string).
    #[prost(message, optional, tag = "1")]
    pub query: Option<Q>,
    /// The options.
    #[prost(message, optional, tag = "2")]
    pub opts: Option<SearchOptions>,
}

/// `SearchOptions`: the subset the pager sends.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SearchOptions {
    /// Return each file's whole content.
    #[prost(bool, tag = "2")]
    pub whole: bool,
    /// Matches one shard may collect.
    #[prost(int64, tag = "3")]
    pub shard_max_match_count: i64,
    /// Matches all shards together may collect (0: no cap).
    #[prost(int64, tag = "4")]
    pub total_max_match_count: i64,
    /// How long the search may run.
    #[prost(message, optional, tag = "6")]
    pub max_wall_time: Option<Duration>,
    /// Files returned, cut after Zoekt's sort.
    #[prost(int64, tag = "8")]
    pub max_doc_display_count: i64,
    /// Context lines around each matching line.
    #[prost(int64, tag = "9")]
    pub num_context_lines: i64,
    /// For `StreamSearch`: how long Zoekt collects and ranks files before it streams them
    /// as they come (absent: it streams at once, unranked).
    #[prost(message, optional, tag = "7")]
    pub flush_wall_time: Option<Duration>,
}

/// `StreamSearchRequest`: a search whose answer comes in chunks.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StreamSearchRequest {
    /// The search.
    #[prost(message, optional, tag = "3")]
    pub request: Option<SearchRequest>,
}

/// `StreamSearchResponse`: one chunk of the answer.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StreamSearchResponse {
    /// Files of the answer, in its order, and statistics (on the first chunk of files).
    #[prost(message, optional, tag = "6")]
    pub response_chunk: Option<RawChunk>,
}

/// A chunk of `StreamSearch`'s answer, its files left as their bytes on the wire (an embedded
/// message is length-delimited bytes in protobuf): what each file costs is its bytes as Zoekt
/// sent them, every field counted, where one decoded into [`FileMatch`] and encoded again
/// would count only the fields the pager declares (for lines, about a third).
#[derive(Clone, PartialEq, prost::Message)]
pub struct RawChunk {
    /// What the search did (on the first chunk of files).
    #[prost(message, optional, tag = "1")]
    pub stats: Option<Stats>,
    /// `FileMatch`es, in Zoekt's order, undecoded.
    #[prost(bytes = "vec", repeated, tag = "3")]
    pub files: Vec<Vec<u8>>,
}

/// `Q`: one node of a query tree.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Q {
    /// The node.
    #[prost(oneof = "Node", tags = "2, 3, 4, 5, 6, 12, 13, 14, 15, 16, 17")]
    pub node: Option<Node>,
}

/// The kinds of query node the pager's parser produces (`Q.query`'s cases).
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Node {
    /// A regular expression, which the server parses.
    #[prost(message, tag = "2")]
    Regexp(Regexp),
    /// Matches inside symbol definitions only.
    #[prost(message, tag = "3")]
    Symbol(Box<Symbol>),
    /// Files of one language (its canonical name).
    #[prost(message, tag = "4")]
    Language(Language),
    /// Everything (`true`) or nothing.
    #[prost(bool, tag = "5")]
    Const(bool),
    /// Repositories whose name matches a regular expression.
    #[prost(message, tag = "6")]
    Repo(Repo),
    /// What the child's matches are reported as (`type:`).
    #[prost(message, tag = "12")]
    Type(Box<Type>),
    /// A literal string.
    #[prost(message, tag = "13")]
    Substring(Substring),
    /// Every child matches.
    #[prost(message, tag = "14")]
    And(And),
    /// Any child matches.
    #[prost(message, tag = "15")]
    Or(Or),
    /// The child does not match.
    #[prost(message, tag = "16")]
    Not(Box<Not>),
    /// Files on branches whose name holds (or is) a pattern.
    #[prost(message, tag = "17")]
    Branch(Branch),
}

/// `Regexp`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Regexp {
    /// The expression, in Go's syntax.
    #[prost(string, tag = "1")]
    pub regexp: String,
    /// Match file names only.
    #[prost(bool, tag = "2")]
    pub file_name: bool,
    /// Match content only.
    #[prost(bool, tag = "3")]
    pub content: bool,
    /// Case matters.
    #[prost(bool, tag = "4")]
    pub case_sensitive: bool,
}

/// `Substring`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Substring {
    /// The literal.
    #[prost(string, tag = "1")]
    pub pattern: String,
    /// Case matters.
    #[prost(bool, tag = "2")]
    pub case_sensitive: bool,
    /// Match file names only.
    #[prost(bool, tag = "3")]
    pub file_name: bool,
    /// Match content only.
    #[prost(bool, tag = "4")]
    pub content: bool,
}

/// `Symbol`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Symbol {
    /// What must match inside a symbol.
    #[prost(message, optional, boxed, tag = "1")]
    pub expr: Option<Box<Q>>,
}

/// `Language`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Language {
    /// The canonical name (`Go`, `Rust`).
    #[prost(string, tag = "1")]
    pub language: String,
}

/// `Repo`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Repo {
    /// A regular expression over repository names.
    #[prost(string, tag = "1")]
    pub regexp: String,
}

/// `Type`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Type {
    /// The query whose matches are reported.
    #[prost(message, optional, boxed, tag = "1")]
    pub child: Option<Box<Q>>,
    /// 1 file matches, 2 file names, 3 repositories.
    #[prost(int32, tag = "2")]
    pub kind: i32,
}

/// `And`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct And {
    /// The children.
    #[prost(message, repeated, tag = "1")]
    pub children: Vec<Q>,
}

/// `Or`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Or {
    /// The children.
    #[prost(message, repeated, tag = "1")]
    pub children: Vec<Q>,
}

/// `Not`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Not {
    /// The negated query.
    #[prost(message, optional, boxed, tag = "1")]
    pub child: Option<Box<Q>>,
}

/// `Branch`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Branch {
    /// The branch name, or a part of it.
    #[prost(string, tag = "1")]
    pub pattern: String,
    /// The name must equal `pattern`.
    #[prost(bool, tag = "2")]
    pub exact: bool,
}

/// `SearchResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SearchResponse {
    /// What the search did.
    #[prost(message, optional, tag = "1")]
    pub stats: Option<Stats>,
    /// The matching files, in Zoekt's order, cut to `max_doc_display_count`.
    #[prost(message, repeated, tag = "3")]
    pub files: Vec<FileMatch>,
}

/// `Stats`: the counts the pager reads.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Stats {
    /// Shards that crashed (or were still loading).
    #[prost(int64, tag = "3")]
    pub crashes: i64,
    /// How long the search took.
    #[prost(message, optional, tag = "4")]
    pub duration: Option<Duration>,
    /// Files that matched, before the display cut.
    #[prost(int64, tag = "5")]
    pub file_count: i64,
    /// Files left out inside searched shards (a match cap, or the wall time).
    #[prost(int64, tag = "9")]
    pub files_skipped: i64,
    /// Shards left out (the wall time, or a cancel).
    #[prost(int64, tag = "11")]
    pub shards_skipped: i64,
    /// Matches counted, before the display cut.
    #[prost(int64, tag = "13")]
    pub match_count: i64,
    /// How long the search waited for Zoekt's scheduler before it ran.
    #[prost(message, optional, tag = "15")]
    pub wait: Option<Duration>,
}

/// `FileMatch`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FileMatch {
    /// Zoekt's score: higher ranks first.
    #[prost(double, tag = "1")]
    pub score: f64,
    /// The path (bytes: it may not be UTF-8).
    #[prost(bytes = "vec", tag = "3")]
    pub file_name: Vec<u8>,
    /// The repository's name.
    #[prost(string, tag = "4")]
    pub repository: String,
    /// Branches holding this version of the file.
    #[prost(string, repeated, tag = "5")]
    pub branches: Vec<String>,
    /// The matching lines.
    #[prost(message, repeated, tag = "6")]
    pub line_matches: Vec<LineMatch>,
    /// The whole content, when asked for.
    #[prost(bytes = "vec", tag = "10")]
    pub content: Vec<u8>,
    /// The language Zoekt detected.
    #[prost(string, tag = "12")]
    pub language: String,
}

/// `LineMatch`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct LineMatch {
    /// The line, with its newline (for a file-name match, the path).
    #[prost(bytes = "vec", tag = "1")]
    pub line: Vec<u8>,
    /// 1-based (0 for a file-name match).
    #[prost(int64, tag = "4")]
    pub line_number: i64,
    /// Context lines before the line.
    #[prost(bytes = "vec", tag = "5")]
    pub before: Vec<u8>,
    /// Context lines after the line.
    #[prost(bytes = "vec", tag = "6")]
    pub after: Vec<u8>,
    /// The line is the file's path, which matched.
    #[prost(bool, tag = "7")]
    pub file_name: bool,
    /// The matching parts of the line.
    #[prost(message, repeated, tag = "10")]
    pub line_fragments: Vec<LineFragmentMatch>,
}

/// `LineFragmentMatch`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct LineFragmentMatch {
    /// Byte offset of the match in the line.
    #[prost(int64, tag = "1")]
    pub line_offset: i64,
    /// The symbol defined here, for a symbol match.
    #[prost(message, optional, tag = "4")]
    pub symbol_info: Option<SymbolInfo>,
}

/// `SymbolInfo`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SymbolInfo {
    /// The symbol's name.
    #[prost(string, tag = "1")]
    pub sym: String,
    /// Its kind, as ctags names it.
    #[prost(string, tag = "2")]
    pub kind: String,
    /// The enclosing symbol's name.
    #[prost(string, tag = "3")]
    pub parent: String,
    /// The enclosing symbol's kind.
    #[prost(string, tag = "4")]
    pub parent_kind: String,
}

/// `google.protobuf.Timestamp`.
#[derive(Clone, Copy, PartialEq, Eq, prost::Message)]
pub struct Timestamp {
    /// Seconds since the Unix epoch.
    #[prost(int64, tag = "1")]
    pub seconds: i64,
    /// Nanoseconds past `seconds`.
    #[prost(int32, tag = "2")]
    pub nanos: i32,
}

/// `ListRequest`: the repositories a query selects.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListRequest {
    /// The query, parsed by the client (`Const(true)` lists every repository).
    #[prost(message, optional, tag = "1")]
    pub query: Option<Q>,
    /// The options.
    #[prost(message, optional, tag = "2")]
    pub opts: Option<ListOptions>,
}

/// `ListOptions`.
#[derive(Clone, Copy, PartialEq, Eq, prost::Message)]
pub struct ListOptions {
    /// Which list to fill: 1 (`REPO_LIST_FIELD_REPOS`) is the full entries.
    #[prost(int32, tag = "1")]
    pub field: i32,
}

/// `ListResponse`: the fields the pager reads.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListResponse {
    /// One entry per repository, in no particular order.
    #[prost(message, repeated, tag = "1")]
    pub repos: Vec<RepoListEntry>,
    /// Shards that crashed (or were still loading).
    #[prost(int64, tag = "3")]
    pub crashes: i64,
    /// Statistics over the listed repositories.
    #[prost(message, optional, tag = "4")]
    pub stats: Option<RepoStats>,
}

/// `RepoListEntry`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RepoListEntry {
    /// The repository's own metadata.
    #[prost(message, optional, tag = "1")]
    pub repository: Option<Repository>,
    /// Metadata of its index.
    #[prost(message, optional, tag = "2")]
    pub index_metadata: Option<IndexMetadata>,
    /// Its statistics.
    #[prost(message, optional, tag = "3")]
    pub stats: Option<RepoStats>,
}

/// `Repository`: the fields the pager reads.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Repository {
    /// Its name, as `repo:` and `FileMatch.repository` use it.
    #[prost(string, tag = "2")]
    pub name: String,
    /// Its URL, if the indexer recorded one.
    #[prost(string, tag = "3")]
    pub url: String,
    /// Indexed branches.
    #[prost(message, repeated, tag = "5")]
    pub branches: Vec<RepositoryBranch>,
    /// Indexed with ctags symbols.
    #[prost(bool, tag = "14")]
    pub has_symbols: bool,
}

/// `RepositoryBranch`.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct RepositoryBranch {
    /// The branch name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// The commit indexed for it.
    #[prost(string, tag = "2")]
    pub version: String,
}

/// `IndexMetadata`: the fields the pager reads.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct IndexMetadata {
    /// When the index was written.
    #[prost(message, optional, tag = "4")]
    pub index_time: Option<Timestamp>,
    /// Version of Zoekt that wrote it.
    #[prost(string, tag = "7")]
    pub zoekt_version: String,
}

/// `RepoStats`: the fields the pager reads.
#[derive(Clone, Copy, PartialEq, Eq, prost::Message)]
pub struct RepoStats {
    /// Repositories counted (0 in one repository's entry).
    #[prost(int64, tag = "1")]
    pub repos: i64,
    /// Index shards.
    #[prost(int64, tag = "2")]
    pub shards: i64,
    /// Indexed documents (files).
    #[prost(int64, tag = "3")]
    pub documents: i64,
    /// Memory of the index structures, in bytes.
    #[prost(int64, tag = "4")]
    pub index_bytes: i64,
    /// Memory of the raw content, in bytes.
    #[prost(int64, tag = "5")]
    pub content_bytes: i64,
}
