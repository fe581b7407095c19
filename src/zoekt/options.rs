//! The settings of a Zoekt client, as flags (with environment fallbacks) of the server and the
//! CLI: its timeout, retries, answer bound, and which of Zoekt's APIs searches go over.

use std::time::Duration;

/// Settings of the client, as flags (with environment fallbacks) of the server and the CLI.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct ClientOptions {
    /// Timeout of one HTTP request to Zoekt (connect + answer), in milliseconds.
    #[arg(
        long = "timeout-ms",
        env = "ZOEKT_PAGER_TIMEOUT_MS",
        default_value = "30000",
        value_parser = millis,
        global = true
    )]
    pub timeout: Duration,
    /// Retries when Zoekt refuses connections or answers 502/503/504.
    #[arg(
        long,
        env = "ZOEKT_PAGER_RETRIES",
        default_value_t = ClientOptions::DEFAULT.retries,
        global = true
    )]
    pub retries: u32,
    /// First backoff delay; doubles each retry.
    #[arg(skip = ClientOptions::DEFAULT.backoff)]
    pub backoff: Duration,
    /// Most bytes of one Zoekt answer read (its body); a bigger answer is an error, not a
    /// memory spike: a window of files with many matching lines and context lines can reach
    /// hundreds of megabytes.
    #[arg(
        long,
        env = "ZOEKT_PAGER_MAX_ANSWER_BYTES",
        default_value_t = ClientOptions::DEFAULT.max_answer_bytes,
        global = true
    )]
    pub max_answer_bytes: usize,
    /// Which of Zoekt's APIs searches and listings go over: `grpc` (served on the webserver's
    /// port, with or without `-rpc`; a query the pager's parser cannot be sure of still goes
    /// over JSON) or `json` (`/api/search`, which needs the webserver's `-rpc`; for a proxy in
    /// front of Zoekt that does not speak HTTP/2).
    #[arg(
        long,
        env = "ZOEKT_PAGER_ZOEKT_TRANSPORT",
        value_enum,
        default_value_t = ClientOptions::DEFAULT.zoekt_transport,
        global = true
    )]
    pub zoekt_transport: Wire,
}

/// Zoekt's two search APIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Wire {
    /// `POST /api/search`: the query as a string, the answer as JSON.
    Json,
    /// `zoekt.webserver.v1.WebserverService/Search`: a parsed query, a protobuf answer.
    Grpc,
}

impl ClientOptions {
    /// The defaults (`--timeout-ms` spells its default as text; `config::tests` checks that
    /// it says the same).
    pub const DEFAULT: ClientOptions = ClientOptions {
        timeout: Duration::from_secs(30),
        retries: 2,
        backoff: Duration::from_millis(100),
        // Decoding an answer takes about six times its bytes at the peak (its strings, the
        // structures around them, the body still held): 32 MiB keeps one call under 256 MiB
        // (docs/bench/memory.md).
        max_answer_bytes: 32 << 20,
        // gRPC: measured better on large answers and the same on small ones
        // (docs/bench/transport.md, docs/bench/narrow-real.md); docs/configuration.md, `--zoekt-transport`.
        zoekt_transport: Wire::Grpc,
    };
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions::DEFAULT
    }
}

/// Reads a number of milliseconds.
fn millis(text: &str) -> Result<Duration, String> {
    text.parse()
        .map(Duration::from_millis)
        .map_err(|e| format!("`{text}` is not a number of milliseconds: {e}"))
}
