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
mod modder;
mod scene;
mod write_errors;
