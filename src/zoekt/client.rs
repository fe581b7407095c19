//! The typed client for a zoekt-webserver: its JSON API (`/api/search`, `/api/list`, which
//! need the webserver's `-rpc`), its health endpoints, and, unless `--zoekt-transport json`,
//! a [`GrpcClient`](super::grpc::GrpcClient) for its gRPC API, which searches and listings
//! go over (`backend.rs` picks).
//!
//! It knows Zoekt's endpoints and failure modes and nothing about pages: the paging engine
//! decides what to ask for. One `reqwest::Client` is kept for the process so connections are
//! reused. Transient failures while Zoekt restarts (connection refused, 502/503/504) are
//! retried a bounded number of times with exponential backoff; a query error (400) never is.

use std::time::Duration;

use reqwest::StatusCode;
use serde::de::DeserializeOwned;

use super::check::{check_answer_for, check_listing};
pub use super::error::ZoektError;
pub use super::options::{ClientOptions, Wire};
use super::stream::{SearchStream, StreamError, list_bytes, statistics_fit};
use super::wire::{ListOptions, ListRequest, RepoList, SearchRequest, SearchResult};
use super::wire::{ListResponse, SearchResponse};

mod failure;
use failure::{body_error, excerpt, redirected, root_cause, timeout_error, zoekt_error_text};

/// Health of the backend as `/healthz` and `/readyz` report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readiness {
    /// HTTP status of `/readyz` (404 on builds that lack it).
    pub readyz_status: u16,
    /// Body text, trimmed (Zoekt explains "not ready: ..." there).
    pub detail: String,
}

impl Readiness {
    /// `true` when the readiness check answered HTTP 200.
    pub fn is_ready(&self) -> bool {
        self.readyz_status == 200
    }
}

/// A client for one Zoekt base URL.
#[derive(Debug, Clone)]
pub struct ZoektClient {
    base: String,
    http: reqwest::Client,
    opts: ClientOptions,
    /// Searches go over gRPC (`--zoekt-transport grpc`).
    grpc: Option<super::grpc::GrpcClient>,
}

impl ZoektClient {
    /// `base_url` is e.g. `http://127.0.0.1:6070` (a trailing slash is fine).
    pub fn new(base_url: &str, opts: ClientOptions) -> Result<Self, ZoektError> {
        Self::with_transport(base_url, opts, &super::tls::Transport::default())
    }

    /// [`ZoektClient::new`], trusting `transport`'s extra roots for https and sending its
    /// headers on every request.
    pub fn with_transport(
        base_url: &str,
        opts: ClientOptions,
        transport: &super::tls::Transport,
    ) -> Result<Self, ZoektError> {
        let http = reqwest::Client::builder()
            .tls_certs_merge(transport.roots.iter().cloned())
            .default_headers(transport.headers.clone())
            .timeout(opts.timeout)
            .connect_timeout(opts.timeout.min(Duration::from_secs(5)))
            .pool_idle_timeout(Duration::from_secs(90))
            // A sidecar talks to Zoekt directly: an HTTP(S)_PROXY meant for the outside world
            // must not capture loopback traffic.
            .no_proxy()
            // Zoekt's API never redirects. One that does is a proxy sending us elsewhere, and
            // following it would send the backend headers (`--zoekt-header-file`) to a host
            // nobody configured: reqwest strips `Authorization` on such a hop, not others.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ZoektError::Unreachable {
                url: base_url.to_string(),
                reason: format!("cannot build HTTP client: {e}"),
            })?;
        let grpc = match opts.zoekt_transport {
            Wire::Json => None,
            Wire::Grpc => Some(super::grpc::GrpcClient::new(
                base_url,
                opts.clone(),
                transport,
            )?),
        };
        Ok(ZoektClient {
            base: base_url.trim_end_matches('/').to_string(),
            http,
            opts,
            grpc,
        })
    }

    /// The gRPC client searches go over, when `--zoekt-transport grpc` chose it.
    pub fn grpc(&self) -> Option<&super::grpc::GrpcClient> {
        self.grpc.as_ref()
    }

    /// The base URL requests are sent to, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// `POST /api/search`. The answer is checked before it is returned ([`check_answer`](super::check::check_answer)):
    /// one that contradicts itself is an error, never a result.
    pub async fn search(&self, req: &SearchRequest) -> Result<SearchResult, ZoektError> {
        Ok(self.search_reading(req, false).await?.0)
    }

    /// [`ZoektClient::search`] for a page's window: an answer over `--max-answer-bytes`
    /// comes back as its start, the files read whole within the bound (`true` beside it),
    /// instead of [`ZoektError::TooBig`]. Zoekt sends its statistics first and its files best
    /// first, so that start is its answer for that many files, got without asking again.
    pub async fn search_start(
        &self,
        req: &SearchRequest,
    ) -> Result<(SearchResult, bool), ZoektError> {
        self.search_reading(req, true).await
    }

    async fn search_reading(
        &self,
        req: &SearchRequest,
        keep_start: bool,
    ) -> Result<(SearchResult, bool), ZoektError> {
        let body = serde_json::to_vec(req).expect("search request serialises");
        let timeout = self.opts.timeout;
        let resp = self.post("/api/search", body, timeout).await?;
        let (resp, cut) = self.read_search(resp, timeout, keep_start).await?;
        let asked = match cut {
            true => resp.result.files.len() as u64,
            false => u64::from(req.opts.max_doc_display_count),
        };
        check_answer_for(asked, &resp.result)
            .map_err(|reason| ZoektError::Contradiction { reason })?;
        Ok((resp.result, cut))
    }

    /// `POST /api/list`: the repositories `query` selects (`""`: all), unsorted. Zoekt's list
    /// takes no wall-time option, yet runs a search for any query but `""`, and a costly
    /// pattern (`(.*){1000}`) runs for many seconds: so the request gives up after
    /// `wall_time` (or the client timeout, if shorter). Zoekt stops that search when the
    /// connection goes.
    pub async fn list(&self, query: &str, wall_time: Duration) -> Result<RepoList, ZoektError> {
        let req = ListRequest {
            q: query.to_string(),
            opts: ListOptions::default(),
        };
        let body = serde_json::to_vec(&req).expect("list request serialises");
        let resp: ListResponse = self
            .post_json("/api/list", body, wall_time.min(self.opts.timeout))
            .await?;
        check_listing(&resp.list).map_err(|reason| ZoektError::Contradiction { reason })?;
        Ok(resp.list)
    }

    /// `GET /healthz`: Ok when Zoekt can run a search.
    pub async fn healthz(&self) -> Result<(), ZoektError> {
        let (status, text) = self.get("/healthz").await?;
        if status.is_success() {
            Ok(())
        } else {
            Err(ZoektError::Server {
                status: status.as_u16(),
                message: text,
            })
        }
    }

    /// `GET /readyz`: 200 once shards are loaded, 503 before.
    pub async fn readyz(&self) -> Result<Readiness, ZoektError> {
        let (status, text) = self.get("/readyz").await?;
        // Zoekt's reason is a line; a body of megabytes must not become the answer.
        let mut detail = excerpt(text.trim().as_bytes());
        if matches!(status.as_u16(), 401 | 403) {
            detail = super::tls::refused(status.as_u16(), &detail);
        }
        Ok(Readiness {
            readyz_status: status.as_u16(),
            detail,
        })
    }

    /// Whether Zoekt can serve searches now: `/readyz`, or `/healthz` on builds without
    /// `/readyz` (they answer 404). `Err` only when nothing answered at all.
    pub async fn readiness(&self) -> Result<Readiness, ZoektError> {
        let ready = self.readyz().await?;
        if ready.readyz_status != 404 {
            return Ok(ready);
        }
        match self.healthz().await {
            Ok(()) => Ok(Readiness {
                readyz_status: 200,
                detail: "healthy (this Zoekt has no /readyz; /healthz answered)".into(),
            }),
            Err(ZoektError::Server { status, message }) => Ok(Readiness {
                readyz_status: status,
                detail: excerpt(message.trim().as_bytes()),
            }),
            Err(e) => Err(e),
        }
    }

    async fn get(&self, path: &str) -> Result<(StatusCode, String), ZoektError> {
        let url = format!("{}{path}", self.base);
        let resp = self
            .with_retries(|| self.http.get(&url).send(), &url, self.opts.timeout)
            .await?;
        let status = resp.status();
        let body = self.read_body(resp, self.opts.timeout).await?;
        Ok((status, String::from_utf8_lossy(&body).into_owned()))
    }

    async fn post_json<T: DeserializeOwned>(
        &self,
        path: &str,
        body: Vec<u8>,
        timeout: Duration,
    ) -> Result<T, ZoektError> {
        let resp = self.post(path, body, timeout).await?;
        let bytes = self.read_body(resp, timeout).await?;
        // Zoekt writes UTF-8 (strings as text, bytes as base64): checked here once over the
        // whole body, serde_json then reads the answer's tens of thousands of keys, names and
        // paths without checking each again (base64 was already read as bytes, unchecked),
        // which was a sixth of the decoding time. A body that is not UTF-8 is read as before,
        // string by string: `B64Text` decodes lossily, any other string fails the answer.
        match std::str::from_utf8(&bytes) {
            Ok(text) => serde_json::from_str(text),
            Err(_) => serde_json::from_slice(&bytes),
        }
        .map_err(|e| ZoektError::Malformed {
            reason: e.to_string(),
            excerpt: excerpt(&bytes),
        })
    }

    /// Sends a JSON request to `path`: the answer when Zoekt said yes, its error otherwise.
    async fn post(
        &self,
        path: &str,
        body: Vec<u8>,
        timeout: Duration,
    ) -> Result<reqwest::Response, ZoektError> {
        let url = format!("{}{path}", self.base);
        let resp = self
            .with_retries(
                || {
                    self.http
                        .post(&url)
                        .header(reqwest::header::CONTENT_TYPE, "application/json")
                        .timeout(timeout)
                        .body(body.clone())
                        .send()
                },
                &url,
                timeout,
            )
            .await?;
        let status = resp.status();
        if status.is_success() {
            return Ok(resp);
        }
        let bytes = self.read_body(resp, timeout).await?;
        let mut message = zoekt_error_text(&bytes);
        if matches!(status.as_u16(), 401 | 403) {
            message = super::tls::refused(status.as_u16(), &message);
        }
        Err(if status == StatusCode::BAD_REQUEST {
            ZoektError::Query { message }
        } else {
            ZoektError::Server {
                status: status.as_u16(),
                message,
            }
        })
    }

    /// A search answer, decoded file by file as its chunks arrive (`stream.rs`), up to
    /// `--max-answer-bytes`: never held whole.
    /// With `keep_start`, the answer keeps the files that end within [`list_bytes`] of its
    /// file list's start, whether it was read whole or cut at the bound (`true` beside it:
    /// files of the answer were left out), and is the error only when not one file does.
    async fn read_search(
        &self,
        mut resp: reqwest::Response,
        timeout: Duration,
        keep_start: bool,
    ) -> Result<(SearchResponse, bool), ZoektError> {
        let limit = self.opts.max_answer_bytes;
        let too_big = |within| ZoektError::TooBig { limit, within };
        // Its start can be read all the same.
        if !keep_start && resp.content_length().is_some_and(|n| n > limit as u64) {
            return Err(too_big(None));
        }
        let malformed = |e: StreamError| ZoektError::Malformed {
            reason: e.reason,
            excerpt: excerpt(&e.excerpt),
        };
        let refused = |reason| ZoektError::Malformed {
            reason,
            excerpt: String::new(),
        };
        let mut stream = SearchStream::new();
        let mut len = 0;
        while let Some(chunk) = resp.chunk().await.map_err(|e| body_error(e, timeout))? {
            if len + chunk.len() > limit {
                // The bytes up to the bound are read, so the files that end within it are
                // known whatever the chunks were: Zoekt's answer for that many files is this
                // one's start (its statistics come before the files).
                stream.feed(&chunk[..limit - len]).map_err(malformed)?;
                let read = u32::try_from(stream.files_read()).unwrap_or(u32::MAX);
                if !keep_start {
                    return Err(too_big(Some(read)));
                }
                statistics_fit(&stream, limit).map_err(refused)?;
                let kept = stream.files_within(list_bytes(limit));
                let whole = stream.list_closed() && kept == stream.files_read();
                if kept == 0 {
                    return Err(too_big(Some(0)));
                }
                return match stream.start(kept) {
                    Some(start) => Ok((start, !whole)),
                    None => Err(ZoektError::Malformed {
                        reason: "the statistics before the file list do not decode".into(),
                        excerpt: String::new(),
                    }),
                };
            }
            len += chunk.len();
            stream.feed(&chunk).map_err(malformed)?;
        }
        // A whole answer is held to the same bound as a start, so that a window's files do
        // not depend on whether a bigger window was asked for.
        if keep_start {
            statistics_fit(&stream, limit).map_err(refused)?;
        }
        let kept = keep_start.then(|| stream.files_within(list_bytes(limit)));
        let mut answer = stream.finish().map_err(malformed)?;
        match kept {
            Some(0) if !answer.result.files.is_empty() => Err(too_big(Some(0))),
            Some(kept) if kept < answer.result.files.len() => {
                answer.result.files.truncate(kept);
                Ok((answer, true))
            }
            _ => Ok((answer, false)),
        }
    }

    /// Sends with bounded retries on "Zoekt is restarting" symptoms only.
    async fn with_retries<F, Fut>(
        &self,
        send: F,
        url: &str,
        timeout: Duration,
    ) -> Result<reqwest::Response, ZoektError>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = reqwest::Result<reqwest::Response>>,
    {
        let mut delay = self.opts.backoff;
        let mut attempt = 0;
        loop {
            let outcome = send().await;
            let retryable = match &outcome {
                Ok(r) => matches!(r.status().as_u16(), 502..=504),
                Err(e) => e.is_connect() && !e.is_timeout(),
            };
            if !retryable || attempt >= self.opts.retries {
                return match outcome {
                    // Never followed: a header from --zoekt-header-file would go wherever
                    // the redirect points.
                    Ok(resp) if resp.status().is_redirection() => Err(redirected(url, &resp)),
                    Ok(resp) => Ok(resp),
                    Err(e) if e.is_timeout() => Err(timeout_error(timeout)),
                    Err(e) => Err(ZoektError::Unreachable {
                        url: url.to_string(),
                        reason: super::tls::explain_failure(root_cause(&e)),
                    }),
                };
            }
            tracing::debug!(attempt, ?delay, "retrying Zoekt request");
            tokio::time::sleep(delay).await;
            delay *= 2;
            attempt += 1;
        }
    }

    /// The body, read chunk by chunk up to `--max-answer-bytes`: a bigger answer stops the
    /// read (and frees what was read) instead of being held whole.
    async fn read_body(
        &self,
        mut resp: reqwest::Response,
        timeout: Duration,
    ) -> Result<Vec<u8>, ZoektError> {
        let limit = self.opts.max_answer_bytes;
        let too_big = ZoektError::TooBig {
            limit,
            within: None,
        };
        if resp.content_length().is_some_and(|n| n > limit as u64) {
            return Err(too_big);
        }
        // With a length, each chunk goes into a buffer reserved once. Without one (Zoekt
        // answers chunked) the chunks are held as they come and copied once at the end: a
        // buffer grown chunk by chunk copied the body twice over on the way, and held up to
        // twice its bytes doing so.
        let length = resp.content_length();
        let mut body = Vec::with_capacity(length.unwrap_or(0) as usize);
        let mut held = Vec::new();
        let mut len = 0;
        while let Some(chunk) = resp.chunk().await.map_err(|e| body_error(e, timeout))? {
            len += chunk.len();
            if len > limit {
                return Err(too_big);
            }
            if length.is_some() {
                body.extend_from_slice(&chunk);
            } else {
                held.push(chunk);
            }
        }
        body.reserve_exact(len - body.len());
        for chunk in held {
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

#[cfg(test)]
mod tests;
