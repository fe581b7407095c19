//! The regression harness: run declared scenarios through the MCP tools, record every Zoekt
//! exchange and every MCP result, and compare results with recorded goldens.
//!
//! - [`scenario`]: the scenario file format (TOML).
//! - [`proxy`]: a recording proxy in front of a live Zoekt (used by `zoekt-pager record`).
//! - [`diff`]: a field-by-field comparison that names scenario, page and field.
//!
//! A recording is one JSON file per scenario, `<out>/<name>.json`, holding the exchanges with
//! Zoekt (request and normalised response, in order) and the results (the goldens). Output is
//! canonical: sorted keys, two-space indent, volatile fields (timings, index times, source
//! paths) replaced by fixed values, so a re-recording diffs cleanly.

pub mod diff;
pub mod proxy;
pub mod scenario;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::engine::Pager;
use crate::engine::backend::Backend;
use crate::engine::config::PagerConfig;
use crate::mcp::PagerServer;
use crate::zoekt::{ClientOptions, ZoektClient};
use scenario::Scenario;

/// Recording format version; bump when the layout changes.
pub const FORMAT: u32 = 1;

/// One HTTP exchange with Zoekt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// HTTP method of the request, e.g. `POST`.
    pub method: String,
    /// Request path on Zoekt, e.g. `/api/search` (without the base URL).
    pub path: String,
    /// The JSON body sent (null for GET).
    pub request: Value,
    /// HTTP status code of the answer (502 when the proxy reached nothing).
    pub status: u16,
    /// The body received: JSON when it parsed, else a string.
    pub response: Value,
}

/// One MCP tool result of a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// Index of the scenario step that made the call.
    pub step: usize,
    /// Page number inside a walk (0 for single calls).
    pub page: usize,
    /// Name of the MCP tool called.
    pub tool: String,
    /// The arguments the tool was called with, including any `limit` and `cursor` the
    /// harness filled in (from `walk` or `cursor_from`).
    pub args: Value,
    /// The `CallToolResult` as JSON.
    pub result: Value,
}

/// A whole recording of one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    /// Version of the recording layout; [`load_recording`] rejects any other than [`FORMAT`].
    pub format: u32,
    /// What answered, e.g. `zoekt v0.0.0-20260807124253-c4d8f3537f7a (scripts/zoekt.sh), fixtures/corpus`.
    pub source: String,
    /// The engine settings it was made with; a replay uses the same ones, whatever the
    /// replaying machine's environment says.
    pub settings: PagerConfig,
    /// The scenario as it was run, so a replay needs nothing but this file.
    pub scenario: Scenario,
    /// Every request to Zoekt and its (normalised) answer, in order.
    pub exchanges: Vec<Exchange>,
    /// The goldens: every MCP result, in order.
    pub results: Vec<Outcome>,
}

impl Recording {
    /// Canonical, diff-friendly text.
    pub fn to_pretty(&self) -> String {
        let v = canonical(serde_json::to_value(self).expect("a recording serialises"));
        let mut s = serde_json::to_string_pretty(&v).expect("JSON serialises");
        s.push('\n');
        s
    }
}

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
    let client =
        ZoektClient::new(proxy.url(), ClientOptions::default()).map_err(|e| e.to_string())?;
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

/// Reads a recording file.
pub fn load_recording(path: &Path) -> Result<Recording, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let rec: Recording =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    if rec.format != FORMAT {
        return Err(format!(
            "{}: recording format {} (this build reads {FORMAT}); re-record it",
            path.display(),
            rec.format
        ));
    }
    Ok(rec)
}

/// Every `*.json` recording in a folder, sorted by name.
pub fn recordings_in(dir: &Path) -> Result<Vec<PathBuf>, String> {
    files_with_extension(dir, "json")
}

/// The files of `dir` ending in `.ext`, sorted by name.
pub fn files_with_extension(dir: &Path, ext: &str) -> Result<Vec<PathBuf>, String> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    Ok(v)
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

/// Sorted keys at every level (independent of serde_json's map flavour).
pub fn canonical(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(String, Value)> = m.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            let mut out = Map::new();
            for (k, v) in entries {
                out.insert(k, canonical(v));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.into_iter().map(canonical).collect()),
        other => other,
    }
}

/// Replaces what differs between runs and machines in a Zoekt answer (timings, index times,
/// source paths) by fixed values. Applied before the pager sees the answer, so goldens do
/// not depend on them either.
pub fn normalise(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, val) in m.iter_mut() {
                match k.as_str() {
                    "Duration" | "Wait" | "MatchTreeConstruction" | "MatchTreeSearch" => {
                        if val.is_number() {
                            *val = json!(0);
                        }
                    }
                    "IndexTime" | "LatestCommitDate" => {
                        if val.is_string() {
                            *val = json!("2000-01-01T00:00:00Z");
                        }
                    }
                    // IndexMetadata.ID is new at every indexing (Repository.ID is a number and
                    // stays): blank it so a re-recording of an unchanged corpus diffs clean.
                    "Source" | "ID" => {
                        if val.is_string() {
                            *val = json!("");
                        }
                    }
                    _ => normalise(val),
                }
            }
            // Zoekt lists repositories in random order; the order carries no meaning.
            if let Some(Value::Array(repos)) = m.get_mut("Repos") {
                repos.sort_by(|a, b| {
                    let name = |v: &Value| {
                        v.pointer("/Repository/Name")
                            .and_then(Value::as_str)
                            .map(String::from)
                    };
                    name(a).cmp(&name(b))
                });
            }
        }
        Value::Array(a) => a.iter_mut().for_each(normalise),
        _ => {}
    }
}
