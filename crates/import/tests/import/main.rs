//! Integration tests of levelgeom-import: hand-written OBJ/MTL and glTF/GLB data with values
//! computed by hand, round trips through the project's own exporters, corrupt inputs.
#![allow(clippy::unwrap_used)]

mod corrupt;
mod deferred;
mod direct;
mod gltf;
mod hostile;
mod obj;
mod parallel;
mod roundtrip;
mod util;
