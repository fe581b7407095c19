//! The regression harness: run declared scenarios through the MCP tools, record every Zoekt
//! exchange and every MCP result, and compare results with recorded goldens.
//!
//! This file holds the driver ([`record`], [`run`]) and declares the rest; every other file
//! imports only files below it, never this one:
//! - [`diff`]: a field-by-field comparison that names scenario, page and field;
//! - [`proxy`]: a recording proxy in front of a live Zoekt (used by `zoekt-pager record`);
//! - `recording`: the recording of a scenario ([`Recording`], [`Outcome`]), written and read;
//! - [`scenario`]: the scenario file format (TOML);
//! - `exchange`: one exchange with Zoekt as recorded ([`Exchange`], [`normalise`]);
//! - `files`: the files of a folder by extension, in name order.
//!
//! A recording is one JSON file per scenario, `<out>/<name>.json`, holding the exchanges with
//! Zoekt (request and normalised response, in order) and the results (the goldens). Output is
//! canonical: sorted keys, two-space indent, volatile fields (timings, index times, source
//! paths) replaced by fixed values, so a re-recording diffs cleanly.

pub mod diff;
mod exchange;
mod files;
pub mod proxy;
mod recording;
pub mod scenario;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::engine::Pager;
use crate::engine::backend::Backend;
use crate::engine::config::PagerConfig;
use crate::mcp::PagerServer;
use crate::zoekt::{ClientOptions, ZoektClient};
use scenario::Scenario;

pub use exchange::{Exchange, normalise};
pub use files::files_with_extension;
pub use recording::{FORMAT, Outcome, Recording, canonical, load_recording, recordings_in};

/// Runs `scenarios` against the Zoekt at `zoekt_url` through a recording proxy and writes one
/// recording per scenario into `out`. Returns the files written.
pub async fn record(
    zoekt_url: &str,
    scenarios: &[Scenario],
    out: &Path,
    cfg: &PagerConfig,
    source: &str,
) -> Result<Vec<PathBuf>, String> {
    let proxy = proxy::Proxy::start(zoekt_url)
        .await
        .map_err(|e| format!("cannot start the recording proxy: {e}"))?;
    // Over JSON: the recording proxy and the replayed files hold JSON exchanges.
    let opts = ClientOptions {
        zoekt_transport: crate::zoekt::Wire::Json,
        ..ClientOptions::default()
    };
    let client = ZoektClient::new(proxy.url(), opts).map_err(|e| e.to_string())?;
    let server = PagerServer::new(Pager::new(client, cfg.clone()));
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut written = Vec::new();
    for s in scenarios {
        proxy.take();
        let results = run(&server, s).await?;
        let rec = Recording {
            format: FORMAT,
            source: source.to_string(),
            settings: cfg.clone(),
            scenario: s.clone(),
            exchanges: proxy.take(),
            results,
        };
        let path = out.join(format!("{}.json", s.name));
        std::fs::write(&path, rec.to_pretty())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// Runs every step of `scenario` through the server's tool dispatcher, exactly as an MCP
/// `tools/call` would, and returns the results in order.
pub async fn run<B: Backend + 'static>(
    server: &PagerServer<B>,
    scenario: &Scenario,
) -> Result<Vec<Outcome>, String> {
    let mut out: Vec<Outcome> = Vec::new();
    let mut first_cursors: Vec<Option<String>> = Vec::new();
    for (i, step) in scenario.steps.iter().enumerate() {
        let mut args = step.args.as_object().cloned().unwrap_or_default();
        if let Some(j) = step.cursor_from {
            // A scenario whose cursor source ran dry is broken: recording it would make a
            // golden of a cursor error nobody meant to test.
            let c = first_cursors.get(j).cloned().flatten().ok_or_else(|| {
                format!(
                    "scenario {}: step {i} takes its cursor from step {j}, whose first page has no next_cursor",
                    scenario.name
                )
            })?;
            args.insert("cursor".into(), json!(c));
        }
        let limits = step.walk.clone();
        let mut page = 0usize;
        let mut first_cursor = None;
        loop {
            let mut a = args.clone();
            if let Some(l) = &limits {
                let limit = l.get(page).or(l.last()).copied().unwrap_or(30);
                a.insert("limit".into(), json!(limit));
            }
            let result = match server.call(&step.tool, Some(a.clone())).await {
                Some(r) => serde_json::to_value(&r).unwrap_or(Value::Null),
                None => json!({"protocolError": format!("unknown tool {}", step.tool)}),
            };
            let next = next_cursor(&result);
            if page == 0 {
                first_cursor = next.clone();
            }
            out.push(Outcome {
                step: i,
                page,
                tool: step.tool.clone(),
                args: Value::Object(a),
                result,
            });
            match (&limits, next) {
                (Some(_), Some(c)) if page < 1_000 => {
                    args.insert("cursor".into(), json!(c));
                    page += 1;
                }
                _ => break,
            }
        }
        first_cursors.push(first_cursor);
    }
    Ok(out)
}

fn next_cursor(result: &Value) -> Option<String> {
    result
        .get("structuredContent")?
        .get("next_cursor")?
        .as_str()
        .map(String::from)
}
