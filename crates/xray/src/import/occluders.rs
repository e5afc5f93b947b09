//! `level.hom` and `level.som` after an import (`docs/formats/xray-level.md` §14, §15): they
//! follow the edit by the rule `level.cform` follows ([`super::collision`]).
//!
//! * **Ownership.** The files hold bare triangles with no link to a visual (the LevelEditor
//!   writes them from objects flagged HOM or sound occluder, which need not be rendered), so
//!   a polygon's visual is decided by geometry, in the base level: the visuals within
//!   [`super::collision::NEAR`] of all three of its corners (the cform's rule: an occluder
//!   laid on a wall); else the visual with the smallest bounding box (X-Ray space, grown by
//!   `NEAR`) that holds all three corners (an occluder inside a building; the smallest box,
//!   so that the terrain around the building does not claim it too); else none (it stays).
//! * **Following**: a polygon whose owners were all removed goes; one whose owners were all
//!   reshaped (or removed) is dropped and counted: occluders for a new shape cannot be
//!   guessed. One whose owners all moved by the same transform moves with them (a mirroring
//!   move keeps its two-sided word and reverses its winding). One whose owners were treated
//!   differently is **ambiguous**: kept in place and counted. Every other polygon keeps its
//!   bytes.
//! * **Copies**: a copied visual gets a copy of every polygon owned by its original,
//!   transformed by the copy's move and appended (two-sided word and occlusion factor kept).
//! * **Replacing**: an `occluders` tree in the mesh file (as `export --occluders` writes it,
//!   [`crate::occluders::scene`]) whose polygons differ from the base file's replaces that file:
//!   the triangles of the nodes under `hom` (flags from the `flags` extra, else the name
//!   `hom_flags{N}`, else 1 when `two_sided` is true) or `som` (factor from the `occlusion`
//!   extra, else the name `som_occ{F}`; two-sided from `b2sided`, `two_sided` or `_2s`),
//!   mirrored back into X-Ray space with their winding reversed. A tree equal to the file
//!   (every polygon within [`SAME`]) is an unedited export: the file follows the edit.
//! * **Builds**: written only for a build whose engine reads the file
//!   ([`crate::occluders::hom_in_build`], [`crate::occluders::som_in_build`]); otherwise the
//!   summary says it was not written, and why.

use std::cmp::Ordering;

use glam::{DMat4, DVec3};
use levelgeom_scene::Scene;

use super::collision::{mirror, owners_of, Grid, NEAR};
use super::mapping::{self, NodeGeo};
use super::summary::OccluderSummary;
use super::{ImportError, Imported};
use crate::occluders::{self, HomPoly, Occluders, Polygon, SomPoly};

/// How far (metres, per coordinate) an `occluders` tree's polygon may lie from the file's for
/// the tree to count as unedited (a glTF round trip through Blender moves nothing by more).
pub const SAME: f32 = 1e-4;

/// What the import did to the visuals, for the companion files that follow them.
#[derive(Clone, Debug, Default)]
pub struct Edits {
    /// Per base visual: the X-Ray-space transform it moved by.
    pub(super) moves: Vec<Option<DMat4>>,
    /// Per base visual: removed.
    pub(super) remove: Vec<bool>,
    /// Per base visual: reshaped (edited or replaced geometry).
    pub(super) reshaped: Vec<bool>,
    /// Per base visual: its geometry in the base level (glTF space; `None` for visuals
    /// without geometry and LOD billboards).
    pub(super) geo: Vec<Option<NodeGeo>>,
    /// Copies: (the base visual copied, the copy's X-Ray-space transform from it).
    pub(super) copies: Vec<(usize, DMat4)>,
}

impl Edits {
    fn affects(&self, v: usize) -> bool {
        self.geo.get(v).is_some_and(Option::is_some)
            && (self.moves.get(v).is_some_and(Option::is_some)
                || self.removed(v)
                || self.is_reshaped(v))
    }

    fn removed(&self, v: usize) -> bool {
        self.remove.get(v).copied().unwrap_or(false)
    }

    fn is_reshaped(&self, v: usize) -> bool {
        self.reshaped.get(v).copied().unwrap_or(false)
    }

    fn any(&self) -> bool {
        !self.copies.is_empty() || (0..self.geo.len()).any(|v| self.affects(v))
    }
}

/// Each visual's bounding box in X-Ray space, grown by `NEAR`.
fn boxes(geo: &[Option<NodeGeo>]) -> Vec<Option<(DVec3, DVec3)>> {
    geo.iter()
        .map(|g| {
            let g = g.as_ref()?;
            let pts = g.points.iter().map(|p| mirror(*p));
            let lo = pts.clone().fold(DVec3::splat(f64::INFINITY), DVec3::min);
            let hi = pts.fold(DVec3::splat(f64::NEG_INFINITY), DVec3::max);
            Some((lo - DVec3::splat(NEAR), hi + DVec3::splat(NEAR)))
        })
        .collect()
}

/// The visuals a polygon with corners `c` belongs to (see the module docs).
fn owners(grid: &Grid, boxes: &[Option<(DVec3, DVec3)>], c: &[DVec3; 3]) -> Vec<usize> {
    let on = owners_of(grid, c);
    if !on.is_empty() {
        return on;
    }
    let volume = |(lo, hi): (DVec3, DVec3)| {
        let d = hi - lo;
        d.x * d.y * d.z
    };
    let holding: Vec<(usize, f64)> = boxes
        .iter()
        .enumerate()
        .filter_map(|(v, b)| {
            let (lo, hi) = (*b)?;
            c.iter()
                .all(|p| p.cmpge(lo).all() && p.cmple(hi).all())
                .then(|| (v, volume((lo, hi))))
        })
        .collect();
    let Some(least) = holding
        .iter()
        .map(|h| h.1)
        .min_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal))
    else {
        return Vec::new();
    };
    holding
        .into_iter()
        .filter(|h| h.1 <= least)
        .map(|h| h.0)
        .collect()
}

fn corners<P: Polygon>(p: &P) -> [DVec3; 3] {
    p.verts().map(|v| DVec3::from_array(v.map(f64::from)))
}

/// `p` moved by `m` (winding reversed when `m` mirrors).
fn moved<P: Polygon>(p: &P, m: &DMat4) -> P {
    let mut out = p.clone();
    let c = corners(p);
    let v = out.verts_mut();
    for k in 0..3 {
        let q = m.transform_point3(c[k]);
        v[k] = [q.x as f32, q.y as f32, q.z as f32];
    }
    if m.determinant() < 0.0 {
        v.swap(1, 2);
    }
    out
}

/// The polygons of one file after the edit, with what happened to them.
fn follow_polys<P: Polygon>(polys: &[P], edits: &Edits, s: &mut OccluderSummary) -> Vec<P> {
    s.polygons_before = polys.len();
    if !edits.any() {
        s.mode = "kept".into();
        s.polygons_after = polys.len();
        return polys.to_vec();
    }
    s.mode = "followed".into();
    let grid = Grid::new(&edits.geo, 2.0);
    let boxes = boxes(&edits.geo);
    let finite = |p: &P| p.verts().iter().flatten().all(|c| c.is_finite());
    let mut out = Vec::with_capacity(polys.len());
    let mut owned: Vec<Vec<usize>> = Vec::with_capacity(polys.len());
    for (i, p) in polys.iter().enumerate() {
        let own = if finite(p) {
            owners(&grid, &boxes, &corners(p))
        } else {
            Vec::new()
        };
        owned.push(own.clone());
        if !own.iter().any(|&v| edits.affects(v)) {
            out.push(p.clone());
            continue;
        }
        let first_move = own
            .iter()
            .find_map(|&v| edits.moves.get(v).copied().flatten());
        let all_alike = first_move.is_some_and(|m| {
            own.iter().all(|&v| {
                edits
                    .moves
                    .get(v)
                    .copied()
                    .flatten()
                    .is_some_and(|x| super::transform::same_transform(&x, &m))
            })
        });
        if own
            .iter()
            .all(|&v| edits.removed(v) || edits.is_reshaped(v))
        {
            if own.iter().any(|&v| edits.is_reshaped(v)) {
                s.dropped += 1;
            } else {
                s.removed += 1;
            }
        } else if let (true, Some(m)) = (all_alike, first_move) {
            out.push(moved(p, &m));
            s.moved += 1;
        } else {
            s.ambiguous += 1;
            if s.ambiguous_polygons.len() < 20 {
                s.ambiguous_polygons.push(i);
            }
            out.push(p.clone());
        }
    }
    for (from, m) in &edits.copies {
        for (p, own) in polys.iter().zip(&owned) {
            if own.contains(from) {
                out.push(moved(p, m));
                s.copied += 1;
            }
        }
    }
    s.polygons_after = out.len();
    out
}

/// `file` with its polygons replaced by `polys`.
fn with_polys<P: Polygon>(file: &Occluders<P>, polys: Vec<P>) -> Occluders<P> {
    let mut out = file.clone();
    match out.polys_mut() {
        Some(p) => *p = polys,
        None => out = Occluders::new(polys),
    }
    out
}

/// Whether two polygon lists hold the same polygons (any order; corners within [`SAME`], the
/// other fields equal).
fn same_polys<P: Polygon>(a: &[P], b: &[P], key: impl Fn(&P) -> Vec<u32>) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let order = |x: &&P, y: &&P| {
        key(x).cmp(&key(y)).then_with(|| {
            let (p, q) = (x.verts().as_flattened(), y.verts().as_flattened());
            p.iter()
                .zip(q)
                .map(|(s, t)| s.total_cmp(t))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        })
    };
    let mut a: Vec<&P> = a.iter().collect();
    let mut b: Vec<&P> = b.iter().collect();
    a.sort_by(order);
    b.sort_by(order);
    a.iter().zip(&b).all(|(x, y)| {
        key(x) == key(y)
            && x.verts()
                .as_flattened()
                .iter()
                .zip(y.verts().as_flattened())
                .all(|(s, t)| (s - t).abs() <= SAME)
    })
}

/// The node `name` (Blender's `.001` ignored) among `nodes`.
fn child_named(scene: &Scene, nodes: &[usize], name: &str) -> Option<usize> {
    nodes.iter().copied().find(|&n| {
        scene
            .nodes
            .get(n)
            .is_some_and(|x| mapping::base_name(&x.name) == name)
    })
}

/// Every node with a mesh at or under `n`, with its X-Ray-space triangles (winding restored).
fn tree_triangles(
    scene: &Scene,
    n: usize,
    worlds: &[[f32; 16]],
) -> Vec<(usize, Vec<[[f32; 3]; 3]>)> {
    let mut out = Vec::new();
    let mut stack = vec![n];
    let mut seen = vec![false; scene.nodes.len()];
    while let Some(x) = stack.pop() {
        if x >= scene.nodes.len() || std::mem::replace(&mut seen[x], true) {
            continue;
        }
        stack.extend(scene.nodes[x].children.iter().rev().copied());
        let Some(g) = mapping::node_geo(scene, x, worlds) else {
            continue;
        };
        let p = |i: u32| {
            let q = mirror(g.points[i as usize]);
            [q.x as f32, q.y as f32, q.z as f32]
        };
        // glTF (0, 1, 2) → X-Ray (0, 2, 1), as the export reversed it
        let tris = g
            .indices
            .chunks_exact(3)
            .map(|t| [p(t[0]), p(t[2]), p(t[1])])
            .collect();
        out.push((x, tris));
    }
    out
}

fn extra<'a>(scene: &'a Scene, n: usize, key: &str) -> Option<&'a str> {
    scene.nodes[n]
        .extras
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.trim())
}

fn node_error(scene: &Scene, n: usize, message: String) -> ImportError {
    ImportError::Node {
        node: scene.nodes[n].name.clone(),
        message,
    }
}

fn finite_tri(scene: &Scene, n: usize, t: &[[f32; 3]; 3]) -> Result<(), ImportError> {
    if t.iter().flatten().all(|c| c.is_finite()) {
        Ok(())
    } else {
        Err(node_error(
            scene,
            n,
            "an occluder corner is not a finite number".into(),
        ))
    }
}

/// The HOM polygons of the tree `hom`.
fn hom_from_tree(
    scene: &Scene,
    hom: usize,
    worlds: &[[f32; 16]],
) -> Result<Vec<HomPoly>, ImportError> {
    let mut out = Vec::new();
    for (n, tris) in tree_triangles(scene, hom, worlds) {
        let name = mapping::base_name(&scene.nodes[n].name);
        let flags = match (extra(scene, n, "flags"), name.strip_prefix("hom_flags")) {
            (Some(f), _) | (None, Some(f)) => f.parse::<u32>().map_err(|_| {
                node_error(scene, n, format!("HOM flags {f:?} are not a 32-bit number"))
            })?,
            (None, None) => u32::from(extra(scene, n, "two_sided") == Some("true")),
        };
        for v in tris {
            finite_tri(scene, n, &v)?;
            out.push(HomPoly { v, flags });
        }
    }
    Ok(out)
}

/// The SOM polygons of the tree `som`.
fn som_from_tree(
    scene: &Scene,
    som: usize,
    worlds: &[[f32; 16]],
) -> Result<Vec<SomPoly>, ImportError> {
    let mut out = Vec::new();
    for (n, tris) in tree_triangles(scene, som, worlds) {
        let name = mapping::base_name(&scene.nodes[n].name);
        let from_name = name
            .strip_prefix("som_occ")
            .map(|r| r.trim_end_matches("_2s"));
        let Some(text) = extra(scene, n, "occlusion").or(from_name) else {
            return Err(node_error(
                scene,
                n,
                "under occluders/som, but no `occlusion` extra and not named som_occ{factor}: \
                 its sound occlusion factor is unknown"
                    .into(),
            ));
        };
        let occ: f32 = text.parse().map_err(|_| {
            node_error(
                scene,
                n,
                format!("occlusion factor {text:?} is not a number"),
            )
        })?;
        let b2sided = match extra(scene, n, "b2sided") {
            Some(b) => b.parse::<u32>().map_err(|_| {
                node_error(scene, n, format!("b2sided {b:?} is not a 32-bit number"))
            })?,
            None => u32::from(
                extra(scene, n, "two_sided").map_or(name.ends_with("_2s"), |t| t == "true"),
            ),
        };
        for v in tris {
            finite_tri(scene, n, &v)?;
            out.push(SomPoly { v, b2sided, occ });
        }
    }
    Ok(out)
}

/// The `occluders` tree of the mesh file (a root reachable in its scene): its `hom` and `som`
/// children.
fn occluder_trees(scene: &Scene) -> (Option<usize>, Option<usize>) {
    let Some(root) = child_named(scene, &scene.roots, "occluders") else {
        return (None, None);
    };
    let kids = &scene.nodes[root].children;
    (
        child_named(scene, kids, "hom"),
        child_named(scene, kids, "som"),
    )
}

/// One file after the import: followed, replaced by the tree, or not written for the build.
fn one_file<P: Polygon>(
    base: Option<&Occluders<P>>,
    tree: Option<Vec<P>>,
    edits: &Edits,
    in_build: bool,
    build: u16,
    key: impl Fn(&P) -> Vec<u32>,
    s: &mut OccluderSummary,
) -> Option<Occluders<P>> {
    let base_polys: Vec<P> = base
        .map(|b| b.polys().cloned().collect())
        .unwrap_or_default();
    let out = match (tree, base) {
        (Some(t), b) if b.is_none() || !same_polys(&t, &base_polys, &key) => {
            s.mode = "replaced".into();
            s.polygons_before = base_polys.len();
            s.polygons_after = t.len();
            Some(match b {
                Some(b) => with_polys(b, t),
                None => Occluders::new(t),
            })
        }
        (_, Some(b)) => {
            let polys = follow_polys(&base_polys, edits, s);
            Some(if s.mode == "kept" {
                b.clone()
            } else {
                with_polys(b, polys)
            })
        }
        (_, None) => {
            s.mode = "none".into();
            None
        }
    };
    if out.is_some() && !in_build {
        let since = if P::FILE == "level.hom" {
            "2002-06-07 (XRLC 8)"
        } else {
            "2005-02-26 (XRLC 13)"
        };
        s.note = format!(
            "not written: the XRLC {build} engine reads no {} (the engine reads it from {since})",
            P::FILE
        );
        s.polygons_after = 0;
        return None;
    }
    out
}

/// Make the base level's `level.hom` and `level.som` follow the import `out` (see the module
/// docs): sets `out.hom`, `out.som` and the summary's `hom` / `som`. `edited` is the mesh file
/// (its `occluders` tree, when it has one, replaces the files).
///
/// # Errors
/// A node of the `occluders` tree whose values cannot be read (a SOM node without its
/// occlusion factor, a corner that is not a number).
pub fn follow(
    out: &mut Imported,
    hom: Option<&occluders::Hom>,
    som: Option<&occluders::Som>,
    edited: Option<&Scene>,
) -> Result<(), ImportError> {
    let build = out.summary.build_out;
    let (mut hom_tree, mut som_tree) = (None, None);
    if let Some(scene) = edited {
        let worlds = scene.world_matrices();
        let (h, s) = occluder_trees(scene);
        if let Some(h) = h {
            hom_tree = Some(hom_from_tree(scene, h, &worlds)?);
        }
        if let Some(s) = s {
            som_tree = Some(som_from_tree(scene, s, &worlds)?);
        }
    }
    let mut hs = OccluderSummary::default();
    out.hom = one_file(
        hom,
        hom_tree,
        &out.edits,
        occluders::hom_in_build(build),
        build,
        |p| vec![p.flags],
        &mut hs,
    );
    let mut ss = OccluderSummary::default();
    out.som = one_file(
        som,
        som_tree,
        &out.edits,
        occluders::som_in_build(build),
        build,
        |p| vec![p.b2sided, p.occ.to_bits()],
        &mut ss,
    );
    for (file, s) in [("level.hom", &hs), ("level.som", &ss)] {
        if s.ambiguous > 0 {
            out.summary.warnings.push(format!(
                "{file}: {} polygon(s) belong to several visuals that were not changed alike; \
                 kept in place",
                s.ambiguous
            ));
        }
        if s.dropped > 0 {
            out.summary.warnings.push(format!(
                "{file}: {} polygon(s) of reshaped visuals dropped (occluders for a new shape \
                 cannot be guessed; add them in the SDK or in the mesh file's occluders tree)",
                s.dropped
            ));
        }
    }
    out.summary.hom = hs;
    out.summary.som = ss;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mirroring_move_reverses_the_winding() {
        let p = HomPoly {
            v: [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
            flags: 1,
        };
        let m = DMat4::from_scale(DVec3::new(-1.0, 1.0, 1.0));
        let q = moved(&p, &m);
        assert_eq!(q.v, [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]]);
        assert_eq!(q.flags, 1);
        let t = moved(&p, &DMat4::from_translation(DVec3::new(1.0, 2.0, 3.0)));
        assert_eq!(t.v, [[1.0, 2.0, 3.0], [2.0, 2.0, 3.0], [1.0, 2.0, 4.0]]);
    }

    #[test]
    fn the_smallest_box_holding_a_polygon_owns_it() {
        // no geometry near: only boxes decide; visual 1's box lies inside visual 0's
        let boxes = vec![
            Some((DVec3::splat(-10.0), DVec3::splat(10.0))),
            Some((DVec3::splat(0.0), DVec3::splat(2.0))),
            None,
        ];
        let grid = Grid::new(&[None, None, None], 2.0);
        let inside = [
            DVec3::splat(0.5),
            DVec3::splat(1.0),
            DVec3::new(1.5, 0.5, 0.5),
        ];
        assert_eq!(owners(&grid, &boxes, &inside), vec![1]);
        let half_out = [DVec3::splat(0.5), DVec3::splat(3.0), DVec3::splat(1.0)];
        assert_eq!(owners(&grid, &boxes, &half_out), vec![0]);
        let outside = [DVec3::splat(20.0), DVec3::splat(21.0), DVec3::splat(22.0)];
        assert!(owners(&grid, &boxes, &outside).is_empty());
    }
}
