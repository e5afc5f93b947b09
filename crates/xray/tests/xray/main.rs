//! Integration tests of levelgeom-xray, one test binary (modules named after what they test).
#![allow(clippy::unwrap_used)]

mod ai_details;
mod api;
mod collision;
mod compiled;
mod convert;
mod corrupt;
mod downgrade;
mod eras;
mod fixture;
mod generated;
mod hollow;
mod import_edit;
mod import_faces;
mod import_occluders;
mod import_old;
mod import_reshape;
mod import_trees;
mod independent;
mod lzhuf_peer;
mod objects;
mod occluders;
mod old;
mod old_bytes;
mod old_header;
mod old_objects;
mod old_ogf;
mod old_to_old;
mod pivots;
mod rules;
mod scene;
mod textures;
mod upgrade;
