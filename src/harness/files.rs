//! Finding the files of a folder by extension: the scenario files (`*.toml`) and the
//! recordings (`*.json`) are both read from a folder, in name order, so that a run and its
//! output do not depend on the order the file system lists them in.

use std::path::{Path, PathBuf};

/// The files of `dir` ending in `.ext`, sorted by name.
pub fn files_with_extension(dir: &Path, ext: &str) -> Result<Vec<PathBuf>, String> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    Ok(v)
}
