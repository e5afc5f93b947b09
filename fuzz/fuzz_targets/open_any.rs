//! The library entry point on any bytes: detection, info, check, rebuild and scene conversion
//! never panic, and every read error names an offset inside the file.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match levelgeom_core::open_bytes("fuzz", data.to_vec()) {
        Ok(level) => {
            let _ = level.info();
            let _ = level.check();
            assert_eq!(level.rebuild().expect("rebuilds"), data);
            let _ = level.to_scene(&Default::default());
        }
        Err(e) => {
            let at = e.offset().expect("every read error has an offset");
            assert!(at <= data.len() as u64, "offset {at} past the end: {e}");
        }
    }
});
