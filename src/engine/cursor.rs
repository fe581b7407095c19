//! The opaque page cursor.
//!
//! A cursor is base64url (no padding) of a fixed 22-byte record:
//! `version (1) | tool (1) | request hash (12) | item offset (8, big endian)`.
//! The hash covers the canonical request (the tool, its query and filters; not yet the effort
//! caps or the maximum window, see `docs/contract.md`) and nothing else, so a caller may change `limit` or `context_lines` between
//! pages and keep walking. Nothing about it is secret: the offset is bounded by the configured
//! ceiling wherever it comes from, so a hand-made cursor can cost no more than a page.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

const VERSION: u8 = 1;
const HASH_LEN: usize = 12;
const RECORD_LEN: usize = 1 + 1 + HASH_LEN + 8;
/// Longest cursor text even looked at; anything longer is garbage by construction.
const MAX_CURSOR_CHARS: usize = 64;

/// What minted a cursor: a paged tool, or the repository listing (which the MCP layer serves
/// as resources). The id is part of the wire format: a tool keeps its id forever, and a new
/// tool takes an unused one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scope {
    /// The id written into cursors.
    pub id: u8,
    /// The tool's name, or `repository listing`.
    pub name: &'static str,
}

impl Scope {
    /// Every indexed repository by name, paged apart from `list_repos`.
    pub const REPO_LISTING: Scope = Scope {
        id: 6,
        name: "repository listing",
    };

    /// The scope with this id, if any tool (or the repository listing) has it.
    fn from_id(id: u8) -> Option<Scope> {
        if id == Scope::REPO_LISTING.id {
            return Some(Scope::REPO_LISTING);
        }
        crate::tools::scope_of(id)
    }
}

/// Identity of a request for cursor purposes: the tool plus a hash of its canonical form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestKey {
    /// What mints and accepts the cursors of this request.
    pub scope: Scope,
    hash: [u8; HASH_LEN],
}

impl RequestKey {
    /// `parts` are the canonical, order-significant components (built query strings, sorted
    /// filters...). They are length-prefixed so ("ab","c") and ("a","bc") differ.
    pub fn new(scope: Scope, parts: &[&str]) -> RequestKey {
        let mut h = Sha256::new();
        h.update([scope.id]);
        for p in parts {
            h.update((p.len() as u64).to_be_bytes());
            h.update(p.as_bytes());
        }
        let digest = h.finalize();
        let mut hash = [0u8; HASH_LEN];
        hash.copy_from_slice(&digest[..HASH_LEN]);
        RequestKey { scope, hash }
    }

    /// The cursor that resumes this request at `offset`.
    pub fn cursor(&self, offset: u64) -> String {
        let mut rec = Vec::with_capacity(RECORD_LEN);
        rec.push(VERSION);
        rec.push(self.scope.id);
        rec.extend_from_slice(&self.hash);
        rec.extend_from_slice(&offset.to_be_bytes());
        URL_SAFE_NO_PAD.encode(rec)
    }

    /// Reads a cursor given with this request; returns its item offset.
    pub fn offset_of(&self, cursor: &str, max_offset: u64) -> Result<u64, CursorError> {
        // A blank cursor never gets here from a request (the engine reads it as no cursor);
        // given directly, it decodes to the wrong length like any other garbage.
        let cursor = cursor.trim();
        if cursor.len() > MAX_CURSOR_CHARS {
            return Err(CursorError::Malformed("the cursor is too long"));
        }
        let rec = URL_SAFE_NO_PAD
            .decode(cursor.as_bytes())
            .map_err(|_| CursorError::Malformed("the cursor is not base64url"))?;
        if rec.len() != RECORD_LEN {
            return Err(CursorError::Malformed("the cursor has the wrong length"));
        }
        if rec[0] != VERSION {
            return Err(CursorError::Malformed("the cursor version is unknown"));
        }
        let scope = Scope::from_id(rec[1]).ok_or(CursorError::Malformed("unknown tool id"))?;
        if scope != self.scope {
            return Err(CursorError::OtherTool { minted_by: scope });
        }
        if rec[2..2 + HASH_LEN] != self.hash {
            return Err(CursorError::OtherQuery);
        }
        let mut off = [0u8; 8];
        off.copy_from_slice(&rec[2 + HASH_LEN..]);
        let offset = u64::from_be_bytes(off);
        if offset > max_offset {
            return Err(CursorError::OffsetTooLarge { offset, max_offset });
        }
        Ok(offset)
    }
}

/// Why a cursor was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CursorError {
    /// Not a cursor this server minted (garbage, truncated, wrong version).
    #[error("invalid cursor: {0}")]
    Malformed(&'static str),
    /// Minted by another tool.
    #[error("this cursor belongs to {}", describe(*.minted_by))]
    OtherTool {
        /// The tool (or listing) that minted it.
        minted_by: Scope,
    },
    /// Minted by the same tool for another query or filters.
    #[error("this cursor belongs to a different query or filters")]
    OtherQuery,
    /// Beyond the configured paging ceiling.
    #[error("cursor offset {offset} is beyond the paging limit of {max_offset} items")]
    OffsetTooLarge {
        /// The offset the cursor holds.
        offset: u64,
        /// The configured ceiling.
        max_offset: u64,
    },
}

fn describe(scope: Scope) -> String {
    if scope == Scope::REPO_LISTING {
        format!("the {}", scope.name)
    } else {
        format!("the tool {}", scope.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYMBOLS: Scope = Scope {
        id: 2,
        name: "search_symbols",
    };
    const FILES: Scope = Scope {
        id: 3,
        name: "search_files",
    };

    fn key() -> RequestKey {
        RequestKey::new(SYMBOLS, &["sym:foo", ""])
    }

    fn is_invalid(e: &CursorError) -> bool {
        matches!(
            e,
            CursorError::Malformed(_) | CursorError::OffsetTooLarge { .. }
        )
    }

    #[test]
    fn round_trip_and_opacity() {
        let c = key().cursor(30);
        assert_eq!(key().offset_of(&c, 1000), Ok(30));
        assert!(
            c.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
        assert!(!c.contains("foo"));
    }

    #[test]
    fn mismatches_are_told_apart() {
        let c = key().cursor(30);
        let other_query = RequestKey::new(SYMBOLS, &["sym:bar", ""]);
        assert_eq!(
            other_query.offset_of(&c, 1000),
            Err(CursorError::OtherQuery)
        );
        let other_tool = RequestKey::new(FILES, &["sym:foo", ""]);
        assert_eq!(
            other_tool.offset_of(&c, 1000),
            Err(CursorError::OtherTool { minted_by: SYMBOLS })
        );
        // Length-prefixing: moving a boundary between parts changes the key.
        assert_ne!(
            RequestKey::new(FILES, &["ab", "c"]),
            RequestKey::new(FILES, &["a", "bc"])
        );
    }

    #[test]
    fn garbage_never_panics_and_is_invalid() {
        let c = key().cursor(30);
        let inputs = [
            "".to_string(),
            "   ".to_string(),
            "!!!".to_string(),
            c[..c.len() - 3].to_string(),
            format!("{c}AAAA"),
            "A".repeat(10_000),
            "€€€".to_string(),
            "-1".to_string(),
        ];
        for input in inputs {
            let err = key().offset_of(&input, 1000).unwrap_err();
            assert!(is_invalid(&err), "{input:?} gave {err:?}");
        }
    }

    #[test]
    fn offset_ceiling_is_enforced() {
        let huge = key().cursor(u64::MAX);
        assert_eq!(
            key().offset_of(&huge, 5000),
            Err(CursorError::OffsetTooLarge {
                offset: u64::MAX,
                max_offset: 5000
            })
        );
    }

    #[test]
    fn every_byte_flip_is_detected_or_harmless() {
        // Flipping any byte of the record yields an error or (offset bytes) another offset:
        // never a panic and never a silent acceptance of another query.
        let base = URL_SAFE_NO_PAD.decode(key().cursor(7)).unwrap();
        for i in 0..base.len() {
            let mut rec = base.clone();
            rec[i] ^= 0x5a;
            let r = key().offset_of(&URL_SAFE_NO_PAD.encode(&rec), u64::MAX);
            if i < RECORD_LEN - 8 {
                assert!(r.is_err(), "flip at {i} accepted");
            } else {
                assert!(r.is_ok());
            }
        }
    }
}
