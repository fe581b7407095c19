//! The server under test: the `zoekt-pager` binary spawned with `serve --http`, the MCP
//! client that talks to it, and the plain HTTP client for /metrics and raw Zoekt.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};
use tokio::io::{AsyncBufReadExt, BufReader};

pub(crate) type Client = RunningService<RoleClient, ()>;

pub(crate) fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("reqwest client")
}

/// A running `zoekt-pager serve --http 127.0.0.1:0`, killed on drop.
pub(crate) struct Server {
    child: tokio::process::Child,
    base: String,
}

impl Server {
    /// Starts the server binary against `zoekt_url`, with the window cache on (defaults) or
    /// off. The caller's own ZOEKT_PAGER_* settings are dropped; logs go to stderr, errors only.
    pub(crate) async fn start(bin: &Path, zoekt_url: &str, cache_on: bool) -> Server {
        let mut cmd = tokio::process::Command::new(bin);
        for (k, _) in std::env::vars().filter(|(k, _)| k.starts_with("ZOEKT_PAGER_")) {
            cmd.env_remove(k);
        }
        if !cache_on {
            cmd.args(["--cache-bytes", "0"]);
        }
        cmd.args(["serve", "--http", "127.0.0.1:0"])
            .env("ZOEKT_URL", zoekt_url)
            // Over JSON: the bench counts Zoekt requests through the recording proxy, which
            // sees JSON exchanges only.
            .env("ZOEKT_PAGER_ZOEKT_TRANSPORT", "json")
            .env("ZOEKT_PAGER_LOG", "error")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", bin.display()));
        let stdout = child.stdout.take().expect("piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("the server prints its address within 20 s")
            .expect("read the server's stdout")
            .expect("the server printed its address");
        let base = line
            .rsplit(' ')
            .next()
            .and_then(|u| u.strip_suffix("/mcp"))
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        Server { child, base }
    }

    pub(crate) async fn client(&self) -> Client {
        let cfg = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", self.base));
        ().serve(StreamableHttpClientTransport::from_config(cfg))
            .await
            .expect("MCP initialize over HTTP")
    }

    /// A field of /proc/<pid>/status in KiB (`VmHWM`: peak RSS, `VmRSS`: now).
    pub(crate) fn status_kib(&self, field: &str) -> Option<u64> {
        let pid = self.child.id()?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    /// One unlabelled metric from /metrics.
    pub(crate) async fn metric(&self, name: &str) -> Option<u64> {
        let r = http()
            .get(format!("{}/metrics", self.base))
            .send()
            .await
            .ok()?;
        let text = r.text().await.ok()?;
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
            .and_then(|v| v.trim().parse().ok())
    }

    /// The window cache's counters (`zoekt_pager_cache_*_total`) from /metrics.
    pub(crate) async fn cache_counters(&self) -> BTreeMap<String, u64> {
        let Ok(r) = http().get(format!("{}/metrics", self.base)).send().await else {
            return BTreeMap::new();
        };
        let text = r.text().await.unwrap_or_default();
        text.lines()
            .filter_map(|l| {
                let (name, v) = l.split_once(' ')?;
                let name = name
                    .strip_prefix("zoekt_pager_cache_")?
                    .strip_suffix("_total")?;
                Some((name.to_string(), v.trim().parse().ok()?))
            })
            .collect()
    }

    pub(crate) async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

pub(crate) async fn call(client: &Client, tool: &str, args: Map<String, Value>) -> CallToolResult {
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
    client
        .call_tool(params)
        .await
        .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"))
}

pub(crate) fn text_of(r: &CallToolResult) -> String {
    r.content
        .first()
        .and_then(|b| b.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default()
}

pub(crate) fn server_binary() -> PathBuf {
    std::env::var_os("ZOEKT_PAGER_BIN")
        .filter(|v| !v.is_empty())
        .map_or_else(
            || PathBuf::from(env!("CARGO_BIN_EXE_zoekt-pager")),
            PathBuf::from,
        )
}
