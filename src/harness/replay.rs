//! Replaying a recording: its calls served by a [`Player`], its scenario run again through
//! the MCP tools, and every result compared with its golden, byte for byte. What
//! `zoekt-pager replay` runs for each file, and what the replay tests call.

use std::fmt;

use super::diff::{self, Difference};
use super::player::Player;
use super::recording::Recording;
use super::run::{as_one_url, run};
use crate::engine::Pager;
use crate::mcp::PagerServer;

/// What one replay found.
#[derive(Debug, Clone, PartialEq)]
pub struct Replayed {
    /// The scenario replayed.
    pub scenario: String,
    /// Results compared (pages and single calls).
    pub results: usize,
    /// Calls recorded.
    pub recorded: usize,
    /// Calls the run made.
    pub asked: usize,
    /// Calls the run made that the recording does not hold, one line each.
    pub unrecorded: Vec<String>,
    /// Recorded calls the run never made, one line each.
    pub unused: Vec<String>,
    /// Where results differ from their goldens (at most 20).
    pub differences: Vec<Difference>,
}

impl Replayed {
    /// Every result is its golden and every recorded call was made, once.
    pub fn passed(&self) -> bool {
        self.unrecorded.is_empty() && self.unused.is_empty() && self.differences.is_empty()
    }
}

/// The report: one paragraph per call the recording lacks, one for the calls never made,
/// one per difference. Empty when the replay passed.
impl fmt::Display for Replayed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut lines = Vec::new();
        for ask in &self.unrecorded {
            lines.push(format!(
                "scenario {}: a request the recording does not hold:\n    {ask}",
                self.scenario
            ));
        }
        if !self.unused.is_empty() {
            lines.push(format!(
                "scenario {}: {} recorded call(s), {} request(s) made; recorded but never requested:\n    {}",
                self.scenario,
                self.recorded,
                self.asked,
                self.unused.join("\n    ")
            ));
        }
        lines.extend(self.differences.iter().map(ToString::to_string));
        f.write_str(&lines.join("\n"))
    }
}

/// Replays `rec` (see the module's documentation). `Err`: the scenario could not run at all
/// (a broken `cursor_from`).
pub async fn replay(rec: &Recording) -> Result<Replayed, String> {
    let player = Player::new(&rec.calls);
    let handle = player.handle();
    let server = PagerServer::new(Pager::new(as_one_url(player)?, rec.settings.clone()));
    let results = run(&server, &rec.scenario).await?;
    let (recorded, asked) = handle.counts();
    Ok(Replayed {
        scenario: rec.scenario.name.clone(),
        results: rec.results.len(),
        recorded,
        asked,
        unrecorded: handle.unrecorded(),
        unused: handle.unused(),
        differences: diff::compare(&rec.scenario.name, &rec.results, &results),
    })
}
