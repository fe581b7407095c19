//! A scenario run through the MCP tools, exactly as an MCP client would call them, over a
//! backend put together as the binary puts together its backend for one Zoekt URL.

use std::sync::Arc;

use serde_json::{Value, json};

use super::recording::Outcome;
use super::scenario::Scenario;
use crate::engine::backend::Backend;
use crate::fanout::FanOut;
use crate::mcp::PagerServer;
use crate::metrics::{Instrumented, Metrics};

/// `backend` as the binary serves one Zoekt URL: a fan-out of one, timed for the metrics.
/// Recordings are made and replayed through it, so goldens are what the server gives.
pub(super) fn as_one_url<B: Backend>(backend: B) -> Result<FanOut<Instrumented<B>>, String> {
    let name = "zoekt".to_string();
    let timed = Instrumented::new(backend, Arc::new(Metrics::new())).labelled(&name);
    FanOut::new(vec![(name, timed)], false)
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
