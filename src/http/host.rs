//! A strict shape check of `/mcp`'s `Host` header, in front of rmcp's allow-list check.
//!
//! rmcp parses `Host` as a URI authority and matches only the host part when the allowed
//! entry has no port, and a port that is not a number (`localhost:evil`), out of range
//! (`localhost:99999`) or empty reads as "no port": such a Host passed as `localhost`. A
//! userinfo part (`x@localhost`) passed the same way. Here a Host must be exactly one field of
//! the shape `name`, `IPv4` or `[IPv6]`, with an optional port of 1 to 65535; anything else is
//! refused with the very response rmcp gives a foreign host, so junk and a foreign host look
//! the same to a client. A request without a Host goes on to rmcp, which answers 400.

use std::net::Ipv6Addr;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

/// rmcp's body for a refused Host (`streamable_http_server::tower`), repeated so both refusals
/// read the same.
const FORBIDDEN: &str = "Forbidden: Host header is not allowed";

/// Middleware that refuses a request whose Host is not one well-formed authority.
pub async fn require_well_formed_host(req: Request, next: Next) -> Response {
    if host_is_well_formed(req.headers()) {
        return next.run(req).await;
    }
    tracing::warn!("rejected request with a malformed or repeated Host header");
    let mut response = Response::new(Body::from(FORBIDDEN));
    *response.status_mut() = StatusCode::FORBIDDEN;
    response
}

/// `true` without a Host (rmcp refuses that itself) or with one well-formed Host; `false`
/// for two or more, or one that is not `host[:port]`.
fn host_is_well_formed(headers: &HeaderMap) -> bool {
    let mut hosts = headers.get_all(header::HOST).iter();
    let (Some(host), None) = (hosts.next(), hosts.next()) else {
        return headers.get(header::HOST).is_none();
    };
    host.to_str().is_ok_and(is_authority)
}

/// `name`, `IPv4` or `[IPv6]`, then optionally `:port` (1 to 65535, digits only).
fn is_authority(value: &str) -> bool {
    let (host_ok, rest) = match value.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((addr, rest)) => (addr.parse::<Ipv6Addr>().is_ok(), rest),
            None => return false,
        },
        None => {
            let end = value.find(':').unwrap_or(value.len());
            (is_name(&value[..end]), &value[end..])
        }
    };
    host_ok && (rest.is_empty() || rest.strip_prefix(':').is_some_and(is_port))
}

/// A DNS name or an IPv4 address: letters, digits, `-`, `.` and `_`.
fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
}

fn is_port(port: &str) -> bool {
    port.len() <= 5
        && port.bytes().all(|b| b.is_ascii_digit())
        && port.parse::<u32>().is_ok_and(|p| (1..=65_535).contains(&p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_host_and_a_numeric_port_pass() {
        for ok in [
            "localhost",
            "LOCALHOST",
            "localhost:8080",
            "127.0.0.1",
            "127.0.0.1:65535",
            "[::1]",
            "[::1]:80",
            "code.internal",
            "my_host.local:1",
        ] {
            assert!(is_authority(ok), "{ok}");
        }
        for bad in [
            "",
            "localhost:evil",
            "localhost:",
            "localhost:0",
            "localhost:65536",
            "localhost:99999",
            "localhost:+80",
            "localhost:80:80",
            "\" localhost\"",
            "local host",
            "localhost ",
            "user@localhost",
            "[::1]:x",
            "[::1",
            "[zz]",
            "::1",
            ":80",
        ] {
            assert!(!is_authority(bad), "{bad:?}");
        }
    }

    #[test]
    fn exactly_one_host_or_none() {
        let mut headers = HeaderMap::new();
        assert!(host_is_well_formed(&headers), "none: rmcp's to refuse");
        headers.append(header::HOST, "localhost".parse().unwrap());
        assert!(host_is_well_formed(&headers));
        headers.append(header::HOST, "localhost".parse().unwrap());
        assert!(!host_is_well_formed(&headers), "two");
    }
}
