//! The opaque page cursor.
//!
//! A cursor is base64url (no padding) of a fixed 44-byte record, 59 characters:
//!
//! | bytes | field |
//! |---|---|
//! | 1 | record version |
//! | 1 | scope (the tool) |
//! | 8 | hash of the canonical request (the tool's query and filters) |
//! | 4 | hash of the settings that change the order ([`ORDER_VERSION`], effort caps, window) |
//! | 4 | item offset of the next page, big endian |
//! | 26 | [`Position`] of the last item served: section, section start, earlier cut, score, file, index |
//!
//! The request hash leaves out the page size and what only changes how an item looks
//! (context lines), so a caller may change `limit` or `context_lines` between pages and keep
//! walking. The offset sizes the next window; the position is where the next page starts
//! (strictly after it). Nothing about a cursor is secret: the offset is bounded by the
//! configured ceiling wherever it comes from, and a hand-made position costs at most the few
//! growing windows (each within `--max-window`) a page may fetch to find its place.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

use super::order::{ORDER_VERSION, Position};

const VERSION: u8 = 2;
const QUERY_HASH_LEN: usize = 8;
const SETTINGS_HASH_LEN: usize = 4;
const POSITION_LEN: usize = 1 + 4 + 1 + 8 + 8 + 4;
const RECORD_LEN: usize = 1 + 1 + QUERY_HASH_LEN + SETTINGS_HASH_LEN + 4 + POSITION_LEN;
/// Longest cursor text even looked at; anything longer is garbage by construction.
pub const MAX_CURSOR_CHARS: usize = 64;

/// What minted a cursor, as the number written into it. The engine knows scopes as numbers
/// only: which tool (or listing) holds which number is the tools' business, and naming it to
/// a client is the MCP layer's. The id is part of the wire format: a tool keeps its id
/// forever, and a new tool takes an unused one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Scope {
    /// The id written into cursors.
    pub id: u8,
}

/// Where a cursor resumes: the next page's item offset and the last item served.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resume {
    /// The item offset the next page should start at, if nothing moved.
    pub offset: u64,
    /// The last item served; the next page starts strictly after it.
    pub after: Position,
}

/// Identity of a request for cursor purposes: the tool plus hashes of its canonical form and
/// of the settings that decide its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RequestKey {
    /// What mints and accepts the cursors of this request.
    pub scope: Scope,
    query_hash: [u8; QUERY_HASH_LEN],
    settings_hash: [u8; SETTINGS_HASH_LEN],
}

/// SHA-256 of length-prefixed parts, so ("ab","c") and ("a","bc") differ.
fn digest(prefix: u8, parts: &[&str]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([prefix]);
    for p in parts {
        h.update((p.len() as u64).to_be_bytes());
        h.update(p.as_bytes());
    }
    h.finalize().into()
}

impl RequestKey {
    /// `parts` are the canonical, order-significant components of the request (built query
    /// strings, sorted filters...). `settings` is everything else that changes which items
    /// come out in which order (effort caps, the largest window); `ORDER_VERSION` is added
    /// here.
    pub fn new(scope: Scope, parts: &[&str], settings: &str) -> RequestKey {
        let mut query_hash = [0u8; QUERY_HASH_LEN];
        query_hash.copy_from_slice(&digest(scope.id, parts)[..QUERY_HASH_LEN]);
        let mut settings_hash = [0u8; SETTINGS_HASH_LEN];
        settings_hash.copy_from_slice(&digest(ORDER_VERSION, &[settings])[..SETTINGS_HASH_LEN]);
        RequestKey {
            scope,
            query_hash,
            settings_hash,
        }
    }

    /// The cursor that resumes this request at `offset`, right after the item at `after`.
    /// Offsets beyond `u32::MAX` are written as `u32::MAX` (the configured ceiling is far
    /// below).
    pub fn cursor(&self, offset: u64, after: &Position) -> String {
        let mut rec = Vec::with_capacity(RECORD_LEN);
        rec.push(VERSION);
        rec.push(self.scope.id);
        rec.extend_from_slice(&self.query_hash);
        rec.extend_from_slice(&self.settings_hash);
        rec.extend_from_slice(&u32::try_from(offset).unwrap_or(u32::MAX).to_be_bytes());
        rec.push(after.section);
        rec.extend_from_slice(&after.section_start.to_be_bytes());
        rec.push(u8::from(after.earlier_cut));
        rec.extend_from_slice(&after.score.to_bits().to_be_bytes());
        rec.extend_from_slice(&after.file.to_be_bytes());
        rec.extend_from_slice(&after.index.to_be_bytes());
        debug_assert_eq!(rec.len(), RECORD_LEN);
        URL_SAFE_NO_PAD.encode(rec)
    }

    /// Reads a cursor given with this request.
    pub fn resume(&self, cursor: &str, max_offset: u64) -> Result<Resume, CursorError> {
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
        // Whether any tool has this id is for whoever names it (an unknown one is refused
        // there as malformed).
        let scope = Scope { id: rec[1] };
        if scope != self.scope {
            return Err(CursorError::OtherTool { minted_by: scope });
        }
        let mut at = 2;
        let mut take = |n: usize| {
            let field = &rec[at..at + n];
            at += n;
            field
        };
        if take(QUERY_HASH_LEN) != self.query_hash {
            return Err(CursorError::OtherQuery);
        }
        if take(SETTINGS_HASH_LEN) != self.settings_hash {
            return Err(CursorError::OtherSettings);
        }
        let offset = u64::from(u32::from_be_bytes(take(4).try_into().expect("4 bytes")));
        let section = take(1)[0];
        let section_start = u32::from_be_bytes(take(4).try_into().expect("4 bytes"));
        let earlier_cut = match take(1)[0] {
            0 => false,
            1 => true,
            _ => return Err(CursorError::Malformed("the cursor's position is not ours")),
        };
        let score = f64::from_bits(u64::from_be_bytes(take(8).try_into().expect("8 bytes")));
        let file = u64::from_be_bytes(take(8).try_into().expect("8 bytes"));
        let index = u32::from_be_bytes(take(4).try_into().expect("4 bytes"));
        if offset > max_offset {
            return Err(CursorError::OffsetTooLarge { offset, max_offset });
        }
        Ok(Resume {
            offset,
            after: Position {
                section,
                section_start,
                earlier_cut,
                score,
                file,
                index,
            },
        })
    }
}

/// Why a cursor was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CursorError {
    /// Not a cursor this server minted (garbage, truncated, wrong version).
    #[error("invalid cursor: {0}")]
    Malformed(&'static str),
    /// Minted in another scope: by another tool, or by one this server does not have. Who
    /// that is, is named where errors meet the client.
    #[error("this cursor belongs to the cursor scope {}", .minted_by.id)]
    OtherTool {
        /// The scope that minted it.
        minted_by: Scope,
    },
    /// Minted by the same tool for another query or filters.
    #[error("this cursor belongs to a different query or filters")]
    OtherQuery,
    /// Minted for the same request by a server whose order differs: other effort caps,
    /// another `--max-window`, or another release ([`ORDER_VERSION`]).
    #[error(
        "this cursor was minted by a server with other settings (effort caps or --max-window) \
         or by another release, whose order may differ"
    )]
    OtherSettings,
    /// Beyond the configured paging ceiling.
    #[error("cursor offset {offset} is beyond the paging limit of {max_offset} items")]
    OffsetTooLarge {
        /// The offset the cursor holds.
        offset: u64,
        /// The configured ceiling.
        max_offset: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYMBOLS: Scope = Scope { id: 2 };
    const FILES: Scope = Scope { id: 3 };
    const SETTINGS: &str = "shard 10000";

    fn key() -> RequestKey {
        RequestKey::new(SYMBOLS, &["sym:foo", ""], SETTINGS)
    }

    fn at(index: u32) -> Position {
        Position {
            section: 1,
            section_start: 4,
            earlier_cut: true,
            score: 83_000_000_009.25,
            file: 0xdead_beef_0102_0304,
            index,
        }
    }

    fn is_invalid(e: &CursorError) -> bool {
        matches!(
            e,
            CursorError::Malformed(_) | CursorError::OffsetTooLarge { .. }
        )
    }

    #[test]
    fn round_trip_length_and_opacity() {
        let c = key().cursor(30, &at(7));
        assert_eq!(
            key().resume(&c, 1000),
            Ok(Resume {
                offset: 30,
                after: at(7)
            })
        );
        assert_eq!(c.len(), 59);
        assert!(c.len() <= MAX_CURSOR_CHARS);
        // Length is checked first, and only past the bound: anything longer is refused as
        // too long before it is decoded; at the bound it is decoded (and this one is garbage).
        let refused = |n: usize| key().resume(&"A".repeat(n), 1000).unwrap_err();
        assert_eq!(
            refused(MAX_CURSOR_CHARS + 1),
            CursorError::Malformed("the cursor is too long")
        );
        assert_eq!(
            refused(MAX_CURSOR_CHARS),
            CursorError::Malformed("the cursor has the wrong length")
        );
        assert!(
            c.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
        assert!(!c.contains("foo"));
    }

    #[test]
    fn mismatches_are_told_apart() {
        let c = key().cursor(30, &at(0));
        let other_query = RequestKey::new(SYMBOLS, &["sym:bar", ""], SETTINGS);
        assert_eq!(other_query.resume(&c, 1000), Err(CursorError::OtherQuery));
        let other_tool = RequestKey::new(FILES, &["sym:foo", ""], SETTINGS);
        assert_eq!(
            other_tool.resume(&c, 1000),
            Err(CursorError::OtherTool { minted_by: SYMBOLS })
        );
        // An id no tool has is still told as another scope's: naming it (or refusing it as
        // unknown) is the MCP layer's.
        let unknown = RequestKey::new(Scope { id: 250 }, &["sym:foo", ""], SETTINGS);
        assert_eq!(
            unknown.resume(&c, 1000),
            Err(CursorError::OtherTool { minted_by: SYMBOLS })
        );
        let other_settings = RequestKey::new(SYMBOLS, &["sym:foo", ""], "shard 10");
        assert_eq!(
            other_settings.resume(&c, 1000),
            Err(CursorError::OtherSettings)
        );
        // Length-prefixing: moving a boundary between parts changes the key.
        assert_ne!(
            RequestKey::new(FILES, &["ab", "c"], SETTINGS),
            RequestKey::new(FILES, &["a", "bc"], SETTINGS)
        );
    }

    #[test]
    fn garbage_never_panics_and_is_invalid() {
        let c = key().cursor(30, &at(0));
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
            let err = key().resume(&input, 1000).unwrap_err();
            assert!(is_invalid(&err), "{input:?} gave {err:?}");
        }
    }

    #[test]
    fn offset_ceiling_is_enforced() {
        // The ceiling itself is reachable; one past it is not.
        assert_eq!(
            key()
                .resume(&key().cursor(5000, &at(0)), 5000)
                .unwrap()
                .offset,
            5000
        );
        assert_eq!(
            key().resume(&key().cursor(5001, &at(0)), 5000),
            Err(CursorError::OffsetTooLarge {
                offset: 5001,
                max_offset: 5000
            })
        );
        let huge = key().cursor(u64::MAX, &at(0));
        assert_eq!(
            key().resume(&huge, 5000),
            Err(CursorError::OffsetTooLarge {
                offset: u64::from(u32::MAX),
                max_offset: 5000
            })
        );
    }

    #[test]
    fn every_byte_flip_is_detected_or_moves_the_position() {
        // Flipping a byte of the header or the hashes yields an error; of the offset or the
        // position, another place in the same request: never a panic and never a silent
        // acceptance of another query or other settings.
        let base = URL_SAFE_NO_PAD.decode(key().cursor(7, &at(3))).unwrap();
        let header = 2 + QUERY_HASH_LEN + SETTINGS_HASH_LEN;
        for i in 0..base.len() {
            let mut rec = base.clone();
            rec[i] ^= 0x5a;
            let r = key().resume(&URL_SAFE_NO_PAD.encode(&rec), u64::MAX);
            if i < header {
                assert!(r.is_err(), "flip at {i} accepted");
            } else if let Err(e) = &r {
                assert!(matches!(e, CursorError::Malformed(_)), "flip at {i}: {e:?}");
            } else {
                assert_ne!(
                    r.expect("another place"),
                    key().resume(&key().cursor(7, &at(3)), u64::MAX).unwrap()
                );
            }
        }
    }
}
