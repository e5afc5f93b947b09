//! New meshes: which shader entry, which vertex declaration, and where in the hierarchy.
//!
//! **Shader** of a primitive's material, first that applies:
//! 1. the material extra `shader` (a whole entry, `engine/texture,…`): that entry;
//! 2. the extras `engine_shader` and `texture_0`, `texture_1`, … (as the exporter writes them):
//!    the entry they spell;
//! 3. the material's name (Blender's `.001` ignored) equal to an entry;
//! 4. the texture name — the material's texture's name, else the material's name — against
//!    each entry's diffuse texture (case-insensitive, `/` = `\`, extension dropped): the first
//!    entry using it;
//! 5. else `default/<texture>`.
//!
//! An entry that does not exist yet is appended to the table (existing ids do not change).
//!
//! **Declaration**: that of a buffer a normal or progressive visual with the same shader
//! uses; else of one whose shader has lightmaps (`lmap#…`) as much as the new one; else the
//! xrLC layout for it (`r1_lmap`, in version 13 the FLOAT2 `v13_lmap`, with lightmaps; else
//! `r1_vert`).
//!
//! **Place**: the node extra `sector` when it names a sector whose root is a hierarchy
//! visual: under that root; else under the nearest hierarchy ancestor of the visual with
//! geometry whose box centre is nearest the new mesh's.

use glam::DVec3;
use levelgeom_scene::{Node, Scene};

use super::encode::{self, NewAttributes};
use super::hierarchy::Bounds;
use super::mapping::{self, base_name};
use super::Work;
use crate::decl::{self, Declaration, Usage};
use crate::ogf::model_type;
use crate::shaders::ShaderEntry;
use crate::vertex::Vertices;

/// A texture name without its image extension, with `\\` separators.
fn game_name(t: &str) -> String {
    let t = t.trim().replace('/', "\\");
    let lower = t.to_lowercase();
    for ext in [".dds", ".png", ".tga", ".jpg", ".jpeg"] {
        if lower.ends_with(ext) {
            return t[..t.len() - ext.len()].to_string();
        }
    }
    t
}

fn norm_tex(t: &str) -> String {
    game_name(t).to_lowercase()
}

fn has_lmap(e: &str) -> bool {
    e.contains("lmap#")
}

/// The entry text for a material (see the module docs) and whether it is an existing entry.
fn entry_for(shaders: &[ShaderEntry], scene: &Scene, material: Option<usize>) -> String {
    let m = material.and_then(|m| scene.materials.get(m));
    let find = |text: &str| shaders.iter().any(|s| s.text() == text);
    if let Some(m) = m {
        if let Some((_, s)) = m.extras.iter().find(|(k, _)| k == "shader") {
            return s.clone();
        }
        if let Some((_, e)) = m.extras.iter().find(|(k, _)| k == "engine_shader") {
            let texs: Vec<&str> = (0..)
                .map_while(|k| {
                    m.extras
                        .iter()
                        .find(|(x, _)| *x == format!("texture_{k}"))
                        .map(|(_, t)| t.as_str())
                })
                .collect();
            if !texs.is_empty() {
                return format!("{e}/{}", texs.join(","));
            }
        }
        let name = base_name(&m.name);
        if find(name) {
            return name.to_string();
        }
    }
    let texture = m
        .and_then(|m| m.texture)
        .and_then(|t| scene.textures.get(t))
        .map(|t| t.name.clone())
        .or_else(|| m.map(|m| base_name(&m.name).to_string()));
    match texture {
        Some(t) if !t.trim().is_empty() => {
            let key = norm_tex(&t);
            shaders
                .iter()
                .find(|s| s.diffuse().is_some_and(|d| norm_tex(&d) == key))
                .map_or_else(|| format!("default/{}", game_name(&t)), ShaderEntry::text)
        }
        _ => "default".into(),
    }
}

/// The shader id (adding an entry when needed) and declaration of a new primitive.
pub(super) fn shader_and_decl(
    w: &mut Work<'_>,
    scene: &Scene,
    material: Option<usize>,
    label: &str,
) -> (u16, Declaration) {
    let text = entry_for(w.level.shaders().unwrap_or(&[]), scene, material);
    let existing = w
        .level
        .shaders()
        .unwrap_or(&[])
        .iter()
        .position(|s| s.text() == text);
    let sid = match existing {
        Some(i) => i,
        None => {
            if text == "default" {
                w.summary.warnings.push(format!(
                    "node {label:?}: its material names no texture; shader entry `default`"
                ));
            }
            match super::hierarchy::shaders_mut(&mut w.level) {
                Some(s) => {
                    s.push(ShaderEntry(text.clone().into_bytes()));
                    w.summary.shaders_added.push(text.clone());
                    s.len() - 1
                }
                None => 0,
            }
        }
    };
    let sid = u16::try_from(sid).unwrap_or(0);
    let visuals = w.level.visuals();
    let vbs = w.geom.vertex_buffers().unwrap_or(&[]);
    let static_decl = |want: &dyn Fn(u16) -> bool| {
        visuals.iter().find_map(|v| {
            let h = v.header()?;
            let g = v.gcontainer()?;
            (matches!(h.model_type, model_type::NORMAL | model_type::PROGRESSIVE)
                && want(h.shader_id))
            .then(|| vbs.get(g.vb_index as usize).map(|b| b.decl.clone()))
            .flatten()
        })
    };
    let shaders = w.level.shaders().unwrap_or(&[]);
    let lm = has_lmap(&text);
    let decl = static_decl(&|s| s == sid)
        .or_else(|| {
            static_decl(&|s| {
                s != 0
                    && shaders
                        .get(usize::from(s))
                        .is_some_and(|e| has_lmap(&e.text()) == lm)
            })
        })
        .unwrap_or_else(|| match (lm, w.level.header().map(|h| h.version)) {
            (true, Some(13)) => decl::v13_lmap(),
            (true, _) => decl::r1_lmap(),
            (false, _) => decl::r1_vert(),
        });
    (sid, decl)
}

/// The defaulted attributes that the declaration actually stores.
pub(super) fn relevant(d: &Declaration, notes: &NewAttributes) -> Vec<String> {
    let has = |u: Usage, i: u8| d.find(u, i).is_some();
    notes
        .defaulted
        .iter()
        .filter(|a| match **a {
            "normal" => has(Usage::Normal, 0),
            "uv" => has(Usage::TexCoord, 0),
            "lightmap uv" => has(Usage::TexCoord, 1),
            "light" | "sun" => has(Usage::Color, 0),
            "hemi" => has(Usage::Normal, 0),
            _ => true,
        })
        .map(|a| a.to_string())
        .collect()
}

/// Every primitive of a node as one vertex list (X-Ray space, X-Ray winding).
pub(super) fn node_vertices(
    scene: &Scene,
    node: usize,
    worlds: &[[f32; 16]],
) -> Option<(Vertices, Vec<[u32; 3]>, NewAttributes)> {
    let mesh = scene.meshes.get(scene.nodes.get(node)?.mesh?)?;
    let world = mapping::dmat(worlds.get(node)?);
    let mut all: Option<(Vertices, Vec<[u32; 3]>, NewAttributes)> = None;
    for p in &mesh.primitives {
        let (v, t, n) = encode::new_vertices(p, &world);
        match &mut all {
            None => all = Some((v, t, n)),
            Some((av, at, an)) => {
                let base = av.count as u32;
                at.extend(t.iter().map(|x| x.map(|i| i + base)));
                av.count += v.count;
                av.positions.extend(v.positions);
                av.normals.extend(v.normals);
                av.hemi.extend(v.hemi);
                av.tangents.extend(v.tangents);
                av.binormals.extend(v.binormals);
                av.tangent_alpha.extend(v.tangent_alpha);
                av.binormal_alpha.extend(v.binormal_alpha);
                av.uv.extend(v.uv);
                av.lightmap.extend(v.lightmap);
                av.wind.extend(v.wind);
                av.colors.extend(v.colors);
                av.sun.extend(v.sun);
                for d in n.defaulted {
                    if !an.defaulted.contains(&d) {
                        an.defaulted.push(d);
                    }
                }
            }
        }
    }
    all.filter(|(_, t, _)| !t.is_empty())
}

/// The hierarchy visual a new mesh goes under (see the module docs).
pub(super) fn place(
    w: &Work<'_>,
    node: &Node,
    b: &Bounds,
    parent_h: &[Option<usize>],
    sectors: &[Vec<u16>],
) -> Option<usize> {
    let base = w.base.level.visuals();
    let roots: Vec<Option<u32>> = w
        .base
        .level
        .sectors()
        .iter()
        .map(|s| s.value.root())
        .collect();
    let wanted: Option<usize> = node
        .extras
        .iter()
        .find(|(k, _)| k == "sector")
        .and_then(|(_, s)| s.trim().parse::<f64>().ok())
        .filter(|s| *s >= 0.0 && s.fract() == 0.0)
        .map(|s| s as usize);
    if let Some(s) = wanted {
        if let Some(Some(r)) = roots.get(s) {
            let r = *r as usize;
            if base.get(r).and_then(|v| v.model_type()) == Some(model_type::HIERARCHY) {
                return Some(r);
            }
        }
    }
    let c = b.centre;
    base.iter()
        .enumerate()
        .filter(|(v, x)| {
            x.gcontainer().is_some()
                && parent_h.get(*v).copied().flatten().is_some()
                && wanted.is_none_or(|s| {
                    sectors
                        .get(*v)
                        .is_some_and(|l| l.contains(&u16::try_from(s).unwrap_or(u16::MAX)))
                })
        })
        .filter_map(|(v, x)| {
            let h = x.header()?;
            let bc = (DVec3::from_array(h.bbox_min.map(f64::from))
                + DVec3::from_array(h.bbox_max.map(f64::from)))
                / 2.0;
            Some((bc.distance_squared(c), v))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .and_then(|(_, v)| parent_h[v])
}
