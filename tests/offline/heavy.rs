//! A call deadline on the command line: `--call-timeout-ms` ends a call whose Zoekt answers
//! slower than it, as the server does. A stand-in answers slowly on demand, which a real
//! Zoekt cannot be made to do. Queries a real Zoekt cannot finish are `tests/live/heavy.rs`.

use crate::support;

use std::time::{Duration, Instant};

/// The command line keeps `--call-timeout-ms` as the server does: the call ends at the
/// deadline with BACKEND_TIMEOUT (it ran for minutes before).
#[tokio::test]
async fn the_command_line_ends_a_call_at_its_deadline() {
    let zoekt = support::slow_zoekt_without_symbols(600).await;
    let started = Instant::now();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_zoekt-pager"))
        .args(["search_symbols", "x", "--call-timeout-ms", "1000"])
        .env("ZOEKT_URL", zoekt.uri())
        // The slow stand-in speaks JSON.
        .env("ZOEKT_PAGER_ZOEKT_TRANSPORT", "json")
        .env("ZOEKT_PAGER_CACHE_BYTES", "0")
        .env("ZOEKT_PAGER_SUGGEST_FILTERS", "off")
        .output()
        .await
        .unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("Error BACKEND_TIMEOUT"), "{stderr}");
    assert!(stderr.contains("--call-timeout-ms"), "{stderr}");
    assert!(took < Duration::from_millis(2_500), "took {took:?}");
}
