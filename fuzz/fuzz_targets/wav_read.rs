//! Any bytes through the WAV reader of `replace --sound`: every error locates its RIFF chunk
//! or byte offset, and an accepted WAV converts to one sample per frame.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match levelgeom_wad::wav::check(data) {
        Ok(f) => {
            let s = levelgeom_wad::wav::mono16(data, &f).expect("converts");
            let frame = usize::from(f.channels) * usize::from(f.bits / 8);
            assert_eq!(s.len(), f.data_len / frame);
        }
        Err(e) => {
            assert!(e.offset <= data.len(), "{e}");
            let e = e.to_string();
            assert!(e.contains("at 0x") || e.contains("RIFF chunk"), "{e}");
        }
    }
});
