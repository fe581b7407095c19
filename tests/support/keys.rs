//! What identifies an item, as the tuples the oracle (raw Zoekt) gives for the same item, so
//! a page can be compared with the truth.

use zoekt_pager::tools::find_references::{ReferenceItem, ReferenceRole};
use zoekt_pager::tools::search::LineItem;
use zoekt_pager::tools::search_files::FileItem;
use zoekt_pager::tools::search_symbols::SymbolItem;

/// (repo, path, line, name) of a symbol.
pub fn symbol(s: &SymbolItem) -> (String, String, u32, String) {
    (
        s.repo.clone(),
        s.path.clone(),
        s.line,
        s.definition.name.clone(),
    )
}

/// (repo, path) of a file.
pub fn file(f: &FileItem) -> (String, String) {
    (f.repo.clone(), f.path.clone())
}

/// (repo, path, line) of a matching line.
pub fn line(m: &LineItem) -> (String, String, u32) {
    (m.repo.clone(), m.path.clone(), m.line)
}

/// (is a definition, repo, path, line) of a reference.
pub fn reference(r: &ReferenceItem) -> (bool, String, String, u32) {
    (
        r.role == ReferenceRole::Definition,
        r.repo.clone(),
        r.path.clone(),
        r.line,
    )
}
