//! Integration tests of levelgeom-core, one test binary.
#![allow(clippy::unwrap_used)]

mod batch;
mod before_after;
mod engines;
mod extract;
mod folder;
mod import;
mod independent;
mod open_ahead;
mod textures;
mod wad_edit;
mod xray_import;
mod xray_large;
mod xray_objects;

use std::path::PathBuf;
use std::sync::OnceLock;

/// A path below the workspace root.
pub fn workspace(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// The real X-Ray fixture folder.
pub fn fixture() -> PathBuf {
    workspace("crates/xray/tests/data/xray-v14-micro")
}

/// The independent WAD (written from the format notes by a Python script).
pub fn indep_wad() -> PathBuf {
    workspace("crates/wad/tests/data/independent/indep.wad")
}

/// The bytes of the full-size generated WAD, made once for the tests of this binary that read it.
pub fn full_size_wad() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| levelgeom_core::demo_bytes(true).unwrap())
}
