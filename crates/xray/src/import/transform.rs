//! Deciding what happened to a visual: unchanged, moved (an affine transform of its world
//! geometry), edited in place (same vertices and triangles, other positions), or replaced
//! (another topology), by comparing the edited node's world-space geometry with the
//! reference scene's — whatever pivot convention the exporter used.
//!
//! Candidate transforms, each verified against every vertex within [`TOLERANCE`]: the
//! identity; the change of the node's world matrix (what an object move in Blender is); the
//! translation between the two corner means; and, when both meshes list the same vertices
//! and triangles in the same order, the least-squares affine map of the points (and of the
//! points pushed along their normals, so that flat meshes still determine it). With the same
//! order the check is vertex by vertex; otherwise both point sets must cover each other and
//! the triangle counts agree.

use std::borrow::Borrow;
use std::collections::HashMap;

use glam::{DMat3, DMat4, DVec3};

use levelgeom_scene::{Primitive, Scene};

use super::mapping::{self, mesh_of, NodeGeo};

/// Positions closer than this (in metres) are the same: 1 mm, far above the f32 rounding of
/// level coordinates and of Blender's matrix decompositions, far below modelling detail.
pub const TOLERANCE: f64 = 1e-3;

/// What happened to a node's geometry.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Change {
    /// The same world geometry.
    Unchanged,
    /// The same geometry under an affine transform (glTF world space).
    Moved(DMat4),
    /// Same vertices and triangles in the same order, other positions.
    Edited,
    /// Other vertices or triangles.
    Replaced,
}

/// The mirror between glTF and X-Ray space, `diag(1, 1, −1)`.
pub(crate) fn mirror_m() -> DMat4 {
    DMat4::from_diagonal(glam::DVec4::new(1.0, 1.0, -1.0, 1.0))
}

/// A glTF-space transform as the same transform in X-Ray space.
pub(crate) fn to_xray(t: &DMat4) -> DMat4 {
    mirror_m() * *t * mirror_m()
}

/// True when `t` is a translation only (within 1e-9 on the linear part).
pub(crate) fn is_translation(t: &DMat4) -> bool {
    let l = DMat3::from_mat4(*t);
    (l - DMat3::IDENTITY)
        .to_cols_array()
        .iter()
        .all(|x| x.abs() < 1e-9)
}

/// A grid of points for "is there one within `tol`" queries.
struct PointSet {
    cell: f64,
    grid: HashMap<(i64, i64, i64), Vec<DVec3>>,
}

impl PointSet {
    fn new(points: impl Iterator<Item = DVec3>, cell: f64) -> PointSet {
        let mut grid: HashMap<(i64, i64, i64), Vec<DVec3>> = HashMap::new();
        for p in points {
            grid.entry(key(p, cell)).or_default().push(p);
        }
        PointSet { cell, grid }
    }

    fn has_near(&self, p: DVec3, tol: f64) -> bool {
        let (x, y, z) = key(p, self.cell);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    if let Some(v) = self.grid.get(&(x + dx, y + dy, z + dz)) {
                        if v.iter().any(|q| q.distance(p) <= tol) {
                            return true;
                        }
                    }
                }
            }
        }
        false
    }
}

fn key(p: DVec3, cell: f64) -> (i64, i64, i64) {
    let k = |v: f64| (v / cell).floor() as i64;
    (k(p.x), k(p.y), k(p.z))
}

/// True when `t` maps `r` onto `e` (see the module docs).
fn maps(t: &DMat4, r: &NodeGeo, e: &NodeGeo, same_order: bool, tol: f64) -> bool {
    if !t.is_finite() {
        return false;
    }
    if same_order {
        return r
            .points
            .iter()
            .zip(&e.points)
            .all(|(a, b)| t.transform_point3(*a).distance(*b) <= tol);
    }
    if r.triangles() != e.triangles() {
        return false;
    }
    let moved: Vec<DVec3> = r.points.iter().map(|p| t.transform_point3(*p)).collect();
    let es = PointSet::new(e.points.iter().copied(), tol);
    if !moved.iter().all(|p| es.has_near(*p, tol)) {
        return false;
    }
    let rs = PointSet::new(moved.into_iter(), tol);
    e.points.iter().all(|p| rs.has_near(*p, tol))
}

/// The least-squares affine map of `r`'s points onto `e`'s (same order), with the points
/// moved one unit along their normals added when both have normals; `None` when the points
/// do not determine it.
fn least_squares(r: &NodeGeo, e: &NodeGeo) -> Option<DMat4> {
    let mut a: Vec<DVec3> = r.points.clone();
    let mut b: Vec<DVec3> = e.points.clone();
    if let (Some(rn), Some(en)) = (&r.normals, &e.normals) {
        a.extend(r.points.iter().zip(rn).map(|(p, n)| *p + *n));
        b.extend(e.points.iter().zip(en).map(|(p, n)| *p + *n));
    }
    let n = a.len() as f64;
    if n < 4.0 {
        return None;
    }
    let ca = a.iter().copied().sum::<DVec3>() / n;
    let cb = b.iter().copied().sum::<DVec3>() / n;
    let mut saa = DMat3::ZERO;
    let mut sba = DMat3::ZERO;
    for (p, q) in a.iter().zip(&b) {
        let (p, q) = (*p - ca, *q - cb);
        saa += outer(p, p);
        sba += outer(q, p);
    }
    let scale = saa.x_axis.x + saa.y_axis.y + saa.z_axis.z;
    if scale <= 0.0 || saa.determinant().abs() <= 1e-9 * scale * scale * scale {
        return None;
    }
    let l = sba * saa.inverse();
    let t = cb - l * ca;
    Some(DMat4::from_cols(
        l.x_axis.extend(0.0),
        l.y_axis.extend(0.0),
        l.z_axis.extend(0.0),
        t.extend(1.0),
    ))
}

/// `u vᵀ`.
fn outer(u: DVec3, v: DVec3) -> DMat3 {
    DMat3::from_cols(u * v.x, u * v.y, u * v.z)
}

/// True when [`classify`] of `r` against the edited node's geometry
/// ([`mapping::node_geo`] of `node`) would say [`Change::Unchanged`], decided from the node's
/// own attributes without building that geometry: the same triangle corners in the same
/// order (the same filter and numbering as `node_geo`), and every vertex, through the node's
/// world matrix, within [`TOLERANCE`] of the reference's. An unedited export's nodes all pass
/// here, so their world-space copies are never made.
pub(crate) fn unchanged(r: &NodeGeo, scene: &Scene, node: usize, worlds: &[[f32; 16]]) -> bool {
    let Some(mesh) = mesh_of(scene, node) else {
        return false;
    };
    let Some(world) = worlds.get(node).map(mapping::dmat) else {
        return false;
    };
    let count: usize = mesh.primitives.iter().map(|p| p.positions.len()).sum();
    if count != r.points.len() || r.indices.is_empty() {
        return false;
    }
    let (mut base, mut corner) = (0usize, 0usize);
    for p in &mesh.primitives {
        let nv = p.positions.len();
        for t in p.indices.chunks_exact(3) {
            if !t.iter().all(|&i| (i as usize) < nv) {
                continue;
            }
            for &i in t {
                if r.indices.get(corner) != Some(&(base as u32 + i)) {
                    return false;
                }
                corner += 1;
            }
        }
        let near = p
            .positions
            .iter()
            .zip(&r.points[base..base + nv])
            .all(|(&q, a)| {
                // `maps` with the identity: `a` unmoved, within the tolerance of the point
                let b = world.transform_point3(DVec3::from_array(q.map(f64::from)));
                a.distance(b) <= TOLERANCE
            });
        if !near {
            return false;
        }
        base += nv;
    }
    corner == r.indices.len()
}

/// [`unchanged`] against a reference node that places `r_primitives` (a mesh's, or copies of
/// them filled with their positions and triangles, [`super::reference`]) through `r_world`:
/// the same corners in the same order, and every edited vertex through its world matrix
/// within [`TOLERANCE`] of the reference's vertex through the reference's. Only the
/// primitives' positions and indices are read.
pub(crate) fn unchanged_against<P: Borrow<Primitive>>(
    r_primitives: &[P],
    r_world: &[f32; 16],
    scene: &Scene,
    node: usize,
    worlds: &[[f32; 16]],
) -> bool {
    let Some(mesh) = mesh_of(scene, node) else {
        return false;
    };
    let Some(world_f32) = worlds.get(node) else {
        return false;
    };
    // the same finite matrix on both sides (an export read back): it takes the same finite
    // position to the same finite point, at distance 0, so positions equal bit for bit need
    // no transform
    let same_world = r_world.iter().all(|x| x.is_finite())
        && r_world.map(f32::to_bits) == world_f32.map(f32::to_bits);
    let (world, r_world) = (mapping::dmat(world_f32), mapping::dmat(r_world));
    let r_prims = || r_primitives.iter().map(Borrow::borrow);
    let points: usize = mesh.primitives.iter().map(|p| p.positions.len()).sum();
    if points != r_prims().map(|p| p.positions.len()).sum::<usize>() {
        return false;
    }
    // as `unchanged`: the reference's world point and the edited one within the tolerance
    let near = |a: &[f32; 3], b: &[f32; 3]| {
        let (a, b) = (a.map(f64::from), b.map(f64::from));
        r_world
            .transform_point3(DVec3::from_array(a))
            .distance(world.transform_point3(DVec3::from_array(b)))
            <= TOLERANCE
    };
    // the common case, an export read back: primitive by primitive the same vertex count and
    // index list, so the same corners (filtered and numbered alike), compared slice by slice
    let same_lists = r_primitives.len() == mesh.primitives.len()
        && r_prims()
            .zip(&mesh.primitives)
            .all(|(a, b)| a.positions.len() == b.positions.len() && a.indices == b.indices);
    if same_lists {
        return mapping::corners(r_primitives).next().is_some()
            && r_prims().zip(&mesh.primitives).all(|(a, b)| {
                (same_world && same_finite(&a.positions, &b.positions))
                    || a.positions
                        .iter()
                        .zip(&b.positions)
                        .all(|(a, b)| near(a, b))
            });
    }
    let mut r_corners = mapping::corners(r_primitives).peekable();
    if r_corners.peek().is_none() || !r_corners.eq(mapping::corners(&mesh.primitives)) {
        return false;
    }
    flat(r_prims())
        .zip(flat(mesh.primitives.iter()))
        .all(|(a, b)| {
            r_world
                .transform_point3(a)
                .distance(world.transform_point3(b))
                <= TOLERANCE
        })
}

/// True when `a` and `b` hold the same finite positions, bit for bit.
fn same_finite(a: &[[f32; 3]], b: &[[f32; 3]]) -> bool {
    // the bytes compared at once, then the finiteness in one pass without an early exit
    bytemuck::cast_slice::<[f32; 3], u8>(a) == bytemuck::cast_slice::<[f32; 3], u8>(b)
        && a.iter()
            .flatten()
            .fold(true, |finite, c| finite & c.is_finite())
}

/// Primitives' vertex positions, primitive after primitive, in f64.
fn flat<'p>(
    primitives: impl Iterator<Item = &'p Primitive> + 'p,
) -> impl Iterator<Item = DVec3> + 'p {
    primitives
        .flat_map(|p| p.positions.iter())
        .map(|q| DVec3::from_array(q.map(f64::from)))
}

/// Compare the reference geometry `r` of a visual with an edited node's `e`.
pub(crate) fn classify(r: &NodeGeo, e: &NodeGeo) -> Change {
    let tol = TOLERANCE;
    let same_order = r.points.len() == e.points.len() && r.indices == e.indices;
    if maps(&DMat4::IDENTITY, r, e, same_order, tol) {
        return Change::Unchanged;
    }
    let mut candidates = Vec::new();
    if r.world.determinant().abs() > 1e-12 {
        candidates.push(e.world * r.world.inverse());
    }
    candidates.push(DMat4::from_translation(e.corner_mean() - r.corner_mean()));
    if same_order {
        candidates.extend(least_squares(r, e));
    }
    for t in candidates {
        if maps(&t, r, e, same_order, tol) {
            return Change::Moved(t);
        }
    }
    if same_order {
        Change::Edited
    } else {
        Change::Replaced
    }
}

/// True when two transforms are the same within `1e-6` per element (for "moved together").
pub(crate) fn same_transform(a: &DMat4, b: &DMat4) -> bool {
    a.to_cols_array()
        .iter()
        .zip(b.to_cols_array())
        .all(|(x, y)| (x - y).abs() <= 1e-6 * (1.0 + x.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad(world: DMat4) -> NodeGeo {
        let pts = [
            [-1.0, 0.0, -1.0],
            [1.0, 0.0, -1.0],
            [1.0, 0.0, 1.0],
            [-1.0, 0.0, 1.0],
        ];
        NodeGeo {
            world,
            points: pts
                .iter()
                .map(|p| world.transform_point3(DVec3::from_array(*p)))
                .collect(),
            normals: Some(vec![world.transform_vector3(DVec3::Y); 4]),
            indices: vec![0, 1, 2, 0, 2, 3],
        }
    }

    /// A scene of one node holding a quad (two triangles) at `local` positions, its matrix a
    /// translation by `t`, with the given corner order.
    fn quad_scene(local: [[f32; 3]; 4], t: [f32; 3], indices: Vec<u32>) -> Scene {
        let mut matrix = DMat4::IDENTITY.to_cols_array().map(|x| x as f32);
        matrix[12..15].copy_from_slice(&t);
        Scene {
            meshes: vec![levelgeom_scene::Mesh {
                primitives: vec![levelgeom_scene::Primitive {
                    positions: local.to_vec(),
                    indices,
                    ..levelgeom_scene::Primitive::default()
                }],
                ..levelgeom_scene::Mesh::default()
            }],
            nodes: vec![levelgeom_scene::Node {
                mesh: Some(0),
                matrix,
                ..levelgeom_scene::Node::default()
            }],
            roots: vec![0],
            ..Scene::default()
        }
    }

    /// [`unchanged_against`] the reference node `r_node` of a full scene `r_scene` (its mesh's
    /// primitives and world matrix).
    fn unchanged_in(
        r_scene: &Scene,
        r_node: usize,
        r_worlds: &[[f32; 16]],
        scene: &Scene,
        node: usize,
        worlds: &[[f32; 16]],
    ) -> bool {
        match (mesh_of(r_scene, r_node), r_worlds.get(r_node)) {
            (Some(r_mesh), Some(r_world)) => {
                unchanged_against(&r_mesh.primitives, r_world, scene, node, worlds)
            }
            _ => false,
        }
    }

    #[test]
    fn unchanged_in_compares_world_points_of_both_scenes() {
        let at = |dx: f32| {
            [
                [-1.0, 0.0, -1.0],
                [1.0, 0.0, -1.0],
                [1.0, 0.0, 1.0],
                [-1.0, 0.0, 1.0],
            ]
            .map(|[x, y, z]| [x + dx, y, z])
        };
        let order = vec![0, 1, 2, 0, 2, 3];
        // reference: the quad at x ± 1 with an identity matrix
        let r = quad_scene(at(0.0), [0.0; 3], order.clone());
        let rw = r.world_matrices();
        let same = |e: &Scene| unchanged_in(&r, 0, &rw, e, 0, &e.world_matrices());
        // the same world points with another pivot: 3 m local offset undone by the matrix
        assert!(same(&quad_scene(at(-3.0), [3.0, 0.0, 0.0], order.clone())));
        // within the 1 mm tolerance, and just past it
        assert!(same(&quad_scene(at(0.0009), [0.0; 3], order.clone())));
        assert!(!same(&quad_scene(at(0.002), [0.0; 3], order.clone())));
        // another corner order, or a triangle fewer: not unchanged
        assert!(!same(&quad_scene(
            at(0.0),
            [0.0; 3],
            vec![0, 2, 1, 0, 2, 3]
        )));
        assert!(!same(&quad_scene(at(0.0), [0.0; 3], vec![0, 1, 2])));
        // the same matrix and positions bit for bit (no transform needed), -0.0 for 0.0 (other
        // bits, the same point), and a NaN on both sides: never within the tolerance
        assert!(same(&quad_scene(at(0.0), [0.0; 3], order.clone())));
        let mut neg = at(0.0);
        neg[0][1] = -0.0;
        assert!(same(&quad_scene(neg, [0.0; 3], order.clone())));
        let mut nan = at(0.0);
        nan[2][1] = f32::NAN;
        let (r_nan, e_nan) = (
            quad_scene(nan, [0.0; 3], order.clone()),
            quad_scene(nan, [0.0; 3], order.clone()),
        );
        let (rw_nan, ew_nan) = (r_nan.world_matrices(), e_nan.world_matrices());
        assert!(!unchanged_in(&r_nan, 0, &rw_nan, &e_nan, 0, &ew_nan));
        // a corner past the vertices is left out on both sides, as `node_geo` does
        let mut bad = order.clone();
        bad.extend([0, 1, 9]);
        assert!(same(&quad_scene(at(0.0), [0.0; 3], bad)));
        // the same index lists on both sides without a whole triangle: no geometry to keep
        let none = quad_scene(at(0.0), [0.0; 3], vec![0, 1, 9]);
        let none_w = none.world_matrices();
        assert!(!unchanged_in(&none, 0, &none_w, &none, 0, &none_w));
        // the same answers as `unchanged` against the reference's world-space copy
        let g = mapping::node_geo(&r, 0, &rw).expect("geometry");
        for e in [
            quad_scene(at(-3.0), [3.0, 0.0, 0.0], order.clone()),
            quad_scene(at(0.002), [0.0; 3], order.clone()),
        ] {
            let w = e.world_matrices();
            assert_eq!(
                unchanged(&g, &e, 0, &w),
                unchanged_in(&r, 0, &rw, &e, 0, &w)
            );
        }
    }

    #[test]
    fn moves_are_found_whatever_the_pivot() {
        let r = quad(DMat4::IDENTITY);
        assert_eq!(classify(&r, &r.clone()), Change::Unchanged);
        // a translation by the node matrix
        let t = DMat4::from_translation(DVec3::new(3.0, 0.5, -2.0));
        let e = quad(t);
        assert_eq!(classify(&r, &e), Change::Moved(t));
        // the same world geometry with another pivot: unchanged
        let mut e = r.clone();
        e.world = DMat4::from_translation(DVec3::new(5.0, 5.0, 5.0));
        assert_eq!(classify(&r, &e), Change::Unchanged);
        // a rotation of a flat quad baked into the vertices (world matrix unchanged)
        let rot = DMat4::from_rotation_y(0.7) * DMat4::from_translation(DVec3::new(1.0, 0.0, 0.0));
        let mut e = quad(rot);
        e.world = DMat4::IDENTITY;
        match classify(&r, &e) {
            Change::Moved(m) => assert!(same_transform(&m, &rot), "{m:?}"),
            c => panic!("{c:?}"),
        }
        // one vertex dragged: edited; another triangle list: replaced
        let mut e = r.clone();
        e.points[2].y += 0.5;
        assert_eq!(classify(&r, &e), Change::Edited);
        e.indices = vec![0, 1, 2];
        assert_eq!(classify(&r, &e), Change::Replaced);
        // reordered vertices of the same quad, moved: found by the point sets
        let mut e = quad(t);
        e.points.reverse();
        e.indices = vec![3, 2, 1, 3, 1, 0];
        e.world = DMat4::IDENTITY;
        assert_eq!(classify(&r, &e), Change::Moved(t));
    }

    #[test]
    fn mirror_conjugation() {
        let t = DMat4::from_translation(DVec3::new(1.0, 2.0, 3.0));
        let x = to_xray(&t);
        assert_eq!(x.transform_point3(DVec3::ZERO), DVec3::new(1.0, 2.0, -3.0));
        assert!(is_translation(&x));
        assert!(!is_translation(&DMat4::from_rotation_x(0.1)));
    }
}
