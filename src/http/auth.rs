//! Optional bearer-token auth for `/mcp`.
//!
//! Tokens are compared as SHA-256 digests with a constant-time equality, so neither the
//! content nor the length of the configured token leaks through response timing. The token
//! is never logged; a rejection logs only that it happened.
//!
//! More than one `Authorization` header is refused with 400 whether or not a token is
//! configured: which one counts would be a guess (proxies and servers disagree), so a
//! right-then-wrong pair must not pass as the right one.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The configured token, kept only as its digest.
#[derive(Debug)]
pub struct TokenCheck {
    digest: Option<[u8; 32]>,
}

impl TokenCheck {
    /// Keeps the digest of `token`; `None` means no token is required.
    pub fn new(token: Option<&str>) -> Self {
        TokenCheck {
            digest: token.map(|t| Sha256::digest(t.as_bytes()).into()),
        }
    }

    /// `true` when no token is configured, or `authorization` carries it as a Bearer token.
    pub fn allows(&self, authorization: Option<&HeaderValue>) -> bool {
        let Some(expected) = &self.digest else {
            return true;
        };
        let Some(given) = authorization
            .and_then(|v| v.to_str().ok())
            .and_then(bearer_token)
        else {
            return false;
        };
        let given: [u8; 32] = Sha256::digest(given.as_bytes()).into();
        given.ct_eq(expected).into()
    }
}

/// The credentials of an `Authorization: Bearer <token>` value (scheme case-insensitive).
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// Middleware that passes requests [`TokenCheck::allows`] and answers 401 to the rest.
pub async fn require_token(
    State(check): State<Arc<TokenCheck>>,
    req: Request,
    next: Next,
) -> Response {
    if req
        .headers()
        .get_all(header::AUTHORIZATION)
        .iter()
        .nth(1)
        .is_some()
    {
        tracing::warn!(
            path = req.uri().path(),
            "rejected request with more than one Authorization header"
        );
        return (
            StatusCode::BAD_REQUEST,
            "400 Bad Request: more than one Authorization header; send exactly one\n",
        )
            .into_response();
    }
    if check.allows(req.headers().get(header::AUTHORIZATION)) {
        return next.run(req).await;
    }
    tracing::warn!(
        path = req.uri().path(),
        "rejected request without a valid bearer token"
    );
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, "Bearer")],
        "401 Unauthorized: send Authorization: Bearer <token> (the token zoekt-pager was started with)\n",
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_token_passes() {
        let check = TokenCheck::new(Some("s3cret"));
        let h = |v: &str| HeaderValue::from_str(v).unwrap();
        assert!(check.allows(Some(&h("Bearer s3cret"))));
        assert!(check.allows(Some(&h("bearer s3cret"))));
        assert!(!check.allows(Some(&h("Bearer s3cre"))));
        assert!(!check.allows(Some(&h("Bearer s3cret2"))));
        assert!(!check.allows(Some(&h("Basic s3cret"))));
        assert!(!check.allows(Some(&h("Bearer "))));
        assert!(!check.allows(None));
        assert!(TokenCheck::new(None).allows(None));
    }
}
