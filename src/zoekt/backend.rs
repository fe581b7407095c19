//! The Zoekt adapter: [`ZoektClient`] as the engine's [`Backend`]. The one place Zoekt's wire
//! types meet the engine's neutral ones, translated field by field.

use std::time::Duration;

use super::check::check_listing;
use super::grpc::proto;
use super::grpc::query::{self, Parsed};
use super::wire::{
    FileMatch, LineMatch, RepoList, SearchOptions, SearchRequest, SearchResult, SymbolInfo,
    lossy_text,
};
use super::{ZoektClient, ZoektError};
use crate::engine::backend::{
    Backend, BackendError, BackendErrorKind, FileSearch, Fragment, IndexStats, IndexedRepo,
    MatchedLine, RankedFile, RankedFiles, Readiness, RepoListing, SearchStats, Shape, Symbol,
};

impl Backend for ZoektClient {
    async fn search(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
        self.logged_search(search, false).await
    }

    async fn search_window(&self, search: &FileSearch) -> Result<RankedFiles, BackendError> {
        self.logged_search(search, true).await
    }

    async fn repos(&self, query: &str, wall_time: Duration) -> Result<RepoListing, BackendError> {
        if let Some(grpc) = self.grpc() {
            // "" lists every repository, as Zoekt's own parser reads it over JSON.
            let tree = match query.trim() {
                "" => Parsed::Tree(proto::Q {
                    node: Some(proto::Node::Const(true)),
                }),
                _ => query::parse(query),
            };
            match tree {
                Parsed::Tree(tree) => {
                    let req = proto::ListRequest {
                        query: Some(tree),
                        // REPO_LIST_FIELD_REPOS: the full entries.
                        opts: Some(proto::ListOptions { field: 1 }),
                    };
                    let answer = Box::pin(grpc.list(&req, wall_time)).await?;
                    let list = super::grpc::list::repo_list(answer);
                    check_listing(&list).map_err(|reason| ZoektError::Contradiction { reason })?;
                    return Ok(listing(list));
                }
                Parsed::Unsure(why) => {
                    tracing::debug!(why, "list sent over JSON: the gRPC parser is unsure")
                }
            }
        }
        Ok(listing(self.list(query, wall_time).await?))
    }

    async fn readiness(&self) -> Result<Readiness, BackendError> {
        let r = ZoektClient::readiness(self).await?;
        Ok(Readiness {
            loading: r.readyz_status != 200,
            status: r.readyz_status,
            detail: r.detail,
        })
    }
}

impl ZoektClient {
    /// [`ZoektClient::search_over_either`], with a debug line of what it asked and got.
    async fn logged_search(
        &self,
        search: &FileSearch,
        keep_start: bool,
    ) -> Result<RankedFiles, BackendError> {
        let started = std::time::Instant::now();
        let answer = self.search_over_either(search, keep_start).await;
        tracing::debug!(
            files = search.max_files,
            context = search.context_lines,
            window = keep_start,
            ms = started.elapsed().as_millis() as u64,
            got = answer.as_ref().map_or(0, |a| a.files.len()),
            cut = answer.as_ref().is_ok_and(|a| a.cut_at_bytes),
            ok = answer.is_ok(),
            "zoekt search"
        );
        answer
    }

    /// One search over gRPC, or over JSON (chosen, or a query the gRPC parser is unsure of).
    /// With `keep_start`, an answer too big to read whole is its start
    /// ([`RankedFiles::cut_at_bytes`]) rather than the error.
    async fn search_over_either(
        &self,
        search: &FileSearch,
        keep_start: bool,
    ) -> Result<RankedFiles, BackendError> {
        let mut unsure = None;
        if let Some(grpc) = self.grpc() {
            match query::parse(&query_text(search)) {
                Parsed::Tree(tree) => {
                    let req = grpc_request(search, tree);
                    // On the heap: tonic's call is a big future, and a page awaits
                    // several searches at once on a worker thread's small stack.
                    if keep_start {
                        let (answer, cut) = Box::pin(grpc.search_start(&req)).await?;
                        return Ok(RankedFiles {
                            cut_at_bytes: cut,
                            ..grpc_ranked_files(answer)
                        });
                    }
                    let answer = Box::pin(grpc.search(&req)).await?;
                    return Ok(grpc_ranked_files(answer));
                }
                // Zoekt's own parser reads it: over JSON, where the webserver has it.
                Parsed::Unsure(why) => {
                    tracing::debug!(why, "query sent over JSON: the gRPC parser is unsure");
                    unsure = Some(why);
                }
            }
        }
        let req = search_request(search);
        let answer = match keep_start {
            true => self.search_start(&req).await,
            false => ZoektClient::search(self, &req).await.map(|r| (r, false)),
        };
        let (result, cut) = answer.map_err(|e| match &unsure {
            Some(why) => without_json_api(e, why),
            None => e,
        })?;
        Ok(RankedFiles {
            cut_at_bytes: cut,
            ..ranked_files(result)
        })
    }
}

/// A query sent over JSON because the gRPC parser was unsure of it, to a webserver without
/// the JSON API (started without `-rpc`: `/api/search` is 404): what to do, not a bare 404.
fn without_json_api(e: ZoektError, why: &str) -> ZoektError {
    match e {
        ZoektError::Server { status: 404, .. } => ZoektError::Server {
            status: 404,
            message: format!(
                "this query needs Zoekt's JSON API, which this webserver does not serve: start \
                 zoekt-webserver with -rpc, or write the query without what the pager's gRPC \
                 parser cannot read exactly ({why})"
            ),
        },
        e => e,
    }
}

/// The query Zoekt is sent for a search: the search's own, or for a census of its files
/// ([`Shape::NamesOnly`]) that query under `type:file`, which Zoekt lifts over the whole
/// expression (`type:file a or b` reports each file of `a or b` once, by name). The same
/// text goes over either transport (the gRPC parser reads it as Zoekt's parser does). A census
/// carrying lines ([`Shape::NamesCarryingLines`]) is written whole by its caller.
fn query_text(search: &FileSearch) -> String {
    match search.shape {
        Shape::NamesOnly => format!("type:file {}", search.query),
        Shape::Lines | Shape::WholeContent | Shape::NamesCarryingLines => search.query.clone(),
    }
}

/// The `/api/search` request the pager sends for a search (public for the fan-out
/// benchmark, which replays it raw).
pub fn search_request(search: &FileSearch) -> SearchRequest {
    SearchRequest {
        q: query_text(search),
        opts: SearchOptions {
            max_doc_display_count: search.max_files,
            shard_max_match_count: search.effort.shard_max_match_count,
            total_max_match_count: search.effort.total_max_match_count,
            max_wall_time: search.effort.max_wall_time_ms.saturating_mul(1_000_000),
            num_context_lines: search.context_lines,
            whole: search.shape == Shape::WholeContent,
            ..SearchOptions::default()
        },
    }
}

impl From<ZoektError> for BackendError {
    fn from(e: ZoektError) -> Self {
        let kind = match &e {
            ZoektError::Unreachable { .. } => BackendErrorKind::Unreachable,
            ZoektError::Timeout { .. } => BackendErrorKind::Timeout,
            ZoektError::Query { .. } => BackendErrorKind::BadQuery,
            // Still 502-504 after the retries: a proxy in front of a Zoekt that is down or
            // restarting, which is what "unavailable" tells a caller.
            ZoektError::Server {
                status: 502..=504, ..
            } => BackendErrorKind::Unreachable,
            ZoektError::Server { .. } => BackendErrorKind::ServerError,
            ZoektError::Malformed { .. } | ZoektError::Contradiction { .. } => {
                BackendErrorKind::Malformed
            }
            ZoektError::TooBig { .. } => BackendErrorKind::TooBig,
        };
        let within = match &e {
            ZoektError::TooBig { within, .. } => *within,
            _ => None,
        };
        BackendError {
            kind,
            message: e.to_string(),
            files_within: within,
        }
    }
}

/// Zoekt's answer in the engine's terms, files in Zoekt's order. Public for the fuzz
/// targets, which feed decoded answers through the engine without a Zoekt.
pub fn ranked_files(result: SearchResult) -> RankedFiles {
    RankedFiles {
        stats: SearchStats {
            file_count: result.file_count,
            match_count: result.match_count,
            files_skipped: result.files_skipped,
            shards_skipped: result.shards_skipped,
            crashes: result.crashes,
            duration_ms: u64::try_from(result.duration).unwrap_or(0) / 1_000_000,
            missing_backends: 0,
            shared_backends: 0,
        },
        files: result.files.into_iter().map(ranked_file).collect(),
        cut_at_bytes: false,
    }
}

/// The gRPC `Search` request for a search whose query parsed into `tree`: the same options
/// as [`search_request`] sends over JSON.
pub fn grpc_request(search: &FileSearch, tree: proto::Q) -> proto::SearchRequest {
    let to_i64 = |n: u32| i64::from(n);
    proto::SearchRequest {
        query: Some(tree),
        opts: Some(proto::SearchOptions {
            whole: search.shape == Shape::WholeContent,
            shard_max_match_count: to_i64(search.effort.shard_max_match_count),
            total_max_match_count: to_i64(search.effort.total_max_match_count),
            max_wall_time: Some(proto::Duration::from_millis(search.effort.max_wall_time_ms)),
            max_doc_display_count: to_i64(search.max_files),
            num_context_lines: to_i64(search.context_lines),
            flush_wall_time: None,
        }),
    }
}

/// Zoekt's gRPC answer in the engine's terms (the client checked it, as it checks a JSON
/// answer).
pub fn grpc_ranked_files(answer: proto::SearchResponse) -> RankedFiles {
    let stats = answer.stats.unwrap_or_default();
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    RankedFiles {
        stats: SearchStats {
            file_count: count(stats.file_count),
            match_count: count(stats.match_count),
            files_skipped: count(stats.files_skipped),
            shards_skipped: count(stats.shards_skipped),
            crashes: count(stats.crashes),
            duration_ms: stats.duration.map_or(0, |d| d.as_millis()),
            missing_backends: 0,
            shared_backends: 0,
        },
        files: answer.files.into_iter().map(grpc_ranked_file).collect(),
        cut_at_bytes: false,
    }
}

/// Empty bytes as absent: protobuf cannot tell the two apart, and Go's JSON encodes an
/// absent (nil) context as `null`.
fn text_or_none(bytes: Vec<u8>) -> Option<String> {
    (!bytes.is_empty()).then(|| lossy_text(bytes))
}

fn grpc_ranked_file(f: proto::FileMatch) -> RankedFile {
    let path_matched = f.line_matches.iter().any(|lm| lm.file_name);
    let content_lines = f.line_matches.into_iter().filter(|lm| !lm.file_name);
    RankedFile {
        path_matched,
        lines: content_lines
            .map(|lm| MatchedLine {
                number: u32::try_from(lm.line_number).unwrap_or(0),
                text: lossy_text(lm.line),
                before: text_or_none(lm.before),
                after: text_or_none(lm.after),
                fragments: lm
                    .line_fragments
                    .into_iter()
                    .map(|frag| Fragment {
                        byte_offset: u32::try_from(frag.line_offset).unwrap_or(0),
                        symbol: frag.symbol_info.map(|s| Symbol {
                            name: s.sym,
                            kind: s.kind,
                            parent: s.parent,
                            parent_kind: s.parent_kind,
                        }),
                    })
                    .collect(),
            })
            .collect(),
        repo: f.repository,
        path: lossy_text(f.file_name),
        language: f.language,
        branches: f.branches,
        score: f.score,
        content: text_or_none(f.content),
    }
}

fn ranked_file(f: FileMatch) -> RankedFile {
    // Path matches come as line matches (or chunks) flagged FileName; the rest is content.
    let path_matched =
        f.line_matches.iter().any(|lm| lm.file_name) || f.chunk_matches.iter().any(|c| c.file_name);
    RankedFile {
        path_matched,
        lines: f
            .line_matches
            .into_iter()
            .filter(|lm| !lm.file_name)
            .map(matched_line)
            .collect(),
        repo: f.repository,
        path: f.file_name,
        language: f.language,
        branches: f.branches,
        score: f.score,
        content: f.content.map(|c| c.0),
    }
}

fn matched_line(lm: LineMatch) -> MatchedLine {
    MatchedLine {
        number: lm.line_number,
        text: lm.line.0,
        before: lm.before.map(|b| b.0),
        after: lm.after.map(|a| a.0),
        fragments: lm
            .line_fragments
            .into_iter()
            .map(|frag| Fragment {
                byte_offset: frag.line_offset,
                symbol: frag.symbol_info.map(symbol),
            })
            .collect(),
    }
}

fn symbol(s: SymbolInfo) -> Symbol {
    Symbol {
        name: s.sym,
        kind: s.kind,
        parent: s.parent,
        parent_kind: s.parent_kind,
    }
}

/// Zoekt's repository list in the engine's terms (public for the fuzz targets).
pub fn listing(list: RepoList) -> RepoListing {
    RepoListing {
        crashes: list.crashes,
        missing_backends: 0,
        shared: Vec::new(),
        stats: IndexStats {
            repos: list.stats.repos,
            documents: list.stats.documents,
            shards: list.stats.shards,
            index_bytes: list.stats.index_bytes,
        },
        repos: list
            .repos
            .into_iter()
            .map(|r| IndexedRepo {
                name: r.repository.name,
                documents: r.stats.documents,
                has_symbols: r.repository.has_symbols,
                index_time: r.index_metadata.index_time,
                branches: r.repository.branches.into_iter().map(|b| b.name).collect(),
                indexer_version: r.index_metadata.zoekt_version,
            })
            .collect(),
    }
}
