//! A WAD that reads writes back to the same bytes, and what it writes reads again.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((level, _)) = levelgeom_wad::Level::read(data) {
        let bytes = level.to_bytes().expect("an unchanged level writes back");
        assert_eq!(bytes, data, "round trip differs");
    }
});
