//! Which node of an edited scene is which visual, and the world-space geometry a node places.
//!
//! A node maps to visual `N` by its extra `visual` (a decimal string, as the exporter writes
//! it), else by its name's prefix `visual_NNNN` (Blender's `.001` suffixes of copies ignored).
//! Nodes inside the trees the exporter writes for other things — `lights`, `glows`,
//! `portals`, `sectors`, `collision` (by name, Blender suffixes ignored) — hidden nodes
//! (`extras.hidden`, as the exporter marks collision and portals) and nodes placing a light
//! are not visuals and are never looked at, nor is anything below them.

use std::borrow::Borrow;

use glam::{DMat4, DVec3};
use levelgeom_scene::{roots, Mesh, Primitive, Scene};

/// Names of the trees whose nodes are never visuals: the light and glow groups
/// ([`crate::lights`]), the named roots `portals`, `collision`, `occluders`, `ai` and `details` ([`roots`]), and `sectors`
/// (a tree earlier exports wrote).
const NOT_VISUALS: [&str; 8] = [
    crate::lights::LIGHTS,
    crate::lights::GLOWS,
    roots::PORTALS,
    "sectors",
    roots::COLLISION,
    roots::OCCLUDERS,
    roots::AI,
    roots::DETAILS,
];

/// A name without Blender's `.001`-style suffix.
pub(crate) fn base_name(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((b, s)) if !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()) => b,
        _ => name,
    }
}

/// True when the name carries a Blender copy suffix (`.001`).
pub(crate) fn has_copy_suffix(name: &str) -> bool {
    base_name(name).len() != name.len()
}

/// The visual index a node names: extra `visual`, else the `visual_NNNN` name prefix.
/// Lenient (for the exporter's own scenes, whose two always agree); an edited scene is read
/// with [`visual_claim`].
pub(crate) fn visual_of(node: &levelgeom_scene::Node) -> Option<usize> {
    extra_visual(node)
        .and_then(Result::ok)
        .or_else(|| name_visual(&node.name))
}

/// The extra `visual`: `None` without one, `Err(raw text)` when it is no visual index.
fn extra_visual(node: &levelgeom_scene::Node) -> Option<Result<usize, String>> {
    let (_, raw) = node.extras.iter().find(|(k, _)| k == "visual")?;
    // Blender may write a number back as a float ("12.0")
    let v = raw.trim();
    if let Ok(i) = v.parse::<usize>() {
        return Some(Ok(i));
    }
    match v.parse::<f64>() {
        Ok(f) if f >= 0.0 && f.fract() == 0.0 && f < 1e9 => Some(Ok(f as usize)),
        _ => Some(Err(raw.clone())),
    }
}

/// The `visual_NNNN` prefix of a name (Blender's `.001` suffix ignored).
fn name_visual(name: &str) -> Option<usize> {
    let rest = base_name(name).strip_prefix("visual_")?;
    let digits: &str = rest.split('_').next()?;
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The visual an edited node claims, of a level with `nv` visuals: its extra `visual`, else
/// its name's `visual_NNNN`; `Ok(None)` for a node that names none (a new mesh).
///
/// An extra `visual` that is no index is warned about (into `warnings`, naming the node and the
/// text) and the name is used. An extra naming no visual of the level, or disagreeing with
/// the index in the node's name, is an error naming the node and both values: either way the
/// node cannot be told apart from a new mesh or another visual, and reading it as one would
/// remove the visual the other value names.
pub(crate) fn visual_claim(
    node: &levelgeom_scene::Node,
    nv: usize,
    warnings: &mut Vec<String>,
) -> Result<Option<usize>, String> {
    let named = name_visual(&node.name);
    let extra = match extra_visual(node) {
        Some(Ok(v)) => Some(v),
        Some(Err(raw)) => {
            warnings.push(format!(
                "node {:?}: its extra \"visual\" {raw:?} is no visual index; {}",
                node.name,
                match named {
                    Some(n) => format!("its name's visual {n} is used"),
                    None => "it is read as a new mesh".into(),
                }
            ));
            None
        }
        None => None,
    };
    match (extra, named) {
        (Some(v), _) if v >= nv => Err(format!(
            "its extra \"visual\" is {v}, but the level has {nv} visuals (0..{}){}; give the visual it edits, or remove the extra to add it as a new mesh",
            nv.saturating_sub(1),
            named.map_or(String::new(), |n| format!(", and its name says visual {n}"))
        )),
        (Some(v), Some(n)) if v != n => Err(format!(
            "its extra \"visual\" is {v}, but its name says visual {n}; make them agree (rename the node or fix the extra)"
        )),
        (Some(v), _) => Ok(Some(v)),
        (None, n) => Ok(n),
    }
}

/// For every node: true when it is inside one of the non-visual trees or places a light.
pub(crate) fn excluded(scene: &Scene) -> Vec<bool> {
    let n = scene.nodes.len();
    let mut out = vec![false; n];
    let mut stack: Vec<usize> = (0..n)
        .filter(|&i| {
            let node = &scene.nodes[i];
            NOT_VISUALS.contains(&base_name(&node.name)) || node.light.is_some() || node.hidden
        })
        .collect();
    while let Some(x) = stack.pop() {
        if x < n && !std::mem::replace(&mut out[x], true) {
            stack.extend(scene.nodes[x].children.iter().copied());
        }
    }
    out
}

/// Every node's parent (the first node listing it as a child), `None` for roots.
pub(crate) fn parents(scene: &Scene) -> Vec<Option<usize>> {
    let mut out = vec![None; scene.nodes.len()];
    for (i, node) in scene.nodes.iter().enumerate() {
        for &c in &node.children {
            if let Some(p) = out.get_mut(c).filter(|p| p.is_none() && c != i) {
                *p = Some(i);
            }
        }
    }
    out
}

/// The nearest proper ancestor of node `n` that is one of the `groups` (`(visual, node)`
/// pairs): its index in `groups`.
pub(crate) fn group_of(
    parent: &[Option<usize>],
    groups: &[(usize, usize)],
    n: usize,
) -> Option<usize> {
    let mut a = parent.get(n).copied().flatten();
    for _ in 0..parent.len() {
        let x = a?;
        if let Some(k) = groups.iter().position(|g| g.1 == x) {
            return Some(k);
        }
        a = parent[x];
    }
    None
}

/// World-space geometry of one node (glTF space, f64): every primitive's corners through the
/// node's world matrix, primitives concatenated.
#[derive(Clone, Debug)]
pub(crate) struct NodeGeo {
    /// The node's world matrix.
    pub world: DMat4,
    /// Vertex positions, world space.
    pub points: Vec<DVec3>,
    /// Unit normals, world space, when every primitive has them.
    pub normals: Option<Vec<DVec3>>,
    /// Triangle corner indices into `points`.
    pub indices: Vec<u32>,
}

impl NodeGeo {
    /// Number of triangles with an area (Blender's exporter drops degenerate ones).
    pub fn triangles(&self) -> usize {
        self.indices
            .chunks_exact(3)
            .filter(|t| {
                let [a, b, c] = [0, 1, 2].map(|k| self.points[t[k] as usize]);
                (b - a).cross(c - a).length_squared() > 1e-18
            })
            .count()
    }

    /// The mean of all triangle corners (independent of vertex order and sharing).
    pub fn corner_mean(&self) -> DVec3 {
        if self.indices.is_empty() {
            return DVec3::ZERO;
        }
        let s: DVec3 = self.indices.iter().map(|&i| self.points[i as usize]).sum();
        s / self.indices.len() as f64
    }
}

/// A column-major f32 matrix as f64.
pub(crate) fn dmat(m: &[f32; 16]) -> DMat4 {
    DMat4::from_cols_array(&m.map(f64::from))
}

/// The world-space geometry of `node` (`None` when it has no mesh or the mesh no triangles).
pub(crate) fn node_geo(scene: &Scene, node: usize, worlds: &[[f32; 16]]) -> Option<NodeGeo> {
    let n = scene.nodes.get(node)?;
    let mesh = scene.meshes.get(n.mesh?)?;
    geo_of(&mesh.primitives, worlds.get(node)?)
}

/// [`node_geo`] of a node placing `primitives` (a mesh's, or filled copies of them) through
/// the world matrix `world`.
pub(crate) fn geo_of<P: Borrow<Primitive>>(primitives: &[P], world: &[f32; 16]) -> Option<NodeGeo> {
    let world = dmat(world);
    let normal_m = world.inverse().transpose();
    let mut g = NodeGeo {
        world,
        points: Vec::new(),
        normals: Some(Vec::new()),
        indices: Vec::new(),
    };
    for p in primitives {
        add_primitive(&mut g, p.borrow(), &normal_m);
    }
    (!g.indices.is_empty()).then_some(g)
}

/// True when [`node_geo`] of `node` is `Some` (of its filled copy, for a mesh with hollow
/// primitives): the node has a mesh and a world matrix, and one of its primitives a triangle
/// whose corners are all vertices. A hollow primitive has one when it promises three indices
/// or more, each below its vertex count ([`levelgeom_scene::Hollow`]).
pub(crate) fn has_geo(scene: &Scene, node: usize, worlds: &[[f32; 16]]) -> bool {
    let Some(mesh) = mesh_of(scene, node) else {
        return false;
    };
    worlds.get(node).is_some()
        && mesh.primitives.iter().any(|p| match &p.hollow {
            Some(h) => h.indices >= 3,
            None => corners(std::slice::from_ref(p)).next().is_some(),
        })
}

/// The mesh of `node` in `scene`.
pub(crate) fn mesh_of(scene: &Scene, node: usize) -> Option<&Mesh> {
    scene
        .nodes
        .get(node)
        .and_then(|n| n.mesh)
        .and_then(|m| scene.meshes.get(m))
}

/// The triangle corners [`node_geo`] of a mesh's `primitives` keeps, numbered as there
/// (each primitive's vertices after the previous ones').
pub(crate) fn corners<P: Borrow<Primitive>>(primitives: &[P]) -> impl Iterator<Item = u32> + '_ {
    let mut base = 0u32;
    primitives.iter().flat_map(move |p| {
        let p = p.borrow();
        let nv = p.positions.len();
        let b = base;
        base = base.wrapping_add(nv as u32);
        p.indices
            .chunks_exact(3)
            .filter(move |t| t.iter().all(|&i| (i as usize) < nv))
            .flatten()
            .map(move |&i| b + i)
    })
}

/// True when [`node_geo`] of `node` would hold a world-space point that is not a finite
/// number (a non-finite matrix or position), found without building it: the same points are
/// transformed one at a time. False for a node without geometry.
pub(crate) fn places_non_finite(scene: &Scene, node: usize, worlds: &[[f32; 16]]) -> bool {
    let Some(mesh) = mesh_of(scene, node) else {
        return false;
    };
    let Some(world) = worlds.get(node).map(dmat) else {
        return false;
    };
    // a finite matrix moves finite f32 positions to finite f64 points (each coordinate a sum
    // of four products of at most f32::MAX², far below f64::MAX): only a matrix or a
    // position that is not finite needs the points themselves
    let finite = world.is_finite()
        && mesh.primitives.iter().all(|p| {
            // one pass without an early exit (vectorised)
            p.positions
                .iter()
                .flatten()
                .fold(true, |finite, c| finite & c.is_finite())
        });
    // node_geo is `None` without a triangle whose corners are all vertices
    !finite
        && corners(&mesh.primitives).next().is_some()
        && mesh.primitives.iter().any(|p| {
            p.positions.iter().any(|&q| {
                !world
                    .transform_point3(DVec3::from_array(q.map(f64::from)))
                    .is_finite()
            })
        })
}

fn add_primitive(g: &mut NodeGeo, p: &Primitive, normal_m: &DMat4) {
    let base = g.points.len() as u32;
    let nv = p.positions.len();
    g.points.extend(p.positions.iter().map(|&q| {
        g.world
            .transform_point3(DVec3::from_array(q.map(f64::from)))
    }));
    match (&mut g.normals, p.normals.len() == nv) {
        (Some(ns), true) => ns.extend(p.normals.iter().map(|&q| {
            normal_m
                .transform_vector3(DVec3::from_array(q.map(f64::from)))
                .normalize_or_zero()
        })),
        _ => g.normals = None,
    }
    for t in p.indices.chunks_exact(3) {
        if t.iter().all(|&i| (i as usize) < nv) {
            g.indices.extend(t.iter().map(|&i| base + i));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use levelgeom_scene::Node;

    /// A scene of one node with one triangle at `positions` and the local matrix `matrix`.
    fn triangle(positions: [[f32; 3]; 3], matrix: [f32; 16], indices: Vec<u32>) -> Scene {
        Scene {
            meshes: vec![Mesh {
                primitives: vec![Primitive {
                    positions: positions.to_vec(),
                    indices,
                    ..Primitive::default()
                }],
                ..Mesh::default()
            }],
            nodes: vec![Node {
                mesh: Some(0),
                matrix,
                ..Node::default()
            }],
            roots: vec![0],
            ..Scene::default()
        }
    }

    #[test]
    fn non_finite_points_are_found_as_the_world_space_copy_would_hold_them() {
        let id = levelgeom_scene::IDENTITY;
        let tri = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
        let found = |s: &Scene| {
            let w = s.world_matrices();
            let by_copy =
                node_geo(s, 0, &w).is_some_and(|g| g.points.iter().any(|p| !p.is_finite()));
            assert_eq!(places_non_finite(s, 0, &w), by_copy, "{s:?}");
            by_copy
        };
        assert!(!found(&triangle(tri, id, vec![0, 1, 2])));
        // the largest f32 values through the largest scale: f64 holds them
        let mut big = id;
        big[0] = f32::MAX;
        assert!(!found(&triangle(
            [[f32::MAX; 3], [f32::MIN; 3], [0.0; 3]],
            big,
            vec![0, 1, 2]
        )));
        // a NaN translation; a NaN in the bottom row (which a point's transform does not
        // read, but the world matrix's product may spread): the copy's answer either way
        let mut nan = id;
        nan[12] = f32::NAN;
        assert!(found(&triangle(tri, nan, vec![0, 1, 2])));
        let mut row = id;
        row[3] = f32::NAN;
        found(&triangle(tri, row, vec![0, 1, 2]));
        // an infinite position; the same in a mesh without a whole triangle (no copy is made)
        let mut inf = tri;
        inf[1][2] = f32::INFINITY;
        assert!(found(&triangle(inf, id, vec![0, 1, 2])));
        assert!(!found(&triangle(inf, id, vec![0, 1, 7])));
    }

    #[test]
    fn names_and_extras_give_the_visual() {
        let named = |name: &str| Node {
            name: name.into(),
            ..Node::default()
        };
        assert_eq!(visual_of(&named("visual_0012_normal")), Some(12));
        assert_eq!(visual_of(&named("visual_0012_tree_st.003")), Some(12));
        assert_eq!(visual_of(&named("visual_0012")), Some(12));
        assert_eq!(visual_of(&named("visualx_0012")), None);
        assert_eq!(visual_of(&named("Cube")), None);
        let mut n = named("Cube.001");
        n.extras.push(("visual".into(), "7".into()));
        assert_eq!(visual_of(&n), Some(7));
        n.extras[0].1 = "7.0".into();
        assert_eq!(visual_of(&n), Some(7));
        n.extras[0].1 = "seven".into();
        assert_eq!(visual_of(&n), None);
        assert!(has_copy_suffix("visual_0001_normal.001"));
        assert!(!has_copy_suffix("visual_0001_normal"));
        assert_eq!(base_name("lights.002"), "lights");
    }

    #[test]
    fn an_edited_nodes_claim_is_checked_against_the_level_and_its_name() {
        let node = |name: &str, extra: Option<&str>| Node {
            name: name.into(),
            extras: extra
                .map(|e| vec![("visual".to_string(), e.to_string())])
                .unwrap_or_default(),
            ..Node::default()
        };
        let mut w = Vec::new();
        // visual: 99 of 16
        let e = visual_claim(&node("Cube", Some("99")), 16, &mut w).unwrap_err();
        assert!(
            e.contains("extra \"visual\" is 99, but the level has 16 visuals (0..15)"),
            "{e}"
        );
        let e = visual_claim(&node("visual_0005_normal", Some("99")), 16, &mut w).unwrap_err();
        assert!(e.contains("and its name says visual 5"), "{e}");
        // visual: "15" on visual 3's node
        let e = visual_claim(&node("visual_0003_normal", Some("15")), 16, &mut w).unwrap_err();
        assert!(
            e.contains("extra \"visual\" is 15, but its name says visual 3"),
            "{e}"
        );
        assert!(w.is_empty());
        // agreeing, float-written, copies, name only, neither
        assert_eq!(
            visual_claim(&node("visual_0003_normal.001", Some("3.0")), 16, &mut w),
            Ok(Some(3))
        );
        assert_eq!(
            visual_claim(&node("Cube", Some("4")), 16, &mut w),
            Ok(Some(4))
        );
        assert_eq!(
            visual_claim(&node("visual_0003_normal", None), 16, &mut w),
            Ok(Some(3))
        );
        assert_eq!(visual_claim(&node("Cube", None), 16, &mut w), Ok(None));
        assert!(w.is_empty());
        // unparsable: warned, the name used
        assert_eq!(
            visual_claim(&node("visual_0003_normal", Some("three")), 16, &mut w),
            Ok(Some(3))
        );
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("\"visual_0003_normal\": its extra \"visual\" \"three\" is no visual index; its name's visual 3 is used"), "{}", w[0]);
    }
}
