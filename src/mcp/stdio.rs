//! The stdio transport: newline-delimited JSON-RPC on stdin and stdout, where every line that
//! is not a usable message still gets an error reply.
//!
//! rmcp's own stdio transport drops a line it cannot parse (invalid UTF-8, not JSON, nested
//! too deep, a line over its length limit) without a word, so the client waits until its own
//! timeout. It does that on purpose: answering garbage could start an error storm with a peer
//! that echoes what it reads. Our replies are well-formed JSON-RPC errors without an `id`,
//! which a conforming peer never answers, so the storm cannot start, and the client learns at
//! once that its line was lost. Each line is judged by `message.rs` ([`judge`]), as the HTTP
//! transport judges a request body; besides, this transport answers:
//!
//! - a line over [`MAX_LINE_BYTES`]: `-32700` (parse error), no `id`;
//! - a request whose id is already in flight: `-32600` with that id. rmcp keeps one slot per
//!   id, so the second request would take the first one's slot and one of the two answers
//!   would be dropped without a word. Ids in flight are this transport's own bookkeeping:
//!   over HTTP every request is served on its own.
//!
//! Error messages name the fault and where it is, never the line's content (a line may be a
//! megabyte of query text).

use std::borrow::Cow;
use std::collections::HashSet;
use std::future::Future;

use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ErrorData, RequestId, ServerJsonRpcMessage,
};
use rmcp::transport::Transport;

use super::message::{Judged, judge, reply};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The longest line read as a message: 16 MiB, as rmcp's stdio transport. A longer line is
/// skipped up to its newline (never held in memory whole) and answered with a parse error.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Messages waiting for the writer; `send` waits when it is full, so a client that stops
/// reading holds the server back instead of growing its memory.
const OUTBOX: usize = 64;

/// The transport: lines from `R`, lines to `W`. One writer task owns `W`, so replies from
/// [`Transport::send`] and error replies from reading never interleave within a line.
pub struct StdioTransport<R> {
    reader: BufReader<R>,
    /// The line read so far. Kept across calls: rmcp polls `receive` inside a `select!` and may
    /// drop the future mid-line, and the next call must go on with the same line.
    line: Vec<u8>,
    /// The current line passed [`MAX_LINE_BYTES`]: its remaining bytes are skipped.
    oversized: bool,
    /// An error reply not yet handed to the writer (kept if `receive` is dropped first).
    pending: Option<ServerJsonRpcMessage>,
    outbox: Option<mpsc::Sender<ServerJsonRpcMessage>>,
    /// Ids of the client's requests passed to rmcp and not answered yet.
    in_flight: HashSet<RequestId>,
}

/// Starts the transport over `reader` and `writer`. The returned future is the writer: it
/// ends once the transport is closed and everything sent is written and flushed; await it
/// before exiting so the last reply is not lost.
pub fn transport<R, W>(
    reader: R,
    writer: W,
) -> (StdioTransport<R>, impl Future<Output = std::io::Result<()>>)
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send,
{
    let (outbox, mut inbox) = mpsc::channel::<ServerJsonRpcMessage>(OUTBOX);
    let write = async move {
        let mut writer = writer;
        while let Some(message) = inbox.recv().await {
            let mut bytes = serde_json::to_vec(&message).map_err(std::io::Error::other)?;
            bytes.push(b'\n');
            writer.write_all(&bytes).await?;
            writer.flush().await?;
        }
        Ok(())
    };
    let transport = StdioTransport {
        reader: BufReader::new(reader),
        line: Vec::new(),
        oversized: false,
        pending: None,
        outbox: Some(outbox),
        in_flight: HashSet::new(),
    };
    (transport, write)
}

/// The outcome of reading to the next newline.
enum LineRead {
    Line,
    Oversized,
    Eof,
}

impl<R: AsyncRead + Unpin + Send> StdioTransport<R> {
    /// Reads up to the next newline into `self.line`. Cancel-safe: bytes are taken from the
    /// buffer only after they were stored, with no await in between.
    async fn read_line(&mut self) -> std::io::Result<LineRead> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                // A last line without its newline is still a line (the next call sees EOF).
                if std::mem::take(&mut self.oversized) {
                    return Ok(LineRead::Oversized);
                }
                return Ok(if self.line.is_empty() {
                    LineRead::Eof
                } else {
                    LineRead::Line
                });
            }
            let (chunk, done) = match available.iter().position(|b| *b == b'\n') {
                Some(at) => (&available[..at], true),
                None => (available, false),
            };
            if !self.oversized && self.line.len() + chunk.len() <= MAX_LINE_BYTES {
                self.line.extend_from_slice(chunk);
            } else if !self.oversized {
                self.oversized = true;
                self.line = Vec::new();
            }
            let used = chunk.len() + usize::from(done);
            self.reader.consume(used);
            if done {
                let oversized = std::mem::take(&mut self.oversized);
                return Ok(if oversized {
                    LineRead::Oversized
                } else {
                    LineRead::Line
                });
            }
        }
    }

    /// Hands the pending error reply to the writer. Cancel-safe: the reply leaves `pending`
    /// only once the writer has room for it.
    async fn flush_pending(&mut self) -> bool {
        let Some(outbox) = &self.outbox else {
            return false;
        };
        if self.pending.is_some() {
            let Ok(permit) = outbox.reserve().await else {
                return false;
            };
            if let Some(message) = self.pending.take() {
                permit.send(message);
            }
        }
        true
    }
}

impl<R> StdioTransport<R> {
    /// Keeps track of the requests in flight. A request whose id is already in flight gets
    /// the `-32600` reply returned here instead of being passed on; a cancelled request's id
    /// is free again (rmcp sends no answer for it).
    fn admit(&mut self, message: &ClientJsonRpcMessage) -> Option<ServerJsonRpcMessage> {
        match message {
            ClientJsonRpcMessage::Request(request)
                if !self.in_flight.insert(request.id.clone()) =>
            {
                Some(ServerJsonRpcMessage::error(
                    ErrorData::invalid_request(in_flight_message(&request.id), None),
                    Some(request.id.clone()),
                ))
            }
            ClientJsonRpcMessage::Notification(n) => {
                if let ClientNotification::CancelledNotification(c) = &n.notification
                    && let Some(id) = &c.params.request_id
                {
                    self.in_flight.remove(id);
                }
                None
            }
            _ => None,
        }
    }
}

/// The error message for a request whose id is already in flight (naming a short id only:
/// an id may be a string of any length).
fn in_flight_message(id: &RequestId) -> String {
    let shown = id.to_string();
    if shown.chars().count() <= 40 {
        format!("Invalid Request: id {shown} is already in flight; use a new id per request")
    } else {
        "Invalid Request: this id is already in flight; use a new id per request".to_string()
    }
}

impl<R: AsyncRead + Unpin + Send> Transport<RoleServer> for StdioTransport<R> {
    type Error = std::io::Error;

    fn name() -> Cow<'static, str> {
        "zoekt-pager stdio".into()
    }

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let ServerJsonRpcMessage::Response(r) = &item {
            self.in_flight.remove(&r.id);
        } else if let ServerJsonRpcMessage::Error(e) = &item
            && let Some(id) = &e.id
        {
            self.in_flight.remove(id);
        }
        let outbox = self.outbox.clone();
        async move {
            let closed = || std::io::Error::new(std::io::ErrorKind::NotConnected, "stdout closed");
            match outbox {
                Some(outbox) => outbox.send(item).await.map_err(|_| closed()),
                None => Err(closed()),
            }
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if !self.flush_pending().await {
                return None;
            }
            let read = match self.read_line().await {
                Ok(read) => read,
                Err(e) => {
                    tracing::error!(error = %e, "reading stdin failed");
                    return None;
                }
            };
            let judged = match read {
                LineRead::Eof => return None,
                LineRead::Oversized => reply(
                    ErrorData::parse_error(
                        format!("Parse error: the line is over {MAX_LINE_BYTES} bytes"),
                        None,
                    ),
                    None,
                ),
                LineRead::Line => {
                    let judged = judge(&self.line);
                    self.line.clear();
                    judged
                }
            };
            match judged {
                Judged::Message(message) => match self.admit(&message) {
                    None => return Some(*message),
                    Some(error) => {
                        tracing::debug!("answered a request whose id is already in flight");
                        self.pending = Some(error);
                    }
                },
                Judged::Reply(error) => {
                    tracing::debug!("answered a line that is not a usable message");
                    self.pending = Some(*error);
                }
                Judged::Ignore => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.outbox = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_id_in_flight_is_refused_until_answered_or_cancelled() {
        let (mut t, _writer) = transport(std::io::Cursor::new(Vec::new()), tokio::io::sink());
        let message = |line: &str| match judge(line.as_bytes()) {
            Judged::Message(m) => *m,
            other => panic!("{other:?}"),
        };
        let call = r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#;
        assert!(t.admit(&message(call)).is_none());
        match t.admit(&message(call)) {
            Some(ServerJsonRpcMessage::Error(e)) => {
                assert_eq!((e.error.code.0, e.id), (-32600, Some(RequestId::Number(5))));
                assert!(e.error.message.contains("id 5 is already in flight"));
            }
            other => panic!("{other:?}"),
        }
        let other = r#"{"jsonrpc":"2.0","id":"5","method":"tools/list"}"#;
        assert!(
            t.admit(&message(other)).is_none(),
            "the string \"5\" is another id"
        );
        let answer = ServerJsonRpcMessage::error(
            ErrorData::internal_error("x", None),
            Some(RequestId::Number(5)),
        );
        t.send(answer).await.unwrap();
        assert!(
            t.admit(&message(call)).is_none(),
            "free again once answered"
        );
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#;
        assert!(t.admit(&message(cancel)).is_none());
        assert!(
            t.admit(&message(call)).is_none(),
            "free again once cancelled"
        );
    }

    #[tokio::test]
    async fn a_last_line_without_a_newline_is_read() {
        let input = br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#.to_vec();
        let (out_read, out_write) = tokio::io::duplex(1 << 10);
        let (mut transport, _writer) = transport(std::io::Cursor::new(input), out_write);
        let message = transport.receive().await.expect("the unterminated line");
        assert!(
            matches!(message, ClientJsonRpcMessage::Request(r) if r.id == RequestId::Number(3))
        );
        assert!(transport.receive().await.is_none(), "then end of input");
        drop(out_read);
    }

    #[tokio::test]
    async fn an_oversized_line_is_skipped_and_answered_and_the_next_line_is_read() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 10];
        input.push(b'\n');
        input.extend_from_slice(br#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#);
        input.push(b'\n');
        let (mut out_read, out_write) = tokio::io::duplex(1 << 16);
        let (mut transport, writer) = transport(std::io::Cursor::new(input), out_write);
        let writer = tokio::spawn(writer);
        let message = transport
            .receive()
            .await
            .expect("the ping after the long line");
        assert!(
            matches!(message, ClientJsonRpcMessage::Request(r) if r.id == RequestId::Number(9))
        );
        assert!(transport.receive().await.is_none(), "end of input");
        transport.close().await.unwrap();
        drop(transport);
        writer.await.unwrap().unwrap();
        let mut written = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut out_read, &mut written)
            .await
            .unwrap();
        assert!(
            written.contains("-32700") && written.contains("over"),
            "{written}"
        );
        assert_eq!(written.lines().count(), 1);
    }
}
