//! https to Zoekt with a private CA and an auth header, against the real fixture zoekt-webserver
//! (`ZOEKT_PAGER_LIVE_URL`) behind a real TLS terminator that checks the header
//! (`support::tls_proxy`, on `ZOEKT_PAGER_TLS_PROXY_PORT`), through the real binary.

use crate::support;

use std::process::Output;

use support::tls_proxy::TlsProxy;

const TOKEN: &str = "Bearer test-s3cret-7f3a9c";

/// `zoekt-pager search_symbols pagerItem --limit 12` with only `env` set among the pager's
/// variables, logging at trace. On tokio's process, so that the TLS proxy, served by this
/// test's runtime, can answer it while it runs.
async fn run(url: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_zoekt-pager"));
    for (k, _) in std::env::vars().filter(|(k, _)| k.starts_with("ZOEKT_PAGER_")) {
        cmd.env_remove(k);
    }
    // Over JSON unless `env` says gRPC (`grpc()`): each transport its own pass.
    cmd.env("ZOEKT_URL", url)
        .env("ZOEKT_PAGER_ZOEKT_TRANSPORT", "json")
        .env("ZOEKT_PAGER_LOG", "trace")
        .env("ZOEKT_PAGER_RETRIES", "0")
        .envs(env.iter().copied())
        .args(["search_symbols", "pagerItem", "--limit", "12"])
        .output()
        .await
        .expect("run zoekt-pager")
}

/// `env` with Zoekt's API `transport` chosen.
fn over<'a>(transport: &'a str, env: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut env = env.to_vec();
    env.push(("ZOEKT_PAGER_ZOEKT_TRANSPORT", transport));
    env
}

/// `env` with the gRPC transport chosen.
fn grpc<'a>(env: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    over("grpc", env)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test]
async fn https_with_a_private_ca_and_an_auth_header_reaches_a_real_zoekt() {
    let test = "https_with_a_private_ca_and_an_auth_header_reaches_a_real_zoekt";
    let zoekt = support::fixture_zoekt(test);
    let port: u16 = support::live_url("ZOEKT_PAGER_TLS_PROXY_PORT", test)
        .parse()
        .expect("a port");
    let proxy = TlsProxy::start(&zoekt, port, TOKEN).await;
    let dir = std::env::temp_dir().join(format!("zoekt-pager-https-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ca = dir.join("ca.pem");
    std::fs::write(&ca, &proxy.ca_pem).unwrap();
    let headers = dir.join("headers");
    std::fs::write(&headers, format!("Authorization: {TOKEN}\n")).unwrap();
    let (ca, headers) = (ca.to_str().unwrap(), headers.to_str().unwrap());
    let url = proxy.url.clone();
    let env_ok = [
        ("ZOEKT_PAGER_ZOEKT_CA_FILE", ca),
        ("ZOEKT_PAGER_ZOEKT_HEADER_FILE", headers),
    ];

    // The same page as over plain http, straight to Zoekt.
    let ok = run(&url, &env_ok).await;
    let plain = run(&zoekt, &[]).await;
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    assert!(
        text(&ok.stdout).contains("pagerItem"),
        "{}",
        text(&ok.stdout)
    );
    assert_eq!(text(&ok.stdout), text(&plain.stdout));
    assert_eq!(proxy.refused.load(std::sync::atomic::Ordering::Relaxed), 0);
    // The header never shows in the logs, even at trace.
    let secret = TOKEN.split(' ').nth(1).unwrap();
    assert!(!text(&ok.stderr).contains(secret), "{}", text(&ok.stderr));

    // The same through ZOEKT_PAGER_ZOEKT_HEADERS.
    let headers_text = format!("Authorization: {TOKEN}");
    let by_env = run(
        &url,
        &[
            ("ZOEKT_PAGER_ZOEKT_CA_FILE", ca),
            ("ZOEKT_PAGER_ZOEKT_HEADERS", headers_text.as_str()),
        ],
    )
    .await;
    assert_eq!(
        text(&by_env.stdout),
        text(&plain.stdout),
        "{}",
        text(&by_env.stderr)
    );

    // Over gRPC (HTTP/2, asked for in the TLS handshake) through the same proxy: the same
    // page, the header sent as metadata and never logged.
    let over_grpc = run(
        &url,
        &grpc(&[
            ("ZOEKT_PAGER_ZOEKT_CA_FILE", ca),
            ("ZOEKT_PAGER_ZOEKT_HEADER_FILE", headers),
        ]),
    )
    .await;
    assert_eq!(
        text(&over_grpc.stdout),
        text(&plain.stdout),
        "{}",
        text(&over_grpc.stderr)
    );
    assert!(proxy.grpc_calls.load(std::sync::atomic::Ordering::Relaxed) > 0);
    assert!(!text(&over_grpc.stderr).contains(secret));

    let wrong = dir.join("wrong-headers");
    std::fs::write(&wrong, "Authorization: Bearer wrong-0d1e\n").unwrap();
    let wrong = wrong.to_str().unwrap();
    let other_ca = dir.join("other-ca.pem");
    std::fs::write(&other_ca, support::tls_proxy::unrelated_ca_pem()).unwrap();
    let other_ca = other_ca.to_str().unwrap();
    for transport in ["json", "grpc"] {
        // Without the private CA, or with one that did not sign the proxy's certificate: a
        // clear error naming the flag to fix.
        for env in [
            over(transport, &[("ZOEKT_PAGER_ZOEKT_HEADER_FILE", headers)]),
            over(
                transport,
                &[
                    ("ZOEKT_PAGER_ZOEKT_CA_FILE", other_ca),
                    ("ZOEKT_PAGER_ZOEKT_HEADER_FILE", headers),
                ],
            ),
        ] {
            let untrusted = run(&url, &env).await;
            let said = text(&untrusted.stderr);
            assert!(!untrusted.status.success(), "{transport}");
            assert!(
                said.contains("BACKEND_UNAVAILABLE") && said.contains("--zoekt-ca-file"),
                "{transport}: {said}"
            );
            assert!(!said.contains(secret), "{said}");
        }
        // A header the proxy refuses: 401, with a hint at the header settings, and the
        // header itself never echoed.
        let refused_before = proxy.refused.load(std::sync::atomic::Ordering::Relaxed);
        let refused = run(
            &url,
            &over(
                transport,
                &[
                    ("ZOEKT_PAGER_ZOEKT_CA_FILE", ca),
                    ("ZOEKT_PAGER_ZOEKT_HEADER_FILE", wrong),
                ],
            ),
        )
        .await;
        let said = text(&refused.stderr);
        assert!(!refused.status.success(), "{transport}");
        assert!(
            said.contains("401") && said.contains("--zoekt-header-file"),
            "{transport}: {said}"
        );
        assert!(!said.contains("wrong-0d1e"), "{said}");
        assert!(proxy.refused.load(std::sync::atomic::Ordering::Relaxed) > refused_before);
    }

    // A sidecar over https: ready, pages as over plain http, and the header in neither its
    // log (at trace) nor its metrics.
    let sidecar = support::sidecar::Sidecar::start(
        &url,
        &[
            ("ZOEKT_PAGER_ZOEKT_CA_FILE", ca),
            ("ZOEKT_PAGER_ZOEKT_HEADER_FILE", headers),
            ("ZOEKT_PAGER_LOG", "trace"),
        ],
    )
    .await;
    let (status, body) = sidecar.get("/readyz").await;
    assert_eq!(status, 200, "{body}");
    let client = sidecar.client().await;
    let page = support::mcp::call(
        &client,
        "search_symbols",
        serde_json::json!({"query": "pagerItem", "limit": 12}),
    )
    .await;
    assert!(support::mcp::text(&page).contains("pagerItem"));
    let (_, metrics) = sidecar.get("/metrics").await;
    assert!(metrics.contains(&format!("backend=\"{url}\"")), "{metrics}");
    client.cancel().await.unwrap();
    // The log holds the page it served over TLS, at trace (else the check below would hold
    // of nothing).
    let log = sidecar.log_text();
    assert!(
        log.contains("rustls") && log.contains("page served tool=\"search_symbols\""),
        "{log}"
    );
    for said in [metrics, log] {
        assert!(!said.contains(secret), "{said}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
