//! `zoekt-pager`: the MCP server (`serve`), the regression harness (`record`, `replay`,
//! `check`: `commands.rs`) and one command per tool that prints pages.
//!
//! The tool commands come from the tool table (`zoekt_pager::tools::visit_all`): each
//! tool's arguments are its flags, so the CLI never names a tool.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{ArgAction, Args, Command, FromArgMatches};
use rmcp::ServiceExt;
use tracing_subscriber::EnvFilter;

mod commands;
mod print;

use print::RunTool;

use zoekt_pager::tools::{AnswerTool, PagedTool, ToolArgs, ToolInfo, ToolVisitor, visit_all};
use zoekt_pager::zoekt::ZoektClient;
use zoekt_pager::{
    Config, FanOut, HttpArgs, Instrumented, Metrics, Pager, PagerServer, WindowCache,
};

/// The command line: global settings, `serve`, the harness's `record`, `replay` and `check`,
/// and one subcommand per tool.
fn command_line() -> Command {
    // `augment_args` also sets `about` from the struct's doc comment: set ours after it.
    let mut cli = Config::augment_args(Command::new("zoekt-pager"))
        .version(env!("CARGO_PKG_VERSION"))
        .about("Exact, resumable pages of Zoekt code search for AI assistants")
        .long_about(None)
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            HttpArgs::augment_args(Command::new("serve"))
                .about(
                    "Serve MCP over stdio (for Claude Code, Cursor and other MCP clients), or \
                     over streamable HTTP with --http (sidecar mode)",
                )
                .long_about(None),
        );
    cli = commands::subcommands(cli);
    let mut commands = ToolCommands(Vec::new());
    visit_all(&mut commands);
    for c in commands.0 {
        cli = cli.subcommand(c);
    }
    cli
}

/// One subcommand per tool, its flags from the tool's arguments.
struct ToolCommands(Vec<Command>);

impl ToolVisitor for ToolCommands {
    fn paged<T: PagedTool>(&mut self) {
        let command = tool_command::<T, T::Args>()
            .arg(
                clap::Arg::new("all")
                    .long("all")
                    .action(ArgAction::SetTrue)
                    .help("Walk every page, then print a summary (items, pages, duplicates)"),
            )
            .arg(
                clap::Arg::new("json")
                    .long("json")
                    .action(ArgAction::SetTrue)
                    .help("Print each page as JSON (one line per page) instead of text"),
            );
        self.0.push(command);
    }

    fn answer<T: AnswerTool>(&mut self) {
        self.0.push(tool_command::<T, T::Args>());
    }
}

/// The subcommand of tool `T`: its arguments as flags, its title and description as help.
fn tool_command<T: ToolInfo, A: ToolArgs>() -> Command {
    A::augment_args(Command::new(T::NAME))
        .about(T::TITLE)
        .long_about(T::DESCRIPTION)
}

/// The backend every command asks: Zoekt, with its latency counted.
/// Every Zoekt of `--zoekt-url`, each timed under its own `backend` label; one is passed
/// through the fan-out untouched.
type Backend = FanOut<Instrumented<ZoektClient>>;

/// Logs go to stderr (stdout is the MCP channel in stdio mode). Other crates are held at
/// `warn`: their debug logs print request bodies, and those hold cursors and file content.
/// rmcp is held at `error`: its `warn` "response error" line prints each JSON-RPC error
/// whole, with the resource paths and repository names in it; this crate logs every failed
/// call itself, with its code and no caller text. `default` is the level without
/// ZOEKT_PAGER_LOG.
fn init_logging(format: &str, default: &str) {
    let mut filter =
        EnvFilter::try_from_env("ZOEKT_PAGER_LOG").unwrap_or_else(|_| EnvFilter::new(default));
    filter = filter.add_directive("rmcp=error".parse().expect("valid directive"));
    for quiet in ["hyper_util", "h2", "reqwest", "axum", "tower", "tower_http"] {
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

/// jemalloc, not the system's glibc malloc: after a heavy call (answers of tens of megabytes
/// decoded into many small strings), glibc kept almost all of it (436 of 499 MiB, 15 s
/// later), spread over its per-thread arenas, and mimalloc kept it too while the server sat
/// idle (it purges only when its threads allocate again); jemalloc's background thread
/// returns freed pages on a timer, idle or not (docs/bench/memory.md).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[tokio::main]
async fn main() -> ExitCode {
    let matches = command_line().get_matches();
    let config = match Config::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    let Some((name, sub)) = matches.subcommand() else {
        return ExitCode::from(2);
    };
    // The harness's commands print their own report; a log line for every page they run
    // (and a warning for each error a scenario asks for on purpose) would bury it.
    let quiet = matches!(name, "record" | "replay" | "check");
    init_logging(&config.log_format, if quiet { "error" } else { "info" });
    if let Err(e) = config.validate() {
        eprintln!("zoekt-pager: {e}");
        return ExitCode::from(2);
    }
    // The harness builds its own backends (one Zoekt to record, none to replay).
    if let Some(code) = commands::run(name, sub, &config).await {
        return code;
    }
    let cache = WindowCache::new(&config.cache());
    let metrics = Arc::new(Metrics::with_cache(cache.clone()));
    let backend = match backends(&config, &metrics) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("zoekt-pager: {e}");
            return ExitCode::from(2);
        }
    };
    let pager = Pager::new(backend, config.pager()).with_cache(cache);
    match name {
        "serve" => {
            let http = match HttpArgs::from_arg_matches(sub) {
                Ok(h) => h,
                Err(e) => e.exit(),
            };
            let call_timeout = Duration::from_millis(config.call_timeout_ms);
            let text_only = config.page_forms == "text";
            match http.http {
                None => serve_stdio(pager, metrics, call_timeout, text_only).await,
                Some(addr) => {
                    serve_http(pager, metrics, call_timeout, text_only, &http, addr).await
                }
            }
        }
        _ => {
            let mut run = RunTool {
                name,
                matches: sub,
                pager: &pager,
                call_timeout: Duration::from_millis(config.call_timeout_ms),
                run: None,
            };
            visit_all(&mut run);
            match run.run {
                Some(f) => f.await,
                None => ExitCode::from(2),
            }
        }
    }
}

/// A client for every Zoekt URL, with the TLS roots and headers of the settings.
fn backends(config: &Config, metrics: &Arc<Metrics>) -> Result<Backend, String> {
    let transport = config.transport.load()?;
    let mut members = Vec::new();
    for url in config.zoekt_urls()? {
        let client = ZoektClient::with_transport(&url, config.client.clone(), &transport)
            .map_err(|e| e.to_string())?;
        let timed = Instrumented::new(client, Arc::clone(metrics)).labelled(&url);
        members.push((url, timed));
    }
    let fan = FanOut::new(members, config.transport.require_all_backends)?;
    // A webserver whose search timed out is left out for a while only when Zoekt ends a
    // search before the request times out: otherwise a heavy search would take a healthy
    // webserver out of every page.
    let bounded = config.pager().effort.wall_time() < config.client.timeout;
    Ok(if bounded {
        fan
    } else {
        fan.resting_after_timeout(std::time::Duration::ZERO)
    })
}

/// The Zoekt URLs served, for the start-up log line.
fn zoekt_names(pager: &Pager<Backend>) -> String {
    let names: Vec<&str> = pager
        .backend()
        .members()
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    names.join(",")
}

async fn serve_stdio(
    pager: Pager<Backend>,
    metrics: Arc<Metrics>,
    call_timeout: Duration,
    text_only: bool,
) -> ExitCode {
    tracing::info!(zoekt = zoekt_names(&pager), "serving MCP on stdio");
    let server = PagerServer::with_metrics(pager, metrics)
        .with_call_timeout(call_timeout)
        .with_text_only(text_only);
    let (transport, writer) =
        zoekt_pager::stdio::transport(tokio::io::stdin(), tokio::io::stdout());
    let writer = tokio::spawn(writer);
    let running = match server.serve(transport).await {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(error = %e, "MCP initialisation failed");
            return ExitCode::FAILURE;
        }
    };
    let ended = running.waiting().await;
    // The transport is closed once the session ends; the writer then flushes what is left.
    match tokio::time::timeout(Duration::from_secs(5), writer).await {
        Ok(Ok(Err(e))) => tracing::warn!(error = %e, "writing stdout failed"),
        Err(_) => tracing::warn!("stdout did not drain within 5 s"),
        _ => {}
    }
    match ended {
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
    call_timeout: Duration,
    text_only: bool,
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
        zoekt = zoekt_names(&pager),
        auth = opts.token.is_some(),
        "serving MCP over HTTP at /mcp"
    );
    // The one line on stdout: where to connect (useful with port 0).
    println!("zoekt-pager: serving MCP at http://{bound}/mcp");
    // On shutdown, background prefetches stop at once rather than run into the grace period.
    let cache = pager.cache().cloned();
    let shutdown = async move {
        shutdown_signal().await;
        if let Some(cache) = cache {
            cache.shutdown();
        }
    };
    let server = PagerServer::with_metrics(pager, Arc::clone(&metrics))
        .with_call_timeout(call_timeout)
        .with_text_only(text_only);
    // Accept errors are logged and survived inside the listener: serving ends only on
    // shutdown, which is a success.
    zoekt_pager::http::serve(listener, server, metrics, opts, shutdown).await;
    ExitCode::SUCCESS
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
