//! `fsL_PORTALS` as geometry: a hidden root `portals` with one node and mesh per portal.
//!
//! Portal `N` becomes the node `portal_NNN` whose mesh is its polygon (the first `count` of the
//! six stored vertices, mirrored into glTF space, fanned from vertex 0 into `count − 2`
//! triangles with the winding reversed for the mirror), placed like a visual: node translation
//! at the centre of the polygon's bounding box, vertices relative to it. Extras:
//! `portal` (its index), `sector_front`, `sector_back`. Every portal mesh uses one material,
//! `portal`, double-sided and half transparent (a portal is seen from both sectors). A portal
//! with a count below 3 has no mesh (a warning); a count above 6 uses the 6 stored vertices
//! (a warning).

use levelgeom_scene::{AlphaMode, Material, Mesh, Node, Primitive, Scene};

use crate::pivot;
use crate::scene::mirror;
use crate::sectors::Portal;

/// Add the hidden root `portals` (see the module docs), also when the level has no portals
/// (an empty root is not written by the exporters' subset of meshes, but says that portals were
/// asked for).
pub fn add_portals(scene: &mut Scene, portals: &[Portal]) {
    let mut material = None;
    let mut children = Vec::with_capacity(portals.len());
    for (i, p) in portals.iter().enumerate() {
        let n = p.count as usize;
        if n > p.poly.len() {
            scene.warnings.push(format!(
                "portal {i}: {n} vertices declared, 6 stored; the 6 are used"
            ));
        }
        let n = n.min(p.poly.len());
        let mut node = Node {
            name: format!("portal_{i:03}"),
            extras: vec![
                ("portal".into(), i.to_string()),
                ("sector_front".into(), p.sector_front.to_string()),
                ("sector_back".into(), p.sector_back.to_string()),
            ],
            ..Node::default()
        };
        if n < 3 {
            scene.warnings.push(format!(
                "portal {i}: {n} vertices, no polygon; left without a mesh"
            ));
        } else {
            let mut prim = Primitive {
                positions: p.poly[..n].iter().map(|&v| mirror(v)).collect(),
                ..Primitive::default()
            };
            for k in 1..n as u32 - 1 {
                // fan (0, k, k+1), reversed with the mirror
                prim.indices.extend([0, k + 1, k]);
            }
            let m = *material.get_or_insert_with(|| {
                scene.materials.push(Material {
                    name: "portal".into(),
                    base_color: [0.2, 0.6, 1.0, 0.4],
                    double_sided: true,
                    alpha: AlphaMode::Blend,
                    ..Material::default()
                });
                scene.materials.len() - 1
            });
            prim.material = Some(m);
            let centre = pivot::centre(&prim.positions);
            pivot::recentre(&mut prim.positions, centre);
            node.matrix = pivot::translation(centre);
            node.mesh = Some(scene.add_mesh(Mesh {
                name: node.name.clone(),
                primitives: vec![prim],
            }));
        }
        children.push(scene.add_node(node));
    }
    let root = scene.add_node(Node {
        name: levelgeom_scene::roots::PORTALS.into(),
        children,
        hidden: true,
        ..Node::default()
    });
    scene.roots.push(root);
}
