//! `level.hom` and `level.som` as scene geometry: one hidden root `occluders` with a hidden
//! tree `hom` and a hidden tree `som` (each only when its file is there).
//!
//! * `hom` has one node per flags value, `hom_flags{flags}`, extras `flags` and
//!   `two_sided` (`true` when the flags are non-zero, as the engine reads them);
//! * `som` has one node per (`b2sided`, occlusion factor), `som_occ{occ}` plus `_2s` when
//!   two-sided, extras `occlusion` (the factor as written) and `two_sided`.
//!
//! Positions are mirrored into glTF space like the level's ([`crate::scene::mirror`]) and each
//! triangle's winding is reversed with it, so the front side stays the front side (as
//! [`crate::collision`] does). Every polygon becomes its own three vertices, in file order
//! within its node; a polygon with a non-finite coordinate is left out with one warning.

use std::collections::BTreeMap;

use levelgeom_scene::{Mesh, Node, Primitive, Scene};

use super::{Hom, Polygon, Som};

/// Add the trees of `hom` and `som` under a hidden root `occluders` (see the module docs);
/// nothing when both are `None`. Returns warnings.
pub fn add_occluders(scene: &mut Scene, hom: Option<&Hom>, som: Option<&Som>) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut children = Vec::new();
    if let Some(h) = hom {
        let groups = group(h.polys(), |p| (p.flags, 0u32));
        let nodes = groups
            .into_iter()
            .map(|((flags, _), polys)| {
                let name = format!("hom_flags{flags}");
                let extras = vec![
                    ("flags".to_string(), flags.to_string()),
                    ("two_sided".to_string(), (flags != 0).to_string()),
                ];
                leaf(scene, name, extras, &polys)
            })
            .collect();
        children.push(tree(scene, "hom", nodes));
        warnings.extend(bad_polys(h.polys(), "level.hom"));
    }
    if let Some(s) = som {
        let groups = group(s.polys(), |p| (p.b2sided, p.occ.to_bits()));
        let nodes = groups
            .into_iter()
            .map(|((sided, occ), polys)| {
                let occ = f32::from_bits(occ);
                let name = format!("som_occ{occ}{}", if sided != 0 { "_2s" } else { "" });
                let mut extras = vec![
                    ("occlusion".to_string(), occ.to_string()),
                    ("two_sided".to_string(), (sided != 0).to_string()),
                ];
                if sided > 1 {
                    extras.push(("b2sided".into(), sided.to_string()));
                }
                leaf(scene, name, extras, &polys)
            })
            .collect();
        children.push(tree(scene, "som", nodes));
        warnings.extend(bad_polys(s.polys(), "level.som"));
    }
    if children.is_empty() {
        return warnings;
    }
    let root = tree(scene, levelgeom_scene::roots::OCCLUDERS, children);
    scene.roots.push(root);
    warnings
}

/// Polygons with finite vertices grouped by `key`, groups in ascending key order.
fn group<'a, P: Polygon + 'a>(
    polys: impl Iterator<Item = &'a P>,
    key: impl Fn(&P) -> (u32, u32),
) -> BTreeMap<(u32, u32), Vec<[[f32; 3]; 3]>> {
    let mut groups: BTreeMap<(u32, u32), Vec<[[f32; 3]; 3]>> = BTreeMap::new();
    for p in polys {
        if p.verts().iter().flatten().all(|c| c.is_finite()) {
            groups.entry(key(p)).or_default().push(*p.verts());
        }
    }
    groups
}

fn bad_polys<'a, P: Polygon + 'a>(polys: impl Iterator<Item = &'a P>, file: &str) -> Vec<String> {
    let bad = polys
        .filter(|p| p.verts().iter().flatten().any(|c| !c.is_finite()))
        .count();
    if bad > 0 {
        vec![format!(
            "{file}: {bad} polygon(s) have a non-finite coordinate; left out"
        )]
    } else {
        Vec::new()
    }
}

fn leaf(
    scene: &mut Scene,
    name: String,
    extras: Vec<(String, String)>,
    polys: &[[[f32; 3]; 3]],
) -> usize {
    let mut p = Primitive::default();
    for v in polys {
        let base = p.positions.len() as u32;
        // reversed with the mirror: (v0, v2, v1)
        for k in [0, 2, 1] {
            p.positions.push(crate::scene::mirror(v[k]));
        }
        p.indices.extend_from_slice(&[base, base + 1, base + 2]);
    }
    let mesh = scene.add_mesh(Mesh {
        name: name.clone(),
        primitives: vec![p],
    });
    scene.add_node(Node {
        name,
        mesh: Some(mesh),
        extras,
        hidden: true,
        ..Node::default()
    })
}

fn tree(scene: &mut Scene, name: &str, children: Vec<usize>) -> usize {
    scene.add_node(Node {
        name: name.into(),
        children,
        hidden: true,
        ..Node::default()
    })
}
