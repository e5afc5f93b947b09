//! Integration tests of the levelgeom binary, one test binary (modules named after what they test).
#![allow(clippy::unwrap_used)]

mod batch_cli;
mod common;
mod convert_cli;
mod edit_cli;
mod extract_cli;
mod hostile_cli;
mod hostile_mesh_cli;
mod newcomer_cli;
/// The binary's message helpers with their unit tests, compiled into this suite so that the
/// binary needs no unit-test build of its own (`[[bin]] test = false` in Cargo.toml).
#[path = "../../src/report.rs"]
#[allow(dead_code)] // the suite runs only the module's own tests
mod report;
mod routes_cli;
mod wad_cli;
mod wad_export_cli;
mod xray_ai_details_cli;
mod xray_cli;
mod xray_convert_cli;
mod xray_import_cli;
mod xray_objects_cli;
mod xray_occluders_cli;
mod zones_cli;
