//! Any bytes through the collision-file reader and its rules.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((c, _)) = levelgeom_xray::cform::Cform::read(data) {
        let _ = levelgeom_xray::check::cform(&c);
        assert_eq!(c.to_bytes().expect("writes back"), data);
    }
});
