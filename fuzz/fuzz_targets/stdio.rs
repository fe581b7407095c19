//! The message check of both transports (a stdio line, an HTTP body): any input is a message,
//! an error reply or nothing, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = zoekt_pager::message::judge(data);
});
