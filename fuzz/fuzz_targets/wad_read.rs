//! Any bytes through the WAD reader and, when they read, the rules and the scene conversion.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((level, _)) = levelgeom_wad::Level::read(data) {
        let _ = levelgeom_wad::check::check(&level);
        let _ = levelgeom_wad::scene::to_scene(&level, &Default::default());
    }
});
