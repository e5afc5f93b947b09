//! Height probes: the collision surfaces over and under a point, found the way the engine's
//! floor/ceiling query (`sub_4036D0`, docs/formats/argonaut-wad.md §16) finds them.
//!
//! Only the tiles of the grid cell that holds the point are searched (MAP's cell lists, the
//! loader's cell formula of docs/formats/argonaut-wad.md §12.6 applied to each tile's position). The point is taken
//! relative to the tile and turned by −rot into the model's frame, then into game space
//! (z negated); each collision polygon's planes are decoded as the exporter decodes them
//! ([`crate::scene::collision::export_plane`]: `n_q · p = d / 32`, docs/formats/argonaut-wad.md §12.4). A polygon
//! whose surface normal has a non-zero y gives the height of its surface plane at the point,
//! and counts when that surface point lies inside all its edge planes (within [`EDGE_TOLERANCE`] units: the encoding rounds a plane's offset to 1/4064 unit, so a
//! point on the shared edge of two polygons could otherwise fall between them).
//! Vertical polygons (walls) give no height. Floors face up, ceilings down.

use serde::Serialize;

use crate::level::Level;
use crate::model::Model;
use crate::scene::collision::export_plane;
use crate::scene::placement::yaw;

/// Which way a surface faces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeKind {
    /// Surface normal up: something to stand on.
    Floor,
    /// Surface normal down.
    Ceiling,
}

/// One surface over or under the probed point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProbeHit {
    /// World height of the surface at the point (export space).
    pub y: f32,
    /// Ground material.
    pub material: u8,
    /// Collision group (0..2, by the model header's counts).
    pub group: u8,
    /// MAP tile index.
    pub tile: usize,
    /// TRAK model index.
    pub model: usize,
    /// Polygon index within the model.
    pub polygon: usize,
    /// Floor or ceiling.
    pub kind: ProbeKind,
}

/// The tolerance of the edge-plane test, in units.
pub const EDGE_TOLERANCE: f64 = 1e-3;

/// The collision surfaces over and under the export-space point (x, z), highest first (see
/// the module docs). A level without TRAK or MAP, or a point outside the grid, has none.
pub fn probe(level: &Level, x: f32, z: f32) -> Vec<ProbeHit> {
    let (Some(trak), Some(map)) = (level.trak(), level.map()) else {
        return Vec::new();
    };
    let (fx, fz) = (f64::from(x).floor(), (-f64::from(z)).floor());
    if fx < 0.0 || fz < 0.0 || fx >= f64::from(map.grid_w) || fz >= f64::from(map.grid_h) {
        return Vec::new();
    }
    let cell = fz as usize * map.grid_w as usize + fx as usize;
    let mut hits = Vec::new();
    for (ti, tile) in map.tiles.iter().enumerate() {
        if map.cell_of(tile.pos) != Some(cell) {
            continue;
        }
        let m = map.model_indices.get(ti).copied().unwrap_or(tile.model) as usize;
        let Some(model) = trak.models.get(m) else {
            continue;
        };
        let (c, s) = yaw(tile.rot);
        let dx = f64::from(x) - f64::from(tile.pos[0]);
        let dz = f64::from(z) - f64::from(tile.pos[2]);
        // Inverse of X = x + vx·c − vz·s, Z = z + vx·s + vz·c.
        let vx = dx * c + dz * s;
        let vz = -dx * s + dz * c;
        model_hits(model, vx, vz, |j, y, material, kind| {
            hits.push(ProbeHit {
                y: (y + f64::from(tile.pos[1])) as f32,
                material,
                group: group_of(model, j),
                tile: ti,
                model: m,
                polygon: j,
                kind,
            });
        });
    }
    hits.sort_by(|a, b| b.y.total_cmp(&a.y));
    hits
}

/// The surfaces of one model's polygons at model-local export-space (vx, vz): calls
/// `hit(polygon, local y, material, kind)`.
pub fn model_hits(model: &Model, vx: f64, vz: f64, mut hit: impl FnMut(usize, f64, u8, ProbeKind)) {
    for (j, poly) in model.collision.iter().enumerate() {
        let (n, d) = export_plane(&poly.planes[0]);
        if n[1] == 0.0 {
            continue;
        }
        let y = (d - n[0] * vx - n[2] * vz) / n[1];
        let p = [vx, y, vz];
        let inside = (0..poly.edge_count()).all(|k| {
            let (e, ed) = export_plane(&poly.planes[1 + k]);
            let len = (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt();
            len > 0.0 && (e[0] * p[0] + e[1] * p[1] + e[2] * p[2] - ed) / len >= -EDGE_TOLERANCE
        });
        if inside {
            let kind = if n[1] > 0.0 {
                ProbeKind::Floor
            } else {
                ProbeKind::Ceiling
            };
            hit(j, y, poly.material, kind);
        }
    }
}

/// The group (0..2) of collision polygon `j` of a model, by the header's three counts.
pub fn group_of(model: &Model, j: usize) -> u8 {
    let c = model.header.collision_counts.map(usize::from);
    if j < c[0] {
        0
    } else if j < c[0] + c[1] {
        1
    } else {
        2
    }
}
