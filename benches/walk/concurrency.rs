//! Concurrent clients: one MCP session each on a fresh server, all walking the same pages
//! of `search_symbols` for a fixed time.

use std::path::Path;
use std::time::Instant;

use zoekt_pager::harness::proxy::Proxy;

use crate::measure::{page_args, searches, settle};
use crate::server::{Server, call, text_of};
use crate::{CASES, CONC_PAGES, CONC_TIME, LIMIT, ms};

pub(crate) struct Concurrency {
    pub(crate) cache_on: bool,
    pub(crate) clients: usize,
    pub(crate) pages: usize,
    pub(crate) secs: f64,
    pub(crate) latencies: Vec<f64>,
    pub(crate) requests: usize,
    pub(crate) rss_start_kib: Option<u64>,
    pub(crate) peak_rss_kib: Option<u64>,
}

/// `clients` sessions on a fresh server, each walking the same [`CONC_PAGES`] pages of
/// `search_symbols` over and over for [`CONC_TIME`].
pub(crate) async fn concurrency(
    bin: &Path,
    zoekt: &str,
    cache_on: bool,
    clients: usize,
) -> Concurrency {
    let proxy = Proxy::start(zoekt)
        .await
        .expect("start the recording proxy");
    let server = Server::start(bin, proxy.url(), cache_on).await;
    let mut sessions = Vec::new();
    for _ in 0..clients {
        sessions.push(server.client().await);
    }
    let rss_start_kib = server.status_kib("VmRSS");
    proxy.take();
    let started = Instant::now();
    let deadline = started + CONC_TIME;
    let mut tasks = Vec::new();
    for client in sessions {
        tasks.push(tokio::spawn(async move {
            let case = &CASES[0];
            let mut latencies = Vec::new();
            'outer: while Instant::now() < deadline {
                let mut cursor: Option<String> = None;
                for _ in 0..CONC_PAGES {
                    if Instant::now() >= deadline {
                        break 'outer;
                    }
                    let t = Instant::now();
                    let r = call(
                        &client,
                        case.tool,
                        page_args(case, LIMIT, cursor.as_deref()),
                    )
                    .await;
                    latencies.push(ms(t.elapsed()));
                    assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
                    let sc = r.structured_content.expect("structured content");
                    cursor = sc["next_cursor"].as_str().map(String::from);
                    if cursor.is_none() {
                        break;
                    }
                }
            }
            let _ = client.cancel().await;
            latencies
        }));
    }
    let mut latencies = Vec::new();
    for t in tasks {
        latencies.extend(t.await.expect("client task"));
    }
    let secs = started.elapsed().as_secs_f64();
    let mut requests = searches(Some(&proxy)).len();
    if cache_on {
        requests += settle(Some(&proxy)).await.len();
    }
    let peak_rss_kib = server.status_kib("VmHWM");
    server.stop().await;
    Concurrency {
        cache_on,
        clients,
        pages: latencies.len(),
        secs,
        latencies,
        requests,
        rss_start_kib,
        peak_rss_kib,
    }
}
