//! MCP resources: one resource per repository (listed, paged with MCP's own cursor) and a
//! template for any indexed file; their URIs, and the handlers that list and read them.
//!
//! URIs are `zoekt://{repo}/{+path}` in RFC 6570 terms: the repository is ONE percent-encoded
//! segment (repository names such as `github.com/org/x` hold slashes) and the path keeps its
//! slashes. `zoekt://{repo}/` with an empty path is the repository itself.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use rmcp::ErrorData;
use rmcp::model::{
    JsonObject, ListResourcesResult, MetaObject, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ResourceTemplate,
};

use super::call::{WARNINGS_META_KEY, count_error, rpc_error};
use crate::engine::Pager;
use crate::engine::backend::Backend;
use crate::engine::tool::PageArgs;
use crate::form::{self, ItemText};
use crate::metrics::Metrics;
use crate::tools::error::ToolError;
use crate::tools::{list_repos, read_file};

/// The file template advertised by `resources/templates/list`.
pub const FILE_TEMPLATE: &str = "zoekt://{repo}/{+path}";
const SCHEME: &str = "zoekt://";

/// RFC 3986 unreserved characters stay; everything else is encoded (so `/` is, too).
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');
/// Same, but a path keeps its slashes.
#[cfg(test)]
const PATH: &AsciiSet = &SEGMENT.remove(b'/');

/// What a `zoekt://` URI names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A repository, `zoekt://{repo}/`.
    Repo(String),
    /// A file in a repository, `zoekt://{repo}/{+path}`.
    File { repo: String, path: String },
}

/// URI of a repository, its name percent-encoded as one segment.
pub fn repo_uri(repo: &str) -> String {
    format!("{SCHEME}{}/", utf8_percent_encode(repo, SEGMENT))
}

/// URI of a file: the repository as one encoded segment, then the path with its slashes kept.
#[cfg(test)]
pub fn file_uri(repo: &str, path: &str) -> String {
    format!(
        "{SCHEME}{}/{}",
        utf8_percent_encode(repo, SEGMENT),
        utf8_percent_encode(path, PATH)
    )
}

/// Parses a `zoekt://` URI; the error says what is wrong with it.
pub fn parse_uri(uri: &str) -> Result<Target, String> {
    let rest = uri
        .strip_prefix(SCHEME)
        .ok_or_else(|| format!("`{uri}` is not a zoekt:// URI"))?;
    let (repo, path) = rest.split_once('/').unwrap_or((rest, ""));
    let decode = |s: &str| {
        percent_decode_str(s)
            .decode_utf8()
            .map(|c| c.into_owned())
            .map_err(|_| format!("`{uri}` does not decode to UTF-8"))
    };
    let repo = decode(repo)?;
    let path = decode(path)?;
    if repo.is_empty() {
        return Err(format!("`{uri}` names no repository"));
    }
    Ok(if path.is_empty() {
        Target::Repo(repo)
    } else {
        Target::File { repo, path }
    })
}

/// The file template as `resources/templates/list` advertises it.
pub(super) fn file_template() -> ResourceTemplate {
    ResourceTemplate::new(FILE_TEMPLATE, "file")
        .with_title("Indexed file")
        .with_description(
            "A file of an indexed repository; the repository is one percent-encoded segment. \
             Reads are bounded like read_file.",
        )
        .with_mime_type("text/plain")
}

/// Repositories, one resource each, from `cursor` on; a refused cursor counted in `metrics`.
pub(super) async fn repo_resources<B: Backend>(
    pager: &Pager<B>,
    metrics: &Metrics,
    cursor: Option<String>,
) -> Result<ListResourcesResult, ErrorData> {
    let paging = PageArgs {
        cursor,
        ..PageArgs::default()
    };
    let page = match list_repos::repo_listing(pager, &paging).await {
        Ok(p) => p,
        Err(e) => {
            let e = ToolError::from(&e);
            count_error(metrics, e.code);
            return Err(rpc_error(&e));
        }
    };
    let items = page
        .items
        .iter()
        .map(|r| {
            Resource::new(repo_uri(&r.name), r.name.clone())
                .with_description({
                    // The same words as a list_repos line.
                    let mut text = String::from("Repository ");
                    r.write_text(&mut text);
                    text
                })
                .with_mime_type("application/json")
        })
        .collect();
    let mut result = ListResourcesResult::with_all_items(items);
    result.next_cursor = page.next_cursor.clone();
    if !page.warnings.is_empty() {
        // A list short of a backend that did not answer (or of crashed shards) says so
        // where a list result can, in `_meta`, as list_repos says it on its page; and it
        // is fresh for no time, so that a client keeping lists asks again.
        let mut meta = JsonObject::new();
        meta.insert(WARNINGS_META_KEY.into(), form::page_warnings(&page).into());
        result.meta = Some(MetaObject(meta));
        result.ttl_ms = Some(0);
    }
    Ok(result)
}

/// What a resource URI holds.
pub(super) async fn resource_contents<B: Backend>(
    pager: &Pager<B>,
    uri: String,
) -> Result<ReadResourceResponse, ErrorData> {
    let target = parse_uri(&uri).map_err(|m| ErrorData::invalid_params(m, None))?;
    let contents = match target {
        Target::Repo(name) => {
            let repo = list_repos::repo(pager, &name)
                .await
                .map_err(|e| rpc_error(&ToolError::from(&e)))?;
            let Some(repo) = repo else {
                return Err(ErrorData::resource_not_found(
                    format!("no repository `{name}`"),
                    None,
                ));
            };
            ResourceContents::text(serde_json::to_string(&repo).unwrap_or_default(), &uri)
                .with_mime_type("application/json")
        }
        Target::File { repo, path } => {
            let slice = read_file::read_file(pager, &repo, &path, None, None)
                .await
                .map_err(|e| rpc_error(&ToolError::from(&e)))?;
            let mut c = ResourceContents::text(slice.content.clone(), &uri);
            if slice.truncated {
                let mut meta = JsonObject::new();
                meta.insert("zoekt-pager/truncated".into(), true.into());
                meta.insert("zoekt-pager/end_line".into(), slice.end_line.into());
                meta.insert("zoekt-pager/total_lines".into(), slice.total_lines.into());
                c = c.with_meta(MetaObject(meta));
            }
            c
        }
    };
    Ok(ReadResourceResult::new(vec![contents]).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_with_slashes_in_repo_names() {
        let uri = file_uri("github.com/org/x", "src/a b/ü.go");
        assert_eq!(uri, "zoekt://github.com%2Forg%2Fx/src/a%20b/%C3%BC.go");
        assert_eq!(
            parse_uri(&uri).unwrap(),
            Target::File {
                repo: "github.com/org/x".into(),
                path: "src/a b/ü.go".into()
            }
        );
        assert_eq!(
            parse_uri(&repo_uri("alpha-rs")).unwrap(),
            Target::Repo("alpha-rs".into())
        );
        assert_eq!(
            parse_uri("zoekt://alpha-rs").unwrap(),
            Target::Repo("alpha-rs".into())
        );
    }

    #[test]
    fn foreign_or_empty_uris_are_refused() {
        assert!(parse_uri("file:///etc/passwd").is_err());
        assert!(parse_uri("zoekt:///x").is_err());
        assert!(parse_uri("zoekt://r/%FF").is_err());
    }
}
