//! `level.ai` as scene geometry: one hidden root `ai` with one hidden node `ai_nodes` whose mesh
//! has a small quad per node, lying in the node's plane.
//!
//! Each quad is centred on the node ([`super::Node::position`]) and spans 90 % of the cell
//! (`size`) along x and z; its corners' heights follow the plane through the centre with the
//! node's normal ([`super::decompress_normal`]; a vertical normal leaves them flat). Per
//! vertex, the custom attributes `_AI_LIGHT` (0–15), `_AI_COVER` (the four directions, 0–15)
//! and, for version 10, `_AI_LOW_COVER` carry the node's values; the quad's normal is the
//! plane's. Positions are mirrored into glTF space like the level's ([`crate::scene::mirror`])
//! with the winding reversed so the quads face up. The node extras say the version, cell size
//! and node count. Versions 2–4 have no decoded nodes: nothing is added, with a warning.

use levelgeom_scene::{Mesh, Node, Primitive, Scene};

use super::{decompress_normal, LevelAi};
use crate::scene::mirror;

/// The share of a cell a node's quad covers, per side.
pub const QUAD_SHARE: f32 = 0.9;

/// The four corners of node `n`'s quad in level space, counter-clockwise seen from above in
/// the engine's left-handed frame: (−x, −z), (−x, +z), (+x, +z), (+x, −z).
pub fn quad(ai: &LevelAi, n: &super::Node) -> [[f32; 3]; 4] {
    let c = n.position(&ai.header);
    let h = ai.header.size * QUAD_SHARE / 2.0;
    let nrm = decompress_normal(n.plane);
    let y = |x: f32, z: f32| {
        if nrm[1].abs() < 1e-6 {
            c[1]
        } else {
            c[1] - (nrm[0] * (x - c[0]) + nrm[2] * (z - c[2])) / nrm[1]
        }
    };
    [(-h, -h), (-h, h), (h, h), (h, -h)].map(|(dx, dz)| {
        let (x, z) = (c[0] + dx, c[2] + dz);
        [x, y(x, z), z]
    })
}

/// Add the `ai` tree (see the module docs). Returns warnings.
pub fn add_ai(scene: &mut Scene, ai: &LevelAi) -> Vec<String> {
    let Some((layout, nodes)) = ai.decoded() else {
        return vec![format!(
            "level.ai: version {} nodes are not decoded (no peer reads them); no AI nodes exported",
            ai.header.version
        )];
    };
    let ten = layout == super::Layout::Links12Covers2;
    let mut p = Primitive::default();
    let (mut light, mut cover, mut low) = (Vec::new(), Vec::new(), Vec::new());
    let mut skipped = 0usize;
    for n in nodes {
        let q = quad(ai, n);
        if q.iter().flatten().any(|c| !c.is_finite()) {
            skipped += 1;
            continue;
        }
        let base = p.positions.len() as u32;
        let nrm = decompress_normal(n.plane);
        for v in q {
            p.positions.push(mirror(v));
            p.normals.push(mirror(nrm));
            light.push(f32::from(n.light(layout)));
            cover.push([0, 1, 2, 3].map(|k| f32::from(n.cover(k))));
            low.push([0, 1, 2, 3].map(|k| f32::from(n.low_cover(k))));
        }
        // (0, 1, 2) is clockwise from above once z is mirrored; reversed it faces up
        p.indices
            .extend_from_slice(&[base, base + 2, base + 1, base, base + 3, base + 2]);
    }
    p.scalars.push(("_AI_LIGHT".into(), light));
    p.vectors.push(("_AI_COVER".into(), cover));
    if ten {
        p.vectors.push(("_AI_LOW_COVER".into(), low));
    }
    let mesh = scene.add_mesh(Mesh {
        name: "ai_nodes".into(),
        primitives: vec![p],
    });
    let h = &ai.header;
    let leaf = scene.add_node(Node {
        name: "ai_nodes".into(),
        mesh: Some(mesh),
        extras: vec![
            ("version".into(), h.version.to_string()),
            ("cell_size".into(), h.size.to_string()),
            ("nodes".into(), nodes.len().to_string()),
        ],
        hidden: true,
        ..Node::default()
    });
    let root = scene.add_node(Node {
        name: "ai".into(),
        children: vec![leaf],
        hidden: true,
        ..Node::default()
    });
    scene.roots.push(root);
    if skipped > 0 {
        vec![format!(
            "level.ai: {skipped} node(s) have a non-finite position; left out"
        )]
    } else {
        Vec::new()
    }
}
