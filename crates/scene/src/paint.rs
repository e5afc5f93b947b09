//! Recolouring a scene for a picture: each node that names a display colour in an extra is
//! drawn in that colour alone (e.g. `render --zones`, where the WAD conversion gives every tile
//! node its zone's colour in `zone_colour`).

use crate::{Material, Mesh, Scene};

/// The `#RRGGBB` (or `RRGGBB`) of an extra as display values 0..1, or `None`.
pub fn parse_hex_colour(s: &str) -> Option<[f32; 4]> {
    let h = s.strip_prefix('#').unwrap_or(s);
    if h.len() != 6 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let v = u32::from_str_radix(h, 16).ok()?;
    let c = |shift: u32| ((v >> shift) & 0xFF) as f32 / 255.0;
    Some([c(16), c(8), c(0), 1.0])
}

/// Draw every node whose extra `key` holds a colour (`#RRGGBB`) in that colour: its mesh is
/// copied (a shared mesh is left to its other nodes) with that colour as vertex-colour set 0
/// alone and, for every primitive, one of two new untextured, lit, opaque white materials
/// (`paint_single_sided`, `paint_double_sided`, keeping whether the old one was double-sided).
/// Other nodes keep their look. Returns the number of nodes painted.
pub fn paint_by_extra(scene: &mut Scene, key: &str) -> usize {
    let base = scene.materials.len();
    let mut added = false;
    let mut painted = 0;
    for n in 0..scene.nodes.len() {
        let node = &scene.nodes[n];
        let Some(colour) = node
            .extras
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| parse_hex_colour(v))
        else {
            continue;
        };
        let Some(old) = node.mesh.and_then(|m| scene.meshes.get(m)) else {
            continue;
        };
        let mut mesh = Mesh {
            name: format!("{}_painted", old.name),
            primitives: old.primitives.clone(),
        };
        for p in &mut mesh.primitives {
            let double = p
                .material
                .and_then(|m| scene.materials.get(m))
                .is_some_and(|m| m.double_sided);
            p.material = Some(base + usize::from(double));
            p.colors = vec![vec![colour; p.positions.len()]];
        }
        scene.meshes.push(mesh);
        scene.nodes[n].mesh = Some(scene.meshes.len() - 1);
        added = true;
        painted += 1;
    }
    if added {
        for (name, double_sided) in [("paint_single_sided", false), ("paint_double_sided", true)] {
            scene.materials.push(Material {
                name: name.into(),
                double_sided,
                ..Material::default()
            });
        }
    }
    painted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Node, Primitive};

    #[test]
    fn hex_colours_parse_to_display_values() {
        assert_eq!(
            parse_hex_colour("#FF8000"),
            Some([1.0, 128.0 / 255.0, 0.0, 1.0])
        );
        assert_eq!(parse_hex_colour("00ff00"), Some([0.0, 1.0, 0.0, 1.0]));
        assert_eq!(parse_hex_colour("#FF80"), None);
        assert_eq!(parse_hex_colour("#GG0000"), None);
    }

    #[test]
    fn only_nodes_with_the_extra_are_painted_and_shared_meshes_stay() {
        let prim = Primitive {
            positions: vec![[0.0; 3]; 3],
            indices: vec![0, 1, 2],
            ..Primitive::default()
        };
        let mut scene = Scene::default();
        let mesh = scene.add_mesh(Mesh {
            name: "m".into(),
            primitives: vec![prim],
        });
        let a = scene.add_node(Node {
            mesh: Some(mesh),
            extras: vec![("c".into(), "#0000FF".into())],
            ..Node::default()
        });
        let b = scene.add_node(Node {
            mesh: Some(mesh),
            ..Node::default()
        });
        assert_eq!(paint_by_extra(&mut scene, "c"), 1);
        assert_eq!(scene.nodes[b].mesh, Some(mesh));
        let painted = &scene.meshes[scene.nodes[a].mesh.unwrap()].primitives[0];
        assert_eq!(painted.colors, vec![vec![[0.0, 0.0, 1.0, 1.0]; 3]]);
        assert_eq!(painted.material, Some(0));
        assert_eq!(scene.materials.len(), 2);
        assert!(scene.meshes[mesh].primitives[0].colors.is_empty());
    }
}
