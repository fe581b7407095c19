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
        default_value_t = 30,
        global = true
    )]
    pub default_limit: u32,
    /// Largest limit a call may ask for.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_LIMIT",
        default_value_t = 100,
        global = true
    )]
    pub max_limit: u32,
    /// Largest item offset a cursor may reach.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_OFFSET",
        default_value_t = 5_000,
        global = true
    )]
    pub max_offset: u64,
    /// Largest number of files asked of Zoekt in one request (MaxDocDisplayCount ceiling).
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_WINDOW",
        default_value_t = 5_000,
        global = true
    )]
    pub max_window: u32,
    /// Timeout of one HTTP request to Zoekt, in milliseconds.
    #[arg(
        long,
        env = "ZOEKT_PAGER_TIMEOUT_MS",
        default_value_t = 30_000,
        global = true
    )]
    pub timeout_ms: u64,
    /// Retries when Zoekt refuses connections or answers 502/503/504.
    #[arg(long, env = "ZOEKT_PAGER_RETRIES", default_value_t = 2, global = true)]
    pub retries: u32,
    /// Zoekt ShardMaxMatchCount, the same for every page of every query.
    #[arg(
        long,
        env = "ZOEKT_PAGER_SHARD_MAX_MATCH_COUNT",
        default_value_t = 10_000,
        global = true
    )]
    pub shard_max_match_count: u32,
    /// Zoekt TotalMaxMatchCount, the same for every page of every query.
    #[arg(
        long,
        env = "ZOEKT_PAGER_TOTAL_MAX_MATCH_COUNT",
        default_value_t = 100_000,
        global = true
    )]
    pub total_max_match_count: u32,
    /// Zoekt MaxWallTime, in milliseconds.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_WALL_TIME_MS",
        default_value_t = 10_000,
        global = true
    )]
    pub max_wall_time_ms: u64,
    /// Largest JSON size of one page's items, in bytes: a bigger page ends early and its
    /// cursor continues after the last item (keeps results inside a model's token budget).
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_RESPONSE_BYTES",
        default_value_t = 40_000,
        global = true
    )]
    pub max_response_bytes: usize,
    /// Most lines one read_file call (or file resource) returns.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_READ_LINES",
        default_value_t = 400,
        global = true
    )]
    pub max_read_lines: u32,
    /// Most bytes of file content one read_file call (or file resource) returns.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_READ_BYTES",
        default_value_t = 32_000,
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
            max_context_lines: 10,
            effort: Effort {
                shard_max_match_count: self.shard_max_match_count,
                total_max_match_count: self.total_max_match_count,
                max_wall_time: Duration::from_millis(self.max_wall_time_ms),
            },
            max_page_bytes: self.max_response_bytes,
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
