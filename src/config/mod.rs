//! Configuration shared by the server and the CLI: flags with environment fallbacks, so the
//! same binary is configured by `claude mcp add ... -e ZOEKT_URL=...` or by a Kubernetes
//! manifest without a config file.

use std::path::PathBuf;
use std::time::Duration;

mod pager;
mod transport;

use clap::Args;

use crate::engine::config::{CacheConfig, PagerConfig};
use crate::zoekt::ClientOptions;
pub use pager::{CacheFlags, PagerFlags};

/// Settings of the server and the CLI: where Zoekt is, how to talk to it, the engine's
/// limits, and logging.
#[derive(Debug, Clone, Args)]
pub struct Config {
    /// Base URL of a zoekt-webserver (http:// or https://); several,
    /// comma-separated or the flag repeated, when the index is partitioned over several
    /// webservers (each page is searched on all of them and merged).
    #[arg(
        long,
        env = "ZOEKT_URL",
        default_value = "http://127.0.0.1:6070",
        global = true
    )]
    pub zoekt_url: Vec<String>,
    /// TLS roots, headers and the fan-out's policy.
    #[command(flatten)]
    pub transport: TransportArgs,
    /// How to talk to Zoekt.
    #[command(flatten)]
    pub client: ClientOptions,
    /// The paging engine's limits, as flags ([`Config::pager`] is the engine's settings).
    #[command(flatten)]
    pub pager_flags: PagerFlags,
    /// The window cache's bounds, as flags ([`Config::cache`]).
    #[command(flatten)]
    pub cache_flags: CacheFlags,
    /// The most one tool call may take, in milliseconds, every Zoekt request and retry
    /// included; past it the call ends with BACKEND_TIMEOUT and its requests are dropped.
    #[arg(
        long,
        env = "ZOEKT_PAGER_CALL_TIMEOUT_MS",
        default_value_t = crate::mcp::DEFAULT_CALL_TIMEOUT.as_millis() as u64,
        global = true
    )]
    pub call_timeout_ms: u64,
    /// What a paged tool's result holds: `both` (the text block, and `structuredContent`
    /// with its outputSchema) or `text` (the text block alone: no outputSchema, no
    /// `structuredContent`), for hosts that hand the model the structured form when there is
    /// one but read the text better.
    #[arg(
        long,
        env = "ZOEKT_PAGER_PAGE_FORMS",
        default_value = "both",
        value_parser = ["both", "text"],
        global = true
    )]
    pub page_forms: String,
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

/// Flags of the connection to Zoekt besides its URLs.
#[derive(Debug, Clone, Default, Args)]
pub struct TransportArgs {
    /// PEM file of CA certificates to trust for https Zoekt URLs, besides the system's (a
    /// private CA).
    #[arg(
        long,
        env = "ZOEKT_PAGER_ZOEKT_CA_FILE",
        value_name = "PATH",
        global = true
    )]
    pub zoekt_ca_file: Option<PathBuf>,
    /// File of headers sent on every request to Zoekt, one `Name: value` a line (e.g.
    /// `Authorization: Bearer ...`); or set ZOEKT_PAGER_ZOEKT_HEADERS to the same text.
    #[arg(
        long,
        env = "ZOEKT_PAGER_ZOEKT_HEADER_FILE",
        value_name = "PATH",
        global = true
    )]
    pub zoekt_header_file: Option<PathBuf>,
    /// Fail a page when any Zoekt backend fails, instead of serving it from the others with
    /// a warning naming the missing one.
    #[arg(long, env = "ZOEKT_PAGER_REQUIRE_ALL_BACKENDS", global = true)]
    pub require_all_backends: bool,
}

impl Config {
    /// The paging engine's settings, as the flags and environment give them.
    pub fn pager(&self) -> PagerConfig {
        self.pager_flags.into()
    }

    /// The window cache's bounds, as the flags and environment give them.
    pub fn cache(&self) -> CacheConfig {
        self.cache_flags.into()
    }

    /// Checks that the settings make sense together; the message names the flag to fix.
    pub fn validate(&self) -> Result<(), String> {
        self.pager().validate()?;
        if self.call_timeout_ms == 0 {
            return Err("--call-timeout-ms must be at least 1".into());
        }
        self.zoekt_urls()?;
        Ok(())
    }
}

impl Config {
    /// Every Zoekt base URL given, checked (the message names the bad one).
    pub fn zoekt_urls(&self) -> Result<Vec<String>, String> {
        crate::zoekt::tls::check_urls(&self.zoekt_url)
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
    /// Browser Origin values /mcp accepts (comma separated, e.g. `https://app.example:443`;
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
    /// How long an HTTP connection may sit idle, or take to send a request's headers, before
    /// it is closed, in ms.
    #[arg(
        long,
        env = "ZOEKT_PAGER_HTTP_HEADER_TIMEOUT_MS",
        default_value_t = 10_000
    )]
    pub http_header_timeout_ms: u64,
    /// How long a request's body may take to arrive before the answer is 408, in ms.
    #[arg(
        long,
        env = "ZOEKT_PAGER_HTTP_BODY_TIMEOUT_MS",
        default_value_t = 10_000
    )]
    pub http_body_timeout_ms: u64,
    /// Most HTTP connections open at once. At the cap the oldest idle ones are closed to make
    /// room; only when all run a call is a new one answered 503.
    #[arg(long, env = "ZOEKT_PAGER_HTTP_MAX_CONNECTIONS", default_value_t = 512)]
    pub http_max_connections: usize,
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
        for (flag, value) in [
            ("--http-header-timeout-ms", self.http_header_timeout_ms),
            ("--http-body-timeout-ms", self.http_body_timeout_ms),
            ("--http-max-connections", self.http_max_connections as u64),
        ] {
            if value == 0 {
                return Err(format!("{flag} must be at least 1"));
            }
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
            header_timeout: Duration::from_millis(self.http_header_timeout_ms),
            body_timeout: Duration::from_millis(self.http_body_timeout_ms),
            max_connections: self.http_max_connections,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        config: Config,
    }

    #[test]
    fn flags_default_to_the_client_and_engine_defaults() {
        // `--timeout-ms` spells its default as text: it must say what ClientOptions says.
        let config = Flags::try_parse_from(["x"]).unwrap().config;
        assert_eq!(config.client, ClientOptions::DEFAULT);
        assert_eq!(config.pager(), PagerConfig::DEFAULT);
        let config = Flags::try_parse_from(["x", "--timeout-ms", "250"])
            .unwrap()
            .config;
        assert_eq!(config.client.timeout, Duration::from_millis(250));
    }

    #[test]
    fn zoekt_urls_are_http_or_https_comma_separated_or_repeated() {
        let with = |args: &[&str]| {
            let mut argv = vec!["x"];
            argv.extend_from_slice(args);
            Flags::try_parse_from(argv).unwrap().config
        };
        let c = with(&[]);
        assert_eq!(c.zoekt_urls().unwrap(), ["http://127.0.0.1:6070"]);
        let c = with(&["--zoekt-url", "http://zoekt:6070"]);
        assert_eq!(c.validate(), Ok(()));
        let c = with(&[
            "--zoekt-url",
            "https://a:443,http://b:6070",
            "--zoekt-url",
            "http://c:6070",
        ]);
        assert_eq!(
            c.zoekt_urls().unwrap(),
            ["https://a:443", "http://b:6070", "http://c:6070"]
        );
        let e = with(&["--zoekt-url", "http://a:6070,zoekt:6070"])
            .validate()
            .unwrap_err();
        assert!(e.contains("zoekt:6070"), "{e}");
    }
}
