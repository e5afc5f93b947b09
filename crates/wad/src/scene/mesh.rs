//! One model placed in the world → one scene mesh (world positions baked into the vertices).
//!
//! # Winding
//! The renderer (`sub_556510`, docs/formats/argonaut-wad.md §12.9) draws a face when `camera · n − d ≥ ε` with `n` the
//! *stored* face plane, so the game's front side is the side `n` points to, whatever the
//! vertex order. glTF's front side is the one from which the triangle runs counter-clockwise,
//! which in its right-handed space is the side `(p1 − p0) × (p2 − p0)` points to. Export space
//! (docs/formats/argonaut-wad.md §15) is right-handed with +y up, the same as glTF, and the tile yaw is a proper
//! rotation. So a face is emitted as `(v0, v1, v2)` when its geometric normal agrees with the
//! stored plane (`g · n ≥ 0`, true for every face the format's own rule
//! `n = normalize((v1 − v0) × (v2 − v0))` made) and as `(v0, v2, v1)` otherwise; a mirrored
//! export (`mirror_z`, a reflection) reverses that once more. Faces with flag 0x400 are drawn
//! from both sides by the game and get a double-sided material.
//!
//! # Vertices
//! A model vertex can be shared by faces that disagree on its UV (every face shows its own
//! half-rectangle) or its colour (0x4000 faces are white), so glTF vertices are face corners,
//! deduplicated on `(model vertex, UV bits, white)` within a primitive. Vertices are numbered
//! in first-use order, which makes the output deterministic.

use levelgeom_scene::{Mesh, Primitive};

use super::colour;
use super::placement::{to_f64, Placement};
use crate::model::{Face, Model, FACE_NO_VERTEX_COLOUR};

/// What a face looks like: its material and, for textured materials, its corner UVs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceLook {
    /// Index into the scene's materials (`None` = the exporter's default).
    pub material: Option<usize>,
    /// UVs of the corners `(v0, v1, v2)` in stored order, for textured materials.
    pub uvs: Option<[[f32; 2]; 3]>,
}

/// The corners of one primitive already made, for deduplication on `(model vertex, UV bit
/// patterns, white flag)`: per model vertex the last corner made from it, and per corner the
/// corner made before it from the same model vertex. A model vertex has few corners (one per
/// UV and colour it shows), so a lookup walks a chain of one to a few entries, with no hashing
/// and no table to grow.
struct Corners {
    /// Per model vertex: the newest corner made from it (`NONE` = none yet).
    last: Vec<u32>,
    /// Per corner: its UV bit patterns, white flag, and the previous corner of its model
    /// vertex (`NONE` ends the chain).
    made: Vec<(Option<[u32; 2]>, bool, u32)>,
}

const NONE: u32 = u32::MAX;

impl Corners {
    /// Room for `corners` corners of a model of `nverts` vertices.
    fn new(nverts: usize, corners: usize) -> Corners {
        Corners {
            last: vec![NONE; nverts],
            made: Vec::with_capacity(corners),
        }
    }

    /// The corner of model vertex `vi` with `uv` and `white`, if one was made.
    fn find(&self, vi: usize, uv: Option<[u32; 2]>, white: bool) -> Option<u32> {
        let mut at = *self.last.get(vi)?;
        while let Some(&(u, w, prev)) = self.made.get(at as usize) {
            if u == uv && w == white {
                return Some(at);
            }
            at = prev;
        }
        None
    }

    /// Record corner `at` (the next one: `at == made.len()`) of model vertex `vi`.
    fn add(&mut self, vi: usize, uv: Option<[u32; 2]>, white: bool, at: u32) {
        debug_assert_eq!(at as usize, self.made.len());
        if let Some(last) = self.last.get_mut(vi) {
            self.made.push((uv, white, *last));
            *last = at;
        }
    }
}

struct PrimBuilder {
    corners: Corners,
    prim: Primitive,
    has_uv: bool,
}

/// Build the mesh of `model` placed by `place`.
///
/// * `colour_sets`: the tile's vertex-colour sets (each one u32 per model vertex); empty for
///   models without MAP colours (STPC objects), which then get no colour attribute;
/// * `look`: material and UVs of face `i`;
/// * `warn`: receives one message per problem (face index past the vertices, short colour
///   block), prefixed with `context`.
pub fn build(
    name: String,
    model: &Model,
    place: &Placement,
    colour_sets: &[&[u32]],
    look: &mut dyn FnMut(usize, &Face) -> FaceLook,
    context: &str,
    warn: &mut dyn FnMut(String),
) -> Mesh {
    let nverts = model.vertices.len();
    for (s, set) in colour_sets.iter().enumerate() {
        if set.len() < nverts {
            warn(format!(
                "{context}: colour set {s} has {} entries for {nverts} vertices; the rest are white",
                set.len()
            ));
        }
    }
    // First every face's look and primitive (in face order, so materials are still made in
    // first-use order), to size each primitive's arrays before they are filled.
    let mut materials: Vec<(Option<usize>, usize)> = Vec::new(); // (material, faces)
    let mut faces: Vec<Option<(usize, FaceLook)>> = Vec::with_capacity(model.faces.len());
    for (fi, face) in model.faces.iter().enumerate() {
        if let Some(&bad) = face.indices.iter().find(|&&i| usize::from(i) >= nverts) {
            warn(format!(
                "{context}: face {fi} uses vertex {bad} but the model has {nverts}; face skipped"
            ));
            faces.push(None);
            continue;
        }
        let fl = look(fi, face);
        let pi = match materials.iter().position(|&(m, _)| m == fl.material) {
            Some(p) => p,
            None => {
                materials.push((fl.material, 0));
                materials.len() - 1
            }
        };
        materials[pi].1 += 1;
        faces.push(Some((pi, fl)));
    }
    let mut prims: Vec<PrimBuilder> = materials
        .iter()
        .map(|&(material, n)| {
            // at most three corners a face, and mostly one a model vertex
            let corners = (3 * n).min(nverts);
            PrimBuilder {
                corners: Corners::new(nverts, corners),
                prim: Primitive {
                    material,
                    positions: Vec::with_capacity(corners),
                    normals: Vec::with_capacity(corners),
                    colors: (0..colour_sets.len())
                        .map(|_| Vec::with_capacity(corners))
                        .collect(),
                    indices: Vec::with_capacity(3 * n),
                    ..Primitive::default()
                },
                has_uv: false,
            }
        })
        .collect();
    let mut placed: Vec<Option<Placed>> = vec![None; nverts];
    for (face, look) in model.faces.iter().zip(faces) {
        let Some((pi, fl)) = look else {
            continue;
        };
        let idx = face.indices;
        let order = if reversed(model, face) != place.flips_winding() {
            [0, 2, 1]
        } else {
            [0, 1, 2]
        };
        let pb = &mut prims[pi];
        let white = face.flags & FACE_NO_VERTEX_COLOUR != 0;
        for &k in &order {
            let vi = idx[k];
            let uv = fl.uvs.map(|u| u[k]);
            let uv_bits = uv.map(|u| [u[0].to_bits(), u[1].to_bits()]);
            let at = match pb.corners.find(usize::from(vi), uv_bits, white) {
                Some(at) => at,
                None => {
                    let at = u32::try_from(pb.prim.positions.len()).unwrap_or(u32::MAX);
                    if let Some((pos, normal)) =
                        placed_vertex(&mut placed, model, usize::from(vi), place)
                    {
                        let normal = normal.unwrap_or_else(|| face_normal(face, place));
                        push_corner(
                            &mut pb.prim,
                            (pos, normal),
                            usize::from(vi),
                            colour_sets,
                            white,
                        );
                    }
                    if let Some(uv) = uv {
                        if !pb.has_uv {
                            // Earlier corners of this primitive had no UVs: give them (0, 0).
                            let mut uvs = Vec::with_capacity(pb.prim.positions.capacity());
                            uvs.resize(pb.prim.positions.len().saturating_sub(1), [0.0, 0.0]);
                            pb.prim.uvs = vec![uvs];
                            pb.has_uv = true;
                        }
                        pb.prim.uvs[0].push(uv);
                    } else if pb.has_uv {
                        pb.prim.uvs[0].push([0.0, 0.0]);
                    }
                    pb.corners.add(usize::from(vi), uv_bits, white, at);
                    at
                }
            };
            pb.prim.indices.push(at);
        }
    }
    Mesh {
        name,
        primitives: prims.into_iter().map(|p| p.prim).collect(),
    }
}

/// True when the face's vertex order disagrees with its stored plane normal (see the module
/// docs); degenerate faces and zero normals keep their order.
pub fn reversed(model: &Model, face: &Face) -> bool {
    let p = face
        .indices
        .map(|i| model.vertices.get(usize::from(i)).map(|v| to_f64(v.pos)));
    let (Some(a), Some(b), Some(c)) = (p[0], p[1], p[2]) else {
        return false;
    };
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let g = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let n = to_f64(face.normal);
    let dot = g[0] * n[0] + g[1] * n[1] + g[2] * n[2];
    dot < 0.0
}

/// A model vertex placed in the world: its position, and its unit normal when the vertex's own
/// normal has a length (otherwise each corner takes its face's, [`face_normal`]).
type Placed = ([f32; 3], Option<[f32; 3]>);

/// Model vertex `vi` placed by `place` (`None` past the vertices): made at its first corner
/// and kept in `placed` for the others (a vertex is a corner of several faces, mostly with
/// different UVs), the same numbers each time.
fn placed_vertex(
    placed: &mut [Option<Placed>],
    model: &Model,
    vi: usize,
    place: &Placement,
) -> Option<Placed> {
    let slot = placed.get_mut(vi)?;
    if let Some(p) = slot {
        return Some(*p);
    }
    let v = model.vertices.get(vi)?;
    let p = (
        place.point(v.pos),
        unit(v.normal).map(|n| unit(place.direction(n)).unwrap_or([0.0, 1.0, 0.0])),
    );
    *slot = Some(p);
    Some(p)
}

/// The normal of a corner whose vertex has none: its face's, placed (up when neither has a
/// length).
fn face_normal(face: &Face, place: &Placement) -> [f32; 3] {
    let n = unit(face.normal).unwrap_or([0.0, 1.0, 0.0]);
    unit(place.direction(n)).unwrap_or([0.0, 1.0, 0.0])
}

/// Append corner `(position, normal)` of model vertex `vi` to `prim`, with its colours.
fn push_corner(
    prim: &mut Primitive,
    (position, normal): ([f32; 3], [f32; 3]),
    vi: usize,
    colour_sets: &[&[u32]],
    white: bool,
) {
    prim.positions.push(position);
    prim.normals.push(normal);
    for (s, set) in colour_sets.iter().enumerate() {
        let c = if white {
            colour::WHITE
        } else {
            set.get(vi).map_or(colour::WHITE, |&w| colour::decode(w))
        };
        if let Some(out) = prim.colors.get_mut(s) {
            out.push(c);
        }
    }
}

/// `v / |v|`, or `None` for zero or non-finite vectors.
pub fn unit(v: [f32; 3]) -> Option<[f32; 3]> {
    let d = to_f64(v);
    let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    if !len.is_finite() || len <= 1e-9 {
        return None;
    }
    Some([
        (d[0] / len) as f32,
        (d[1] / len) as f32,
        (d[2] / len) as f32,
    ])
}
