//! One exchange with Zoekt's JSON API as the [`super::proxy`] tap keeps it: the request, and
//! the answer normalised so that it does not depend on when or where it was made.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

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
