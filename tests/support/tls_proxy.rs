//! A TLS terminator in front of a real zoekt-webserver, for the https tests: a CA and a server
//! certificate for 127.0.0.1 and localhost made at test time (rcgen), TLS by tokio-rustls,
//! and every request checked for one `Authorization` header before it is passed on to Zoekt
//! over plain http (401 otherwise, as an authenticating proxy answers). It speaks HTTP/1.1
//! (the JSON API) and, when the client asks for it in the handshake (ALPN), HTTP/2: gRPC
//! calls are passed on to Zoekt over HTTP/2 as they are, body and trailers streamed.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A running proxy; stops when dropped.
pub struct TlsProxy {
    /// `https://127.0.0.1:PORT`.
    pub url: String,
    /// The test CA's certificate (PEM): what `--zoekt-ca-file` must hold.
    pub ca_pem: String,
    /// Requests refused for a missing or wrong Authorization header.
    pub refused: Arc<AtomicU64>,
    /// gRPC calls passed on (over HTTP/2).
    pub grpc_calls: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for TlsProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A CA of its own that signed nothing a proxy serves: the wrong private CA to trust.
pub fn unrelated_ca_pem() -> String {
    certificates().0
}

/// A fresh CA and a certificate for 127.0.0.1/localhost it signed: (CA PEM, leaf DER, key DER).
fn certificates() -> (String, Vec<u8>, Vec<u8>) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "zoekt-pager test CA");
    ca.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::CrlSign,
    ];
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca, ca_key);
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".into()])
        .unwrap()
        .signed_by(&leaf_key, &issuer)
        .unwrap();
    (ca_cert.pem(), leaf.der().to_vec(), leaf_key.serialize_der())
}

impl TlsProxy {
    /// Serves https on 127.0.0.1:`port`, passing requests that carry `Authorization:
    /// {authorization}` on to the Zoekt at `upstream`.
    pub async fn start(upstream: &str, port: u16, authorization: &str) -> TlsProxy {
        let (ca_pem, cert, key) = certificates();
        let mut config = ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(cert)],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key)),
            )
            .unwrap();
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .unwrap_or_else(|e| panic!("cannot listen on 127.0.0.1:{port}: {e}"));
        let upstream = upstream.trim_end_matches('/').to_string();
        let expected = authorization.to_string();
        let refused = Arc::new(AtomicU64::new(0));
        let grpc_calls = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&refused);
        let calls = Arc::clone(&grpc_calls);
        let http = reqwest::Client::builder().no_proxy().build().unwrap();
        let task = tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    continue;
                };
                let (acceptor, upstream, expected, http, counter, calls) = (
                    acceptor.clone(),
                    upstream.clone(),
                    expected.clone(),
                    http.clone(),
                    Arc::clone(&counter),
                    Arc::clone(&calls),
                );
                tokio::spawn(async move {
                    // A client that does not trust the CA ends the handshake: nothing to serve.
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2".as_slice());
                    let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                        let (upstream, expected, http, counter, calls) = (
                            upstream.clone(),
                            expected.clone(),
                            http.clone(),
                            Arc::clone(&counter),
                            Arc::clone(&calls),
                        );
                        async move {
                            if !authorized(&req, &expected) {
                                counter.fetch_add(1, Ordering::Relaxed);
                                return Ok::<_, Infallible>(unauthorized());
                            }
                            Ok(if h2 {
                                calls.fetch_add(1, Ordering::Relaxed);
                                forward_h2(req, &upstream).await
                            } else {
                                forward(req, &upstream, &http).await
                            })
                        }
                    });
                    let io = TokioIo::new(tls);
                    if h2 {
                        let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                            .serve_connection(io, service)
                            .await;
                    } else {
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(io, service)
                            .await;
                    }
                });
            }
        });
        TlsProxy {
            url: format!("https://127.0.0.1:{port}"),
            ca_pem,
            refused,
            grpc_calls,
            task,
        }
    }
}

type Body = BoxBody<Bytes, hyper::Error>;

fn full(bytes: Bytes) -> Body {
    Full::new(bytes).map_err(|never| match never {}).boxed()
}

fn authorized(req: &Request<Incoming>, expected: &str) -> bool {
    req.headers()
        .get("authorization")
        .is_some_and(|v| v.as_bytes() == expected.as_bytes())
}

/// What an authenticating proxy answers without the right header (over HTTP/2 too: a gRPC
/// client reads HTTP 401 as UNAUTHENTICATED).
fn unauthorized() -> Response<Body> {
    Response::builder()
        .status(StatusCode::UNAUTHORIZED)
        .body(full(Bytes::from_static(b"missing or wrong bearer token\n")))
        .unwrap()
}

/// An HTTP/1.1 request (the JSON API) passed on to Zoekt, its answer read whole.
async fn forward(req: Request<Incoming>, upstream: &str, http: &reqwest::Client) -> Response<Body> {
    let method = req.method().clone();
    let path = req
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let content_type = req.headers().get("content-type").cloned();
    let body = req.into_body().collect().await.unwrap().to_bytes();
    let mut out = http.request(method, format!("{upstream}{path}")).body(body);
    if let Some(ct) = content_type {
        out = out.header("content-type", ct);
    }
    match out.send().await {
        Ok(resp) => {
            let status = resp.status();
            let bytes = resp.bytes().await.unwrap_or_default();
            Response::builder()
                .status(status.as_u16())
                .header("content-type", "application/json")
                .body(full(bytes))
                .unwrap()
        }
        Err(_) => bad_gateway(),
    }
}

fn bad_gateway() -> Response<Body> {
    Response::builder()
        .status(StatusCode::BAD_GATEWAY)
        .body(full(Bytes::new()))
        .unwrap()
}

/// An HTTP/2 request (a gRPC call) passed on to Zoekt over HTTP/2 without TLS, on a
/// connection of its own: headers, body and trailers as they are, streamed both ways.
async fn forward_h2(req: Request<Incoming>, upstream: &str) -> Response<Body> {
    let authority = upstream.trim_start_matches("http://").to_string();
    let Ok(tcp) = tokio::net::TcpStream::connect(&authority).await else {
        return bad_gateway();
    };
    let Ok((mut sender, conn)) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tcp)).await
    else {
        return bad_gateway();
    };
    tokio::spawn(conn);
    let (mut parts, body) = req.into_parts();
    let path = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    parts.uri = format!("http://{authority}{path}").parse().unwrap();
    match sender.send_request(Request::from_parts(parts, body)).await {
        Ok(resp) => resp.map(|b| b.boxed()),
        Err(_) => bad_gateway(),
    }
}
