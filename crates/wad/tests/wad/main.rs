//! Integration tests of levelgeom-wad, one test binary (modules named after what they test).
#![allow(clippy::unwrap_used)]

mod check;
mod chunks;
mod container;
mod corruption;
mod generator;
mod geometry;
mod import;
mod info;
mod map_sections;
mod modder;
mod scene;
mod write_errors;

use std::sync::OnceLock;

use levelgeom_wad::level::Level;

/// The full-size generated level, made once for the tests of this binary that read it (the
/// generator's determinism is tested against a fresh copy in `generator::full_size_level`).
pub fn full_size() -> &'static Level {
    static LEVEL: OnceLock<Level> = OnceLock::new();
    LEVEL.get_or_init(|| levelgeom_wad::generate::full_size_level().unwrap())
}
