//! How a failed or unexpected HTTP exchange with Zoekt becomes a [`ZoektError`] a model and an
//! operator can act on: what went wrong at its root, and an excerpt of what Zoekt said.

use std::time::Duration;

use super::ZoektError;

/// How long a body excerpt may be in a `Malformed` error.
const EXCERPT_CHARS: usize = 200;

/// A redirect, as Zoekt not being at `url`: where it points, and that ZOEKT_URL should name
/// that place itself (the pager does not follow redirects).
pub(super) fn redirected(url: &str, resp: &reqwest::Response) -> ZoektError {
    let location = resp.headers().get(reqwest::header::LOCATION).map_or_else(
        || "an unnamed place".to_string(),
        |l| format!("`{}`", excerpt(l.as_bytes())),
    );
    ZoektError::Unreachable {
        url: url.to_string(),
        reason: format!(
            "it answered HTTP {} redirecting to {location}; the pager does not follow \
             redirects (its headers must reach no other host): set ZOEKT_URL to the address \
             Zoekt answers at",
            resp.status().as_u16()
        ),
    }
}

pub(super) fn timeout_error(timeout: Duration) -> ZoektError {
    ZoektError::Timeout {
        after_ms: timeout.as_millis() as u64,
    }
}

/// The body broke off after Zoekt had answered: not an unreachable Zoekt, an unreadable
/// answer (unless the time ran out).
pub(super) fn body_error(e: reqwest::Error, timeout: Duration) -> ZoektError {
    if e.is_timeout() {
        timeout_error(timeout)
    } else {
        ZoektError::Malformed {
            reason: format!("the answer was cut off: {}", root_cause(&e)),
            excerpt: String::new(),
        }
    }
}

/// Zoekt answers errors as `{"Error": "..."}`; fall back to the raw body.
pub(super) fn zoekt_error_text(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct ErrorBody {
        #[serde(rename = "Error")]
        error: String,
    }
    match serde_json::from_slice::<ErrorBody>(body) {
        Ok(e) => e.error,
        Err(_) => excerpt(body),
    }
}

pub(super) fn excerpt(body: &[u8]) -> String {
    // EXCERPT_CHARS of the body, then the `…` when there was more.
    crate::engine::text::clipped(String::from_utf8_lossy(body).trim(), EXCERPT_CHARS + 1)
}

/// reqwest's top-level message is generic ("error sending request"); the innermost source
/// says what happened ("Connection refused").
pub(super) fn root_cause(e: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}
