//! Checking a recording against a live backend: its scenario run again, with its settings,
//! against a Zoekt that may have changed (a new version, a re-index, another deployment),
//! and every page compared with its golden in the reader's terms ([`super::changes`]). What
//! `zoekt-pager check` runs for each file.
//!
//! The live answers pass through the same [`Recorder`] as a recording's did, so what a
//! recording leaves out by nature (Zoekt's timings, index times) is left out here too.

use std::fmt;
use std::sync::Arc;

use super::changes::{PageChanges, changes};
use super::recorder::Recorder;
use super::recording::Recording;
use super::run::run;
use crate::engine::Pager;
use crate::engine::backend::Backend;
use crate::mcp::PagerServer;

/// What one check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The scenario checked.
    pub scenario: String,
    /// Results the live run gave (pages and single calls).
    pub results: usize,
    /// The pages that changed, each with what changed on it.
    pub pages: Vec<PageChanges>,
}

impl Checked {
    /// Nothing changed.
    pub fn unchanged(&self) -> bool {
        self.pages.is_empty()
    }
}

/// The report: the changed pages, one paragraph each. Empty when nothing changed.
impl fmt::Display for Checked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pages: Vec<String> = self.pages.iter().map(ToString::to_string).collect();
        f.write_str(&pages.join("\n"))
    }
}

/// Runs `rec`'s scenario against `live` and compares (see the module's documentation).
/// `Err`: the scenario could not run at all (a `cursor_from` whose first page has no cursor
/// now).
pub async fn check<B: Backend>(live: Arc<B>, rec: &Recording) -> Result<Checked, String> {
    let server = PagerServer::new(Pager::new(Recorder::new(live), rec.settings.clone()));
    let results = run(&server, &rec.scenario).await?;
    Ok(Checked {
        scenario: rec.scenario.name.clone(),
        results: results.len(),
        pages: changes(&rec.scenario.name, &rec.results, &results),
    })
}
