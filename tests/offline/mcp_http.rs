//! Sidecar mode where Zoekt need not answer: the real `zoekt-pager serve --http` binary,
//! over real HTTP, refusing settings that would open it silently, binding beyond loopback
//! only when allowed, guarding its HTTP edge (malformed Host, several Authorization headers,
//! bodies that are not a fitting message, requests sharing an id) and draining a call in
//! flight at SIGTERM (wiremock answers slowly on demand). The rest, against the real Zoekt,
//! is `tests/live/mcp_http.rs`.

use crate::support;

use std::time::Duration;

use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use support::mcp::*;
use support::sidecar::{Sidecar, http};

/// The page of a successful result, read back flat (`support::mcp::flat_page`).
fn structured(r: &CallToolResult) -> Value {
    support::mcp::flat_page(&answer(r))
}

/// The structured content of a successful result, as sent.
fn answer(r: &CallToolResult) -> Value {
    assert_ne!(r.is_error, Some(true), "{}", text(r));
    r.structured_content.clone().expect("structured content")
}

#[tokio::test]
async fn binding_beyond_loopback_needs_allow_remote() {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_zoekt-pager"))
        .args(["serve", "--http", "0.0.0.0:0"])
        .env_remove("ZOEKT_PAGER_ALLOW_REMOTE")
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-remote"));
}

#[tokio::test]
async fn settings_that_would_silently_open_the_server_refuse_to_start() {
    // rmcp reads an empty host list as "any host"; a blank token as "no auth" would be worse.
    for (var, value, says) in [
        ("ZOEKT_PAGER_ALLOWED_HOSTS", "", "--allowed-hosts is empty"),
        ("ZOEKT_PAGER_ALLOWED_HOSTS", ",", "--allowed-hosts is empty"),
        ("ZOEKT_PAGER_AUTH_TOKEN", "", "auth token must be non-empty"),
        (
            "ZOEKT_PAGER_AUTH_TOKEN",
            "  ",
            "auth token must be non-empty",
        ),
    ] {
        let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_zoekt-pager"))
            .args(["serve", "--http", "127.0.0.1:0"])
            .env(var, value)
            .output()
            .await
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{var}={value:?}: {err}");
        assert!(err.contains(says), "{var}={value:?}: {err}");
    }
}

#[tokio::test]
async fn a_call_in_flight_at_sigterm_still_gets_its_answer() {
    // A Zoekt that takes 1.5 s to answer: something a real one cannot be made to do on demand.
    let slow = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/search"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"Result": {"FileCount": 0, "MatchCount": 0, "Files": null}}))
                .set_delay(Duration::from_millis(1500)),
        )
        .mount(&slow)
        .await;
    let mut sidecar = Sidecar::start(&slow.uri(), &[]).await;
    let client = sidecar.client().await;
    let pending = tokio::spawn(async move {
        let r = call(&client, "search", json!({"query": "anything"})).await;
        (r, client)
    });
    tokio::time::sleep(Duration::from_millis(400)).await;
    sidecar.terminate();
    let (r, _client) = tokio::time::timeout(Duration::from_secs(10), pending)
        .await
        .expect("the in-flight call is answered")
        .unwrap();
    let page = structured(&r);
    assert_eq!(page["count"], json!(0));
    let status = tokio::time::timeout(Duration::from_secs(10), sidecar.child.wait())
        .await
        .expect("the sidecar exits after draining")
        .unwrap();
    assert!(status.success(), "{status:?}");
    let log = sidecar.log_text();
    assert!(log.contains("draining in-flight calls"), "{log}");
    // No new connection is accepted once it is gone.
    assert!(http().get(sidecar.url("/healthz")).send().await.is_err());
}

/// A POST to /mcp with `head` (header lines, each ending in CRLF) and `body`, on a
/// connection of its own that the server closes after answering.
fn raw_post(head: &str, body: &str) -> Vec<u8> {
    format!(
        "POST /mcp HTTP/1.1\r\n{head}Accept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The status code and body of a raw HTTP/1.1 answer.
fn status_and_body(said: &str) -> (u16, &str) {
    let status = said
        .strip_prefix("HTTP/1.1 ")
        .and_then(|s| s.get(..3))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {said:?}"));
    let body = said.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, body)
}

const RAW_INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

/// A Host that is not `host[:port]` with a numeric port in range, or more than one Host, is
/// refused exactly as a foreign host is (rmcp alone let `localhost:evil`, `localhost:99999`
/// and `x@localhost` through as `localhost`, and answered junk with a 400 of its own).
/// Needs no Zoekt: initialize never asks it.
#[tokio::test]
async fn a_malformed_host_is_refused_like_a_foreign_one() {
    let sidecar = Sidecar::start("http://127.0.0.1:9", &[]).await;
    let answer = async |head: &str| {
        let said = sidecar
            .send_raw(&raw_post(head, RAW_INIT), 5)
            .await
            .expect("answered and closed");
        let (status, body) = status_and_body(&said);
        (status, body.to_string())
    };
    let foreign = answer("Host: evil.example\r\n").await;
    assert_eq!(
        foreign,
        (403, "Forbidden: Host header is not allowed".to_string())
    );
    for host in [
        "localhost:evil",
        "localhost:99999",
        "localhost:0",
        "localhost:",
        "localhost:+80",
        "\" localhost\"",
        "local host",
        "user@localhost",
        "[::1]:x",
        "localhost:80:80",
    ] {
        assert_eq!(
            answer(&format!("Host: {host}\r\n")).await,
            foreign,
            "Host: {host}"
        );
    }
    for hosts in [
        "Host: localhost\r\nHost: evil.example\r\n",
        "Host: localhost\r\nHost: localhost\r\n",
    ] {
        assert_eq!(answer(hosts).await, foreign, "{hosts:?}");
    }
    for host in [
        "localhost",
        "localhost:8080",
        "127.0.0.1:1",
        "[::1]:65535",
        "LocalHost",
    ] {
        assert_eq!(
            answer(&format!("Host: {host}\r\n")).await.0,
            200,
            "Host: {host}"
        );
    }
    assert_eq!(sidecar.get("/healthz").await.0, 200);
}

/// Two Authorization headers are refused with 400 and a one-line reason, in either order
/// and also when both are right (which one counts would be a guess); before, only the first
/// was read, so right-then-wrong passed. Needs no Zoekt: initialize never asks it.
#[tokio::test]
async fn more_than_one_authorization_header_is_refused() {
    let sidecar = Sidecar::start("http://127.0.0.1:9", &[("ZOEKT_PAGER_AUTH_TOKEN", "t0k")]).await;
    let answer = async |head: &str| {
        let said = sidecar
            .send_raw(&raw_post(head, RAW_INIT), 5)
            .await
            .expect("answered and closed");
        let (status, body) = status_and_body(&said);
        (status, body.to_string())
    };
    let right = "Authorization: Bearer t0k\r\n";
    let wrong = "Authorization: Bearer nope\r\n";
    for auth in [
        format!("{right}{wrong}"),
        format!("{wrong}{right}"),
        format!("{right}{right}"),
    ] {
        let (status, body) = answer(&format!("Host: localhost\r\n{auth}")).await;
        assert_eq!(status, 400, "{auth:?}: {body}");
        assert_eq!(
            body, "400 Bad Request: more than one Authorization header; send exactly one\n",
            "{auth:?}"
        );
    }
    assert_eq!(answer(&format!("Host: localhost\r\n{right}")).await.0, 200);
    assert_eq!(answer(&format!("Host: localhost\r\n{wrong}")).await.0, 401);
}

/// A body is judged as a stdio line is (the same function): a known method with params that
/// do not fit gets -32602 with its id (rmcp alone said -32601, method not found), a body that
/// is not JSON -32700, JSON that is not a message -32600, each as a JSON-RPC error; the server
/// goes on answering. Needs no Zoekt: nothing here reaches it.
#[tokio::test]
async fn a_body_that_is_not_a_fitting_message_gets_the_stdio_error() {
    let sidecar = Sidecar::start("http://127.0.0.1:9", &[]).await;
    let answer = async |body: &str| {
        let said = sidecar
            .send_raw(&raw_post("Host: localhost\r\n", body), 5)
            .await
            .expect("answered and closed");
        let (status, body) = status_and_body(&said);
        let reply: Value =
            serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {said}"));
        (status, reply)
    };
    let cases = [
        (
            "list arguments",
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"health","arguments":[1]}}"#,
            200,
            -32602,
            json!(6),
        ),
        (
            "string arguments",
            r#"{"jsonrpc":"2.0","id":"s7","method":"tools/call","params":{"name":"search","arguments":"x"}}"#,
            200,
            -32602,
            json!("s7"),
        ),
        ("not JSON", "hello", 400, -32700, Value::Null),
        (
            "no method",
            r#"{"jsonrpc":"2.0","id":8}"#,
            400,
            -32600,
            json!(8),
        ),
    ];
    for (what, body, status, code, id) in cases {
        let (got, reply) = answer(body).await;
        assert_eq!(got, status, "{what}: {reply}");
        assert_eq!(reply["error"]["code"], json!(code), "{what}: {reply}");
        assert_eq!(
            reply.get("id").cloned().unwrap_or(Value::Null),
            id,
            "{what}: {reply}"
        );
    }
    // A truly unknown method is still -32601; a fitting call still runs.
    let (_, reply) = answer(r#"{"jsonrpc":"2.0","id":9,"method":"nope/nothing"}"#).await;
    assert_eq!(reply["error"]["code"], json!(-32601), "{reply}");
    let (status, reply) = answer(
        r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"health","arguments":{}}}"#,
    )
    .await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["id"], json!(10), "{reply}");
    assert!(reply["result"].is_object(), "{reply}");
}

/// Two requests with the same id in flight at once each get their own answer over HTTP: each
/// POST is served on its own (stateless, no session), so ids of different requests never
/// meet. A stand-in Zoekt answers late, to keep both in flight together.
#[tokio::test]
async fn requests_with_the_same_id_in_flight_each_get_their_answer() {
    let slow = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/search"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"Result": {"FileCount": 0, "MatchCount": 0, "Files": null}}))
                .set_delay(Duration::from_millis(2000)),
        )
        .mount(&slow)
        .await;
    let sidecar = Sidecar::start(&slow.uri(), &[]).await;
    // Different queries, so that neither is answered from the other's cached window.
    let call = |query: &str| {
        let call = json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": query}}});
        raw_post("Host: localhost\r\n", &call.to_string())
    };
    let (first, second) = (call("anything"), call("something else"));
    let started = std::time::Instant::now();
    let (a, b) = tokio::join!(sidecar.send_raw(&first, 10), sidecar.send_raw(&second, 10));
    for said in [a, b] {
        let said = said.expect("answered within 10 s");
        let (status, body) = status_and_body(&said);
        let reply: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {said}"));
        assert_eq!(status, 200, "{reply}");
        assert_eq!(reply["id"], json!(20), "{reply}");
        assert_eq!(
            support::mcp::flat_page(&reply["result"]["structuredContent"])["count"],
            json!(0),
            "{reply}"
        );
    }
    // Both ran at once: together they took about one stand-in delay, not two.
    assert!(
        started.elapsed() < Duration::from_millis(3900),
        "{:?}",
        started.elapsed()
    );
}
