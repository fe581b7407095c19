mod support;

// https to Zoekt with a private CA and an auth header, against the real fixture zoekt-webserver
// (`ZOEKT_PAGER_LIVE_URL`) behind a real TLS terminator that checks the header
// (`support::tls_proxy`, on `ZOEKT_PAGER_TLS_PROXY_PORT`), through the real binary.

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
    cmd.env("ZOEKT_URL", url)
        .env("ZOEKT_PAGER_LOG", "trace")
        .env("ZOEKT_PAGER_RETRIES", "0")
        .envs(env.iter().copied())
        .args(["search_symbols", "pagerItem", "--limit", "12"])
        .output()
        .await
        .expect("run zoekt-pager")
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

    // Without the private CA: a clear error naming the flag to fix.
    let untrusted = run(&url, &[("ZOEKT_PAGER_ZOEKT_HEADER_FILE", headers)]).await;
    let said = text(&untrusted.stderr);
    assert!(!untrusted.status.success());
    assert!(
        said.contains("BACKEND_UNAVAILABLE") && said.contains("--zoekt-ca-file"),
        "{said}"
    );
    assert!(!said.contains(secret), "{said}");

    // A header the proxy refuses: 401, with a hint at the header settings, and the header
    // itself never echoed.
    let wrong = dir.join("wrong-headers");
    std::fs::write(&wrong, "Authorization: Bearer wrong-0d1e\n").unwrap();
    let refused = run(
        &url,
        &[
            ("ZOEKT_PAGER_ZOEKT_CA_FILE", ca),
            ("ZOEKT_PAGER_ZOEKT_HEADER_FILE", wrong.to_str().unwrap()),
        ],
    )
    .await;
    let said = text(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        said.contains("401") && said.contains("--zoekt-header-file"),
        "{said}"
    );
    assert!(!said.contains("wrong-0d1e"), "{said}");
    assert!(proxy.refused.load(std::sync::atomic::Ordering::Relaxed) > 0);

    // A private CA that is not the one that signed the proxy's certificate: the same clear
    // error as none at all.
    let other_ca = dir.join("other-ca.pem");
    std::fs::write(&other_ca, support::tls_proxy::unrelated_ca_pem()).unwrap();
    let mistrusted = run(
        &url,
        &[
            ("ZOEKT_PAGER_ZOEKT_CA_FILE", other_ca.to_str().unwrap()),
            ("ZOEKT_PAGER_ZOEKT_HEADER_FILE", headers),
        ],
    )
    .await;
    let said = text(&mistrusted.stderr);
    assert!(!mistrusted.status.success());
    assert!(
        said.contains("BACKEND_UNAVAILABLE") && said.contains("--zoekt-ca-file"),
        "{said}"
    );
    assert!(!said.contains(secret), "{said}");

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
