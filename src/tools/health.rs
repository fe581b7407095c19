//! `health`: what a caller needs to know before trusting answers: is Zoekt there, has it
//! loaded its shards, what does it hold, and which repositories cannot answer symbol queries.

use std::collections::BTreeSet;

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::shared::{AnswerTool, ToolInfo};
use crate::engine::Pager;
use crate::engine::backend::Backend;
use crate::engine::error::Error;
use crate::engine::warning::Warning;
use crate::form::warning_text;

/// The `health` tool.
pub struct Health;

/// `health` takes no arguments.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct HealthArgs {}

/// The backend's state. Never an error: an unreachable Zoekt is a report, not a failure.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct HealthReport {
    /// Zoekt answered HTTP at all.
    pub reachable: bool,
    /// Zoekt can serve searches (its /readyz, or /healthz on older builds, said so).
    pub ready: bool,
    /// What Zoekt (or the connection) said.
    pub detail: String,
    /// Indexed repositories.
    pub repos: u64,
    /// Indexed documents.
    pub documents: u64,
    /// Index shards.
    pub shards: u64,
    /// Bytes of index on disk.
    pub index_bytes: u64,
    /// Repositories indexed without ctags: search_symbols and the definition half of
    /// find_references find nothing in them.
    pub repos_without_symbols: Vec<String>,
    /// Zoekt versions that wrote the index (from the index metadata), sorted.
    pub zoekt_versions: Vec<String>,
    /// Shards that crashed or are still loading.
    pub crashes: u64,
    /// What the counts above leave out or may count twice (several backends: one that did
    /// not answer the listing, a repository served by two). Absent when there is nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl ToolInfo for Health {
    const NAME: &'static str = "health";
    const TITLE: &'static str = "Backend health";
    const DESCRIPTION: &'static str = "Report whether Zoekt is reachable and ready, what it \
        indexes (repositories, documents, shards), which repositories lack symbols, and the \
        Zoekt version.";
    const SUMMARY: &'static str = "reports the backend's state";
}

impl AnswerTool for Health {
    type Args = HealthArgs;
    type Output = HealthReport;

    async fn answer<B: Backend>(
        pager: &Pager<B>,
        _args: &HealthArgs,
    ) -> Result<HealthReport, Error> {
        Ok(report(pager).await)
    }

    fn text(h: &HealthReport) -> String {
        let state = match (h.reachable, h.ready) {
            (true, true) => "ready",
            (true, false) => "NOT READY",
            (false, _) => "UNREACHABLE",
        };
        let mut out = format!("Zoekt {state}: {}", h.detail);
        if h.reachable {
            let _ = write!(
                out,
                "\n{} repositories, {} documents, {} shards",
                h.repos, h.documents, h.shards
            );
            if !h.zoekt_versions.is_empty() {
                let _ = write!(out, "; indexed by Zoekt {}", h.zoekt_versions.join(", "));
            }
            if !h.repos_without_symbols.is_empty() {
                let _ = write!(
                    out,
                    "\nWithout symbols (search_symbols finds nothing there): {}",
                    h.repos_without_symbols.join(", ")
                );
            }
            if h.crashes > 0 {
                let _ = write!(out, "\n{} shard(s) crashed or are loading", h.crashes);
            }
            for warning in &h.warnings {
                let _ = write!(out, "\nWarning: {warning}");
            }
        }
        out
    }
}

/// The backend's state; never fails (an unreachable backend is a report).
pub async fn report<B: Backend>(pager: &Pager<B>) -> HealthReport {
    let mut report = HealthReport {
        reachable: false,
        ready: false,
        detail: String::new(),
        repos: 0,
        documents: 0,
        shards: 0,
        index_bytes: 0,
        repos_without_symbols: Vec::new(),
        zoekt_versions: Vec::new(),
        crashes: 0,
        warnings: Vec::new(),
    };
    // Asked together: a webserver that hangs then costs the longer of the two waits (the
    // readiness wait, the listing's wall time), not their sum; and when readiness fails,
    // the listing is not waited for (the report stops there).
    let listing = pager.listing("");
    tokio::pin!(listing);
    let readiness = pager.readiness();
    tokio::pin!(readiness);
    let (readiness, listed) = tokio::select! {
        r = &mut readiness => (r, None),
        l = &mut listing => (readiness.await, Some(l)),
    };
    match readiness {
        Ok(r) => {
            report.reachable = true;
            report.ready = r.is_ready();
            report.detail = if r.detail.is_empty() {
                format!("HTTP {}", r.status)
            } else {
                r.detail
            };
        }
        Err(e) => {
            report.detail = e.to_string();
            return report;
        }
    }
    let listing = match listed {
        Some(l) => l,
        None => listing.await,
    };
    match listing {
        Ok(list) => {
            report.repos = list.stats.repos.max(list.repos.len() as u64);
            report.documents = list.stats.documents;
            report.shards = list.stats.shards;
            report.index_bytes = list.stats.index_bytes;
            report.crashes = list.crashes;
            report.zoekt_versions = list.indexer_versions();
            let mut warnings = Vec::new();
            if list.missing_backends != 0 {
                warnings.push(Warning::NotCounted {
                    names: pager.backend().backend_names(list.missing_backends),
                });
            }
            warnings.extend(pager.shared_warnings(&list.shared));
            report.warnings = warnings.iter().map(|w| warning_text(w, &[])).collect();
            let without: BTreeSet<String> = list
                .repos
                .into_iter()
                .filter(|r| !r.has_symbols)
                .map(|r| r.name)
                .collect();
            report.repos_without_symbols = without.into_iter().collect();
        }
        Err(e) => {
            report.ready = false;
            report.detail = format!("{}; listing repositories failed: {e}", report.detail);
        }
    }
    report
}
