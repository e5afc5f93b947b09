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
