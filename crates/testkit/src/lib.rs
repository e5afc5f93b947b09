//! Test helpers shared by levelgeom's test suites (a dev-dependency only).
//!
//! [`glb::Glb`] splits a GLB by hand — header, JSON chunk, BIN chunk, accessors — so tests
//! check the exporter's output without trusting any glTF library, or our own importer;
//! [`dds`] writes DDS textures with hand-encoded blocks of known colours; [`pins`] keeps pinned
//! output hashes in data files that `LEVELGEOM_RECORD_PINS=1` re-records on purpose.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

pub mod dds;
pub mod glb;
pub mod pins;

/// A test that needs an external tool calls this when the tool is missing: under `CI=true` the
/// test fails naming what is missing (CI installs every tool, so a missing one is a broken CI
/// machine, not a pass); elsewhere it prints that the check was skipped and the test returns.
///
/// ```no_run
/// # fn tool_found() -> bool { false }
/// if !tool_found() {
///     levelgeom_testkit::tool_missing("assimp (apt-get install assimp-utils)");
///     return;
/// }
/// ```
pub fn tool_missing(what: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{what} is missing, and CI=true: this check must run in CI");
    }
    eprintln!("skipped: {what} is missing (it would fail with CI=true)");
}

/// blender-xray's folder (the one holding `io_scene_xray`): `LEVELGEOM_BLENDER_XRAY`, else
/// `shared/peers/blender-xray` beside the repository (or beside the folder of worktrees), else
/// the workplace's `/work/shared` (where `.ci/run` also looks, for a checkout elsewhere).
/// `None` when none of them holds it.
pub fn blender_xray() -> Option<std::path::PathBuf> {
    use std::path::PathBuf;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let candidates = [
        std::env::var_os("LEVELGEOM_BLENDER_XRAY").map(PathBuf::from),
        Some(root.join("../shared/peers/blender-xray")),
        Some(root.join("../../shared/peers/blender-xray")),
        Some(PathBuf::from("/work/shared/peers/blender-xray")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.join("io_scene_xray/__init__.py").is_file())
        .map(|p| std::fs::canonicalize(&p).unwrap_or(p))
}
