//! The stdio line reader: any line is a message, an error reply or nothing, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = zoekt_pager::stdio::judge(data);
});
