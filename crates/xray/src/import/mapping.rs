//! Which node of an edited scene is which visual, and the world-space geometry a node places.
//!
//! A node maps to visual `N` by its extra `visual` (a decimal string, as the exporter writes
//! it), else by its name's prefix `visual_NNNN` (Blender's `.001` suffixes of copies ignored).
//! Nodes inside the trees the exporter writes for other things — `lights`, `glows`,
//! `portals`, `sectors`, `collision` (by name, Blender suffixes ignored) — hidden nodes
//! (`extras.hidden`, as the exporter marks collision and portals) and nodes placing a light
//! are not visuals and are never looked at, nor is anything below them.

use glam::{DMat4, DVec3};
use levelgeom_scene::{Primitive, Scene};

/// Names of the trees whose nodes are never visuals.
const NOT_VISUALS: [&str; 5] = ["lights", "glows", "portals", "sectors", "collision"];

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
pub(crate) fn visual_of(node: &levelgeom_scene::Node) -> Option<usize> {
    if let Some((_, v)) = node.extras.iter().find(|(k, _)| k == "visual") {
        // Blender may write a number back as a float ("12.0")
        let v = v.trim();
        if let Ok(i) = v.parse::<usize>() {
            return Some(i);
        }
        if let Ok(f) = v.parse::<f64>() {
            if f >= 0.0 && f.fract() == 0.0 && f < 1e9 {
                return Some(f as usize);
            }
        }
    }
    let rest = base_name(&node.name).strip_prefix("visual_")?;
    let digits: &str = rest.split('_').next()?;
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
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

/// For every node: true when it is reachable from the scene's roots.
pub(crate) fn reachable(scene: &Scene) -> Vec<bool> {
    let n = scene.nodes.len();
    let mut out = vec![false; n];
    let mut stack: Vec<usize> = scene.roots.clone();
    while let Some(x) = stack.pop() {
        if x < n && !std::mem::replace(&mut out[x], true) {
            stack.extend(scene.nodes[x].children.iter().copied());
        }
    }
    out
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
    let world = dmat(worlds.get(node)?);
    let normal_m = world.inverse().transpose();
    let mut g = NodeGeo {
        world,
        points: Vec::new(),
        normals: Some(Vec::new()),
        indices: Vec::new(),
    };
    for p in &mesh.primitives {
        add_primitive(&mut g, p, &normal_m);
    }
    (!g.indices.is_empty()).then_some(g)
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
        assert!(has_copy_suffix("visual_0001_normal.001"));
        assert!(!has_copy_suffix("visual_0001_normal"));
        assert_eq!(base_name("lights.002"), "lights");
    }
}
