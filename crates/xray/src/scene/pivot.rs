//! Pivots: every visual's node sits at its own centre, its mesh around the node's origin.
//!
//! The conversion first builds each visual's mesh where the level puts it (static visuals in
//! world space, tree geometry in model space under its TREEDEF2 matrix `M`) with every other
//! node at the origin: call that node's world matrix `W₀` (identity, or `M` for trees). Then:
//!
//! 1. every mesh is moved by the centre `c` of its own positions' bounding box (computed in
//!    `f64`, rounded once to `f32`): vertices `p − c`, so that the mesh's box is centred on its
//!    origin. A mesh shared by several nodes (instances of one GCONTAINER range) is moved once;
//!    a box reaching past [`FAR`] (garbage coordinates) keeps the origin;
//! 2. a node with a mesh gets the world matrix `W = W₀ · T(c)`: for static visuals `T(c)`, the
//!    box centre in world space; for trees `M · T(c)`, the model's centre carried by the tree's
//!    matrix (translation `M·c`, rotation and scale those of `M`). A node without a mesh gets
//!    `W = T(q)` with the pivot point `q` its caller gives (the centre of a LOD's billboard quads,
//!    of a hierarchy's OGF_HEADER box), else keeps `W₀`;
//! 3. each node's local matrix is `W_parent⁻¹ · W` (`f64`, rounded once), so a child's world
//!    matrix (parent × local) is `W` and every vertex lands where it was: `W · (p − c)` =
//!    `W₀ · p` up to `f32` rounding (a few units in the last place of the coordinates).
//!
//! All pivots follow from the level alone (geometry, LOD quads, headers), never from the export's
//! options, so a visual has the same node matrix in every export of a level.

use glam::{DMat4, DVec3};
use levelgeom_scene::{Scene, IDENTITY};
use rayon::prelude::*;

/// Boxes reaching farther than this from the origin (in any coordinate) keep their pivot at the
/// origin: such coordinates are garbage (X-Ray levels span a few kilometres), and a pivot out
/// there would cost the sane vertices of the same mesh, or the children of a hierarchy whose
/// header box is garbage, their precision (`c + (p − c)` would round `p` away).
pub const FAR: f64 = 1.0e7;

/// The centre of the bounding box of `positions` (computed in `f64`, rounded to `f32`), ignoring
/// non-finite coordinates; the origin for no (finite) positions and for a box reaching past
/// [`FAR`].
pub fn centre(positions: &[[f32; 3]]) -> [f32; 3] {
    centre_of_parts(std::iter::once(positions))
}

/// [`centre`] of the positions of several parts together (a mesh's primitives), as of their
/// concatenation.
pub fn centre_of_parts<'p>(parts: impl Iterator<Item = &'p [[f32; 3]]>) -> [f32; 3] {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in parts.flatten() {
        if p.iter().all(|c| c.is_finite()) {
            for k in 0..3 {
                lo[k] = lo[k].min(f64::from(p[k]));
                hi[k] = hi[k].max(f64::from(p[k]));
            }
        }
    }
    if lo[0] > hi[0] || lo.iter().chain(&hi).any(|c| c.abs() > FAR) {
        return [0.0; 3];
    }
    [0, 1, 2].map(|k| ((lo[k] + hi[k]) / 2.0) as f32)
}

/// Move `positions` by `−c` (each coordinate `p − c` in `f64`, rounded once).
pub fn recentre(positions: &mut [[f32; 3]], c: [f32; 3]) {
    for p in positions {
        for k in 0..3 {
            p[k] = (f64::from(p[k]) - f64::from(c[k])) as f32;
        }
    }
}

/// The column-major translation matrix to `c`.
pub fn translation(c: [f32; 3]) -> [f32; 16] {
    let mut m = IDENTITY;
    m[12] = c[0];
    m[13] = c[1];
    m[14] = c[2];
    m
}

fn d(m: &[f32; 16]) -> DMat4 {
    DMat4::from_cols_array(&m.map(f64::from))
}

fn dv(c: [f32; 3]) -> DVec3 {
    DVec3::new(f64::from(c[0]), f64::from(c[1]), f64::from(c[2]))
}

/// Apply the pivots (see the module docs) to the nodes `nodes[i]` of visual `i`:
/// `parent[i]` is the visual whose node is its parent (`None`: a root, placed at the origin),
/// `point[i]` the pivot point of a node without a mesh. Each node's `matrix` is `W₀` on entry.
/// `known[m]` is the centre of mesh `m` when it is hollow (its positions not in the scene:
/// [`centre`] of the positions its source fills, which moves them by it); such a mesh is not
/// moved here. Returns the centre each mesh was moved by (index = mesh index; meshes of other
/// nodes are left alone and get the origin).
pub fn place(
    scene: &mut Scene,
    nodes: &[usize],
    parent: &[Option<usize>],
    point: &[Option<[f32; 3]>],
    known: &[Option<[f32; 3]>],
) -> Vec<[f32; 3]> {
    // the meshes of the nodes given, each moved once: in parallel, a mesh's vertices on one
    // thread (boxes and moves do not depend on the order)
    let mut moved = vec![false; scene.meshes.len()];
    for &n in nodes {
        if let Some(m) = scene.nodes[n].mesh.filter(|&m| m < moved.len()) {
            moved[m] = true;
        }
    }
    let centres: Vec<[f32; 3]> = scene
        .meshes
        .par_iter_mut()
        .zip(&moved)
        .enumerate()
        .map(|(m, (mesh, &moved))| {
            if !moved {
                return [0.0; 3];
            }
            if let Some(c) = known.get(m).copied().flatten() {
                return c;
            }
            let c = centre_of_parts(mesh.primitives.iter().map(|p| &p.positions[..]));
            for p in &mut mesh.primitives {
                recentre(&mut p.positions, c);
            }
            c
        })
        .collect();
    let mut world = Vec::with_capacity(nodes.len());
    for (i, &n) in nodes.iter().enumerate() {
        let node = &scene.nodes[n];
        let w0 = d(&node.matrix);
        let w = match node.mesh.filter(|&m| m < scene.meshes.len()) {
            Some(m) => w0 * DMat4::from_translation(dv(centres[m])),
            None => match point.get(i).copied().flatten() {
                Some(q) if q.iter().all(|c| c.is_finite()) => DMat4::from_translation(dv(q)),
                _ => w0,
            },
        };
        world.push(w);
    }
    for (i, &n) in nodes.iter().enumerate() {
        let local = match parent.get(i).copied().flatten() {
            Some(p) if p < world.len() => world[p].inverse() * world[i],
            _ => world[i],
        };
        let m = local.to_cols_array().map(|x| x as f32);
        scene.nodes[n].matrix = if m.iter().all(|x| x.is_finite()) {
            m
        } else {
            // a parent matrix that cannot be inverted: keep the node's world matrix
            world[i].to_cols_array().map(|x| x as f32)
        };
    }
    centres
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centre_of_a_box_and_recentring() {
        let mut p = vec![[1.0, 2.0, -3.0], [3.0, 6.0, -1.0], [2.0, 2.0, -2.0]];
        let c = centre(&p);
        assert_eq!(c, [2.0, 4.0, -2.0]);
        recentre(&mut p, c);
        assert_eq!(p[0], [-1.0, -2.0, -1.0]);
        assert_eq!(centre(&[]), [0.0; 3]);
        assert_eq!(centre(&[[f32::NAN, 0.0, 0.0], [1.0, 1.0, 1.0]]), [1.0; 3]);
        // a garbage vertex far out keeps the pivot at the origin: the others stay exact
        let mut q = vec![[1.0e30, 0.0, 0.0], [1.25, 2.5, -3.75]];
        let c = centre(&q);
        assert_eq!(c, [0.0; 3]);
        recentre(&mut q, c);
        assert_eq!(q[1], [1.25, 2.5, -3.75]);
    }

    /// A mesh's primitives are boxed together: the centre of the parts is that of all their
    /// positions (hand-computed), not of either part.
    #[test]
    fn centre_of_parts_boxes_them_together() {
        let a = [[1.0, 2.0, -3.0]];
        let b = [[3.0, 6.0, -1.0], [f32::INFINITY, 0.0, 0.0]];
        assert_eq!(
            centre_of_parts([&a[..], &b[..]].into_iter()),
            [2.0, 4.0, -2.0]
        );
        assert_eq!(centre_of_parts([&a[..]].into_iter()), [1.0, 2.0, -3.0]);
        assert_eq!(centre_of_parts([&[][..], &[][..]].into_iter()), [0.0; 3]);
    }
}
