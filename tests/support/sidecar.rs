//! A real `zoekt-pager serve --http` child process, for tests that go through HTTP.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};

use super::mcp::Client;

/// A running `zoekt-pager serve --http 127.0.0.1:0`, killed on drop.
pub struct Sidecar {
    pub child: tokio::process::Child,
    pub base: String,
    pub log: PathBuf,
}

static LOGS: AtomicUsize = AtomicUsize::new(0);

impl Sidecar {
    /// Starts a sidecar against `zoekt_url`; `env` adds settings on top of the defaults (the
    /// test environment's own ZOEKT_PAGER_* settings are dropped).
    pub async fn start(zoekt_url: &str, env: &[(&str, &str)]) -> Sidecar {
        let log = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "sidecar-{}-{}.log",
            std::process::id(),
            LOGS.fetch_add(1, Ordering::Relaxed)
        ));
        let mut cmd = super::pager_command(zoekt_url);
        cmd.args(["serve", "--http", "127.0.0.1:0"])
            .env("ZOEKT_PAGER_LOG", "info")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .kill_on_drop(true);
        let mut child = cmd.spawn().expect("spawn zoekt-pager serve --http");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("the sidecar prints its address")
            .unwrap()
            .unwrap_or_else(|| {
                panic!(
                    "no address; log: {}",
                    std::fs::read_to_string(&log).unwrap()
                )
            });
        let url = line
            .rsplit(' ')
            .next()
            .and_then(|u| u.strip_suffix("/mcp"))
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        Sidecar {
            child,
            base: url,
            log,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn client(&self) -> Client {
        self.client_with(None).await
    }

    pub async fn client_with(&self, token: Option<&str>) -> Client {
        let mut cfg = StreamableHttpClientTransportConfig::with_uri(self.url("/mcp"));
        if let Some(t) = token {
            cfg = cfg.auth_header(t);
        }
        ().serve(StreamableHttpClientTransport::from_config(cfg))
            .await
            .expect("MCP initialize over HTTP")
    }

    /// Sends SIGTERM, as a cluster does to stop a pod.
    pub fn terminate(&self) {
        let pid = self.child.id().expect("the sidecar is running").to_string();
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap();
        assert!(sent.success(), "kill -TERM {pid}");
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// POSTs an MCP `initialize` to /mcp with extra headers, as a raw HTTP client would.
    pub async fn post_initialize(&self, headers: &[(&str, &str)]) -> reqwest::Response {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}});
        let mut r = http()
            .post(self.url("/mcp"))
            .header("Accept", "application/json, text/event-stream")
            .json(&init);
        for (k, v) in headers {
            r = r.header(*k, *v);
        }
        r.send().await.expect("POST /mcp")
    }

    pub async fn get(&self, path: &str) -> (u16, String) {
        let r = http().get(self.url(path)).send().await.expect("GET");
        (r.status().as_u16(), r.text().await.unwrap())
    }

    /// Raw TCP to the sidecar, for clients that misbehave in ways reqwest will not.
    pub async fn raw_connection(&self) -> tokio::net::TcpStream {
        let addr = self.base.trim_start_matches("http://");
        tokio::net::TcpStream::connect(addr).await.expect("connect")
    }

    /// Sends `request` on a new raw connection and reads what the server says until it
    /// closes the connection (`None`: still open after `within_secs`).
    pub async fn send_raw(&self, request: &[u8], within_secs: u64) -> Option<String> {
        use tokio::io::AsyncWriteExt;
        let mut stream = self.raw_connection().await;
        stream.write_all(request).await.unwrap();
        read_until_closed(&mut stream, Duration::from_secs(within_secs)).await
    }
}

/// Reads until the server closes the connection (or `within` passes): what it said.
pub async fn read_until_closed(
    stream: &mut tokio::net::TcpStream,
    within: Duration,
) -> Option<String> {
    use tokio::io::AsyncReadExt;
    let mut said = Vec::new();
    let read = tokio::time::timeout(within, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => said.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    read.ok()
        .map(|()| String::from_utf8_lossy(&said).into_owned())
}

pub fn http() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// The value of one sample line in a `/metrics` text, 0 when absent.
pub fn sample(metrics: &str, series: &str) -> f64 {
    metrics
        .lines()
        .find_map(|l| {
            l.strip_prefix(series)
                .and_then(|rest| rest.trim().parse().ok())
        })
        .unwrap_or(0.0)
}
