//! The cursor decoder: any text a client passes as `cursor` is refused with a code, never a
//! panic; a cursor the key wrote reads back to the same offset and position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zoekt_pager::tools::list_repos::REPO_LISTING;
use zoekt_pager::{Position, RequestKey};

const MAX_OFFSET: u64 = 5_000;

fuzz_target!(|data: &[u8]| {
    // A real scope: a made-up one would be refused as another tool's.
    let key = RequestKey::new(REPO_LISTING, &["sym:x", "lang:go"], "v1");
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = key.resume(text, MAX_OFFSET);
    }
    // Round trip: the first 30 bytes as an offset within the ceiling and a position.
    if let Some(raw) = data.get(..30) {
        let u64_at = |i: usize| u64::from_le_bytes(raw[i..i + 8].try_into().unwrap());
        let u32_at = |i: usize| u32::from_le_bytes(raw[i..i + 4].try_into().unwrap());
        let offset = u64_at(0) % (MAX_OFFSET + 1);
        let after = Position {
            section: raw[8] % 2,
            section_start: u32_at(9),
            earlier_cut: raw[13] % 2 == 1,
            score: f64::from_bits(u64_at(14)),
            file: u64_at(22),
            index: u32_at(26),
        };
        let cursor = key.cursor(offset, &after);
        let resumed = key
            .resume(&cursor, MAX_OFFSET)
            .expect("a cursor the key wrote");
        assert_eq!(resumed.offset, offset);
        assert!(
            resumed.after.same_place(&after),
            "{:?} != {after:?}",
            resumed.after
        );
        assert_eq!(
            (resumed.after.section_start, resumed.after.earlier_cut),
            (after.section_start, after.earlier_cut)
        );
    }
});
