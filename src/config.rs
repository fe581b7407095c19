//! Configuration shared by the server and the CLI: flags with environment fallbacks, so the
//! same binary is configured by `claude mcp add ... -e ZOEKT_URL=...` or by a Kubernetes
//! manifest without a config file.

use std::time::Duration;

use clap::Args;

use crate::page::{Effort, PagerConfig, ReadLimits};
use crate::zoekt::ClientOptions;

#[derive(Debug, Clone, Args)]
pub struct Config {
    /// Base URL of a zoekt-webserver started with -rpc.
    #[arg(
        long,
        env = "ZOEKT_URL",
        default_value = "http://127.0.0.1:6070",
        global = true
    )]
    pub zoekt_url: String,
    /// Items per page when a call gives no limit.
    #[arg(
        long,
        env = "ZOEKT_PAGER_DEFAULT_LIMIT",
        default_value_t = defaults().default_limit,
        global = true
    )]
    pub default_limit: u32,
    /// Largest limit a call may ask for.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_LIMIT",
        default_value_t = defaults().max_limit,
        global = true
    )]
    pub max_limit: u32,
    /// Largest item offset a cursor may reach.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_OFFSET",
        default_value_t = defaults().max_offset,
        global = true
    )]
    pub max_offset: u64,
    /// Largest number of files asked of Zoekt in one request (MaxDocDisplayCount ceiling).
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_WINDOW",
        default_value_t = defaults().max_window,
        global = true
    )]
    pub max_window: u32,
    /// Timeout of one HTTP request to Zoekt, in milliseconds.
    #[arg(
        long,
        env = "ZOEKT_PAGER_TIMEOUT_MS",
        default_value_t = ClientOptions::default().timeout.as_millis() as u64,
        global = true
    )]
    pub timeout_ms: u64,
    /// Retries when Zoekt refuses connections or answers 502/503/504.
    #[arg(long, env = "ZOEKT_PAGER_RETRIES", default_value_t = ClientOptions::default().retries, global = true)]
    pub retries: u32,
    /// Zoekt ShardMaxMatchCount, the same for every page of every query.
    #[arg(
        long,
        env = "ZOEKT_PAGER_SHARD_MAX_MATCH_COUNT",
        default_value_t = defaults().effort.shard_max_match_count,
        global = true
    )]
    pub shard_max_match_count: u32,
    /// Zoekt TotalMaxMatchCount, the same for every page of every query.
    #[arg(
        long,
        env = "ZOEKT_PAGER_TOTAL_MAX_MATCH_COUNT",
        default_value_t = defaults().effort.total_max_match_count,
        global = true
    )]
    pub total_max_match_count: u32,
    /// Zoekt MaxWallTime, in milliseconds.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_WALL_TIME_MS",
        default_value_t = defaults().effort.max_wall_time.as_millis() as u64,
        global = true
    )]
    pub max_wall_time_ms: u64,
    /// Approximate bound, in bytes, on one tool result (text block + structured content): a
    /// bigger page ends early and its cursor continues after the last item, keeping results
    /// inside a model's token budget. The text repeats the items, so their JSON gets half.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_RESPONSE_BYTES",
        default_value_t = defaults().max_page_bytes * 2,
        global = true
    )]
    pub max_response_bytes: usize,
    /// Most lines one read_file call (or file resource) returns.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_READ_LINES",
        default_value_t = defaults().read.max_lines,
        global = true
    )]
    pub max_read_lines: u32,
    /// Most bytes of file content one read_file call (or file resource) returns.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_READ_BYTES",
        default_value_t = defaults().read.max_bytes,
        global = true
    )]
    pub max_read_bytes: usize,
    /// Log format on stderr: text or json.
    #[arg(
        long,
        env = "ZOEKT_PAGER_LOG_FORMAT",
        default_value = "text",
        value_parser = ["text", "json"],
        global = true
    )]
    pub log_format: String,
}

/// The engine's defaults: the one place the default numbers live (flags show them as theirs).
fn defaults() -> PagerConfig {
    PagerConfig::default()
}

impl Config {
    /// Checks that the settings make sense together; the message names the flag to fix.
    pub fn validate(&self) -> Result<(), String> {
        if self.max_limit == 0 || self.default_limit == 0 {
            return Err("--default-limit and --max-limit must be at least 1".into());
        }
        if self.default_limit > self.max_limit {
            return Err(format!(
                "--default-limit ({}) is larger than --max-limit ({})",
                self.default_limit, self.max_limit
            ));
        }
        if self.max_window == 0 {
            return Err("--max-window must be at least 1".into());
        }
        if self.shard_max_match_count == 0 || self.total_max_match_count == 0 {
            return Err("Zoekt match counts must be at least 1 (0 lets Zoekt derive them from the page, which breaks paging)".into());
        }
        if self.max_response_bytes < 1_000 {
            return Err("--max-response-bytes must be at least 1000".into());
        }
        if self.max_read_lines == 0 || self.max_read_bytes < 100 {
            return Err(
                "--max-read-lines must be at least 1 and --max-read-bytes at least 100".into(),
            );
        }
        if !(self.zoekt_url.starts_with("http://") || self.zoekt_url.starts_with("https://")) {
            return Err(format!(
                "--zoekt-url must start with http:// or https:// (got {})",
                self.zoekt_url
            ));
        }
        Ok(())
    }

    pub fn pager(&self) -> PagerConfig {
        PagerConfig {
            default_limit: self.default_limit,
            max_limit: self.max_limit,
            max_offset: self.max_offset,
            max_window: self.max_window,
            max_context_lines: defaults().max_context_lines,
            effort: Effort {
                shard_max_match_count: self.shard_max_match_count,
                total_max_match_count: self.total_max_match_count,
                max_wall_time: Duration::from_millis(self.max_wall_time_ms),
            },
            // The text block repeats the items, so their JSON gets half of the bound.
            max_page_bytes: self.max_response_bytes / 2,
            read: ReadLimits {
                max_lines: self.max_read_lines,
                max_bytes: self.max_read_bytes,
            },
        }
    }

    pub fn client(&self) -> ClientOptions {
        ClientOptions {
            timeout: Duration::from_millis(self.timeout_ms),
            retries: self.retries,
            ..ClientOptions::default()
        }
    }
}

/// Settings of `serve --http` (sidecar mode).
#[derive(Debug, Clone, Args)]
pub struct HttpArgs {
    /// Serve MCP over streamable HTTP at ADDR (e.g. 127.0.0.1:8080) instead of stdio; /mcp,
    /// /healthz, /readyz and /metrics share the listener.
    #[arg(long, env = "ZOEKT_PAGER_HTTP_ADDR", value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    /// Allow --http on a non-loopback address (set --allowed-hosts to the names clients use).
    #[arg(long, env = "ZOEKT_PAGER_ALLOW_REMOTE")]
    pub allow_remote: bool,
    /// File holding the bearer token /mcp requires (the token may also come from
    /// ZOEKT_PAGER_AUTH_TOKEN; never pass it as a flag, where `ps` would show it).
    #[arg(long, env = "ZOEKT_PAGER_AUTH_TOKEN_FILE", value_name = "PATH")]
    pub auth_token_file: Option<std::path::PathBuf>,
    /// Host header values /mcp accepts (comma separated; `*` accepts any).
    #[arg(
        long,
        env = "ZOEKT_PAGER_ALLOWED_HOSTS",
        value_delimiter = ',',
        default_value = "localhost,127.0.0.1,::1"
    )]
    pub allowed_hosts: Vec<String>,
    /// Browser Origin values /mcp accepts (comma separated, e.g. https://app.example:443;
    /// `*` accepts any). Default: the allowed hosts, http or https, any port.
    #[arg(long, env = "ZOEKT_PAGER_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,
    /// How long /readyz waits for Zoekt, in milliseconds.
    #[arg(long, env = "ZOEKT_PAGER_READY_TIMEOUT_MS", default_value_t = 3_000)]
    pub ready_timeout_ms: u64,
    /// After SIGTERM, how long in-flight calls may finish before the process exits, in ms.
    #[arg(long, env = "ZOEKT_PAGER_SHUTDOWN_GRACE_MS", default_value_t = 30_000)]
    pub shutdown_grace_ms: u64,
    /// Largest accepted HTTP request body, in bytes.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_REQUEST_BYTES",
        default_value_t = 1_048_576
    )]
    pub max_request_bytes: usize,
}

impl HttpArgs {
    /// The token from ZOEKT_PAGER_AUTH_TOKEN or --auth-token-file (not both), trimmed.
    pub fn token(&self) -> Result<Option<String>, String> {
        // Set but blank (say, a secret that failed to mount) is an error, never "no auth".
        let from_env =
            std::env::var_os("ZOEKT_PAGER_AUTH_TOKEN").map(|t| t.to_string_lossy().into_owned());
        let from_file = match &self.auth_token_file {
            Some(p) => Some(
                std::fs::read_to_string(p)
                    .map_err(|e| format!("cannot read --auth-token-file {}: {e}", p.display()))?,
            ),
            None => None,
        };
        let token = match (from_env, from_file) {
            (Some(_), Some(_)) => {
                return Err("set ZOEKT_PAGER_AUTH_TOKEN or --auth-token-file, not both".into());
            }
            (Some(t), None) | (None, Some(t)) => Some(t.trim().to_string()),
            (None, None) => None,
        };
        match token {
            Some(t) if t.is_empty() || t.chars().any(|c| c.is_whitespace() || c.is_control()) => {
                Err("the auth token must be non-empty, without spaces or control characters".into())
            }
            t => Ok(t),
        }
    }

    /// Checks the address against --allow-remote and builds the listener options.
    pub fn options(&self, addr: std::net::SocketAddr) -> Result<crate::http::HttpOptions, String> {
        if !crate::http::is_loopback(&addr) && !self.allow_remote {
            return Err(format!(
                "--http {addr} is not a loopback address: pass --allow-remote (and set --allowed-hosts and a token) to serve beyond this machine"
            ));
        }
        let hosts: Vec<String> = self
            .allowed_hosts
            .iter()
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .collect();
        // rmcp reads an empty list as "any host": only an explicit `*` may mean that.
        if hosts.is_empty() {
            return Err(
                "--allowed-hosts is empty: list the Host names clients use, or `*` to accept any"
                    .into(),
            );
        }
        let origins = if self.allowed_origins.is_empty() {
            crate::http::origins_for(&hosts)
        } else {
            self.allowed_origins.clone()
        };
        Ok(crate::http::HttpOptions {
            token: self.token()?,
            allowed_hosts: hosts,
            allowed_origins: origins,
            ready_timeout: Duration::from_millis(self.ready_timeout_ms),
            shutdown_grace: Duration::from_millis(self.shutdown_grace_ms),
            max_request_bytes: self.max_request_bytes,
        })
    }
}
