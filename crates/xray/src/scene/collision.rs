//! `level.cform` as scene geometry: the collision the game walks on, in the level's space.
//!
//! One hidden root `collision` with one node per (game material, sector), named
//! `mat{material}_sec{sector}` in ascending order, each with one mesh. Positions are mirrored
//! into glTF space like the level's ([`crate::scene::mirror`]) and every triangle's winding is
//! reversed with it, so the front side stays the front side. Node extras carry `material`
//! (the 14-bit game material id), `sector`, and `suppress_shadows` / `suppress_wallmarks`
//! when a triangle of the group sets them.
//!
//! blender-xray (`formats/level/imp/cform.py`) reads the same fields: bits 0–13 material id,
//! bit 14 suppress shadows, bit 15 suppress wallmarks, high 16 bits the sector.

use std::collections::BTreeMap;

use levelgeom_scene::{Mesh, Node, Primitive, Scene};

use crate::cform::{Cform, Tri};

impl Tri {
    /// The game material id (version 4: bits 0–13 of the packed word; versions 2/3: the
    /// material field).
    pub fn material(&self) -> u32 {
        match &self.old {
            Some(o) => o.material,
            None => self.dummy & 0x3FFF,
        }
    }

    /// Bit 14: the triangle casts no shadows (version 4 only).
    pub fn suppress_shadows(&self) -> bool {
        self.old.is_none() && self.dummy & 0x4000 != 0
    }

    /// Bit 15: no wallmarks (bullet holes) on the triangle (version 4 only).
    pub fn suppress_wallmarks(&self) -> bool {
        self.old.is_none() && self.dummy & 0x8000 != 0
    }

    /// The sector the triangle belongs to (version 4: the high 16 bits).
    pub fn sector(&self) -> u16 {
        match &self.old {
            Some(o) => o.sector,
            None => (self.dummy >> 16) as u16,
        }
    }
}

/// Add the collision of `cform` to `scene` as a hidden root `collision` (see the module docs).
/// Triangles naming a vertex that does not exist are left out, with one warning.
pub fn add_collision(scene: &mut Scene, cform: &Cform) -> Vec<String> {
    let mut groups: BTreeMap<(u32, u16), Vec<&Tri>> = BTreeMap::new();
    let n = cform.vertices.len();
    let mut bad = 0usize;
    for t in &cform.tris {
        if t.verts.iter().any(|&v| v as usize >= n) {
            bad += 1;
            continue;
        }
        groups
            .entry((t.material(), t.sector()))
            .or_default()
            .push(t);
    }
    let mut children = Vec::with_capacity(groups.len());
    for ((material, sector), tris) in groups {
        let mut p = Primitive::default();
        for t in &tris {
            let base = p.positions.len() as u32;
            // reversed with the mirror: (v0, v2, v1)
            for &v in &[t.verts[0], t.verts[2], t.verts[1]] {
                p.positions
                    .push(crate::scene::mirror(cform.vertices[v as usize]));
            }
            p.indices.extend_from_slice(&[base, base + 1, base + 2]);
        }
        let name = format!("mat{material}_sec{sector}");
        let mesh = scene.add_mesh(Mesh {
            name: name.clone(),
            primitives: vec![p],
        });
        let mut extras = vec![
            ("material".to_string(), material.to_string()),
            ("sector".to_string(), sector.to_string()),
        ];
        if tris.iter().any(|t| t.suppress_shadows()) {
            extras.push(("suppress_shadows".into(), "true".into()));
        }
        if tris.iter().any(|t| t.suppress_wallmarks()) {
            extras.push(("suppress_wallmarks".into(), "true".into()));
        }
        children.push(scene.add_node(Node {
            name,
            mesh: Some(mesh),
            extras,
            ..Node::default()
        }));
    }
    let root = scene.add_node(Node {
        name: levelgeom_scene::roots::COLLISION.into(),
        children,
        hidden: true,
        ..Node::default()
    });
    scene.roots.push(root);
    if bad > 0 {
        vec![format!(
            "level.cform: {bad} triangle(s) name a vertex past its {n} vertices; left out"
        )]
    } else {
        Vec::new()
    }
}
