//! Whole game installs: find every level under folders ([`find_levels`]), verify each one
//! ([`verify_one`], [`verify_batch`]) and export many at once ([`export_batch`]), in parallel
//! with one level in memory per job ([`Run`]).
//!
//! # Discovery
//! Levels are found by their content, never by their names:
//! - a file whose first bytes are a WAD's (a chunk tag of capital letters at offset 4) is an
//!   Argonaut level WAD, whatever it is called;
//! - a file whose content is an X-Ray `level` (header chunk first, visuals or shaders) is an
//!   X-Ray level, and so is a folder holding a `level` and a `level.geom` (even when `level` is
//!   damaged: verifying it then says where). The level's files are `level`, `level.geom`,
//!   `level.geomx`, `level.cform`, `level.hom`, `level.som`, `level.ai` and `level.details`, each when present (paired up by name, as `open` does);
//! - every other file is ignored silently, unless it is named like a level file (`*.wad`,
//!   `level*`, any case) or was given by name: then it is listed as skipped, with the reason.
//!
//! Folders are walked in sorted name order; symbolic links are followed, but a folder (or
//! file) reached a second time — a link cycle, or two links to one place — is not visited
//! again, so the walk always ends. The result is sorted by path.
//!
//! # Running
//! [`Run`] gives the number of jobs (rayon threads; 0 = every core), a stop flag (set it, from a
//! Ctrl-C handler for example, and no new level starts; the running ones finish) and a progress
//! callback. Each job opens, processes and drops one level at a time, so at most `jobs` levels
//! are in memory. Results come back in the order of the input (sorted paths), whatever order
//! the jobs finished in, and the files written are the same as one by one.

mod discovery;
mod export;
mod runner;
mod verify;

pub use discovery::{find_levels, Found, What};
pub use export::{
    export_batch, html_escape, level_names, options_for, BatchExport, LevelExport, BATCH_MANIFEST,
    INDEX, SHEET_PREVIEW,
};
pub use runner::{Progress, Run};
pub use verify::{
    verify_batch, verify_one, Failure, FileResult, SkippedEntry, VerifyReport, VerifyResult,
    VerifySummary,
};
