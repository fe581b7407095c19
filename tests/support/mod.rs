//! Shared test support: which Zoekt a test talks to, and walking pages.
//!
//! Contract tests run against a real zoekt-webserver, the pinned version that
//! `scripts/test.sh` builds and starts (`ZOEKT_PAGER_LIVE_URL` and friends). Without one they
//! fail, saying how to get one. In-process fakes stand in only for what a real Zoekt cannot be
//! made to do on demand (see `adversary`).

#![allow(dead_code)]

pub mod adversary;
pub mod faults;
pub mod harness;
pub mod keys;
pub mod mcp;
pub mod oracle;
pub mod raw_stdio;
pub mod sidecar;
pub mod tls_proxy;
pub mod webserver;

use std::path::PathBuf;

use zoekt_pager::backend::Backend;
use zoekt_pager::tool::PagedArgs;
use zoekt_pager::tools::PagedTool;
use zoekt_pager::tools::find_references::{FindReferences, FindReferencesArgs, ReferenceItem};
use zoekt_pager::tools::list_repos::{ListRepos, ListReposArgs, RepoItem};
use zoekt_pager::tools::search::{LineItem, Search, SearchArgs};
use zoekt_pager::tools::search_files::{FileItem, SearchFiles, SearchFilesArgs};
use zoekt_pager::tools::search_symbols::{SearchSymbols, SearchSymbolsArgs, SymbolItem};
use zoekt_pager::zoekt::{ClientOptions, ZoektClient};
use zoekt_pager::{Page, PageArgs, Pager, PagerConfig, ToolError};

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures_corpus() -> PathBuf {
    repo_root().join("fixtures/corpus")
}

/// The value of `var`, which `scripts/test.sh` exports for a live zoekt-webserver (or one of its
/// paths). A test that needs it and finds none FAILS, with how to get one: live tests never
/// skip, and never pass without asserting.
pub fn live_url(var: &str, test: &str) -> String {
    match std::env::var(var) {
        Ok(v) if !v.is_empty() => v,
        _ => panic!(
            "{test} needs a live zoekt-webserver, but {var} is unset.\n\
             Run the suite with `scripts/test.sh`: it builds the pinned Zoekt if needed, starts \
             one on each test corpus and exports every ZOEKT_PAGER_LIVE_* variable.\n\
             By hand: {}.\n\
             Only the unit tests and tests/offline (the replay of the recordings among them) run without Zoekt: `cargo test`.",
            by_hand(var)
        ),
    }
}

/// How to provide `var` without scripts/test.sh.
fn by_hand(var: &str) -> &'static str {
    match var {
        "ZOEKT_PAGER_LIVE_URL" => "`scripts/zoekt.sh up fixtures/corpus` prints the URL to export",
        "ZOEKT_PAGER_LIVE_BIG_URL" => {
            "`python3 scripts/gen-corpus.py target/gen-corpus-12000 --files 12000`, then \
             `ZOEKT_SHARD_LIMIT=470000 ZOEKT_PORT=6071 ZOEKT_STATE_DIR=.zoekt/big scripts/zoekt.sh up \
             target/gen-corpus-12000` (the shard limit is the one scripts/test.sh uses)"
        }
        "ZOEKT_PAGER_LIVE_TIES_URL" => {
            "`python3 scripts/gen-ties.py target/gen-ties`, then \
             `ZOEKT_PORT=6072 ZOEKT_STATE_DIR=.zoekt/ties scripts/zoekt.sh up target/gen-ties`"
        }
        "ZOEKT_PAGER_LIVE_BRANCHES_URL" => {
            "`scripts/gen-branches.sh target/gen-branches`, then `ZOEKT_GIT_BRANCHES=main,dev \
             ZOEKT_PORT=6073 ZOEKT_STATE_DIR=.zoekt/branches scripts/zoekt.sh up target/gen-branches`"
        }
        "ZOEKT_PAGER_LIVE_MANY_SHARDS_INDEX_DIR" => {
            "`ZOEKT_SHARD_LIMIT=10000 ZOEKT_STATE_DIR=.zoekt/many-shards scripts/zoekt.sh index \
             target/gen-corpus-12000` prints the index folder to export"
        }
        "ZOEKT_PAGER_LIVE_SPLIT_URLS"
        | "ZOEKT_PAGER_LIVE_SPLIT_TIES_URLS"
        | "ZOEKT_PAGER_LIVE_SPLIT_INDEX_DIR" => {
            "no one command: scripts/test.sh deals an index's shards into three folders under \
             .zoekt/split and starts a webserver on each (its `split` step); run the test through \
             it, e.g. `scripts/test.sh --run cargo test --test fanout`"
        }
        "ZOEKT_PAGER_LIVE_SPLIT_RESTART_PORT" | "ZOEKT_PAGER_TLS_PROXY_PORT" => {
            "export a free TCP port (the test starts its own server there; scripts/test.sh uses \
             6080 and 6081)"
        }
        _ => "`scripts/zoekt.sh paths` prints the webserver binary and the index folder to export",
    }
}

/// The live Zoekt serving `fixtures/corpus` (`ZOEKT_PAGER_LIVE_URL`).
pub fn fixture_zoekt(test: &str) -> String {
    live_url("ZOEKT_PAGER_LIVE_URL", test)
}

/// The live Zoekt serving the generated 12,000-file corpus (`ZOEKT_PAGER_LIVE_BIG_URL`).
pub fn big_zoekt(test: &str) -> String {
    live_url("ZOEKT_PAGER_LIVE_BIG_URL", test)
}

/// The live Zoekt serving the generated tie corpus (`ZOEKT_PAGER_LIVE_TIES_URL`): identical
/// repositories whose copies of one file score exactly the same (see `scripts/gen-ties.py`).
pub fn ties_zoekt(test: &str) -> String {
    live_url("ZOEKT_PAGER_LIVE_TIES_URL", test)
}

/// The live Zoekt serving the generated git repository `branchy` with its branches `main` and
/// `dev` (`ZOEKT_PAGER_LIVE_BRANCHES_URL`; see `scripts/gen-branches.sh` for its facts).
pub fn branches_zoekt(test: &str) -> String {
    live_url("ZOEKT_PAGER_LIVE_BRANCHES_URL", test)
}

/// The API of Zoekt the suites search over: `ZOEKT_TEST_TRANSPORT`, `json` unless it says
/// `grpc`. The stand-ins (wiremock, the taps, the fault proxies) speak JSON only, so JSON is
/// the default; `scripts/test.sh` runs the live tier over gRPC, the pager's default, and then
/// the suites whose pages depend on how an answer is decoded (contract, exact at scale) again
/// over JSON: both transports meet the same checks. Tests that start the binary without these
/// helpers (the https, heavy and command-line ones, the Node and Python clients) run the
/// default, gRPC, against a real Zoekt. (Not a ZOEKT_PAGER_ variable: those are dropped from
/// every server a test starts.)
pub fn test_transport() -> &'static str {
    match std::env::var("ZOEKT_TEST_TRANSPORT").as_deref() {
        Ok("grpc") => "grpc",
        Ok("json") | Err(_) => "json",
        Ok(other) => panic!("ZOEKT_TEST_TRANSPORT is grpc or json, not {other}"),
    }
}

/// The `zoekt-pager` binary as every server a test starts runs it: the test environment's own
/// ZOEKT_PAGER_* settings dropped (a test states what it sets), `ZOEKT_URL` set to
/// `zoekt_url`, and the test transport. Callers add the subcommand, the log level and their
/// settings, which may set the transport again.
pub fn pager_command(zoekt_url: &str) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_zoekt-pager"));
    for (k, _) in std::env::vars().filter(|(k, _)| k.starts_with("ZOEKT_PAGER_")) {
        cmd.env_remove(k);
    }
    cmd.env("ZOEKT_URL", zoekt_url)
        .env("ZOEKT_PAGER_ZOEKT_TRANSPORT", test_transport());
    cmd
}

pub fn client(url: &str) -> ZoektClient {
    let zoekt_transport = match test_transport() {
        "grpc" => zoekt_pager::zoekt::Wire::Grpc,
        _ => zoekt_pager::zoekt::Wire::Json,
    };
    let opts = ClientOptions {
        zoekt_transport,
        ..ClientOptions::default()
    };
    ZoektClient::new(url, opts).unwrap()
}

/// A pager over Zoekt's JSON API whatever `ZOEKT_TEST_TRANSPORT` says: for a [`Tap`], which
/// sees JSON requests only.
pub fn json_pager(url: &str) -> Pager<ZoektClient> {
    json_pager_with(url, PagerConfig::default())
}

/// [`json_pager`] with settings of its own.
pub fn json_pager_with(url: &str, cfg: PagerConfig) -> Pager<ZoektClient> {
    let opts = ClientOptions {
        zoekt_transport: zoekt_pager::zoekt::Wire::Json,
        ..ClientOptions::default()
    };
    Pager::new(ZoektClient::new(url, opts).unwrap(), cfg)
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
    F: AsyncFnMut(&PageArgs) -> Result<Page<T>, ToolError>,
{
    let mut pages = Vec::new();
    let mut args = PageArgs {
        limit: Some(limits[0]),
        ..PageArgs::default()
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

/// One page of tool `T` for `args` at `paging`, as a caller gets it (ended where the page's
/// token budget says), its error as a caller sees it.
pub async fn page_of<T: PagedTool, B: Backend>(
    pager: &Pager<B>,
    mut args: T::Args,
    paging: &PageArgs,
) -> Result<Page<T::Item>, ToolError> {
    args.set_paging(paging.clone());
    let page = pager
        .page::<T>(&args)
        .await
        .map_err(|e| ToolError::from(&e))?;
    let budget = pager.config().page_chars();
    Ok(zoekt_pager::form::show::<T>(T::NAME, &args, page, budget).page)
}

/// Each paged tool as a method taking its own arguments and the paging, so tests read as
/// calls of the tools.
#[allow(async_fn_in_trait)]
pub trait ToolCalls {
    /// `search_symbols`.
    async fn symbols(
        &self,
        query: &str,
        kinds: &[String],
        paging: &PageArgs,
    ) -> Result<Page<SymbolItem>, ToolError>;
    /// `search_files`.
    async fn files(&self, query: &str, paging: &PageArgs) -> Result<Page<FileItem>, ToolError>;
    /// `find_references`.
    async fn references(
        &self,
        symbol: &str,
        filters: &str,
        paging: &PageArgs,
    ) -> Result<Page<ReferenceItem>, ToolError>;
    /// `search`.
    async fn lines(
        &self,
        query: &str,
        context_lines: u32,
        paging: &PageArgs,
    ) -> Result<Page<LineItem>, ToolError>;
    /// `list_repos`.
    async fn repos(&self, query: &str, paging: &PageArgs) -> Result<Page<RepoItem>, ToolError>;
}

impl<B: Backend> ToolCalls for Pager<B> {
    async fn symbols(
        &self,
        query: &str,
        kinds: &[String],
        paging: &PageArgs,
    ) -> Result<Page<SymbolItem>, ToolError> {
        let args = SearchSymbolsArgs {
            query: query.into(),
            kinds: Some(kinds.to_vec()),
            ..Default::default()
        };
        page_of::<SearchSymbols, B>(self, args, paging).await
    }

    async fn files(&self, query: &str, paging: &PageArgs) -> Result<Page<FileItem>, ToolError> {
        let args = SearchFilesArgs {
            query: query.into(),
            ..Default::default()
        };
        page_of::<SearchFiles, B>(self, args, paging).await
    }

    async fn references(
        &self,
        symbol: &str,
        filters: &str,
        paging: &PageArgs,
    ) -> Result<Page<ReferenceItem>, ToolError> {
        let args = FindReferencesArgs {
            symbol: symbol.into(),
            filters: Some(filters.into()),
            ..Default::default()
        };
        page_of::<FindReferences, B>(self, args, paging).await
    }

    async fn lines(
        &self,
        query: &str,
        context_lines: u32,
        paging: &PageArgs,
    ) -> Result<Page<LineItem>, ToolError> {
        let args = SearchArgs {
            query: query.into(),
            context_lines: Some(context_lines),
            ..Default::default()
        };
        page_of::<Search, B>(self, args, paging).await
    }

    async fn repos(&self, query: &str, paging: &PageArgs) -> Result<Page<RepoItem>, ToolError> {
        let args = ListReposArgs {
            query: Some(query.into()),
            ..Default::default()
        };
        page_of::<ListRepos, B>(self, args, paging).await
    }
}

/// Arguments for the first page at `limit`.
pub fn first_page(limit: u32) -> PageArgs {
    PageArgs {
        limit: Some(limit),
        ..PageArgs::default()
    }
}

pub fn sizes<T>(pages: &[Page<T>]) -> Vec<usize> {
    pages.iter().map(|p| p.count).collect()
}

pub fn all_items<T: Clone>(pages: &[Page<T>]) -> Vec<T> {
    pages.iter().flat_map(|p| p.items.clone()).collect()
}

/// The setting a server started behind a [`Tap`] needs: the tap sees JSON requests only.
pub const OVER_JSON: (&str, &str) = ("ZOEKT_PAGER_ZOEKT_TRANSPORT", "json");

/// A pass-through in front of a real Zoekt that shows each request the pager sends, so a
/// test can check what went over the wire (the harness's recording proxy).
pub struct Tap {
    proxy: zoekt_pager::harness::proxy::Proxy,
}

impl Tap {
    /// Starts a tap in front of the Zoekt at `url`.
    pub async fn start(url: &str) -> Tap {
        Tap {
            proxy: zoekt_pager::harness::proxy::Proxy::start(url)
                .await
                .expect("start the recording proxy"),
        }
    }

    /// The URL to point the pager at.
    pub fn url(&self) -> String {
        self.proxy.url().to_string()
    }

    /// The /api/search request bodies sent through the tap since the last call, oldest first.
    pub fn new_searches(&self) -> Vec<serde_json::Value> {
        self.proxy
            .take()
            .into_iter()
            .filter(|x| x.path == "/api/search")
            .map(|x| x.request)
            .collect()
    }

    /// [`Tap::new_searches`] without the censuses ([`is_census`]): the windows pages asked
    /// for.
    pub fn new_windows(&self) -> Vec<serde_json::Value> {
        self.new_searches()
            .into_iter()
            .filter(|s| !is_census(s))
            .collect()
    }
}

/// Whether a JSON search request is a census: a search of names only (`type:file`, the one
/// atom a tool never builds; `find_references`' census carries its definitions, `(DEFS) or
/// (type:file (USAGES))`) under the census's own wall time (at most 3 s: less when the
/// pager's wall time is less). A listing of names (`list_tree`) is names only too, but a
/// page's own search, under the page's wall time (10 s unless a test lowers it).
pub fn is_census(request: &serde_json::Value) -> bool {
    let census_wall_ns = PagerConfig::default().census_wall_time_ms * 1_000_000;
    let q = request["Q"].as_str().unwrap_or("");
    (q.starts_with("type:file ") || q.contains(") or (type:file ("))
        && request["Opts"]["MaxWallTime"]
            .as_u64()
            .is_some_and(|ns| ns <= census_wall_ns)
}

/// The committed recordings of the pinned real Zoekt.
pub fn zoekt_recordings_dir() -> PathBuf {
    repo_root().join("fixtures/recordings/zoekt")
}

/// Reads a recording, panicking with the harness's message.
pub fn load_recording(path: &std::path::Path) -> zoekt_pager::harness::Recording {
    zoekt_pager::harness::load_recording(path).unwrap_or_else(|e| panic!("{e}"))
}

/// One query per paged tool on the generated corpus, each with thousands of items: every
/// definition `genSym<K>` (1 to 3 per file), every file, the usages of the parameter `x`
/// (13 to 20 per function), every line naming a `genSym`, and every file holding one.
pub fn broad_walks() -> Vec<(&'static str, serde_json::Value)> {
    vec![
        ("search_symbols", serde_json::json!({"query": "genSym"})),
        ("search_files", serde_json::json!({"query": "unit_"})),
        ("find_references", serde_json::json!({"symbol": "x"})),
        ("search", serde_json::json!({"query": "genSym"})),
        ("files_with_matches", serde_json::json!({"query": "genSym"})),
        ("list_repos", serde_json::json!({})),
    ]
}

/// A stand-in Zoekt that answers every search late with as many files as asked, none of
/// them holding a symbol: a `search_symbols` page never fills, so the pager keeps asking for
/// bigger windows (with the cache off: doubling, 8 requests to `--max-window`). A real Zoekt
/// cannot be made this slow on demand.
pub async fn slow_zoekt_without_symbols(delay_ms: u64) -> wiremock::MockServer {
    use serde_json::{Value, json};
    use wiremock::{Mock, MockServer, Request, ResponseTemplate, matchers};
    let s = MockServer::start().await;
    Mock::given(matchers::method("POST"))
        .and(matchers::path("/api/search"))
        .respond_with(move |req: &Request| {
            let body: Value = serde_json::from_slice(&req.body).unwrap_or_default();
            let asked = body["Opts"]["MaxDocDisplayCount"].as_u64().unwrap_or(1);
            let files: Vec<Value> = (0..asked)
                .map(|i| json!({"FileName": format!("f{i}.go"), "Repository": "r", "Score": 1000.0 - i as f64}))
                .collect();
            ResponseTemplate::new(200)
                .set_delay(std::time::Duration::from_millis(delay_ms))
                .set_body_json(json!({"Result": {"FileCount": 100_000, "MatchCount": 100_000, "Files": files}}))
        })
        .mount(&s)
        .await;
    s
}
