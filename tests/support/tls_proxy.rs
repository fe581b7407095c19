//! A TLS terminator in front of a real zoekt-webserver, for the https tests: a CA and a server
//! certificate for 127.0.0.1 and localhost made at test time (rcgen), TLS by tokio-rustls,
//! and every request checked for one `Authorization` header before it is passed on to Zoekt
//! over plain http (401 otherwise, as an authenticating proxy answers).

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
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
        let config = ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(cert)],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key)),
            )
            .unwrap();
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .unwrap_or_else(|e| panic!("cannot listen on 127.0.0.1:{port}: {e}"));
        let upstream = upstream.trim_end_matches('/').to_string();
        let expected = authorization.to_string();
        let refused = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&refused);
        let http = reqwest::Client::builder().no_proxy().build().unwrap();
        let task = tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    continue;
                };
                let (acceptor, upstream, expected, http, counter) = (
                    acceptor.clone(),
                    upstream.clone(),
                    expected.clone(),
                    http.clone(),
                    Arc::clone(&counter),
                );
                tokio::spawn(async move {
                    // A client that does not trust the CA ends the handshake: nothing to serve.
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                        let (upstream, expected, http, counter) = (
                            upstream.clone(),
                            expected.clone(),
                            http.clone(),
                            Arc::clone(&counter),
                        );
                        async move {
                            Ok::<_, Infallible>(
                                forward(req, &upstream, &expected, &http, &counter).await,
                            )
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
                });
            }
        });
        TlsProxy {
            url: format!("https://127.0.0.1:{port}"),
            ca_pem,
            refused,
            task,
        }
    }
}

async fn forward(
    req: Request<Incoming>,
    upstream: &str,
    expected: &str,
    http: &reqwest::Client,
    refused: &AtomicU64,
) -> Response<Full<Bytes>> {
    let authorized = req
        .headers()
        .get("authorization")
        .is_some_and(|v| v.as_bytes() == expected.as_bytes());
    if !authorized {
        refused.fetch_add(1, Ordering::Relaxed);
        return Response::builder()
            .status(StatusCode::UNAUTHORIZED)
            .body(Full::new(Bytes::from_static(
                b"missing or wrong bearer token\n",
            )))
            .unwrap();
    }
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
                .body(Full::new(bytes))
                .unwrap()
        }
        Err(_) => Response::builder()
            .status(StatusCode::BAD_GATEWAY)
            .body(Full::new(Bytes::new()))
            .unwrap(),
    }
}
