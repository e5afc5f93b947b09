//! Mapping an edited export back to the base level's tiles: what export wrote for each tile,
//! and whether a node's triangles are that tile untouched, moved in a way the grid can
//! express, or something else.
//!
//! # What export wrote
//! The reference is the base level run through the exporter's own scene conversion
//! ([`crate::scene::build`]): the `tile_TTTT_mMMM` children of `level` and the `matNN_grpG`
//! children of `collision`, flattened into world-space triangles. So the comparison is with
//! exactly the numbers export writes (positions placed per docs/formats/argonaut-wad.md §15, UVs per docs/formats/argonaut-wad.md §16, colours
//! per docs/formats/argonaut-wad.md §12.1), not with a second derivation of them.
//!
//! # Equal triangles
//! Two triangles are equal when, for one of the three cyclic rotations of the corners (an
//! editor may start a face at another corner, but keeps its winding), every position differs
//! by at most [`POSITION_TOLERANCE`] per coordinate, every UV by at most the import's UV
//! tolerance (when export wrote UVs), every colour gives the same MAP colour byte
//! ([`super::colour_word`]), and the material names agree (ignoring a Blender `.NNN` suffix).
//! Two lists are equal when each triangle of one can be paired with its own triangle of the
//! other.
//!
//! # Moves the grid can express
//! A tile is placed by a position and a yaw in quarter turns (docs/formats/argonaut-wad.md §15: `X = x + vx·cos a −
//! vz·sin a`, `Y = y + vy`, `Z = z + vx·sin a + vz·cos a`; the loader files it in the cell
//! `floor(x) + floor(−z)·W`, docs/formats/argonaut-wad.md §12.6, so x and z stay at cell centres). For each of the
//! four quarter turns `q`, the model-space corners (the export's world corners moved back by
//! the old placement) are placed with yaw `rot + q·1024` and the translation that brings
//! their mean onto the mean of the node's corners; x and z are snapped to the nearest cell
//! centre and y to the 20.12 grid of record B (so A and B agree exactly). When the node's
//! triangles equal the placed ones, the tile moved (or stayed, for `q = 0` and the old
//! position). When they equal them only before snapping, the move is rigid but off the grid.

use std::collections::HashMap;

use levelgeom_scene::{roots, Scene};

use super::{colour_word, MeshTriangle};
use crate::scene::placement::Placement;

/// The largest difference per coordinate (units) between two positions still counted equal.
pub const POSITION_TOLERANCE: f64 = 1e-3;

/// One triangle as export wrote it (world space).
#[derive(Clone, Debug, PartialEq)]
pub struct RefTri {
    /// Corners.
    pub p: [[f64; 3]; 3],
    /// Corner UVs, when export wrote them.
    pub uv: Option<[[f32; 2]; 3]>,
    /// Corner colours as MAP colour words (byte 3 = 0).
    pub colour: [u32; 3],
    /// Material name.
    pub material: String,
}

/// A triangle's corners in world space.
pub type Corners = [[f64; 3]; 3];

/// What export wrote for a level: each tile's triangles (empty for tiles without a node)
/// and the collision triangles per `(material, group)`.
#[derive(Clone, Debug, Default)]
pub struct Reference {
    /// Triangles of tile `i` (world space, the tile's own model in its own placement).
    pub tiles: Vec<Vec<RefTri>>,
    /// Swap alternatives: (tile, triangles of its model B in the tile's placement).
    pub swaps: Vec<(usize, Vec<RefTri>)>,
    /// Collision triangles (world space) per `(ground material, group)`.
    pub collision: Vec<((u8, u8), Vec<Corners>)>,
}

/// Remove a Blender duplicate suffix (`.001`) from a name.
pub fn plain_name(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((head, tail)) if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) => head,
        _ => name,
    }
}

/// `matNN_grpG` → (NN, G).
pub fn collision_name(name: &str) -> Option<(u8, u8)> {
    let rest = plain_name(name).strip_prefix("mat")?;
    let (m, g) = rest.split_once("_grp")?;
    Some((m.parse().ok()?, g.parse().ok()?))
}

/// The export's triangles of `scene` (made by [`crate::scene::build`] with collision) for a
/// map of `tiles` tiles.
pub fn reference(scene: &Scene, tiles: usize) -> Reference {
    let mut out = Reference {
        tiles: vec![Vec::new(); tiles],
        swaps: Vec::new(),
        collision: Vec::new(),
    };
    let tile_of = |node: &levelgeom_scene::Node| {
        node.extras
            .iter()
            .find(|(k, _)| k == "tile")
            .and_then(|(_, v)| v.parse::<usize>().ok())
    };
    if let Some(level) = scene.root(roots::LEVEL) {
        for &c in &scene.nodes[level].children {
            let Some(node) = scene.nodes.get(c) else {
                continue;
            };
            if let Some(slot) = tile_of(node).and_then(|t| out.tiles.get_mut(t)) {
                *slot = node_triangles(scene, node);
            }
        }
    }
    if let Some(swap) = scene.root(roots::SWAP) {
        for &c in &scene.nodes[swap].children {
            if let Some(node) = scene.nodes.get(c) {
                if let Some(t) = tile_of(node) {
                    out.swaps.push((t, node_triangles(scene, node)));
                }
            }
        }
    }
    if let Some(coll) = scene.root(roots::COLLISION) {
        for &c in &scene.nodes[coll].children {
            let Some(node) = scene.nodes.get(c) else {
                continue;
            };
            let (Some(key), Some(mesh)) = (collision_name(&node.name), node.mesh) else {
                continue;
            };
            let Some(mesh) = scene.meshes.get(mesh) else {
                continue;
            };
            let mut tris = Vec::new();
            for p in &mesh.primitives {
                let nv = p.positions.len();
                for t in p.indices.chunks_exact(3) {
                    let c = [t[0], t[1], t[2]].map(|i| i as usize);
                    if c.iter().all(|&i| i < nv) {
                        tris.push(c.map(|i| p.positions[i].map(f64::from)));
                    }
                }
            }
            out.collision.push((key, tris));
        }
    }
    out
}

/// The triangles of a node's mesh (its matrix is the identity in export's scenes).
fn node_triangles(scene: &Scene, node: &levelgeom_scene::Node) -> Vec<RefTri> {
    let mut out = Vec::new();
    let Some(mesh) = node.mesh.and_then(|m| scene.meshes.get(m)) else {
        return out;
    };
    for p in &mesh.primitives {
        let material = p
            .material
            .and_then(|m| scene.materials.get(m))
            .map_or_else(String::new, |m| m.name.clone());
        let nv = p.positions.len();
        let uvs = p.uvs.first().filter(|s| s.len() == nv);
        let cols = p.colors.first().filter(|s| s.len() == nv);
        for t in p.indices.chunks_exact(3) {
            let c = [t[0], t[1], t[2]].map(|i| i as usize);
            if c.iter().any(|&i| i >= nv) {
                continue;
            }
            out.push(RefTri {
                p: c.map(|i| p.positions[i].map(f64::from)),
                uv: uvs.map(|s| c.map(|i| s[i])),
                colour: cols.map_or([super::WHITE_WORD; 3], |s| c.map(|i| colour_word(s[i]))),
                material: material.clone(),
            });
        }
    }
    out
}

/// How a node's triangles relate to the tile they name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Motion {
    /// The same triangles where export put them.
    Same,
    /// The same triangles moved by a translation and a quarter-turn yaw the grid can express:
    /// the tile's new position and yaw.
    Grid {
        /// New position (x, z at a cell centre, y on the 20.12 grid).
        pos: [f32; 3],
        /// New yaw (4096ths of a turn).
        rot: u32,
    },
    /// The same triangles moved rigidly, but not to a cell centre (or turned by a quarter
    /// turn about +y while off the grid).
    OffGrid,
    /// Other triangles (reshaped, scaled, turned about another axis, recoloured, retextured).
    Reshaped,
}

/// Classify `got` (a node's world triangles) against `expected` (what export wrote for the
/// tile placed at `pos` with yaw `rot`). See the module docs.
pub fn classify(
    expected: &[RefTri],
    got: &[MeshTriangle],
    pos: [f32; 3],
    rot: u32,
    uv_tol: f32,
) -> Motion {
    if expected.len() != got.len() || got.is_empty() {
        return Motion::Reshaped;
    }
    if same(expected, got, uv_tol) {
        return Motion::Same;
    }
    let old = Placement::tile(pos[0], pos[1], pos[2], rot, false);
    // Model-space corners: the inverse of the old placement (x, z turned by −a).
    let local: Vec<[[f64; 3]; 3]> = expected
        .iter()
        .map(|t| t.p.map(|w| unplace(&old, w)))
        .collect();
    let n = (got.len() * 3) as f64;
    let mut mean_got = [0f64; 3];
    for t in got {
        for c in &t.positions {
            for k in 0..3 {
                mean_got[k] += f64::from(c[k]) / n;
            }
        }
    }
    let mut off_grid = false;
    for q in 0..4u32 {
        let rot2 = (rot % 4096 + q * 1024) % 4096;
        let turn = Placement::tile(0.0, 0.0, 0.0, rot2, false);
        let mut mean_local = [0f64; 3];
        for t in &local {
            for c in t {
                let r = turn.point64(*c);
                for k in 0..3 {
                    mean_local[k] += r[k] / n;
                }
            }
        }
        let raw = [0, 1, 2].map(|k| mean_got[k] - mean_local[k]);
        let snapped = [
            (raw[0] - 0.5).round() + 0.5,
            (raw[1] * 4096.0).round() / 4096.0,
            (raw[2] + 0.5).round() - 0.5,
        ];
        let on_grid = (raw[0] - snapped[0]).abs() <= POSITION_TOLERANCE
            && (raw[2] - snapped[2]).abs() <= POSITION_TOLERANCE
            && snapped.iter().all(|v| v.is_finite() && v.abs() < 1e7);
        let try_at = |p: [f64; 3]| {
            let place = Placement { origin: p, ..turn };
            let placed: Vec<RefTri> = expected
                .iter()
                .zip(&local)
                .map(|(t, l)| RefTri {
                    p: l.map(|c| place.point64(c)),
                    ..t.clone()
                })
                .collect();
            same(&placed, got, uv_tol)
        };
        if on_grid {
            let pos2 = snapped.map(|v| v as f32);
            if try_at(pos2.map(f64::from)) {
                if pos2 == pos && rot2 == rot % 4096 {
                    return Motion::Same;
                }
                return Motion::Grid {
                    pos: pos2,
                    rot: rot2,
                };
            }
        }
        if !off_grid && try_at(raw) {
            off_grid = true;
        }
    }
    if off_grid {
        Motion::OffGrid
    } else {
        Motion::Reshaped
    }
}

/// World → model space for placement `p` (no mirror).
fn unplace(p: &Placement, w: [f64; 3]) -> [f64; 3] {
    let dx = w[0] - p.origin[0];
    let dz = w[2] - p.origin[2];
    [
        dx * p.cos + dz * p.sin,
        w[1] - p.origin[1],
        -dx * p.sin + dz * p.cos,
    ]
}

/// Key of the 1/64-unit cube a point falls in (far larger than the tolerance, so equal
/// points are in the same or a neighbouring cube). Far points saturate at the ends of `i64`
/// (`as` saturates), so neighbours are found with saturating adds.
fn cube(c: [f64; 3]) -> [i64; 3] {
    c.map(|v| (v * 64.0).floor() as i64)
}

fn centroid(p: &[[f64; 3]; 3]) -> [f64; 3] {
    [0, 1, 2].map(|k| (p[0][k] + p[1][k] + p[2][k]) / 3.0)
}

/// Pair every triangle of `got` with its own equal triangle of `expected` (same length).
pub fn same(expected: &[RefTri], got: &[MeshTriangle], uv_tol: f32) -> bool {
    if expected.len() != got.len() {
        return false;
    }
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::with_capacity(expected.len());
    for (i, t) in expected.iter().enumerate() {
        grid.entry(cube(centroid(&t.p))).or_default().push(i);
    }
    let mut used = vec![false; expected.len()];
    'next: for g in got {
        let gp = g.positions.map(|c| c.map(f64::from));
        if !gp.iter().flatten().all(|v| v.is_finite()) {
            return false;
        }
        let k = cube(centroid(&gp));
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(list) = grid.get(&[
                        k[0].saturating_add(dx),
                        k[1].saturating_add(dy),
                        k[2].saturating_add(dz),
                    ]) else {
                        continue;
                    };
                    for &i in list {
                        if !used[i] && tri_eq(&expected[i], g, &gp, uv_tol) {
                            used[i] = true;
                            continue 'next;
                        }
                    }
                }
            }
        }
        return false;
    }
    true
}

fn tri_eq(e: &RefTri, g: &MeshTriangle, gp: &[[f64; 3]; 3], uv_tol: f32) -> bool {
    if plain_name(&e.material) != plain_name(&g.material) {
        return false;
    }
    let colours = g
        .colours
        .map_or([super::WHITE_WORD; 3], |c| c.map(colour_word));
    (0..3).any(|r| {
        (0..3).all(|k| {
            let ek = (k + r) % 3;
            let pos = (0..3).all(|a| (e.p[ek][a] - gp[k][a]).abs() <= POSITION_TOLERANCE);
            let uv = match (e.uv, g.uvs) {
                (None, _) => true,
                (Some(_), None) => false,
                (Some(eu), Some(gu)) => {
                    (eu[ek][0] - gu[k][0]).abs() <= uv_tol && (eu[ek][1] - gu[k][1]).abs() <= uv_tol
                }
            };
            pos && uv && e.colour[ek] == colours[k]
        })
    })
}

/// Pair collision triangles as [`same`] does, positions only.
pub fn same_collision(expected: &[[[f64; 3]; 3]], got: &[[[f32; 3]; 3]]) -> bool {
    let e: Vec<RefTri> = expected
        .iter()
        .map(|p| RefTri {
            p: *p,
            uv: None,
            colour: [super::WHITE_WORD; 3],
            material: String::new(),
        })
        .collect();
    let g: Vec<MeshTriangle> = got
        .iter()
        .map(|p| MeshTriangle {
            positions: *p,
            uvs: None,
            colours: None,
            material: String::new(),
        })
        .collect();
    same(&e, &g, 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri(p: [[f32; 3]; 3]) -> MeshTriangle {
        MeshTriangle {
            positions: p,
            uvs: None,
            colours: None,
            material: "page_00".into(),
        }
    }

    fn reft(p: [[f64; 3]; 3]) -> RefTri {
        RefTri {
            p,
            uv: None,
            colour: [super::super::WHITE_WORD; 3],
            material: "page_00".into(),
        }
    }

    #[test]
    fn names_lose_blender_suffixes() {
        assert_eq!(plain_name("page_03.001"), "page_03");
        assert_eq!(plain_name("page_03"), "page_03");
        assert_eq!(plain_name("a.b"), "a.b");
        assert_eq!(collision_name("mat30_grp0.002"), Some((30, 0)));
    }

    #[test]
    fn a_quarter_turn_and_a_step_are_found() {
        // Tile at cell (3, 2) with yaw 0; one triangle at local (0..0.5, 0, 0..0.5).
        let pos = [3.5f32, 0.0, -2.5];
        let e = vec![reft([[3.5, 0.0, -2.5], [4.0, 0.0, -2.5], [3.5, 0.0, -3.0]])];
        // Hand-computed: moved one cell in +x, turned by 1024 (X = x − vz, Z = z + vx),
        // and raised by 0.5: local (0,0,0) → (4.5, 0.5, −2.5); (0.5,0,0) → (4.5, 0.5, −2.0);
        // (0,0,−0.5) → (5.0, 0.5, −2.5).
        let g = vec![tri([[4.5, 0.5, -2.5], [4.5, 0.5, -2.0], [5.0, 0.5, -2.5]])];
        assert_eq!(
            classify(&e, &g, pos, 0, 1e-3),
            Motion::Grid {
                pos: [4.5, 0.5, -2.5],
                rot: 1024
            }
        );
        // The same triangle, started at another corner: still the tile, untouched.
        let g = vec![tri([[4.0, 0.0, -2.5], [3.5, 0.0, -3.0], [3.5, 0.0, -2.5]])];
        assert_eq!(classify(&e, &g, pos, 0, 1e-3), Motion::Same);
        // Reversed winding is another triangle.
        let g = vec![tri([[3.5, 0.0, -2.5], [3.5, 0.0, -3.0], [4.0, 0.0, -2.5]])];
        assert_eq!(classify(&e, &g, pos, 0, 1e-3), Motion::Reshaped);
        // Moved by 0.3 in x: rigid, but no cell centre.
        let g = vec![tri([[3.8, 0.0, -2.5], [4.3, 0.0, -2.5], [3.8, 0.0, -3.0]])];
        assert_eq!(classify(&e, &g, pos, 0, 1e-3), Motion::OffGrid);
    }
}
