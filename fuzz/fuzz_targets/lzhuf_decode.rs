//! The LZHUF decoder on any bytes: no panic, no allocation beyond its cap; what it decodes
//! re-encodes and decodes to the same bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(plain) = levelgeom_xray::lzhuf::decompress(data) {
        let packed = levelgeom_xray::lzhuf::compress(&plain).expect("encodes");
        assert_eq!(levelgeom_xray::lzhuf::decompress(&packed).ok(), Some(plain));
    }
});
