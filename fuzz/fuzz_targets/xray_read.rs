//! Any bytes through the X-Ray readers (whatever kind they look like), the rules, and the
//! byte-exact round trip.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(Ok((opened, _))) = levelgeom_xray::files::Opened::read(data) {
        let _ = opened.check();
        let bytes = opened.to_bytes().expect("an unchanged file writes back");
        assert_eq!(bytes, data, "round trip differs");
        let _ = levelgeom_xray::chunks(data);
    }
});
