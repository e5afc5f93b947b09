//! Any bytes as a CVS speech slice (or SMPC sound): PSX ADPCM decodes to 28 samples per whole
//! 16-byte block, never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let s = levelgeom_wad::adpcm::decode(data);
    assert!(s.len() <= data.len() / 16 * 28);
});
