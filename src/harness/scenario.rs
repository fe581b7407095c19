//! Scenario files: TOML, one or more `[[scenario]]` tables, each a list of tool calls.
//!
//! ```toml
//! [[scenario]]
//! name = "symbols-walk"
//! about = "100 pagerItem symbols in pages of 30, then 50"
//!
//! [[scenario.step]]
//! tool = "search_symbols"
//! args = { query = 'pagerItem\d+' }
//! walk = [30, 50]        # follow next_cursor to the end; page N uses limit walk[N] (last repeats)
//!
//! [[scenario.step]]
//! tool = "search_symbols"
//! args = { query = 'pagerItem\d+' }
//! cursor_from = 0        # cursor = next_cursor of the first page of step 0 (cursor errors)
//! ```
//! A step without `walk` is one call with `args` as given.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::files::files_with_extension;

/// The contents of one scenario file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// The scenarios declared by its `[[scenario]]` tables, in file order.
    pub scenario: Vec<Scenario>,
}

/// A named sequence of tool calls, recorded and replayed as one unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Unique across all files; names the recording file (`[a-z0-9-]`).
    pub name: String,
    /// Free-text description of what the scenario exercises (may be empty).
    #[serde(default)]
    pub about: String,
    /// The calls to make, in order (the `[[scenario.step]]` tables).
    #[serde(rename = "step")]
    pub steps: Vec<Step>,
}

/// One step of a scenario: a single tool call, or a walk through every page of one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Name of the MCP tool to call, e.g. `search_symbols`.
    pub tool: String,
    /// The tool arguments, as a table (empty when omitted).
    #[serde(default = "empty_args")]
    pub args: Value,
    /// Walk every page, with these limits in turn (the last repeats).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walk: Option<Vec<u32>>,
    /// Take `cursor` from the first page of an earlier step (its index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor_from: Option<usize>,
}

fn empty_args() -> Value {
    Value::Object(Default::default())
}

/// Reads one scenario file, or every `*.toml` under a folder (sorted), and checks names.
pub fn load(path: &Path) -> Result<Vec<Scenario>, String> {
    let files: Vec<PathBuf> = if path.is_dir() {
        files_with_extension(path, "toml")?
    } else {
        vec![path.to_path_buf()]
    };
    let mut all: Vec<Scenario> = Vec::new();
    for f in files {
        let text =
            std::fs::read_to_string(&f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        let parsed: ScenarioFile =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", f.display()))?;
        for s in parsed.scenario {
            check(&s).map_err(|e| format!("{}: scenario {:?}: {e}", f.display(), s.name))?;
            if all.iter().any(|o| o.name == s.name) {
                return Err(format!(
                    "{}: scenario name {:?} is used twice",
                    f.display(),
                    s.name
                ));
            }
            all.push(s);
        }
    }
    if all.is_empty() {
        return Err(format!("no scenarios in {}", path.display()));
    }
    Ok(all)
}

fn check(s: &Scenario) -> Result<(), String> {
    if s.name.is_empty()
        || !s
            .name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err("name must be non-empty [a-z0-9-]".into());
    }
    if s.steps.is_empty() {
        return Err("no steps".into());
    }
    for (i, step) in s.steps.iter().enumerate() {
        if !step.args.is_object() {
            return Err(format!("step {i}: args must be a table"));
        }
        if step.walk.as_ref().is_some_and(|w| w.is_empty()) {
            return Err(format!("step {i}: walk needs at least one limit"));
        }
        if step.cursor_from.is_some_and(|j| j >= i) {
            return Err(format!("step {i}: cursor_from must name an earlier step"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_walks_and_cursor_references() {
        let f: ScenarioFile = toml::from_str(
            r#"
            [[scenario]]
            name = "a"
            [[scenario.step]]
            tool = "search_files"
            args = { query = "widgetry" }
            walk = [1]
            [[scenario.step]]
            tool = "search_symbols"
            args = { query = "x" }
            cursor_from = 0
            "#,
        )
        .unwrap();
        let s = &f.scenario[0];
        assert_eq!(s.steps[0].walk, Some(vec![1]));
        assert_eq!(s.steps[1].cursor_from, Some(0));
        assert!(check(s).is_ok());
        let mut bad = s.clone();
        bad.steps[1].cursor_from = Some(1);
        assert!(check(&bad).is_err());
        bad.name = "Bad Name".into();
        assert!(check(&bad).is_err());
    }
}
