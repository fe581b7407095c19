//! The HTTP guards, end to end: a bearer token, Host and Origin checks, and connections
//! that stall, flood or lie about their length, up to SIGTERM with requests half sent.

use super::*;
use support::sidecar::read_until_closed;

#[tokio::test]
async fn a_configured_token_is_required() {
    let zoekt = support::fixture_zoekt("a_configured_token_is_required");
    let sidecar = Sidecar::start(&zoekt, &[("ZOEKT_PAGER_AUTH_TOKEN", "t0ken-xyz")]).await;
    for auth in ["", "Bearer wrong", "Bearer t0ken-xy", "Basic t0ken-xyz"] {
        let headers: &[(&str, &str)] = if auth.is_empty() {
            &[]
        } else {
            &[("Authorization", auth)]
        };
        let r = sidecar.post_initialize(headers).await;
        assert_eq!(r.status().as_u16(), 401, "{auth:?}");
        assert_eq!(r.headers()["www-authenticate"], "Bearer");
    }
    let ok = sidecar
        .post_initialize(&[("Authorization", "Bearer t0ken-xyz")])
        .await;
    assert_eq!(ok.status().as_u16(), 200);

    let client = sidecar.client_with(Some("t0ken-xyz")).await;
    let r = call(&client, "list_repos", json!({})).await;
    assert_eq!(structured(&r)["count"], json!(5));
    client.cancel().await.unwrap();
    // Operator endpoints stay open for probes and scrapers.
    assert_eq!(sidecar.get("/healthz").await.0, 200);
    assert_eq!(sidecar.get("/metrics").await.0, 200);
}

#[tokio::test]
async fn host_and_origin_are_checked() {
    let zoekt = support::fixture_zoekt("host_and_origin_are_checked");
    let sidecar = Sidecar::start(&zoekt, &[]).await;
    let status =
        async |headers: &[(&str, &str)]| sidecar.post_initialize(headers).await.status().as_u16();
    assert_eq!(status(&[("Host", "evil.example")]).await, 403);
    assert_eq!(status(&[("Host", "evil.example:80")]).await, 403);
    assert_eq!(status(&[("Origin", "http://evil.example")]).await, 403);
    assert_eq!(status(&[("Origin", "http://localhost:5173")]).await, 200);
    assert_eq!(status(&[]).await, 200);

    let open = Sidecar::start(&zoekt, &[("ZOEKT_PAGER_ALLOWED_HOSTS", "code.internal")]).await;
    let r = open.post_initialize(&[("Host", "code.internal")]).await;
    assert_eq!(r.status().as_u16(), 200);
}

/// 2,000 idle connections (four times the default cap of 512) do not keep a real call out:
/// at the cap the oldest idle ones are closed to make room. A plain accept loop would hold
/// them all, and past the file limit take no new connection at all.
#[tokio::test]
async fn idle_connections_do_not_lock_out_a_call() {
    let url = support::fixture_zoekt("idle_connections_do_not_lock_out_a_call");
    let sidecar = Sidecar::start(&url, &[]).await;
    let mut idle = Vec::new();
    for _ in 0..2_000 {
        idle.push(sidecar.raw_connection().await);
    }
    let client = tokio::time::timeout(Duration::from_secs(10), sidecar.client())
        .await
        .expect("a new client gets in");
    let r = tokio::time::timeout(
        Duration::from_secs(10),
        call(
            &client,
            "search_symbols",
            json!({"query": r"pagerItem\d+", "limit": 3}),
        ),
    )
    .await
    .expect("the call is answered");
    assert_eq!(structured(&r)["count"], json!(3));
    // The oldest idle connections were closed by the server.
    let first = read_until_closed(&mut idle[0], Duration::from_secs(2)).await;
    assert_eq!(
        first.as_deref(),
        Some(""),
        "the oldest idle connection was closed"
    );
    client.cancel().await.unwrap();
}

/// Clients too slow to send their request are cut off: headers (also the wait of an idle
/// keep-alive connection) after --http-header-timeout-ms, a body after --http-body-timeout-ms
/// with 408. A body over --max-request-bytes is refused at once from its Content-Length.
/// Content-Length beside Transfer-Encoding is ignored (RFC 9112 6.3): the chunks say where the
/// body ends. (Through axum::serve, that request was a 500.)
#[tokio::test]
async fn slow_or_ambiguous_requests_are_refused() {
    let url = support::fixture_zoekt("slow_or_ambiguous_requests_are_refused");
    let sidecar = Sidecar::start(
        &url,
        &[
            ("ZOEKT_PAGER_HTTP_HEADER_TIMEOUT_MS", "500"),
            ("ZOEKT_PAGER_HTTP_BODY_TIMEOUT_MS", "500"),
        ],
    )
    .await;
    let started = std::time::Instant::now();
    let said = sidecar
        .send_raw(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n", 5)
        .await;
    assert!(said.is_some(), "half headers: closed within 5 s");
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(450), "{took:?}");

    assert!(
        sidecar.send_raw(b"", 5).await.is_some(),
        "idle: closed within 5 s"
    );

    let half_body = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
        Content-Length: 100\r\n\r\n{\"jsonrpc\":";
    let said = sidecar.send_raw(half_body, 5).await.unwrap();
    assert!(said.starts_with("HTTP/1.1 408"), "{said}");

    let huge = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10000000000\r\n\r\n{";
    let said = sidecar.send_raw(huge, 2).await.unwrap();
    assert!(said.starts_with("HTTP/1.1 413"), "{said}");

    // Content-Length 3 with a chunked body of 40 bytes: read by Transfer-Encoding alone.
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let both = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nConnection: close\r\nContent-Length: 3\r\n\
         Transfer-Encoding: chunked\r\n\r\n{:x}\r\n{ping}\r\n0\r\n\r\n",
        ping.len()
    );
    let said = sidecar.send_raw(both.as_bytes(), 2).await.unwrap();
    assert!(said.starts_with("HTTP/1.1 200"), "{said}");
    assert!(
        said.ends_with(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        "{said}"
    );

    // The server is still fine.
    assert_eq!(sidecar.get("/healthz").await.0, 200);
}

/// SIGTERM closes idle and stalled connections at once: with one connection idle, one half
/// way through its headers and one half way through its body (and the default 30 s grace and
/// timeouts), the sidecar exits within 1 s.
#[tokio::test]
async fn sigterm_with_stalled_requests_exits_within_a_second() {
    use tokio::io::AsyncWriteExt;
    let url = support::fixture_zoekt("sigterm_with_stalled_requests_exits_within_a_second");
    let mut sidecar = Sidecar::start(&url, &[]).await;
    let _idle = sidecar.raw_connection().await;
    let mut half_headers = sidecar.raw_connection().await;
    half_headers
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let mut half_body = sidecar.raw_connection().await;
    half_body
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = std::time::Instant::now();
    sidecar.terminate();
    let status = tokio::time::timeout(Duration::from_secs(5), sidecar.child.wait())
        .await
        .expect("the sidecar exits")
        .unwrap();
    let took = started.elapsed();
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_secs(1), "exit took {took:?}");
}
