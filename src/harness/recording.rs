//! The recording of one scenario: the calls across the engine's backend seam and the MCP
//! results (the goldens), written as canonical JSON (sorted keys, two-space indent) so that a
//! re-recording diffs cleanly, and read back only in the format this build writes.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::calls::Call;
use super::files::files_with_extension;
use super::scenario::Scenario;
use crate::engine::config::PagerConfig;

/// Recording format version; bump when the layout changes. 1 held Zoekt's JSON exchanges
/// (the wire); 2 holds the calls across the backend seam, whatever the transport.
pub const FORMAT: u32 = 2;

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
    /// The Zoekt API the recording reached Zoekt over (`grpc` or `json`). The calls do not
    /// depend on it, but a query that only one API reads exactly does (`docs/harness.md`).
    pub zoekt_transport: String,
    /// The engine settings it was made with; a replay uses the same ones, whatever the
    /// replaying machine's environment says.
    pub settings: PagerConfig,
    /// The scenario as it was run, so a replay needs nothing but this file.
    pub scenario: Scenario,
    /// Every call the engine made of its backend and the (normalised) answer, sorted by
    /// question (equal questions in the order asked).
    pub calls: Vec<Call>,
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

/// Reads a recording file.
pub fn load_recording(path: &Path) -> Result<Recording, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a recording (not JSON: {e})", path.display()))?;
    // The format first: a recording of another format fails on its first unknown field,
    // which would hide the one thing to do about it.
    match value.get("format").and_then(Value::as_u64) {
        Some(f) if f == u64::from(FORMAT) => {}
        Some(f) => {
            return Err(format!(
                "{}: recording format {f}, and this zoekt-pager reads format {FORMAT}: \
                 re-record it with `zoekt-pager record` (docs/harness.md)",
                path.display()
            ));
        }
        None => {
            return Err(format!(
                "{}: not a recording (no \"format\"): `zoekt-pager record` writes them",
                path.display()
            ));
        }
    }
    serde_json::from_value(value).map_err(|e| format!("{}: {e}", path.display()))
}

/// The recordings at `path`: the file itself, or every `*.json` in the folder, sorted by
/// name (none is an error: a replay of nothing would pass).
pub fn recordings_in(path: &Path) -> Result<Vec<PathBuf>, String> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let found = files_with_extension(path, "json")?;
    if found.is_empty() {
        return Err(format!(
            "no recordings (*.json) in {}: `zoekt-pager record --out {}` makes them",
            path.display(),
            path.display()
        ));
    }
    Ok(found)
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
