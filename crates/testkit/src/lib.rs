//! Test helpers shared by levelgeom's test suites (a dev-dependency only).
//!
//! [`glb::Glb`] splits a GLB by hand — header, JSON chunk, BIN chunk, accessors — so tests
//! check the exporter's output without trusting any glTF library, or our own importer;
//! [`dds`] writes DDS textures with hand-encoded blocks of known colours.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

pub mod dds;
pub mod glb;
