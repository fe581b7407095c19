//! The recording of one scenario: the exchanges with Zoekt and the MCP results (the goldens),
//! written as canonical JSON (sorted keys, two-space indent) so that a re-recording diffs
//! cleanly, and read back only in the format this build writes.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::exchange::Exchange;
use super::files::files_with_extension;
use super::scenario::Scenario;
use crate::engine::config::PagerConfig;

/// Recording format version; bump when the layout changes.
pub const FORMAT: u32 = 1;

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
