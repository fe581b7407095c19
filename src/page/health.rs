//! `health`: what a caller needs to know before trusting answers: is Zoekt there, has it
//! loaded its shards, what does it hold, and which repositories cannot answer symbol queries.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::Serialize;

use super::{Backend, Pager};

/// The backend's state. Never an error: an unreachable Zoekt is a report, not a failure.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct HealthReport {
    /// Zoekt answered HTTP at all.
    pub reachable: bool,
    /// Zoekt can serve searches (its /readyz, or /healthz on older builds, said so).
    pub ready: bool,
    /// What Zoekt (or the connection) said.
    pub detail: String,
    pub repos: u64,
    pub documents: u64,
    pub shards: u64,
    pub index_bytes: u64,
    /// Repositories indexed without ctags: search_symbols and the definition half of
    /// find_references find nothing in them.
    pub repos_without_symbols: Vec<String>,
    /// Zoekt versions that wrote the index (from the index metadata), sorted.
    pub zoekt_versions: Vec<String>,
    /// Shards that crashed or are still loading.
    pub crashes: u64,
}

impl<B: Backend> Pager<B> {
    pub async fn health(&self) -> HealthReport {
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
        };
        match self.backend.readiness().await {
            Ok(r) => {
                report.reachable = true;
                report.ready = r.is_ready();
                report.detail = if r.detail.is_empty() {
                    format!("HTTP {}", r.readyz_status)
                } else {
                    r.detail
                };
            }
            Err(e) => {
                report.detail = e.to_string();
                return report;
            }
        }
        match self.backend.list("").await {
            Ok(list) => {
                report.repos = list.stats.repos.max(list.repos.len() as u64);
                report.documents = list.stats.documents;
                report.shards = list.stats.shards;
                report.index_bytes = list.stats.index_bytes;
                report.crashes = list.crashes;
                let mut without: BTreeSet<String> = BTreeSet::new();
                let mut versions: BTreeSet<String> = BTreeSet::new();
                for r in list.repos {
                    if !r.repository.has_symbols {
                        without.insert(r.repository.name);
                    }
                    if !r.index_metadata.zoekt_version.is_empty() {
                        versions.insert(r.index_metadata.zoekt_version);
                    }
                }
                report.repos_without_symbols = without.into_iter().collect();
                report.zoekt_versions = versions.into_iter().collect();
            }
            Err(e) => {
                report.ready = false;
                report.detail = format!("{}; listing repositories failed: {e}", report.detail);
            }
        }
        report
    }
}
