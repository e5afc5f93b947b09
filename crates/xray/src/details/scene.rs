//! `level.details` as scene geometry and a picture.
//!
//! [`add_details`]: one hidden root `details` with a hidden node per model,
//! `detail_{index}`, its mesh as stored (model space, mirrored into glTF space with the winding
//! reversed, like the level's), with its UVs and extras `shader`, `texture`, `flags`,
//! `min_scale`, `max_scale`. The models are not placed on the slots: the engine scatters
//! them at random in each slot, so there is no one placement to show.
//!
//! [`density_png`]: a greyscale PNG with one pixel per slot, column = slot x, row = slot z
//! counted from the top (so +z points up the picture, as on the level's map); grey =
//! 255 × [`super::SlotView::density`].

use levelgeom_scene::{Mesh, Node, Primitive, Scene};

use super::Details;
use crate::scene::mirror;

/// Add the `details` tree. Returns warnings.
pub fn add_details(scene: &mut Scene, d: &Details) -> Vec<String> {
    let mut children = Vec::new();
    let mut warnings = Vec::new();
    for (i, m) in d.models().iter().enumerate() {
        let mut p = Primitive {
            positions: m.vertices.iter().map(|(v, _)| mirror(*v)).collect(),
            uvs: vec![m.vertices.iter().map(|(_, uv)| *uv).collect()],
            ..Primitive::default()
        };
        let n = m.vertices.len();
        let tris: Vec<[u16; 3]> = m
            .indices
            .chunks_exact(3)
            .map(|t| [t[0], t[2], t[1]])
            .collect();
        if tris.iter().flatten().any(|&x| usize::from(x) >= n) {
            warnings.push(format!(
                "level.details: model {i} has an index past its {n} vertices; its mesh is left out"
            ));
            continue;
        }
        p.indices = tris.iter().flatten().map(|&x| u32::from(x)).collect();
        let name = format!("detail_{i}");
        let mesh = scene.add_mesh(Mesh {
            name: name.clone(),
            primitives: vec![p],
        });
        children.push(scene.add_node(Node {
            name,
            mesh: Some(mesh),
            extras: vec![
                (
                    "shader".into(),
                    String::from_utf8_lossy(&m.shader).into_owned(),
                ),
                (
                    "texture".into(),
                    String::from_utf8_lossy(&m.texture).into_owned(),
                ),
                ("flags".into(), m.flags.to_string()),
                ("min_scale".into(), m.min_scale.to_string()),
                ("max_scale".into(), m.max_scale.to_string()),
            ],
            hidden: true,
            ..Node::default()
        }));
    }
    let root = scene.add_node(Node {
        name: "details".into(),
        children,
        hidden: true,
        ..Node::default()
    });
    scene.roots.push(root);
    warnings
}

/// The slots' density map as PNG bytes (see the module docs); `None` without a header or
/// decoded slots, or for an empty grid.
pub fn density_png(d: &Details) -> Option<Vec<u8>> {
    let h = d.header()?;
    let slots = d.slots()?;
    let (w, hgt) = (h.size_x, h.size_z);
    if w == 0 || hgt == 0 || u64::from(w) * u64::from(hgt) > 64 * 1024 * 1024 {
        return None;
    }
    let mut pixels = vec![0u8; (w * hgt) as usize];
    for z in 0..hgt {
        for x in 0..w {
            let i = (z * w + x) as usize;
            let v = slots.slot(i).map_or(0.0, |s| s.density());
            let row = hgt - 1 - z;
            pixels[(row * w + x) as usize] = (v * 255.0).round().clamp(0.0, 255.0) as u8;
        }
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, hgt);
        enc.set_color(png::ColorType::Grayscale);
        enc.set_depth(png::BitDepth::Eight);
        let mut wr = enc.write_header().ok()?;
        wr.write_image_data(&pixels).ok()?;
    }
    Some(out)
}
