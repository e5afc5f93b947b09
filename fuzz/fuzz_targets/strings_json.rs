//! Any bytes through the strings JSON reader of `replace --strings`: every error names a byte
//! offset inside the file and a JSON path.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = levelgeom_wad::replace::strings_json(data) {
        let e = e.to_string();
        let at = e.find("at byte 0x").expect("an offset");
        let hex = &e[at + 10..at + 18];
        let offset = usize::from_str_radix(hex, 16).expect("hex offset");
        assert!(offset <= data.len(), "{e}");
        assert!(e.contains("($"), "{e}");
    }
});
