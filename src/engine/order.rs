//! The total order pages are cut from, and an item's place in it.
//!
//! Zoekt ranks files by score and leaves ties in no particular order. The engine orders files
//! by score (descending), then by a hash of the file's identity (repository, path and
//! branches), and the items of one file by their index in the file. Every item therefore has
//! a [`Position`] that compares without the item itself: a cursor carries the position of
//! the last item served, and the next page starts strictly after it. A page can then never
//! repeat an item, even when the window Zoekt returns shifts between two calls.
//!
//! Tie order by hash rather than by name is what makes the position small (a cursor stays
//! under 64 characters) and still comparable. [`ORDER_VERSION`] names this order; it is part
//! of every cursor's hash and is bumped whenever ordering or flattening changes, so a cursor
//! minted by another release is refused instead of resumed in another order.

use std::cmp::Ordering;

use sha2::{Digest, Sha256};

/// The version of the total order (and of how files become items). Bump it whenever either
/// changes: cursors of other versions are then refused as minted with other settings.
/// 3: scores are read exactly as Zoekt wrote them (until 2, some read one unit in the last
/// place low, so files Zoekt scored apart could read as tied and order by file key).
pub const ORDER_VERSION: u8 = 3;

/// Where an item stands in the total order of one request.
///
/// Items compare by section (ascending), score (descending), file key (ascending), then
/// index in the file (ascending). `section_start` and `earlier_cut` are carried along and
/// never compared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Position {
    /// Which part of the result the item belongs to: `find_references` lists definitions
    /// (section 0) before usages (section 1); every other tool has section 0 only.
    pub section: u8,
    /// How many items come before the section: the numbering of its first item.
    pub section_start: u32,
    /// An earlier section was incomplete (Zoekt's answer was cut, or the list was capped):
    /// carried so that a page resumed inside this section still says so.
    pub earlier_cut: bool,
    /// The backend's score of the item's file.
    pub score: f64,
    /// `file_key` of the item's file.
    pub file: u64,
    /// The item's index among the items of its file.
    pub index: u32,
}

impl Position {
    /// The place of an item of a listing in an order of its own (repositories by name, a
    /// tree): found again by itself, by `file` (a `file_key` of what names it).
    pub(crate) fn listed(file: u64) -> Position {
        Position {
            section: 0,
            section_start: 0,
            earlier_cut: false,
            score: 0.0,
            file,
            index: 0,
        }
    }

    /// Before every item (its score orders above any finite score): where a walk that has
    /// served nothing yet stands, for a first page that must ask again.
    pub const START: Position = Position {
        section: 0,
        section_start: 0,
        earlier_cut: false,
        score: f64::INFINITY,
        file: 0,
        index: 0,
    };

    /// The order of positions (see the type's documentation).
    pub fn order(&self, other: &Position) -> Ordering {
        self.section
            .cmp(&other.section)
            .then_with(|| other.score.total_cmp(&self.score))
            .then_with(|| self.file.cmp(&other.file))
            .then_with(|| self.index.cmp(&other.index))
    }

    /// The same place: equal in every compared field.
    pub fn same_place(&self, other: &Position) -> bool {
        self.order(other) == Ordering::Equal
    }
}

/// A file's identity as a number: the first 8 bytes of SHA-256 over its repository, path and
/// branches (sorted; each length-prefixed, so no two identities run together). Documented
/// in `docs/contract.md`, "Order", so anyone can recompute it.
pub fn file_key(repo: &str, path: &str, branches: &[String]) -> u64 {
    let mut sorted: Vec<&str> = branches.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    let mut h = Sha256::new();
    for part in [repo, path].into_iter().chain(sorted) {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part.as_bytes());
    }
    let digest = h.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(section: u8, score: f64, file: u64, index: u32) -> Position {
        Position {
            section,
            section_start: 0,
            earlier_cut: false,
            score,
            file,
            index,
        }
    }

    #[test]
    fn positions_order_by_section_score_file_then_index() {
        let mut ps = [
            at(1, 9.0, 1, 0),
            at(0, 1.0, 1, 0),
            at(0, 5.0, 2, 0),
            at(0, 5.0, 1, 3),
            at(0, 5.0, 1, 1),
            at(0, 7.0, 9, 0),
        ];
        ps.sort_by(Position::order);
        let got: Vec<(u8, f64, u64, u32)> = ps
            .iter()
            .map(|p| (p.section, p.score, p.file, p.index))
            .collect();
        assert_eq!(
            got,
            [
                (0, 7.0, 9, 0),
                (0, 5.0, 1, 1),
                (0, 5.0, 1, 3),
                (0, 5.0, 2, 0),
                (0, 1.0, 1, 0),
                (1, 9.0, 1, 0)
            ]
        );
        // section_start is carried, not compared.
        let mut other = at(0, 5.0, 1, 1);
        other.section_start = 40;
        assert!(other.same_place(&at(0, 5.0, 1, 1)));
    }

    #[test]
    fn file_keys_differ_by_every_part() {
        let k = file_key("r", "a/b.go", &[]);
        assert_eq!(k, file_key("r", "a/b.go", &[]));
        assert_ne!(k, file_key("r", "a/b.gox", &[]));
        assert_ne!(file_key("ra", "b", &[]), file_key("r", "ab", &[]));
        assert_ne!(k, file_key("r", "a/b.go", &["main".into()]));
        assert_ne!(
            file_key("r", "a/b.go", &["main".into()]),
            file_key("r", "a/b.go", &["dev".into()])
        );
    }
}
