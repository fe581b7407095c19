//! `zoekt-pager serve` spoken to in raw lines on its stdin and stdout, for what rmcp's client
//! cannot send (bytes that are not messages, two requests with one id in flight). Calls
//! through a real client are `mcp::spawn_stdio`.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// How long a reply may take: every test's server answers well within it, and one that does
/// not fails the test with a message instead of hanging it.
const REPLY_WITHIN: Duration = Duration::from_secs(10);

/// A running `zoekt-pager serve` and the two ends of its stdio.
pub struct RawStdio {
    // Kept for `kill_on_drop`: the server ends with the test.
    _child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl RawStdio {
    /// Spawns `zoekt-pager serve` against `url` (`support::pager_command`: its defaults, the
    /// test transport, and `env`, which may set the transport itself).
    pub fn spawn(url: &str, env: &[(&str, &str)]) -> RawStdio {
        let mut child = super::pager_command(url)
            .arg("serve")
            .env("ZOEKT_PAGER_LOG", "warn")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn zoekt-pager serve");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        RawStdio {
            _child: child,
            stdin,
            stdout,
        }
    }

    /// Runs the handshake a client opens with: `initialize` (whose reply must be a result),
    /// then `notifications/initialized`, which has no reply.
    pub async fn initialize(&mut self) {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}});
        let reply = self.exchange(init.to_string().as_bytes()).await;
        assert!(reply["result"].is_object(), "initialize: {reply}");
        self.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
    }

    /// Writes `line` and the newline that ends it, whatever bytes it holds.
    pub async fn send(&mut self, line: &[u8]) {
        self.stdin.write_all(line).await.expect("write to stdin");
        self.stdin.write_all(b"\n").await.expect("write to stdin");
    }

    /// The next line the server writes, as JSON.
    pub async fn reply(&mut self) -> Value {
        let line = tokio::time::timeout(REPLY_WITHIN, self.stdout.next_line())
            .await
            .expect("a reply within 10 s")
            .expect("read stdout")
            .expect("stdout still open");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("a reply not JSON ({e}): {line}"))
    }

    /// Sends `line` and reads the reply to it.
    pub async fn exchange(&mut self, line: &[u8]) -> Value {
        self.send(line).await;
        self.reply().await
    }
}
