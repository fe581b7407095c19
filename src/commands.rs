//! The regression harness's commands: `record` (scenarios against a live Zoekt, into
//! recordings), `replay` (recordings against their goldens, with no Zoekt) and `check`
//! (recordings' scenarios against a live Zoekt, what changed). Their flags, what each
//! prints and how each exits; the work is `zoekt_pager::harness`'s.
//!
//! Exit codes: 0 all matched (or recorded), 1 differences (or a failed recording), 2 the
//! command could not run (bad flags, unreadable recordings, Zoekt not ready for `check`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{ArgMatches, Args, Command, FromArgMatches};

use zoekt_pager::backend::Backend;
use zoekt_pager::harness::{self, Made, Recording};
use zoekt_pager::zoekt::{Wire, ZoektClient, ZoektError};
use zoekt_pager::{Config, Metrics};

/// Options of `record`.
#[derive(Debug, Args)]
struct RecordArgs {
    /// A scenario file (TOML) or a folder of them.
    #[arg(long, default_value = "fixtures/scenarios")]
    scenarios: PathBuf,
    /// Folder for the recordings (one JSON file per scenario).
    #[arg(long)]
    out: PathBuf,
    /// What answers, written into each recording (default: "zoekt " + the Zoekt versions
    /// from the index metadata, and the URL).
    #[arg(long)]
    source: Option<String>,
}

/// Options of `replay`.
#[derive(Debug, Args)]
struct ReplayArgs {
    /// A folder of recordings (every `*.json` in it), or one recording.
    recordings: PathBuf,
}

/// Options of `check`.
#[derive(Debug, Args)]
struct CheckArgs {
    /// A folder of recordings (every `*.json` in it), or one recording.
    recordings: PathBuf,
}

/// The three commands, added to the command line.
pub(crate) fn subcommands(cli: Command) -> Command {
    cli.subcommand(
        RecordArgs::augment_args(Command::new("record"))
            .about(
                "Run regression scenarios against a live Zoekt (--zoekt-url, over \
                 --zoekt-transport) and write one recording per scenario: every answer Zoekt \
                 gave, and the MCP results (the goldens)",
            )
            .long_about(None),
    )
    .subcommand(
        ReplayArgs::augment_args(Command::new("replay"))
            .about(
                "Replay recordings with no Zoekt and compare every MCP result with its \
                 golden; exits 1 naming each difference (scenario, step, page, field)",
            )
            .long_about(None),
    )
    .subcommand(
        CheckArgs::augment_args(Command::new("check"))
            .about(
                "Run the recordings' scenarios against a live Zoekt (--zoekt-url) and report \
                 what changed on each page: items added, removed or moved, totals; exits 1 \
                 when anything did",
            )
            .long_about(None),
    )
}

/// Runs `name` if it is one of the three; `None` otherwise.
pub(crate) async fn run(name: &str, sub: &ArgMatches, config: &Config) -> Option<ExitCode> {
    Some(match name {
        "record" => match RecordArgs::from_arg_matches(sub) {
            Ok(args) => record(config, args).await,
            Err(e) => e.exit(),
        },
        "replay" => match ReplayArgs::from_arg_matches(sub) {
            Ok(args) => replay(&args.recordings).await,
            Err(e) => e.exit(),
        },
        "check" => match CheckArgs::from_arg_matches(sub) {
            Ok(args) => check(config, &args.recordings).await,
            Err(e) => e.exit(),
        },
        _ => return None,
    })
}

fn transport_name(config: &Config) -> String {
    // The name the flag takes, so that the two cannot drift apart.
    use clap::ValueEnum as _;
    config
        .client
        .zoekt_transport
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_string())
}

/// Over JSON, a webserver started without `-rpc` answers every search and listing with a
/// 404: a recording would make goldens of 404s, and a check would fail on every page. One
/// listing first, so that one error says why and what to do. (Other failures are left to
/// the steps that follow, which report them.)
async fn json_api_served(config: &Config, client: &ZoektClient, url: &str) -> Result<(), String> {
    if config.client.zoekt_transport != Wire::Json {
        return Ok(());
    }
    match client.list("", config.pager().effort.wall_time()).await {
        Err(ZoektError::Server { status: 404, .. }) => Err(format!(
            "Zoekt at {url} serves no JSON API (HTTP 404 on /api/list): it was started without \
             -rpc. Use --zoekt-transport grpc (the default: every zoekt-webserver serves gRPC \
             on its HTTP port), or start zoekt-webserver with -rpc"
        )),
        _ => Ok(()),
    }
}

/// `1 result`, `2 results`.
fn counted(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// `command: message` on stderr, and the exit code for "could not run".
fn cannot(command: &str, message: &str) -> ExitCode {
    eprintln!("zoekt-pager {command}: {message}");
    ExitCode::from(2)
}

/// The recordings at `path`, read; a message naming the file that cannot be read.
fn load_all(path: &Path) -> Result<Vec<(PathBuf, Recording)>, String> {
    harness::recordings_in(path)?
        .into_iter()
        .map(|file| harness::load_recording(&file).map(|rec| (file, rec)))
        .collect()
}

async fn record(config: &Config, args: RecordArgs) -> ExitCode {
    let urls = match config.zoekt_urls() {
        Ok(u) => u,
        Err(e) => return cannot("record", &e),
    };
    let [url] = urls.as_slice() else {
        return cannot(
            "record",
            "give one --zoekt-url: a recording is of one Zoekt (`check` takes several)",
        );
    };
    let scenarios = match harness::scenario::load(&args.scenarios) {
        Ok(s) => s,
        Err(e) => return cannot("record", &e),
    };
    let client = match config.transport.load().and_then(|t| {
        ZoektClient::with_transport(url, config.client.clone(), &t).map_err(|e| e.to_string())
    }) {
        Ok(c) => c,
        Err(e) => return cannot("record", &e),
    };
    if let Err(e) = json_api_served(config, &client, url).await {
        return cannot("record", &e);
    }
    // Recording an unreachable or half-loaded Zoekt would commit errors as goldens.
    match Backend::readiness(&client).await {
        Ok(r) if r.is_ready() => {}
        Ok(r) => {
            eprintln!(
                "zoekt-pager record: Zoekt at {url} is not ready (HTTP {}: {}); wait for its \
                 shards to load",
                r.status, r.detail
            );
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("zoekt-pager record: Zoekt at {url}: {e}");
            return ExitCode::FAILURE;
        }
    }
    let source = match args.source {
        Some(s) => s,
        None => match Backend::repos(&client, "", config.pager().effort.wall_time()).await {
            Ok(list) => match list.indexer_versions().join(",") {
                v if v.is_empty() => format!("zoekt (version not in the index) at {url}"),
                v => format!("zoekt {v} at {url}"),
            },
            Err(e) => {
                eprintln!("zoekt-pager record: Zoekt at {url}: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    let made = Made {
        source: source.clone(),
        zoekt_transport: transport_name(config),
    };
    match harness::record(client, &scenarios, &args.out, &config.pager(), &made).await {
        Ok(files) => {
            eprintln!(
                "recorded {} scenario(s) from {source} over {} into {}",
                files.len(),
                made.zoekt_transport,
                args.out.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("zoekt-pager record: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn replay(path: &Path) -> ExitCode {
    let recordings = match load_all(path) {
        Ok(r) => r,
        Err(e) => return cannot("replay", &e),
    };
    let (mut failed, mut results, mut calls) = (0, 0, 0);
    for (file, rec) in &recordings {
        let replayed = match harness::replay(rec).await {
            Ok(r) => r,
            Err(e) => return cannot("replay", &format!("{}: {e}", file.display())),
        };
        results += replayed.results;
        calls += replayed.recorded;
        if replayed.passed() {
            println!(
                "ok      {} ({}, {})",
                rec.scenario.name,
                counted(replayed.results, "result"),
                counted(replayed.recorded, "call")
            );
        } else {
            failed += 1;
            println!(
                "FAILED  {} ({})\n{replayed}",
                rec.scenario.name,
                file.display()
            );
        }
    }
    let n = recordings.len();
    if failed == 0 {
        println!(
            "replay {}: {n} recordings, {results} results, {calls} calls: every result is its golden",
            path.display()
        );
        ExitCode::SUCCESS
    } else {
        println!(
            "replay {}: {failed} of {n} recordings differ from their goldens",
            path.display()
        );
        ExitCode::FAILURE
    }
}

async fn check(config: &Config, path: &Path) -> ExitCode {
    let recordings = match load_all(path) {
        Ok(r) => r,
        Err(e) => return cannot("check", &e),
    };
    // The deployment as `serve` would reach it: every URL, each timed, as one backend.
    let backend = match crate::backends(config, &Arc::new(Metrics::new())) {
        Ok(b) => Arc::new(b),
        Err(e) => return cannot("check", &e),
    };
    let urls = config.zoekt_url.join(",");
    for member in backend.members() {
        if let Err(e) = json_api_served(config, member.backend.inner(), &member.name).await {
            return cannot("check", &e);
        }
    }
    // Not ready, every page would differ: say the one thing that matters instead.
    match Backend::readiness(backend.as_ref()).await {
        Ok(r) if r.is_ready() => {}
        Ok(r) => {
            return cannot(
                "check",
                &format!(
                    "Zoekt at {urls} is not ready ({}); wait for its shards to load",
                    r.detail
                ),
            );
        }
        Err(e) => return cannot("check", &format!("Zoekt at {urls}: {e}")),
    }
    println!(
        "check {} against {urls} (over {})",
        path.display(),
        transport_name(config)
    );
    let (mut changed, mut pages) = (0, 0);
    for (file, rec) in &recordings {
        let checked = match harness::check(Arc::clone(&backend), rec).await {
            Ok(c) => c,
            Err(e) => return cannot("check", &format!("{}: {e}", file.display())),
        };
        if checked.unchanged() {
            println!(
                "ok       {} ({})",
                rec.scenario.name,
                counted(checked.results, "result")
            );
        } else {
            changed += 1;
            pages += checked.pages.len();
            println!("CHANGED  {}\n{checked}", rec.scenario.name);
        }
    }
    let n = recordings.len();
    if changed == 0 {
        println!("check: {n} scenarios, nothing changed");
        ExitCode::SUCCESS
    } else {
        println!(
            "check: {changed} of {n} scenarios changed ({} or steps)",
            counted(pages, "page")
        );
        ExitCode::FAILURE
    }
}
