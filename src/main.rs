//! `zoekt-pager`: the MCP server (`serve`) and human commands that print pages.

use std::collections::HashSet;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use rmcp::ServiceExt;
use serde::Serialize;
use tracing_subscriber::EnvFilter;

use std::sync::Arc;

use zoekt_pager::config::{Config, HttpArgs};
use zoekt_pager::mcp::PagerServer;
use zoekt_pager::mcp::render::{RenderLine, error_text, page_text};
use zoekt_pager::metrics::{Instrumented, Metrics};
use zoekt_pager::page::{Page, PageArgs, PageError, Pager};
use zoekt_pager::zoekt::ZoektClient;

#[derive(Debug, Parser)]
#[command(
    name = "zoekt-pager",
    version,
    about = "Exact, resumable pages of Zoekt code search for AI assistants"
)]
struct Cli {
    #[command(flatten)]
    config: Config,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve MCP over stdio (for Claude Code, Cursor and other MCP clients), or over
    /// streamable HTTP with --http (sidecar mode).
    Serve {
        #[command(flatten)]
        http: HttpArgs,
    },
    /// Run regression scenarios against a live Zoekt and write recordings (every Zoekt
    /// exchange plus the MCP results, the goldens) for replay without Zoekt.
    Record {
        /// A scenario file (TOML) or a folder of them.
        #[arg(long, default_value = "fixtures/scenarios")]
        scenarios: std::path::PathBuf,
        /// Folder for the recordings (one JSON file per scenario).
        #[arg(long)]
        out: std::path::PathBuf,
        /// What answers, written into each recording (default: "zoekt " + the Zoekt version
        /// from the index metadata).
        #[arg(long)]
        source: Option<String>,
    },
    /// Print a page of symbol definitions.
    Symbols {
        query: String,
        /// Keep only these ctags kinds (comma separated).
        #[arg(long, value_delimiter = ',')]
        kinds: Vec<String>,
        #[command(flatten)]
        paging: Paging,
    },
    /// Print a page of files whose path matches.
    Files {
        query: String,
        #[command(flatten)]
        paging: Paging,
    },
    /// Print a page of a symbol's definitions, then usages.
    Refs {
        symbol: String,
        /// Filters only, e.g. "lang:go -file:_test".
        #[arg(long, default_value = "")]
        filters: String,
        #[command(flatten)]
        paging: Paging,
    },
    /// Print a page of matching lines for a raw Zoekt query.
    Search {
        query: String,
        #[arg(long, default_value_t = 0)]
        context: u32,
        #[command(flatten)]
        paging: Paging,
    },
    /// Print a page of indexed repositories.
    Repos {
        #[arg(default_value = "")]
        query: String,
        #[command(flatten)]
        paging: Paging,
    },
}

#[derive(Debug, Clone, clap::Args)]
struct Paging {
    /// Items per page.
    #[arg(long)]
    limit: Option<u32>,
    /// Cursor printed by the previous page.
    #[arg(long)]
    cursor: Option<String>,
    /// Walk every page, then print a summary (items, pages, duplicates).
    #[arg(long)]
    all: bool,
    /// Print each page as JSON (one line per page) instead of text.
    #[arg(long)]
    json: bool,
}

/// Logs go to stderr (stdout is the MCP channel in stdio mode). Other crates are held at
/// `warn`: their debug logs print request bodies, and those hold cursors and file content.
fn init_logging(format: &str) {
    let mut filter =
        EnvFilter::try_from_env("ZOEKT_PAGER_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    for quiet in [
        "rmcp",
        "hyper",
        "hyper_util",
        "h2",
        "reqwest",
        "axum",
        "tower",
        "tower_http",
    ] {
        filter = filter.add_directive(format!("{quiet}=warn").parse().expect("valid directive"));
    }
    use std::io::IsTerminal as _;
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter);
    if format == "json" {
        builder.json().flatten_event(true).init();
    } else {
        builder.init();
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(&cli.config.log_format);
    if let Err(e) = cli.config.validate() {
        eprintln!("zoekt-pager: {e}");
        return ExitCode::from(2);
    }
    let client = match ZoektClient::new(&cli.config.zoekt_url, cli.config.client()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("zoekt-pager: {e}");
            return ExitCode::from(2);
        }
    };
    let metrics = Arc::new(Metrics::new());
    let pager = Pager::new(
        Instrumented::new(client, Arc::clone(&metrics)),
        cli.config.pager(),
    );
    match cli.command {
        Command::Serve { http } => match http.http {
            None => serve_stdio(pager, metrics).await,
            Some(addr) => serve_http(pager, metrics, &http, addr).await,
        },
        Command::Record {
            scenarios,
            out,
            source,
        } => {
            record(
                &cli.config,
                pager.backend().inner(),
                &scenarios,
                &out,
                source,
            )
            .await
        }
        Command::Symbols {
            query,
            kinds,
            paging,
        } => {
            walk("search_symbols", &paging, async |a| {
                pager.symbols(&query, &kinds, a).await
            })
            .await
        }
        Command::Files { query, paging } => {
            walk("search_files", &paging, async |a| {
                pager.files(&query, a).await
            })
            .await
        }
        Command::Refs {
            symbol,
            filters,
            paging,
        } => {
            walk("find_references", &paging, async |a| {
                pager.references(&symbol, &filters, a).await
            })
            .await
        }
        Command::Search {
            query,
            context,
            paging,
        } => {
            walk("search", &paging, async |a| {
                pager.lines(&query, context, a).await
            })
            .await
        }
        Command::Repos { query, paging } => {
            walk("list_repos", &paging, async |a| {
                pager.repos(&query, a).await
            })
            .await
        }
    }
}

type Backend = Instrumented<ZoektClient>;

async fn serve_stdio(pager: Pager<Backend>, metrics: Arc<Metrics>) -> ExitCode {
    tracing::info!(
        zoekt = pager.backend().inner().base_url(),
        "serving MCP on stdio"
    );
    let server = PagerServer::with_metrics(pager, metrics);
    let running = match server.serve(rmcp::transport::stdio()).await {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(error = %e, "MCP initialisation failed");
            return ExitCode::FAILURE;
        }
    };
    match running.waiting().await {
        Ok(reason) => {
            tracing::info!(?reason, "MCP session ended");
            ExitCode::SUCCESS
        }
        Err(e) => {
            tracing::error!(error = %e, "MCP session failed");
            ExitCode::FAILURE
        }
    }
}

async fn serve_http(
    pager: Pager<Backend>,
    metrics: Arc<Metrics>,
    args: &HttpArgs,
    addr: std::net::SocketAddr,
) -> ExitCode {
    let opts = match args.options(addr) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("zoekt-pager: {e}");
            return ExitCode::from(2);
        }
    };
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("zoekt-pager: cannot listen on {addr}: {e}");
            return ExitCode::from(2);
        }
    };
    let bound = listener.local_addr().unwrap_or(addr);
    if !zoekt_pager::http::is_loopback(&bound) && opts.token.is_none() {
        tracing::warn!(
            %bound,
            "serving beyond loopback WITHOUT a bearer token: anyone who can reach this port can search the index"
        );
    }
    tracing::info!(
        %bound,
        zoekt = pager.backend().inner().base_url(),
        auth = opts.token.is_some(),
        "serving MCP over HTTP at /mcp"
    );
    // The one line on stdout: where to connect (useful with port 0).
    println!("zoekt-pager: serving MCP at http://{bound}/mcp");
    let server = PagerServer::with_metrics(pager, Arc::clone(&metrics));
    match zoekt_pager::http::serve(listener, server, metrics, opts, shutdown_signal()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "HTTP server failed");
            ExitCode::FAILURE
        }
    }
}

async fn record(
    config: &Config,
    client: &ZoektClient,
    scenarios: &std::path::Path,
    out: &std::path::Path,
    source: Option<String>,
) -> ExitCode {
    let scenarios = match zoekt_pager::harness::scenario::load(scenarios) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("zoekt-pager record: {e}");
            return ExitCode::from(2);
        }
    };
    // Recording an unreachable or half-loaded Zoekt would commit errors as goldens.
    match client.readiness().await {
        Ok(r) if r.is_ready() => {}
        Ok(r) => {
            eprintln!(
                "zoekt-pager record: Zoekt at {} is not ready (HTTP {}: {})",
                client.base_url(),
                r.readyz_status,
                r.detail
            );
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("zoekt-pager record: {e}");
            return ExitCode::FAILURE;
        }
    }
    let source = match source {
        Some(s) => s,
        None => match client.list("").await {
            Ok(list) => {
                let mut versions: Vec<String> = list
                    .repos
                    .iter()
                    .map(|r| r.index_metadata.zoekt_version.clone())
                    .filter(|v| !v.is_empty())
                    .collect();
                versions.sort();
                versions.dedup();
                format!("zoekt {}", versions.join(","))
            }
            Err(e) => {
                eprintln!("zoekt-pager record: Zoekt at {}: {e}", client.base_url());
                return ExitCode::FAILURE;
            }
        },
    };
    match zoekt_pager::harness::record(client.base_url(), &scenarios, out, &config.pager(), &source)
        .await
    {
        Ok(files) => {
            eprintln!(
                "recorded {} scenario(s) from {source} into {}",
                files.len(),
                out.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("zoekt-pager record: {e}");
            ExitCode::FAILURE
        }
    }
}

/// SIGTERM (what Kubernetes and systemd send) or Ctrl-C.
async fn shutdown_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        () = term => tracing::info!("SIGTERM received"),
        _ = tokio::signal::ctrl_c() => tracing::info!("interrupt received"),
    }
}

/// Prints one page, or every page with `--all`, then a summary that shows whether the walk
/// repeated anything.
async fn walk<T, F>(tool: &str, paging: &Paging, mut fetch: F) -> ExitCode
where
    T: Serialize + RenderLine,
    F: AsyncFnMut(&PageArgs) -> Result<Page<T>, PageError>,
{
    let mut args = PageArgs {
        limit: paging.limit,
        cursor: paging.cursor.clone(),
    };
    let (mut pages, mut items) = (0usize, 0usize);
    let mut seen = HashSet::new();
    let mut duplicates = 0usize;
    loop {
        let page = match fetch(&args).await {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{}", error_text(&e));
                return ExitCode::FAILURE;
            }
        };
        pages += 1;
        items += page.count;
        for item in &page.items {
            if !seen.insert(serde_json::to_string(item).unwrap_or_default()) {
                duplicates += 1;
            }
        }
        if paging.json {
            println!("{}", serde_json::to_string(&page).unwrap_or_default());
        } else {
            println!("{}", page_text(tool, &page));
        }
        match (&page.next_cursor, paging.all) {
            (Some(c), true) => args.cursor = Some(c.clone()),
            _ => break,
        }
    }
    if paging.all {
        eprintln!(
            "walked {pages} page(s): {items} items, {} unique, {duplicates} duplicate(s)",
            seen.len()
        );
    }
    ExitCode::SUCCESS
}
