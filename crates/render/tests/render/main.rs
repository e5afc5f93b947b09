//! Integration tests of the rasterizer, one binary: known answers computed by hand or by an
//! independent reference (a brute-force top-down ray cast), never from the renderer's output.
#![allow(clippy::unwrap_used)]

mod common;
mod levels;
mod overlay;
mod raster;
