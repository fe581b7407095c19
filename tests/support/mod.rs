//! Shared test support: which Zoekt a test talks to, and walking pages.
//!
//! Contract tests run twice: against the Zoekt MODEL (always; see `zoekt_model`) and against
//! a LIVE zoekt-webserver when `.ci/run` brought one up (`ZOEKT_PAGER_LIVE_URL`). In CI
//! (`CI=true`) a missing live Zoekt fails the test unless `.ci/run` recorded why Zoekt cannot
//! be installed on this machine (`ZOEKT_PAGER_LIVE_BLOCKED`), in which case the skip is loud.
#![allow(dead_code)]

pub mod mcp;
pub mod zoekt_model;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use zoekt_model::{Corpus, ModelServer};

use zoekt_pager::page::{Page, PageArgs, PageError, Pager, PagerConfig};
use zoekt_pager::zoekt::{ClientOptions, ZoektClient};

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures_corpus() -> PathBuf {
    repo_root().join("fixtures/corpus")
}

/// The >10k-file corpus, generated once per test binary into target/ (never committed).
pub fn generated_corpus() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = repo_root().join("target/gen-corpus-12000");
        if !dir.join(".done").exists() {
            let _ = std::fs::remove_dir_all(&dir);
            let out = std::process::Command::new("python3")
                .arg(repo_root().join("scripts/gen-corpus.py"))
                .arg(&dir)
                .args(["--files", "12000"])
                .output()
                .expect("run scripts/gen-corpus.py");
            assert!(
                out.status.success(),
                "gen-corpus failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::fs::write(dir.join(".done"), b"").unwrap();
        }
        dir
    })
    .clone()
}

/// URL of the live Zoekt for `var`, or `None` after a loud message when it may be skipped.
pub fn live_url(var: &str, test: &str) -> Option<String> {
    if let Ok(url) = std::env::var(var)
        && !url.is_empty()
    {
        return Some(url);
    }
    let blocked = std::env::var("ZOEKT_PAGER_LIVE_BLOCKED").unwrap_or_default();
    if std::env::var("CI").is_ok_and(|v| v == "true") && blocked.is_empty() {
        panic!(
            "{test}: CI needs a live Zoekt ({var} is unset) and .ci/run recorded no reason it cannot run"
        );
    }
    // Written to the real stderr, not through eprintln!: the test harness captures the
    // macros' output of passing tests, which would make the skip silent.
    use std::io::Write as _;
    let reason = if blocked.is_empty() {
        String::new()
    } else {
        format!("; {blocked}")
    };
    let _ = writeln!(
        std::io::stderr(),
        "!!! LIVE ZOEKT TEST NOT RUN: {test} ({var} unset{reason})"
    );
    None
}

pub fn client(url: &str) -> ZoektClient {
    ZoektClient::new(url, ClientOptions::default()).unwrap()
}

pub fn pager(url: &str) -> Pager<ZoektClient> {
    pager_with(url, PagerConfig::default())
}

pub fn pager_with(url: &str, cfg: PagerConfig) -> Pager<ZoektClient> {
    Pager::new(client(url), cfg)
}

/// Walks every page, with limits taken in turn from `limits` (the last one repeats), and
/// returns the pages. Panics on an error or after 10,000 pages.
pub async fn walk<T, F>(limits: &[u32], mut fetch: F) -> Vec<Page<T>>
where
    F: AsyncFnMut(&PageArgs) -> Result<Page<T>, PageError>,
{
    let mut pages = Vec::new();
    let mut args = PageArgs {
        limit: Some(limits[0]),
        cursor: None,
    };
    loop {
        let page = fetch(&args)
            .await
            .unwrap_or_else(|e| panic!("page {} failed: {e}", pages.len() + 1));
        let next = page.next_cursor.clone();
        pages.push(page);
        assert!(pages.len() < 10_000, "runaway walk");
        match next {
            Some(c) => {
                args.cursor = Some(c);
                args.limit = Some(*limits.get(pages.len()).unwrap_or(limits.last().unwrap()));
            }
            None => return pages,
        }
    }
}

/// Arguments for the first page at `limit`.
pub fn first_page(limit: u32) -> PageArgs {
    PageArgs {
        limit: Some(limit),
        cursor: None,
    }
}

pub fn sizes<T>(pages: &[Page<T>]) -> Vec<usize> {
    pages.iter().map(|p| p.count).collect()
}

pub fn all_items<T: Clone>(pages: &[Page<T>]) -> Vec<T> {
    pages.iter().flat_map(|p| p.items.clone()).collect()
}

/// The fixture corpus, loaded (with ctags) once per test binary.
pub fn fixture_model_corpus() -> Arc<Corpus> {
    static C: OnceLock<Arc<Corpus>> = OnceLock::new();
    C.get_or_init(|| Arc::new(Corpus::load(&fixtures_corpus())))
        .clone()
}

/// The generated >10k-file corpus, loaded once per test binary.
pub fn generated_model_corpus() -> Arc<Corpus> {
    static C: OnceLock<Arc<Corpus>> = OnceLock::new();
    C.get_or_init(|| Arc::new(Corpus::load(&generated_corpus())))
        .clone()
}

/// A model Zoekt over the fixture corpus.
pub async fn fixture_model() -> ModelServer {
    ModelServer::start(fixture_model_corpus()).await
}
