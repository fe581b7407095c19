//! Zoekt's gRPC API (`zoekt.webserver.v1.WebserverService`), which every zoekt-webserver
//! serves on its HTTP port (HTTP/2 beside HTTP/1), with or without `-rpc`.
//!
//! Against `/api/search` it sends protobuf: a third of the bytes, file contents and lines as
//! raw bytes with no base64, and only the fields declared in [`proto`] built on decode. It
//! takes a parsed query tree, so the client parses Zoekt's query language ([`query`]); a
//! query the parser cannot be sure of goes over JSON (`zoekt/backend.rs`).
//!
//! The client knows Zoekt's failure modes and nothing about pages, as the JSON one.

mod expr;
pub mod proto;
pub mod query;
mod tokens;
mod words;

use std::time::Duration;

use tonic::codegen::http::uri::PathAndQuery;
use tonic::metadata::{AsciiMetadataValue, MetadataKey};
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};

use super::error::ZoektError;
use super::options::ClientOptions;
use super::tls::Transport;

/// The one method the pager calls.
const SEARCH: &str = "/zoekt.webserver.v1.WebserverService/Search";

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
        let answer = self.search_retried(req).await?;
        check(req, &answer).map_err(|reason| ZoektError::Contradiction { reason })?;
        Ok(answer)
    }

    async fn search_retried(
        &self,
        req: &proto::SearchRequest,
    ) -> Result<proto::SearchResponse, ZoektError> {
        let mut delay = self.opts.backoff;
        let mut attempt = 0;
        loop {
            match self.search_once(req).await {
                Err(status)
                    if status.code() == tonic::Code::Unavailable && attempt < self.opts.retries =>
                {
                    tracing::debug!(attempt, ?delay, "retrying Zoekt gRPC request");
                    tokio::time::sleep(delay).await;
                    delay *= 2;
                    attempt += 1;
                }
                Err(status) => return Err(self.error(status)),
                Ok(resp) => return Ok(resp),
            }
        }
    }

    async fn search_once(
        &self,
        req: &proto::SearchRequest,
    ) -> Result<proto::SearchResponse, tonic::Status> {
        let mut grpc = tonic::client::Grpc::new(self.channel.clone())
            .max_decoding_message_size(self.opts.max_answer_bytes);
        grpc.ready()
            .await
            .map_err(|e| tonic::Status::unavailable(e.to_string()))?;
        let mut request = tonic::Request::new(req.clone());
        request.set_timeout(self.opts.timeout);
        for (key, value) in &self.headers {
            request.metadata_mut().append(key.clone(), value.clone());
        }
        let codec = tonic_prost::ProstCodec::default();
        let call = grpc.unary(request, PathAndQuery::from_static(SEARCH), codec);
        match tokio::time::timeout(self.opts.timeout, call).await {
            Ok(answer) => answer.map(tonic::Response::into_inner),
            Err(_) => Err(tonic::Status::deadline_exceeded(
                "the client timeout ran out",
            )),
        }
    }

    /// Zoekt's gRPC status in the client's terms.
    fn error(&self, status: tonic::Status) -> ZoektError {
        use tonic::Code;
        let message = status.message().to_string();
        match status.code() {
            Code::Unavailable => ZoektError::Unreachable {
                url: self.url.clone(),
                reason: super::tls::explain_failure(message),
            },
            Code::DeadlineExceeded | Code::Cancelled => ZoektError::Timeout {
                after_ms: self.opts.timeout.as_millis() as u64,
            },
            Code::InvalidArgument => ZoektError::Query { message },
            // tonic refuses a message over the decoding limit before reading it.
            Code::OutOfRange | Code::ResourceExhausted if message.contains("message length") => {
                ZoektError::TooBig {
                    limit: self.opts.max_answer_bytes,
                }
            }
            Code::Internal if message.contains("decode") => ZoektError::Malformed {
                reason: message,
                excerpt: String::new(),
            },
            code => ZoektError::Server {
                status: 500,
                message: format!("gRPC {code:?}: {message}"),
            },
        }
    }
}

/// [`super::check::check_answer`] for a gRPC answer.
fn check(req: &proto::SearchRequest, answer: &proto::SearchResponse) -> Result<(), String> {
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    let asked = req
        .opts
        .as_ref()
        .map_or(0, |o| count(o.max_doc_display_count));
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
