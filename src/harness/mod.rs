//! The regression harness: run declared scenarios through the MCP tools, record every call
//! the engine makes of its backend and every MCP result, replay the calls with no Zoekt, and
//! check a live Zoekt against the goldens. `zoekt-pager record`, `replay` and `check` are
//! thin faces of [`record`], [`replay()`] and [`check()`].
//!
//! This file holds [`record`] and declares the rest; every other file imports only files
//! below it, never this one:
//! - `replay`: a recording replayed and compared byte for byte ([`Replayed`]);
//! - `check`: a recording's scenario run against a live backend ([`Checked`]);
//! - `changes`: what changed from goldens to a live run, per page, in items and facts;
//! - `run`: a scenario run through the MCP tools ([`run()`]), over a backend served as the
//!   binary serves one Zoekt URL;
//! - `items`: a result read back as items and facts, as `docs/output.md` describes pages;
//! - [`diff`]: a field-by-field comparison that names scenario, page and field;
//! - `player`: a backend serving recorded calls; `recorder`: one keeping them;
//! - `recording`: the recording of a scenario ([`Recording`], [`Outcome`]), written and read;
//! - [`calls`]: one call across the backend seam as recorded ([`Call`]); [`answers`] and
//!   [`index`]: the forms of a search's answer, and of a listing and a readiness, in a
//!   recording;
//! - [`scenario`]: the scenario file format (TOML);
//! - `files`: the files of a folder by extension, in name order;
//! - [`proxy`] (with `exchange`): a tap on Zoekt's JSON API, for the tests and the walk
//!   bench that look at the wire; the harness itself records above the wire.
//!
//! A recording is one JSON file per scenario, `<out>/<name>.json`, holding the calls the
//! engine made of its backend (the engine's question and the decoded, normalised answer,
//! sorted by question) and the results (the goldens). The calls sit on the engine's seam, not the wire, so
//! a recording is the same over gRPC and JSON and replays with no network at all. Output is
//! canonical: sorted keys, two-space indent, what varies between runs by nature (timings,
//! index times) replaced by fixed values, so a re-recording diffs cleanly.

pub mod answers;
pub mod calls;
mod changes;
mod check;
pub mod diff;
mod exchange;
mod files;
pub mod index;
mod items;
mod mirror;
mod player;
pub mod proxy;
mod recorder;
mod recording;
mod replay;
mod run;
pub mod scenario;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::engine::Pager;
use crate::engine::backend::Backend;
use crate::engine::config::PagerConfig;
use crate::mcp::PagerServer;
use run::as_one_url;
use scenario::Scenario;

pub use calls::{Answer, Ask, Call};
pub use changes::{Change, PageChanges};
pub use check::{Checked, check};
pub use exchange::{Exchange, normalise};
pub use files::files_with_extension;
pub use player::{Player, PlayerHandle};
pub use recorder::{FIXED_INDEX_TIME, Log, Recorder};
pub use recording::{FORMAT, Outcome, Recording, canonical, load_recording, recordings_in};
pub use replay::{Replayed, replay};
pub use run::run;

/// What a recording says of how it was made.
#[derive(Debug, Clone)]
pub struct Made {
    /// What answered, e.g. `zoekt v0.0.0-... (scripts/zoekt.sh), fixtures/corpus`.
    pub source: String,
    /// The Zoekt API the recorder reached Zoekt over: `grpc` or `json`.
    pub zoekt_transport: String,
}

/// Runs `scenarios` against `backend` (one Zoekt) with the engine settings `cfg`, keeping
/// every call, and writes one recording per scenario into `out`. Returns the files written.
pub async fn record<B: Backend>(
    backend: B,
    scenarios: &[Scenario],
    out: &Path,
    cfg: &PagerConfig,
    made: &Made,
) -> Result<Vec<PathBuf>, String> {
    let recorder = Recorder::new(Arc::new(backend));
    let log = recorder.log();
    let server = PagerServer::new(Pager::new(as_one_url(recorder)?, cfg.clone()));
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut written = Vec::new();
    for s in scenarios {
        log.take();
        let results = run(&server, s).await?;
        let rec = Recording {
            format: FORMAT,
            source: made.source.clone(),
            zoekt_transport: made.zoekt_transport.clone(),
            settings: cfg.clone(),
            scenario: s.clone(),
            calls: log.take(),
            results,
        };
        let path = out.join(format!("{}.json", s.name));
        std::fs::write(&path, rec.to_pretty())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}
