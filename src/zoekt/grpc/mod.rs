//! Zoekt's gRPC API (`zoekt.webserver.v1.WebserverService`), which every zoekt-webserver
//! serves on its HTTP port (HTTP/2 beside HTTP/1), with or without `-rpc`.
//!
//! Against `/api/search` it sends protobuf: a third of the bytes, file contents and lines as
//! raw bytes with no base64, and only the fields declared in [`proto`] built on decode. It
//! takes a parsed query tree, so the client parses Zoekt's query language ([`query`]); a
//! query the parser cannot be sure of goes over JSON (`zoekt/backend.rs`).
//!
//! The client knows Zoekt's failure modes and nothing about pages, as the JSON one. A search
//! may be read in part (`stream.rs`: `StreamSearch`, read up to the byte bound), which the
//! engine asks for its windows.

mod expr;
pub mod list;
pub mod proto;
pub mod query;
mod stream;
mod tokens;
mod words;

use std::time::Duration;

use tonic::codegen::http::uri::PathAndQuery;
use tonic::metadata::{AsciiMetadataValue, MetadataKey};
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};

use super::error::ZoektError;
use super::options::ClientOptions;
use super::tls::Transport;

/// About how many bytes of Zoekt's JSON say what one byte of its protobuf says (measured on
/// windows of the generated and real corpora: 3.5 to 4.5).
const JSON_BYTES_PER_PROTOBUF_BYTE: usize = 4;

/// The methods the pager calls.
const SEARCH: &str = "/zoekt.webserver.v1.WebserverService/Search";
const LIST: &str = "/zoekt.webserver.v1.WebserverService/List";

/// A gRPC client for one Zoekt base URL. Cloning it shares its connection.
#[derive(Debug, Clone)]
pub struct GrpcClient {
    url: String,
    channel: Channel,
    opts: ClientOptions,
    /// Sent as metadata on every call (the same headers the JSON client sends).
    headers: Vec<(MetadataKey<tonic::metadata::Ascii>, AsciiMetadataValue)>,
}

impl GrpcClient {
    /// A client for `base_url` (`http://` or `https://`), connecting when first used, with
    /// `transport`'s extra roots and headers.
    pub fn new(
        base_url: &str,
        opts: ClientOptions,
        transport: &Transport,
    ) -> Result<GrpcClient, ZoektError> {
        let url = base_url.trim_end_matches('/').to_string();
        let unreachable = |reason: String| ZoektError::Unreachable {
            url: url.clone(),
            reason,
        };
        let mut endpoint = Endpoint::from_shared(url.clone())
            .map_err(|e| unreachable(format!("not a gRPC endpoint: {e}")))?
            .connect_timeout(opts.timeout.min(Duration::from_secs(5)))
            .timeout(opts.timeout)
            .tcp_nodelay(true);
        if url.starts_with("https://") {
            let mut tls = ClientTlsConfig::new().with_native_roots();
            if let Some(pem) = &transport.roots_pem {
                tls = tls.ca_certificate(tonic::transport::Certificate::from_pem(pem));
            }
            endpoint = endpoint
                .tls_config(tls)
                .map_err(|e| unreachable(format!("cannot set up TLS: {e}")))?;
        }
        let mut headers = Vec::new();
        for (name, value) in &transport.headers {
            let key = MetadataKey::from_bytes(name.as_str().as_bytes())
                .map_err(|_| unreachable(format!("header {name} cannot be gRPC metadata")))?;
            let value = AsciiMetadataValue::try_from(value.as_bytes()).map_err(|_| {
                unreachable(format!("header {name}'s value cannot be gRPC metadata"))
            })?;
            headers.push((key, value));
        }
        Ok(GrpcClient {
            channel: endpoint.connect_lazy(),
            url,
            opts,
            headers,
        })
    }

    /// `Search`, retried like the JSON client while Zoekt is restarting (unavailable), never
    /// after an answer. An answer over `--max-answer-bytes` is [`ZoektError::TooBig`]; one
    /// that contradicts itself is an error, never a result, as over JSON (`zoekt/check.rs`).
    pub async fn search(
        &self,
        req: &proto::SearchRequest,
    ) -> Result<proto::SearchResponse, ZoektError> {
        let asked = req.opts.as_ref().map(|o| o.max_doc_display_count);
        let asked = asked.and_then(|n| u32::try_from(n).ok());
        let answer: proto::SearchResponse =
            self.call(SEARCH, req, self.opts.timeout, asked).await?;
        check(req, &answer).map_err(|reason| ZoektError::Contradiction { reason })?;
        Ok(answer)
    }

    /// `List`, retried as `Search` is. Zoekt's list takes no wall time, yet runs a search for
    /// any query but "all": the call gives up after `wall_time` (or the client timeout, if
    /// shorter), which cancels it in Zoekt too (HTTP/2 resets the stream).
    pub async fn list(
        &self,
        req: &proto::ListRequest,
        wall_time: Duration,
    ) -> Result<proto::ListResponse, ZoektError> {
        self.call(LIST, req, wall_time.min(self.opts.timeout), None)
            .await
    }

    /// One call, retried while Zoekt is unavailable; `asked` is the files a search asked for
    /// (what an answer too big is measured against).
    async fn call<Req, Resp>(
        &self,
        path: &'static str,
        req: &Req,
        timeout: Duration,
        asked: Option<u32>,
    ) -> Result<Resp, ZoektError>
    where
        Req: prost::Message + Clone + Send + Sync + 'static,
        Resp: prost::Message + Default + Send + Sync + 'static,
    {
        self.retried(|| async {
            self.call_once(path, req, timeout)
                .await
                .map_err(Failed::Before)
        })
        .await
        .map_err(|status| self.error(status, timeout, asked))
    }

    /// Runs `once` again, after a doubling backoff, while it fails with Zoekt unavailable
    /// before any answer came (it is restarting), at most `--retries` times; never after an
    /// answer began.
    async fn retried<T, Fut>(&self, once: impl Fn() -> Fut) -> Result<T, tonic::Status>
    where
        Fut: std::future::Future<Output = Result<T, Failed>>,
    {
        let mut delay = self.opts.backoff;
        let mut attempt = 0;
        loop {
            match once().await {
                Err(Failed::Before(status))
                    if status.code() == tonic::Code::Unavailable && attempt < self.opts.retries =>
                {
                    tracing::debug!(attempt, ?delay, "retrying Zoekt gRPC request");
                    tokio::time::sleep(delay).await;
                    delay *= 2;
                    attempt += 1;
                }
                Err(Failed::Before(status) | Failed::After(status)) => return Err(status),
                Ok(answer) => return Ok(answer),
            }
        }
    }

    async fn call_once<Req, Resp>(
        &self,
        path: &'static str,
        req: &Req,
        timeout: Duration,
    ) -> Result<Resp, tonic::Status>
    where
        Req: prost::Message + Clone + Send + Sync + 'static,
        Resp: prost::Message + Default + Send + Sync + 'static,
    {
        let mut grpc = tonic::client::Grpc::new(self.channel.clone())
            .max_decoding_message_size(self.decode_limit());
        grpc.ready()
            .await
            .map_err(|e| tonic::Status::unavailable(e.to_string()))?;
        let mut request = tonic::Request::new(req.clone());
        request.set_timeout(timeout);
        for (key, value) in &self.headers {
            request.metadata_mut().append(key.clone(), value.clone());
        }
        let codec = tonic_prost::ProstCodec::<Req, Resp>::default();
        let call = grpc.unary(request, PathAndQuery::from_static(path), codec);
        match tokio::time::timeout(timeout, call).await {
            Ok(answer) => answer.map(tonic::Response::into_inner),
            Err(_) => Err(tonic::Status::deadline_exceeded(
                "the client timeout ran out",
            )),
        }
    }

    /// The most bytes one gRPC answer may have. `--max-answer-bytes` bounds what an answer
    /// costs to hold once decoded, and it was set against JSON's bytes: protobuf writes the
    /// same files in about a quarter of them (no base64, no key names; docs/bench/transport.md
    /// measured 3.9 against 1.0 MB for a census, 0.9 against 0.2 MB for a fan-out window). The
    /// bound taken as is let a gRPC window hold four times the files of a JSON one, and
    /// decoding it peaked at 474 MiB where JSON's peaked at 180 (docs/bench/memory.md).
    fn decode_limit(&self) -> usize {
        (self.opts.max_answer_bytes / JSON_BYTES_PER_PROTOBUF_BYTE).max(1)
    }

    /// Zoekt's gRPC status in the client's terms.
    fn error(&self, status: tonic::Status, timeout: Duration, asked: Option<u32>) -> ZoektError {
        use tonic::Code;
        let message = status.message().to_string();
        if status.code() == Code::Unavailable {
            return ZoektError::Unreachable {
                url: self.url.clone(),
                reason: super::tls::explain_failure(with_cause(&status)),
            };
        }
        // A proxy in front of Zoekt refused the headers: tonic reads an HTTP 401 or 403 as
        // these codes, or (when the refusal has a body) as a broken message "while receiving
        // response with status: 401 Unauthorized". As over JSON, the hint names the header
        // settings.
        if let Some(http) = refused_with(&status) {
            return ZoektError::Server {
                status: http,
                message: super::tls::refused(http, &message),
            };
        }
        match status.code() {
            Code::DeadlineExceeded | Code::Cancelled => ZoektError::Timeout {
                after_ms: timeout.as_millis() as u64,
            },
            Code::InvalidArgument => ZoektError::Query { message },
            // tonic refuses a message over the decoding limit before reading it.
            Code::OutOfRange | Code::ResourceExhausted if message.contains("message length") => {
                ZoektError::TooBig {
                    limit: self.opts.max_answer_bytes,
                    within: asked.zip(answer_length(&message)).map(|(asked, length)| {
                        files_within(asked, self.decode_limit() as u64, length)
                    }),
                }
            }
            Code::Internal if message.contains("decode") => ZoektError::Malformed {
                reason: message,
                excerpt: String::new(),
            },
            // No gRPC answer at all (an HTTP/1 server, or a proxy that speaks HTTP/1 only to
            // the pager): say what would work.
            Code::Unknown | Code::Internal | Code::Unimplemented if not_grpc(&status) => {
                ZoektError::Server {
                    status: 502,
                    message: format!(
                        "gRPC {:?}: {} (no gRPC answer at this address: gRPC needs HTTP/2 end \
                         to end; if a proxy in front of Zoekt speaks HTTP/1 only, use \
                         --zoekt-transport json)",
                        status.code(),
                        with_cause(&status)
                    ),
                }
            }
            code => ZoektError::Server {
                status: 500,
                message: format!("gRPC {code:?}: {message}"),
            },
        }
    }
}

/// How a call failed: before any answer came (worth a retry when Zoekt is unavailable), or
/// after part of one did (never retried).
enum Failed {
    Before(tonic::Status),
    After(tonic::Status),
}

/// The length tonic found in a message over its decoding limit: it says "found N bytes".
fn answer_length(message: &str) -> Option<u64> {
    let (_, after) = message.split_once("found ")?;
    after.split_once(" bytes")?.0.trim().parse().ok()
}

/// The files an answer within `limit` bytes would hold, when `asked` files took `length`:
/// in proportion (files differ in size, so it is an estimate; a window still too big at it
/// is halved as before).
fn files_within(asked: u32, limit: u64, length: u64) -> u32 {
    let files = u64::from(asked).saturating_mul(limit) / length.max(1);
    u32::try_from(files).unwrap_or(u32::MAX).min(asked)
}

/// The HTTP status a proxy refused the call with, if that is what `status` says.
fn refused_with(status: &tonic::Status) -> Option<u16> {
    match status.code() {
        tonic::Code::Unauthenticated => return Some(401),
        tonic::Code::PermissionDenied => return Some(403),
        _ => {}
    }
    let message = status.message();
    ["401", "403"]
        .into_iter()
        .find(|code| message.contains(&format!("status: {code} ")))
        .and_then(|code| code.parse().ok())
}

/// Whether `status` says the other end did not answer in gRPC at all: no HTTP/2, no gRPC
/// service, or an HTTP answer that is not a gRPC message.
fn not_grpc(status: &tonic::Status) -> bool {
    if status.code() == tonic::Code::Unimplemented {
        return true;
    }
    let said = with_cause(status).to_ascii_lowercase();
    [
        "transport error",
        "http2",
        "h2 protocol",
        "invalid compression flag",
        "content-type",
    ]
    .iter()
    .any(|m| said.contains(m))
}

/// The status's message and what lies under it: tonic says "transport error" and keeps the
/// cause (a refused connection, an untrusted certificate) as its source.
fn with_cause(status: &tonic::Status) -> String {
    let mut said = status.message().to_string();
    let mut cause: Option<&dyn std::error::Error> = std::error::Error::source(status);
    while let Some(e) = cause {
        let text = e.to_string();
        if !said.contains(&text) {
            said = format!("{said}: {text}");
        }
        cause = e.source();
    }
    said
}

/// [`super::check::check_answer`] for a gRPC answer.
fn check(req: &proto::SearchRequest, answer: &proto::SearchResponse) -> Result<(), String> {
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    let asked = req
        .opts
        .as_ref()
        .map_or(0, |o| count(o.max_doc_display_count));
    check_for(asked, answer)
}

/// [`check`] for an answer to a request for `asked` files; for the start of an answer too big
/// to read whole, the files it holds.
fn check_for(asked: u64, answer: &proto::SearchResponse) -> Result<(), String> {
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    let file_count = answer.stats.as_ref().map_or(0, |s| count(s.file_count));
    let unnamed = answer
        .files
        .iter()
        .find(|f| f.file_name.is_empty() || f.repository.is_empty())
        .map(|f| (String::from_utf8_lossy(&f.file_name), f.repository.as_str()));
    super::check::check_files(
        asked,
        answer.files.len() as u64,
        file_count,
        unnamed.as_ref().map(|(p, r)| (p.as_ref(), *r)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_too_big_says_how_many_files_would_fit() {
        // tonic's words for a message over the decoding limit.
        let said = "Error, decoded message length too large: found 33554432 bytes, the limit is: \
                    8388608 bytes";
        assert_eq!(answer_length(said), Some(33_554_432));
        assert_eq!(answer_length("transport error"), None);
        // 113 files in 32 MiB, 8 MiB allowed: 28 would fit; never more than were asked.
        assert_eq!(files_within(113, 8 << 20, 32 << 20), 28);
        assert_eq!(files_within(3, 8 << 20, 1), 3);
        assert_eq!(files_within(1, 8 << 20, 32 << 20), 0);
    }
}
