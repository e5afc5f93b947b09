//! Integration tests of levelgeom-export: every output is parsed back independently of the
//! writer (GLB header/chunks/accessors by hand, OBJ by lines, PNG with the `png` decoder) and
//! compared with the hand-built input scenes of `support`.
#![allow(clippy::unwrap_used)]

mod checkers;
mod folder;
mod glb;
mod obj;
mod png;
mod stream;
mod support;
