//! Reaching Zoekt beyond plain http on loopback: several base URLs, https through rustls
//! (reqwest's, on aws-lc-rs; no OpenSSL) with the platform's roots plus a private CA, and headers (say, an
//! `Authorization` an authenticating proxy wants) sent on every request.
//!
//! Header values are secrets: they are marked sensitive (reqwest and `Debug` print them as
//! `Sensitive`), never logged, never echoed in an error (a bad line is named by its number)
//! and never a metrics label.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

/// What every Zoekt client of the process is built with.
#[derive(Clone, Default)]
pub struct Transport {
    /// Extra roots (a private CA).
    pub roots: Vec<reqwest::Certificate>,
    /// The same roots as PEM, for the gRPC channel (tonic reads PEM).
    pub roots_pem: Option<Vec<u8>>,
    /// Sent on every request, values marked sensitive.
    pub headers: HeaderMap,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Names only: the values are secrets.
        f.debug_struct("Transport")
            .field("roots", &self.roots.len())
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// `Name: value` lines (blank lines and `#` comments skipped), each value marked sensitive.
pub fn parse_headers(text: &str) -> Result<HeaderMap, String> {
    let mut headers = HeaderMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = n + 1;
        let Some((name, value)) = line.split_once(':') else {
            return Err(format!("line {at} is not `Name: value`"));
        };
        let name = HeaderName::from_bytes(name.trim().as_bytes())
            .map_err(|_| format!("line {at}: not a valid header name"))?;
        let value = value.trim();
        if value.is_empty() {
            return Err(format!("line {at}: header {name} has no value"));
        }
        let mut value = HeaderValue::from_str(value)
            .map_err(|_| format!("line {at}: header {name} has a value HTTP cannot carry"))?;
        value.set_sensitive(true);
        headers.append(name, value);
    }
    if headers.is_empty() {
        return Err("no header in it".into());
    }
    Ok(headers)
}

/// Checks one Zoekt base URL: http or https, a host, no user or password (secrets go in
/// headers, where they are never logged), no query or fragment. Returns it without a
/// trailing slash.
pub fn check_url(url: &str) -> Result<String, String> {
    let shown = shown_of(url);
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| format!("--zoekt-url {shown:?} is not a URL ({e})"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!(
            "--zoekt-url {shown:?} must start with http:// or https://"
        ));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(format!("--zoekt-url {shown:?} has no host"));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(format!(
            "--zoekt-url {:?} holds a user or password: give credentials as a header \
             (--zoekt-header-file), which is never logged",
            format!(
                "{}://{}",
                parsed.scheme(),
                parsed.host_str().unwrap_or_default()
            )
        ));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(format!(
            "--zoekt-url {shown:?} must be a base URL, without ? or #"
        ));
    }
    Ok(url.trim_end_matches('/').to_string())
}

/// Every Zoekt base URL of the comma-separated lists given, each checked; the message names
/// the bad one.
pub fn check_urls(lists: &[String]) -> Result<Vec<String>, String> {
    let mut urls = Vec::new();
    for list in lists {
        for url in list.split(',') {
            let url = url.trim();
            if url.is_empty() {
                return Err(format!(
                    "--zoekt-url {:?} has an empty entry (a stray comma?)",
                    shown_of(list)
                ));
            }
            let url = check_url(url)?;
            if urls.contains(&url) {
                return Err(format!("--zoekt-url {url} is given twice"));
            }
            urls.push(url);
        }
    }
    if urls.is_empty() {
        return Err("--zoekt-url: no Zoekt URL given".into());
    }
    if urls.len() > crate::engine::backend::MAX_BACKENDS {
        return Err(format!(
            "--zoekt-url: {} URLs, at most {} are served",
            urls.len(),
            crate::engine::backend::MAX_BACKENDS
        ));
    }
    Ok(urls)
}

/// A failure reaching Zoekt, with what to do about it when it is TLS's.
pub fn explain_failure(reason: String) -> String {
    let lower = reason.to_ascii_lowercase();
    if lower.contains("certificate") || lower.contains("unknownissuer") {
        format!(
            "{reason} (TLS: Zoekt's certificate is not trusted; give the CA that signed it with \
             --zoekt-ca-file)"
        )
    } else if lower.contains("tls") || lower.contains("handshake") {
        format!("{reason} (TLS handshake failed: is this an https:// server, and its CA given?)")
    } else {
        reason
    }
}

/// Zoekt's message for a 401 or 403: a proxy in front of it refused our headers.
pub fn refused(status: u16, message: &str) -> String {
    let said = crate::engine::text::clipped(message.trim(), 120);
    format!(
        "Zoekt (or a proxy in front of it) refused the request with HTTP {status}{}: check \
         the headers of --zoekt-header-file / ZOEKT_PAGER_ZOEKT_HEADERS",
        if said.is_empty() {
            String::new()
        } else {
            format!(" ({said})")
        }
    )
}

/// What an error quotes of a setting the operator gave: at most 400 characters, as every
/// error message of the server quotes what it was sent (the zoekt layer stays below the MCP
/// one, so it clips by itself).
fn shown_of(text: &str) -> String {
    crate::engine::text::clipped(text, 400)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TLS is rustls: no crate of the lock file (what any build of this project links, test
    /// builds included) binds OpenSSL, so a dependency that brings it back fails here.
    #[test]
    fn no_crate_binds_openssl() {
        let lock = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock"));
        let names: Vec<&str> = lock
            .lines()
            .filter_map(|l| l.strip_prefix("name = \""))
            .map(|l| l.trim_end_matches('"'))
            .collect();
        assert!(names.contains(&"rustls"), "no rustls in Cargo.lock");
        for openssl in ["openssl", "openssl-sys", "native-tls"] {
            assert!(!names.contains(&openssl), "{openssl} is in Cargo.lock");
        }
    }

    #[test]
    fn urls_are_split_checked_and_the_bad_one_named() {
        assert_eq!(
            check_urls(&["http://a:6070/, https://b:443".into(), "http://c:1".into()]).unwrap(),
            ["http://a:6070", "https://b:443", "http://c:1"]
        );
        let bad = |list: &str| check_urls(&[list.to_string()]).unwrap_err();
        assert!(bad("http://a:6070,http://b:99999").contains("http://b:99999"));
        assert!(bad("http://a:6070,zoekt:6070").contains("zoekt:6070"));
        assert!(bad("http://a,,http://b").contains("empty entry"));
        assert!(bad("ftp://a").contains("http:// or https://"));
        assert!(bad("http://a,http://a/").contains("twice"));
        let creds = bad("https://user:s3cret@a");
        assert!(
            creds.contains("header") && !creds.contains("s3cret"),
            "{creds}"
        );
        assert!(bad("http://a/?x=1").contains("base URL"));
    }

    #[test]
    fn headers_parse_and_a_bad_line_is_named_without_its_value() {
        let h =
            parse_headers("# comment\nAuthorization: Bearer abc\n\nX-Team:  search \n").unwrap();
        assert_eq!(h.len(), 2);
        assert!(h["authorization"].is_sensitive());
        assert_eq!(h["x-team"], "search");
        let e = parse_headers("Authorization Bearer s3cret").unwrap_err();
        assert!(e.contains("line 1") && !e.contains("s3cret"), "{e}");
        let e = parse_headers("X: a\u{7f}s3cret").unwrap_err();
        assert!(!e.contains("s3cret"), "{e}");
        assert!(parse_headers("\n# none\n").is_err());
        let t = Transport {
            roots: vec![],
            roots_pem: None,
            headers: h,
        };
        assert!(!format!("{t:?}").contains("abc"));
    }
}
