//! MCP resources: one resource per repository (listed, paged with MCP's own cursor) and a
//! template for any indexed file.
//!
//! URIs are `zoekt://{repo}/{+path}` in RFC 6570 terms: the repository is ONE percent-encoded
//! segment (repository names such as `github.com/org/x` hold slashes) and the path keeps its
//! slashes. `zoekt://{repo}/` with an empty path is the repository itself.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

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
