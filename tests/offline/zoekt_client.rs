//! The typed Zoekt client against what a real Zoekt cannot be made to do on demand
//! (wiremock and raw sockets): 500s, redirects, malformed or cut bodies, slow answers, restarts.

use std::time::{Duration, Instant};

use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};
use zoekt_pager::zoekt::wire::{SearchOptions, SearchRequest};
use zoekt_pager::zoekt::{ClientOptions, ZoektClient, ZoektError};

fn req(q: &str) -> SearchRequest {
    SearchRequest {
        q: q.to_string(),
        opts: SearchOptions {
            max_doc_display_count: 50,
            shard_max_match_count: 10_000,
            total_max_match_count: 100_000,
            ..Default::default()
        },
    }
}

fn quick(url: &str, timeout_ms: u64) -> ZoektClient {
    let opts = ClientOptions {
        timeout: Duration::from_millis(timeout_ms),
        retries: 2,
        backoff: Duration::from_millis(20),
        // The stand-ins here speak JSON (faults a real Zoekt cannot be made to show).
        zoekt_transport: zoekt_pager::zoekt::Wire::Json,
        ..ClientOptions::DEFAULT
    };
    ZoektClient::new(url, opts).unwrap()
}

// ---- what only a mock can do ----

#[tokio::test]
async fn unreachable_port_fails_fast() {
    // Port 9 (discard) is closed on loopback: connection refused, retried twice, < 1 s.
    let started = Instant::now();
    let e = quick("http://127.0.0.1:9", 5_000)
        .search(&req("x"))
        .await
        .unwrap_err();
    assert!(matches!(e, ZoektError::Unreachable { .. }), "{e:?}");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn server_error_keeps_zoekts_message() {
    let s = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/search"))
        .respond_with(ResponseTemplate::new(500).set_body_json(json!({"Error": "shard foo: boom"})))
        .mount(&s)
        .await;
    let e = quick(&s.uri(), 2_000).search(&req("x")).await.unwrap_err();
    assert_eq!(
        e,
        ZoektError::Server {
            status: 500,
            message: "shard foo: boom".into()
        }
    );
    assert_eq!(
        s.received_requests().await.unwrap().len(),
        1,
        "500 is not retried"
    );
}

/// A proxy that redirects: not followed (the backend headers must reach no host nobody
/// configured), and the error names where it pointed.
#[tokio::test]
async fn a_redirect_is_not_followed_and_names_where_it_points() {
    let (s, elsewhere) = (MockServer::start().await, MockServer::start().await);
    let target = format!("{}/api/search", elsewhere.uri());
    Mock::given(method("POST"))
        .and(path("/api/search"))
        .respond_with(ResponseTemplate::new(307).insert_header("Location", target.as_str()))
        .mount(&s)
        .await;
    Mock::given(method("GET"))
        .and(path("/readyz"))
        .respond_with(ResponseTemplate::new(302).insert_header("Location", target.as_str()))
        .mount(&s)
        .await;
    let client = quick(&s.uri(), 2_000);
    for e in [
        client.search(&req("x")).await.unwrap_err(),
        client.readiness().await.unwrap_err(),
    ] {
        // Zoekt is not at this address: unavailable, saying where it pointed.
        let ZoektError::Unreachable { reason, .. } = &e else {
            panic!("not unreachable: {e:?}")
        };
        assert!(
            reason.contains(&format!("`{target}`")) && reason.contains("does not follow redirects"),
            "{reason}"
        );
    }
    assert!(elsewhere.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn query_error_is_never_retried() {
    let s = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(400)
                .set_body_json(json!({"Error": "error parsing regexp: missing closing )"})),
        )
        .mount(&s)
        .await;
    let e = quick(&s.uri(), 2_000).search(&req("x")).await.unwrap_err();
    assert!(
        matches!(e, ZoektError::Query { ref message } if message.starts_with("error parsing regexp"))
    );
    assert_eq!(s.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn malformed_json_gives_an_excerpt() {
    let s = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string("<html>proxy error</html>"))
        .mount(&s)
        .await;
    match quick(&s.uri(), 2_000).search(&req("x")).await.unwrap_err() {
        ZoektError::Malformed { excerpt, .. } => assert_eq!(excerpt, "<html>proxy error</html>"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn slow_answer_hits_the_timeout() {
    let s = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"Result": {}}))
                .set_delay(Duration::from_secs(3)),
        )
        .mount(&s)
        .await;
    let started = Instant::now();
    let e = quick(&s.uri(), 300).search(&req("x")).await.unwrap_err();
    assert_eq!(e, ZoektError::Timeout { after_ms: 300 });
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn restart_503_is_retried_once_then_answered() {
    let s = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503).set_body_string("restarting"))
        .up_to_n_times(1)
        .mount(&s)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"Result": {"FileCount": 0, "MatchCount": 0, "Files": null, "Duration": 7}}),
        ))
        .mount(&s)
        .await;
    let r = quick(&s.uri(), 2_000).search(&req("x")).await.unwrap();
    assert_eq!(r.duration, 7);
    assert_eq!(s.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn retries_are_bounded() {
    let s = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(502))
        .mount(&s)
        .await;
    let e = quick(&s.uri(), 2_000).search(&req("x")).await.unwrap_err();
    assert!(matches!(e, ZoektError::Server { status: 502, .. }), "{e:?}");
    assert_eq!(
        s.received_requests().await.unwrap().len(),
        3,
        "1 try + 2 retries"
    );
    // What a caller is told: unavailable (retry later), as for a refused connection.
    let kind = zoekt_pager::backend::BackendError::from(e).kind;
    assert_eq!(kind, zoekt_pager::backend::BackendErrorKind::Unreachable);
}

/// A bare HTTP server that reads a request's head and answers every connection with
/// `response` as raw bytes, then closes it: for what wiremock cannot send (a body shorter than
/// its length, hand-made chunks). Returns its URL.
async fn raw_http_server(response: Vec<u8>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            // Read the whole request (head, then Content-Length bytes of body), so closing
            // never resets a connection with unread bytes.
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                let head_end = request
                    .windows(4)
                    .position(|w| w == b"\r\n\r\n")
                    .map(|i| i + 4);
                if let Some(end) = head_end {
                    let head = String::from_utf8_lossy(&request[..end]).to_lowercase();
                    let body: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(0);
                    if request.len() >= end + body {
                        break;
                    }
                }
                match sock.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            let _ = sock.write_all(&response).await;
        }
    });
    url
}

/// A body that breaks off after Zoekt answered is an unreadable answer, not an unreachable
/// Zoekt. wiremock cannot cut a body, so a bare TCP server promises more than it sends.
#[tokio::test]
async fn a_body_cut_off_is_malformed_not_unreachable() {
    let url =
        raw_http_server(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"Result\":".to_vec())
            .await;
    let e = quick(&url, 2_000).search(&req("x")).await.unwrap_err();
    assert!(
        matches!(&e, ZoektError::Malformed { reason, .. } if reason.contains("cut off")),
        "{e:?}"
    );
}

/// An answer bigger than `--max-answer-bytes` is refused, whether Zoekt announces its length
/// or streams it in chunks, and `/readyz`'s reason is kept to an excerpt.
#[tokio::test]
async fn answers_past_the_byte_bound_are_refused_and_reasons_are_excerpts() {
    let small = |url: &str| {
        let opts = ClientOptions {
            max_answer_bytes: 1_000,
            // The stand-ins here speak JSON (faults a real Zoekt cannot be made to show).
            zoekt_transport: zoekt_pager::zoekt::Wire::Json,
            ..ClientOptions::DEFAULT
        };
        ZoektClient::new(url, opts).unwrap()
    };
    let big = json!({"Result": {"FileCount": 3, "Files": null, "Pad": "x".repeat(5_000)}});
    let s = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(big))
        .mount(&s)
        .await;
    Mock::given(method("GET"))
        .and(path("/readyz"))
        .respond_with(ResponseTemplate::new(503).set_body_string("y".repeat(900)))
        .mount(&s)
        .await;
    // With a length, nothing is read, so nothing tells how many files would fit.
    let e = small(&s.uri()).search(&req("x")).await.unwrap_err();
    let nothing_read = ZoektError::TooBig {
        limit: 1_000,
        within: None,
    };
    assert_eq!(e, nothing_read);
    let ready = small(&s.uri()).readiness().await.unwrap();
    assert_eq!(ready.readyz_status, 503);
    assert!(
        ready.detail.chars().count() <= 201,
        "{}",
        ready.detail.len()
    );

    // Chunked, without a length: the read stops at the bound.
    let mut chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..10 {
        chunked.extend_from_slice(b"200\r\n");
        chunked.extend_from_slice(&[b' '; 0x200]);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let url = raw_http_server(chunked).await;
    let e = small(&url).search(&req("x")).await.unwrap_err();
    let no_file_read = ZoektError::TooBig {
        limit: 1_000,
        within: Some(0),
    };
    assert_eq!(e, no_file_read);

    // Files of 250 bytes, one a chunk: three come in whole before the bound, so an answer
    // for three files would fit, and the error says so.
    let mut chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    let mut chunk = |bytes: &[u8]| {
        chunked.extend_from_slice(format!("{:x}\r\n", bytes.len()).as_bytes());
        chunked.extend_from_slice(bytes);
        chunked.extend_from_slice(b"\r\n");
    };
    chunk(br#"{"Result":{"FileCount":9,"Files":["#);
    for i in 0..9 {
        let file = format!(
            r#"{{"FileName":"f{i}.go","Repository":"r","Pad":"{}"}},"#,
            "p".repeat(203)
        );
        assert_eq!(file.len(), 250);
        chunk(file.as_bytes());
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let url = raw_http_server(chunked).await;
    let e = small(&url).search(&req("x")).await.unwrap_err();
    let three_read = ZoektError::TooBig {
        limit: 1_000,
        within: Some(3),
    };
    assert_eq!(e, three_read);
}

/// An answer in several chunks is read whole, and one that is not UTF-8 is still read: a
/// line's bytes that are not UTF-8 come out replaced, never as an error, and text that is
/// UTF-8 (a path in Greek) comes out as it was. A path that is not UTF-8 is no path: the
/// answer is malformed.
#[tokio::test]
async fn chunked_answers_are_read_whole_and_bytes_not_utf8_are_replaced() {
    let answer_in = |name: &[u8], line: &[u8]| {
        let mut body =
            br#"{"Result":{"FileCount":1,"MatchCount":1,"Files":[{"FileName":"docs/"#.to_vec();
        body.extend_from_slice(name);
        body.extend_from_slice(br#"","Repository":"r","LineMatches":[{"LineNumber":2,"Line":""#);
        body.extend_from_slice(line);
        body.extend_from_slice(br#""}]}]}}"#);
        let mut http = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        for part in body.chunks(7) {
            http.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
            http.extend_from_slice(part);
            http.extend_from_slice(b"\r\n");
        }
        http.extend_from_slice(b"0\r\n\r\n");
        http
    };
    let answer = |line: &[u8]| answer_in("λόγος.md".as_bytes(), line);
    // "héllo\n" as base64: the usual answer, all of it UTF-8.
    let url = raw_http_server(answer(b"aMOpbGxvCg==")).await;
    let r = quick(&url, 2_000).search(&req("x")).await.unwrap();
    assert_eq!(r.files[0].file_name, "docs/λόγος.md");
    assert_eq!(r.files[0].line_matches[0].line.as_str(), "héllo\n");
    // A raw 0xff where the base64 belongs: the body is not UTF-8.
    let url = raw_http_server(answer(b"a\xffb")).await;
    let r = quick(&url, 2_000).search(&req("x")).await.unwrap();
    assert_eq!(r.files[0].file_name, "docs/λόγος.md");
    assert_eq!(r.files[0].line_matches[0].line.as_str(), "a\u{fffd}b");
    let url = raw_http_server(answer_in(b"x\xffy.md", b"aMOpbGxvCg==")).await;
    let e = quick(&url, 2_000).search(&req("x")).await.unwrap_err();
    assert!(matches!(e, ZoektError::Malformed { .. }), "{e:?}");
}

/// Over gRPC (the default), an address that answers HTTP/1 only (a proxy in front of Zoekt
/// that does not speak HTTP/2), or an HTTP/2 server without Zoekt's gRPC service, is an error
/// that says to use `--zoekt-transport json`. (Stand-ins: a real Zoekt always serves gRPC.)
#[tokio::test]
async fn an_address_without_grpc_names_the_json_transport() {
    use zoekt_pager::backend::{Backend, FileSearch, Shape};
    let grpc = |url: &str| {
        let opts = ClientOptions {
            retries: 0,
            zoekt_transport: zoekt_pager::zoekt::Wire::Grpc,
            ..ClientOptions::DEFAULT
        };
        ZoektClient::new(url, opts).unwrap()
    };
    let search = FileSearch {
        query: "x".into(),
        effort: zoekt_pager::Effort::default(),
        max_files: 3,
        context_lines: 0,
        shape: Shape::Lines,
    };
    // HTTP/1 only: every request is answered 400 and the connection closed.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 1024];
                let _ = tcp.read(&mut buf).await;
                let _ = tcp
                    .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .await;
            });
        }
    });
    // HTTP/2 (wiremock speaks it) without the service: 404.
    let h2 = MockServer::start().await;
    for url in [format!("http://{addr}"), h2.uri()] {
        let e = Backend::search(&grpc(&url), &search).await.unwrap_err();
        assert!(
            e.message.contains("--zoekt-transport json"),
            "{url}: {}",
            e.message
        );
    }
}
