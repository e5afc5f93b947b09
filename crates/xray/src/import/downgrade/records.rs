//! The old builds' tables and records: materials as (shader, texture) pairs, lights, glows,
//! the embedded collision.

use std::collections::HashMap;

use crate::cform::{Cform, OldTri, Tri};
use crate::level::{
    old_light_controller, Glow, LevelChunk, Light, OldGlow, OldLight, OldLightTail,
};
use crate::shaders::ShaderEntry;

/// The material tables of the target build and the pair each 13 shader entry became.
pub(super) struct Tables {
    to: u16,
    /// The 13 shader table (`shader/texture,…` entries).
    source: Vec<ShaderEntry>,
    /// The shader table (8–11: shared with the textures; 4/5: shaders only).
    pub(super) shaders: Vec<ShaderEntry>,
    /// XRLC 4/5: the texture table.
    pub(super) textures: Option<Vec<ShaderEntry>>,
    pairs: HashMap<u16, (u32, u32)>,
    /// Entries without a `/` (read back as `text/`).
    pub(super) no_slash: Vec<String>,
}

fn find_or_push(t: &mut Vec<ShaderEntry>, s: &str) -> u32 {
    match t.iter().position(|e| e.text() == s) {
        Some(i) => i as u32,
        None => {
            t.push(ShaderEntry(s.as_bytes().to_vec()));
            t.len() as u32 - 1
        }
    }
}

impl Tables {
    /// Empty tables for build `to` (8–11 start with the reserved `""` entry, as 13 does).
    pub(super) fn new(to: u16, source: &[ShaderEntry]) -> Tables {
        let (shaders, textures) = match to {
            4 | 5 => (Vec::new(), Some(Vec::new())),
            12 => (source.to_vec(), None),
            _ => (vec![ShaderEntry(Vec::new())], None),
        };
        Tables {
            to,
            source: source.to_vec(),
            shaders,
            textures,
            pairs: HashMap::new(),
            no_slash: Vec::new(),
        }
    }

    /// The `(texture, shader)` index pair of 13 shader entry `sid` (before XRLC 12).
    pub(super) fn pair(&mut self, sid: u16) -> (u32, u32) {
        if let Some(p) = self.pairs.get(&sid) {
            return *p;
        }
        let text = self
            .source
            .get(usize::from(sid))
            .map(ShaderEntry::text)
            .unwrap_or_default();
        let (sh, tex) = match text.split_once('/') {
            Some(x) => x,
            None => {
                self.no_slash.push(text.clone());
                (text.as_str(), "")
            }
        };
        let sh_i = find_or_push(&mut self.shaders, sh);
        let tex_i = match self.textures.as_mut() {
            Some(t) => {
                // 4/5 store a `texture,lmap` pair lightmap first (the reader turns it round)
                let stored = match tex.split_once(',') {
                    Some((a, b)) if !b.contains(',') && self.to <= 5 => format!("{b},{a}"),
                    _ => tex.to_string(),
                };
                find_or_push(t, &stored)
            }
            None => find_or_push(&mut self.shaders, tex),
        };
        self.pairs.insert(sid, (tex_i, sh_i));
        (tex_i, sh_i)
    }
}

/// The light chunk of build `to` and how many controllers the build cannot carry (XRLC 4,
/// 5, 8 store none: read back as [`old_light_controller`]).
pub(super) fn lights(to: u16, ls: &[Light]) -> (LevelChunk, usize) {
    if to >= 9 {
        return (LevelChunk::Lights(ls.to_vec()), 0);
    }
    let lost = ls
        .iter()
        .filter(|l| l.controller != old_light_controller(l.d3d.light_type))
        .count();
    let old = ls
        .iter()
        .map(|l| OldLight {
            d3d: l.d3d,
            tail: if to == 8 {
                OldLightTail::Build8 {
                    frame: 0,
                    // affects static and dynamic objects
                    flags: 3,
                    name: [0; 64],
                }
            } else {
                OldLightTail::Build5 {
                    frame: 0,
                    flags: 0,
                    current_time: 0.0,
                    speed: 0.0,
                    key_start: 0,
                    key_count: 0,
                }
            },
        })
        .collect();
    (LevelChunk::OldLights(old), lost)
}

/// The glow chunk of build `to`.
pub(super) fn glows(to: u16, gs: &[Glow], t: &mut Tables) -> LevelChunk {
    if to >= 12 {
        return LevelChunk::Glows(gs.to_vec());
    }
    LevelChunk::OldGlows(
        gs.iter()
            .map(|g| {
                let (texture, shader) = t.pair(g.shader);
                OldGlow {
                    position: g.position,
                    radius: g.radius,
                    texture,
                    shader,
                }
            })
            .collect(),
    )
}

/// A version-4 cform as the version-2 file XRLC 4–9 embed (material and sector kept, the
/// other words zero); also how many triangles had suppress-shadow/wallmark flags (version 2
/// has no place for them).
pub(super) fn cform_v2(c: &Cform) -> (Cform, usize) {
    if c.version != crate::cform::VERSION {
        return (c.clone(), 0);
    }
    let flagged = c.tris.iter().filter(|t| t.dummy & 0xC000 != 0).count();
    let tris = c
        .tris
        .iter()
        .map(|t| Tri {
            verts: t.verts,
            dummy: 0,
            old: Some(OldTri {
                raw: [0; 3],
                raw16: 0,
                sector: t.sector(),
                material: t.material(),
            }),
        })
        .collect();
    (
        Cform {
            version: 2,
            bbox_min: c.bbox_min,
            bbox_max: c.bbox_max,
            vertices: c.vertices.clone(),
            tris,
        },
        flagged,
    )
}
