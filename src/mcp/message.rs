//! What one client message comes to, the same for both transports: a line of the stdio
//! transport and the body of a POST to `/mcp` are judged here before rmcp reads them. The
//! rules, after JSON-RPC 2.0:
//!
//! - not UTF-8 or not JSON: `-32700` (parse error), no `id`;
//! - JSON but not a JSON-RPC message: `-32600` (invalid request), with its `id` when it has a
//!   usable one;
//! - a known MCP method whose params do not fit it (`tools/call` with `arguments: [1]`, which
//!   rmcp would take for an unknown method): `-32602` (invalid params), with its `id`;
//! - a notification that is not a message is ignored: a notification is never answered.
//!
//! Error messages name the fault and where it is, never the message's content (a line may be
//! a megabyte of query text).

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorData, RequestId, ServerJsonRpcMessage,
};
use serde_json::Value;

/// MCP client requests rmcp reads into typed requests. One of these that rmcp could only
/// read as a custom request had params that do not fit the method.
const TYPED_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "server/discover",
    "subscriptions/listen",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
    "resources/directory/read",
];

/// What one line from the client comes to.
#[derive(Debug)]
pub enum Judged {
    /// A message for the server.
    Message(Box<ClientJsonRpcMessage>),
    /// Not a usable message: this error goes back to the client.
    Reply(Box<ServerJsonRpcMessage>),
    /// Nothing to do: a blank line, or a notification that is not a message.
    Ignore,
}

/// Reads one line (without its newline), or one HTTP request body, into a message or the
/// error reply it deserves.
pub fn judge(line: &[u8]) -> Judged {
    // A byte-order mark is not JSON; a CRLF line's `\r` is JSON whitespace, so serde takes it.
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Judged::Ignore;
    }
    if let Err(e) = std::str::from_utf8(line) {
        return reply(
            ErrorData::parse_error(
                format!(
                    "Parse error: the line is not UTF-8 (at byte {})",
                    e.valid_up_to()
                ),
                None,
            ),
            None,
        );
    }
    let parsed = serde_json::from_slice::<ClientJsonRpcMessage>(line);
    match parsed {
        Ok(message) => match unfit_params(&message) {
            Some((method, id)) => reply(
                ErrorData::invalid_params(
                    format!("Invalid params: the params of {method} do not fit its schema"),
                    None,
                ),
                Some(id),
            ),
            None => Judged::Message(Box::new(message)),
        },
        Err(e) if e.is_syntax() || e.is_eof() => reply(
            ErrorData::parse_error(
                format!(
                    "Parse error: the line is not JSON ({} at column {})",
                    syntax_fault(&e),
                    e.column()
                ),
                None,
            ),
            None,
        ),
        // Valid JSON, but not a message rmcp can read.
        Err(_) => {
            let value: Value = match serde_json::from_slice(line) {
                Ok(v) => v,
                // Data errors come after a full parse, so this is unreachable in practice;
                // answer as for any unreadable line rather than assume.
                Err(_) => return reply(ErrorData::parse_error("Parse error", None), None),
            };
            let is_notification = value.get("method").is_some() && value.get("id").is_none();
            if is_notification {
                return Judged::Ignore;
            }
            reply(
                ErrorData::invalid_request(
                    "Invalid Request: not a JSON-RPC 2.0 request, response or notification",
                    None,
                ),
                usable_id(value.get("id")),
            )
        }
    }
}

/// serde_json's description of a syntax fault, without the position (given separately) and
/// without any of the input.
fn syntax_fault(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

/// A request for one of [`TYPED_METHODS`] that rmcp read as a custom request: its method
/// and id.
fn unfit_params(message: &ClientJsonRpcMessage) -> Option<(&str, RequestId)> {
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    let ClientRequest::CustomRequest(custom) = &request.request else {
        return None;
    };
    TYPED_METHODS
        .iter()
        .find(|m| **m == custom.method)
        .map(|m| (*m, request.id.clone()))
}

fn usable_id(id: Option<&Value>) -> Option<RequestId> {
    serde_json::from_value(id?.clone()).ok()
}

/// An error reply to the client.
pub(crate) fn reply(error: ErrorData, id: Option<RequestId>) -> Judged {
    Judged::Reply(Box::new(ServerJsonRpcMessage::error(error, id)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(line: &[u8]) -> (i32, Option<RequestId>, String) {
        match judge(line) {
            Judged::Reply(reply) => match *reply {
                ServerJsonRpcMessage::Error(e) => (e.error.code.0, e.id, e.error.message.into()),
                other => panic!("not an error: {other:?}"),
            },
            other => panic!("not a reply: {other:?}"),
        }
    }

    #[test]
    fn lines_that_are_not_json_get_a_parse_error_without_an_id() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        for line in [
            &b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"x\":\"\xff\"}"[..],
            br#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"\ud800"}}"#,
            br#"{"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":NaN}}"#,
            deep.as_bytes(),
            b"hello",
            br#"{"jsonrpc":"2.0","id":5,"#,
        ] {
            let (code, id, message) = error_of(line);
            assert_eq!((code, id), (-32700, None), "{message}");
            assert!(message.len() < 120, "{message}");
        }
    }

    #[test]
    fn json_that_is_not_a_message_gets_an_invalid_request_with_its_id() {
        let (code, id, _) = error_of(br#"{"jsonrpc":"2.0","id":7}"#);
        assert_eq!((code, id), (-32600, Some(RequestId::Number(7))));
        let (code, id, _) = error_of(b"[1,2]");
        assert_eq!((code, id), (-32600, None));
    }

    #[test]
    fn a_known_method_with_unfit_params_gets_invalid_params() {
        let line = br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"health","arguments":[1]}}"#;
        let (code, id, message) = error_of(line);
        assert_eq!((code, id), (-32602, Some(RequestId::Number(6))));
        assert!(message.contains("tools/call"), "{message}");
    }

    #[test]
    fn messages_pass_and_blank_lines_and_stray_notifications_are_ignored() {
        let ok = br#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#;
        assert!(matches!(judge(ok), Judged::Message(_)));
        // A CRLF line arrives with its `\r`; a file saved with a byte-order mark starts
        // with one.
        assert!(matches!(
            judge(&[ok, &b"\r"[..]].concat()),
            Judged::Message(_)
        ));
        assert!(matches!(
            judge(&[&b"\xEF\xBB\xBF"[..], ok].concat()),
            Judged::Message(_)
        ));
        assert!(matches!(judge(b"  \r"), Judged::Ignore));
        assert!(matches!(
            judge(br#"{"jsonrpc":"1.0","method":"notifications/x"}"#),
            Judged::Ignore
        ));
    }
}
