//! A level of XRLC 4–12 seen as an XRLC 13/14 pair: a `level` whose visuals are OGF 4 shaped
//! and a `level.geom` holding its buffers, so that the scene conversion and the consistency
//! rules written for 13/14 apply unchanged ([`flatten`]).
//!
//! What the view does, per build (docs/formats/xray-level.md §3):
//!
//! * **Buffers**: D3D9 vertex buffers of `level` are taken as they are; FVF buffers become
//!   buffers with the equivalent declaration ([`crate::fvf::declaration`], texture sets in the
//!   version's order: lightmap first in XRLC 4/5). A visual's own `OGF_VERTICES` becomes a
//!   buffer of its own, its `OGF_INDICES` a range of one extra index buffer.
//! * **SHORT4 before XRLC 12**: static visuals (normal, progressive, cached) of XRLC ≤ 11 store
//!   `SHORT4 TEXCOORD0 = (u·1024, v·1024, lu·32768, lv·32768)` under the very declaration trees
//!   use for `(u·2048, v·2048, wind, 0)`; such a buffer is seen twice, trees reading it as is and
//!   static visuals through a declaration that splits the SHORT4 into `SHORT2 TEXCOORD0` +
//!   `SHORT2 TEXCOORD1` (same bytes, decoded /1024 and /32768).
//! * **OGF 3 progressive visuals** (vertex splits in `OGF_SWIDATA`): exported at full detail,
//!   the splits applied to a copy of the stored indices ([`vipm_full_detail`]); the view calls
//!   them normal visuals (no sliding windows to choose from).
//! * **Visuals**: OGF 2/3 headers, `OGF_BBOX`/`OGF_BSPHERE` become one `OGF_HEADER` (format 4,
//!   the format-4 model type), `OGF_VCONTAINER` + `OGF_ICONTAINER` (or the inline data) one
//!   `OGF_GCONTAINER`; old LOD/tree records their format-4 forms.
//! * **Materials**: from XRLC 12 the header's shader id indexes the shader table as in 13/14.
//!   Before, `OGF_TEXTURE_L` names a shader and a texture by index (into one shared table in
//!   XRLC 8–11, into the shader and texture tables in 4/5); each pair used becomes one entry
//!   `shader/texture` of the view's table. A 4/5 texture entry `lmap,texture` is turned round
//!   (texture first); a `prefix:` before a version-4 texture name is cut (as blender-xray does).
//!
//! * **Lights, glows, portals**: XRLC 4/5/8 D3D7 lights become 13/14 records
//!   ([`crate::level::OldLight::to_light`]: the same D3D fields, the controller xray_re gives
//!   them); XRLC 4–11 glows 18-byte glows whose shader id is the view's `shader/texture` entry of
//!   their (shader, texture) pair (the pairing visuals use); 4/5 portals (count first) the
//!   13/14 portal record. The view's chunks carry the 13/14 ids.
//!
//! The view is for reading; an edit of it is written back into the original [`Level`]'s layout
//! by [`unflatten`] (its own module).

mod unflatten;

use std::collections::HashMap;

use crate::chunk::Framed;
use crate::decl::{DeclType, Declaration, Element, Usage};
use crate::fvf::{self, UvOrder};
use crate::geom::{self, Geom, GeomChunk, Header, VertexBuffer};
use crate::index_data::IndexData;
use crate::level::{Glow, Level, LevelChunk, OldLight};
use crate::ogf::{self, model_type, model_type_v3, GContainer, OgfChunk, OgfHeader, Visual};
use crate::shaders::ShaderEntry;
use levelgeom_binary::{fit, WriteError};

pub use unflatten::{unflatten, Edited, NewVisual, UnflattenError};

/// The XRLC 13/14-shaped view of an old level.
#[derive(Clone, Debug, PartialEq)]
pub struct Flat {
    /// The level with OGF 4 visuals and one shader table (no buffer chunks).
    pub level: Level,
    /// Its buffers as a `level.geom`.
    pub geom: Geom,
    /// What could not be carried over (visual index and why).
    pub warnings: Vec<String>,
}

fn is_static(t: u8) -> bool {
    matches!(t, model_type::NORMAL | model_type::PROGRESSIVE)
}

/// The declaration through which a static visual of XRLC ≤ 11 reads a SHORT4 TEXCOORD0
/// buffer, if `d` has one.
fn split_short4(d: &Declaration) -> Option<Declaration> {
    let k = d.elements.iter().position(|e| {
        e.stream == 0
            && e.usage == Usage::TexCoord as u8
            && e.usage_index == 0
            && e.ty == DeclType::Short4 as u8
    })?;
    let mut out = d.clone();
    let o = out.elements[k].offset;
    out.elements[k] = Element::new(o, DeclType::Short2, Usage::TexCoord, 0);
    out.elements.insert(
        k + 1,
        Element::new(o + 4, DeclType::Short2, Usage::TexCoord, 1),
    );
    Some(out)
}

/// A texture entry of the old tables as the view's shader table wants it.
fn texture_text(version: u16, raw: &[u8]) -> String {
    let mut t = String::from_utf8_lossy(raw).into_owned();
    if version == 4 {
        if let Some((_, rest)) = t.split_once(':') {
            t = rest.to_string();
        }
    }
    if version <= 5 {
        if let Some((lmap, tex)) = t.split_once(',') {
            if !tex.contains(',') {
                t = format!("{tex},{lmap}");
            }
        }
    }
    t
}

/// Apply the vertex splits of an OGF 3 `OGF_SWIDATA` (nested chunks: 1 `u32 min_vertices; u32
/// current_indices`, 2 splits `{u16 vertex; u8 new_faces; u8 fix_faces}` for vertices
/// `min_vertices..`, 3 `u32 n; u16 index_position[n]`) to a visual's stored (coarse) indices:
/// split k re-points the next `fix_faces` listed index positions at vertex `min_vertices + k`,
/// up to `vertex_count` vertices (the reading blender-xray's `import_swidata_v3` makes).
pub fn vipm_full_detail(raw: &[u8], indices: &mut [u16], vertex_count: u32) -> Result<(), String> {
    let mut header = None;
    let mut splits: &[u8] = &[];
    let mut faces: Vec<u16> = Vec::new();
    let mut pos = 0usize;
    while pos < raw.len() {
        let h = raw.get(pos..pos + 8).ok_or("truncated chunk header")?;
        let id = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
        let size = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
        let body = raw
            .get(pos + 8..(pos + 8).saturating_add(size))
            .ok_or("chunk larger than its parent")?;
        let u32_at = |b: &[u8], k: usize| {
            b.get(k..k + 4)
                .map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]))
        };
        match id {
            1 => header = Some(u32_at(body, 0).ok_or("short header")?),
            2 => splits = body,
            3 => {
                let n = u32_at(body, 0).ok_or("no face count")? as usize;
                let list = body.get(4..).unwrap_or(&[]);
                if list.len() / 2 < n {
                    return Err(format!("{n} index positions but {} bytes", list.len()));
                }
                faces = (0..n)
                    .map(|k| u16::from_le_bytes([list[2 * k], list[2 * k + 1]]))
                    .collect();
            }
            _ => {}
        }
        pos += 8 + size;
    }
    let min = header.ok_or("no header chunk 1")?;
    let mut fix = 0usize;
    for v in min..vertex_count {
        let k = (v - min) as usize;
        let s = splits
            .get(4 * k..4 * k + 4)
            .ok_or_else(|| format!("no split for vertex {v}"))?;
        let n = usize::from(s[3]);
        let vertex = u16::try_from(v).map_err(|_| format!("vertex {v} beyond u16"))?;
        for &at in faces
            .get(fix..fix + n)
            .ok_or("fewer index positions than splits fix")?
        {
            *indices
                .get_mut(usize::from(at))
                .ok_or_else(|| format!("index position {at} outside the visual's indices"))? =
                vertex;
        }
        fix += n;
    }
    Ok(())
}

/// The four corners of the quad that stands for a detail patch sprite, in X-Ray space, with
/// the engine's texture coordinates: `up` is the patch normal (normalised; +y when it has no
/// length), `right` the component of +x (or of +z when the normal is nearly ±x) across it; the
/// corners are `P − S·right − S·up` (UV 0, 1), `P − S·right + S·up` (0, 0), `P + S·right +
/// S·up` (1, 0), `P + S·right − S·up` (1, 1), as `FDetailPatch::Render` (`b4385f03b0`) places
/// its screen corners `(cx ∓ size, cy ± size)`. Drawn as triangles (0, 1, 2), (0, 2, 3).
pub fn dpatch_quad(p: &ogf::DPatch) -> [([f32; 3], [f32; 2]); 4] {
    let norm = |v: [f32; 3]| {
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        (l > 1e-12 && l.is_finite()).then(|| v.map(|x| x / l))
    };
    let up = norm(p.normal).unwrap_or([0.0, 1.0, 0.0]);
    let a = if up[0].abs() < 0.9 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 0.0, 1.0]
    };
    let d = a[0] * up[0] + a[1] * up[1] + a[2] * up[2];
    let right = norm([a[0] - d * up[0], a[1] - d * up[1], a[2] - d * up[2]]).unwrap_or(a);
    let s = p.size;
    let at = |r: f32, u: f32| [0, 1, 2].map(|k| p.position[k] + r * s * right[k] + u * s * up[k]);
    [
        (at(-1.0, -1.0), [0.0, 1.0]),
        (at(-1.0, 1.0), [0.0, 0.0]),
        (at(1.0, 1.0), [1.0, 0.0]),
        (at(1.0, -1.0), [1.0, 1.0]),
    ]
}

/// The view's vertex buffer of a detail patch visual's quads ([`dpatch_quad`]).
fn dpatch_buffer(patches: &[ogf::DPatch]) -> VertexBuffer {
    use crate::decl::DeclType::*;
    let decl = Declaration::new(vec![
        Element::new(0, Float3, Usage::Position, 0),
        Element::new(12, Float3, Usage::Normal, 0),
        Element::new(24, D3dColor, Usage::Color, 0),
        Element::new(28, Float2, Usage::TexCoord, 0),
    ]);
    let mut data = Vec::with_capacity(patches.len() * 4 * 36);
    for p in patches {
        for (pos, uv) in dpatch_quad(p) {
            for x in pos.iter().chain(&p.normal) {
                data.extend_from_slice(&x.to_le_bytes());
            }
            data.extend_from_slice(&p.color.to_le_bytes());
            for x in uv {
                data.extend_from_slice(&x.to_le_bytes());
            }
        }
    }
    VertexBuffer {
        decl,
        count: (patches.len() * 4) as u32,
        data: data.into(),
    }
}

/// Build the view. Any XRLC 13/14 level comes back with an empty geom (use its own files).
///
/// # Errors
/// [`WriteError`] naming the field when the view's shader table would need an entry past the
/// `u16` shader ids of `OGF_HEADER` and the glow record (more than 65,535 (shader, texture)
/// pairs).
pub fn flatten(level: &Level) -> Result<Flat, WriteError> {
    let mut view = View::new(level);
    let mut visuals = Vec::new();
    for (i, f) in level.visuals_framed().unwrap_or(&[]).iter().enumerate() {
        visuals.push(Framed::plain(f.id(), view.visual(i, &f.value)?));
    }
    view.finish(visuals)
}

/// The view under construction: its buffers and shader table, filled visual by visual.
struct View<'a> {
    level: &'a Level,
    version: u16,
    vbs: Vec<VertexBuffer>,
    /// The level's own vertex buffers (the first ones of `vbs`).
    base_vbs: usize,
    ibs: Vec<IndexData>,
    /// The extra index buffer of inline `OGF_INDICES`, detail patch quads and full detail
    /// indices; its index is `inline_ib_index`.
    inline_ib: Vec<u16>,
    inline_ib_index: u32,
    /// Level buffer → its SHORT4-split copy.
    split_of: HashMap<u32, u32>,
    shaders: &'a [ShaderEntry],
    textures: &'a [ShaderEntry],
    /// Materials are (shader, texture) pairs (`OGF_TEXTURE_L`), not one table
    /// ([`Level::paired_materials`]).
    paired: bool,
    table: Vec<ShaderEntry>,
    /// (shader, texture) pair → its `shader/texture` entry of `table`.
    entry_of: HashMap<(u32, u32), u16>,
    warnings: Vec<String>,
}

/// Where a visual's geometry is, as its chunks say.
#[derive(Default)]
struct Ranges<'v> {
    vertices: Option<[u32; 3]>,
    indices: Option<[u32; 3]>,
    /// An OGF 3 progressive visual's vertex splits (`OGF_SWIDATA`, nested chunks).
    vipm: Option<&'v [u8]>,
}

impl<'a> View<'a> {
    /// The buffers and the shader table before any visual.
    fn new(level: &'a Level) -> Self {
        let version = level.version().unwrap_or(14);
        let vbs: Vec<VertexBuffer> = match (level.vertex_buffers(), level.fvf_buffers()) {
            (Some(v), _) => v.to_vec(),
            (None, Some(f)) => f
                .iter()
                .map(|b| fvf_view(version, b.fvf, b.count, &b.data))
                .collect(),
            (None, None) => Vec::new(),
        };
        let ibs: Vec<IndexData> = level.index_buffers().map(<[_]>::to_vec).unwrap_or_default();
        let shaders = level.shaders().unwrap_or(&[]);
        View {
            level,
            version,
            base_vbs: vbs.len(),
            vbs,
            inline_ib: Vec::new(),
            inline_ib_index: ibs.len() as u32,
            ibs,
            split_of: HashMap::new(),
            shaders,
            textures: level.textures().unwrap_or(shaders),
            paired: level.paired_materials(),
            table: if !level.paired_materials() {
                shaders.to_vec()
            } else {
                vec![ShaderEntry(Vec::new())]
            },
            entry_of: HashMap::new(),
            warnings: Vec::new(),
        }
    }

    /// The view's `shader/texture` entry for an old (shader, texture) pair, added on first use.
    fn entry(&mut self, shader: u32, texture: u32, field: &str) -> Result<u16, WriteError> {
        if let Some(&e) = self.entry_of.get(&(shader, texture)) {
            return Ok(e);
        }
        let id: u16 = fit(self.table.len(), || field.to_string())?;
        let s = self
            .shaders
            .get(shader as usize)
            .map(|e| e.text())
            .unwrap_or_default();
        let x = self
            .textures
            .get(texture as usize)
            .map(|e| texture_text(self.version, &e.0))
            .unwrap_or_default();
        self.table
            .push(ShaderEntry(format!("{s}/{x}").into_bytes()));
        self.entry_of.insert((shader, texture), id);
        Ok(id)
    }

    /// Visual `i` in its OGF 4 shape.
    fn visual(&mut self, i: usize, v: &Visual) -> Result<Visual, WriteError> {
        let (mut t, sid) = self.type_and_shader(i, v)?;
        let ranges = self.ranges(i, v);
        let mut gc = self.gcontainer(i, v, &ranges);
        if let (Some(raw), Some(g)) = (ranges.vipm, gc.as_mut()) {
            if self.full_detail(i, raw, g) {
                t = model_type::NORMAL;
            }
        }
        if let Some(g) = gc.as_mut() {
            self.split(g, t);
        }
        Ok(Visual {
            chunks: ogf4_chunks(v, t, sid, gc),
        })
    }

    /// The format-4 model type and the view's shader id of visual `i`.
    fn type_and_shader(&mut self, i: usize, v: &Visual) -> Result<(u8, u16), WriteError> {
        let short = v.short_header();
        let (t, mut sid) = match (short, v.header()) {
            (Some((format, t, sid)), _) => {
                let t4 = if format == 3 {
                    match t {
                        // drawn through the view's quads / the full detail level
                        model_type_v3::DETAIL_PATCH | model_type_v3::PROGRESSIVE2 => {
                            model_type::NORMAL
                        }
                        _ => model_type_v3::to_v4(t),
                    }
                } else {
                    t
                };
                if t4 == u8::MAX {
                    self.warnings.push(format!(
                        "visual {i}: OGF {format} model type {t} has no format-4 counterpart"
                    ));
                }
                (t4, sid)
            }
            (None, Some(h)) => (h.model_type, h.shader_id),
            (None, None) => (u8::MAX, 0),
        };
        if self.paired {
            if let Some((tex, sh)) = v.find_chunk(|c| match c {
                OgfChunk::TextureL { texture, shader } => Some((*texture, *shader)),
                _ => None,
            }) {
                sid = self.entry(sh, tex, &format!("visual {i}: OGF_HEADER shader_id"))?;
            } else if short.is_some() {
                sid = 0;
            }
        }
        Ok((t, sid))
    }

    /// The vertex and index ranges of visual `i`: containers into the level's buffers, or its
    /// own data (inline buffers, detail patch quads) added to the view's.
    fn ranges<'v>(&mut self, i: usize, v: &'v Visual) -> Ranges<'v> {
        let short = v.short_header();
        let mut r = Ranges::default();
        // OGF 3 progressive strips: the last detail level (the full one) is the geometry
        let strips = v.chunks.iter().find_map(|c| match &c.value {
            OgfChunk::PLods(l) => Some(l.as_slice()),
            _ => None,
        });
        if strips.is_some_and(<[_]>::is_empty) {
            self.warnings
                .push(format!("visual {i}: OGF_P_LODS holds no detail level"));
        }
        let full: &[Framed<OgfChunk>] = strips
            .and_then(<[_]>::last)
            .map_or(&[], |l| l.value.as_slice());
        for c in v.chunks.iter().chain(full) {
            match &c.value {
                // a container names one of the level's own buffers; the view's extra ones
                // (SHORT4 splits, inline data) must not be reachable through a bad index
                OgfChunk::VContainer(x) => {
                    r.vertices = Some(*x);
                    if x[0] as usize >= self.base_vbs {
                        self.warnings.push(format!(
                            "visual {i}: OGF_VCONTAINER names vertex buffer {}, the level has {}",
                            x[0], self.base_vbs
                        ));
                        r.vertices = Some([u32::MAX, x[1], x[2]]);
                    }
                }
                OgfChunk::IContainer(x) => {
                    r.indices = Some(*x);
                    if x[0] >= self.inline_ib_index {
                        self.warnings.push(format!(
                            "visual {i}: OGF_ICONTAINER names index buffer {}, the level has {}",
                            x[0], self.inline_ib_index
                        ));
                        r.indices = Some([u32::MAX, x[1], x[2]]);
                    }
                }
                OgfChunk::Vertices(b) => {
                    self.vbs
                        .push(fvf_view(self.version, b.fvf, b.count, &b.data));
                    r.vertices = Some([self.vbs.len() as u32 - 1, 0, b.count]);
                }
                OgfChunk::Indices(ix) => {
                    r.indices = Some([
                        self.inline_ib_index,
                        self.inline_ib.len() as u32,
                        ix.len() as u32,
                    ]);
                    self.inline_ib.extend_from_slice(ix);
                }
                OgfChunk::Raw(raw) if c.id() == 9 && short.is_some_and(|s| s.0 == 3) => {
                    r.vipm = Some(raw.as_slice());
                }
                OgfChunk::DPatches(all) => self.dpatches(i, all, &mut r),
                _ => {}
            }
        }
        r
    }

    /// A detail patch visual's quads as a buffer of the view and a range of its extra index
    /// buffer.
    fn dpatches(&mut self, i: usize, all: &[ogf::DPatch], r: &mut Ranges<'_>) {
        // 16-bit indices reach 16384 quads
        let ps = &all[..all.len().min(16384)];
        if ps.len() < all.len() {
            self.warnings.push(format!(
                "visual {i}: {} detail patches; the first {} are exported (16-bit indices)",
                all.len(),
                ps.len()
            ));
        }
        self.vbs.push(dpatch_buffer(ps));
        r.vertices = Some([self.vbs.len() as u32 - 1, 0, (ps.len() * 4) as u32]);
        r.indices = Some([
            self.inline_ib_index,
            self.inline_ib.len() as u32,
            (ps.len() * 6) as u32,
        ]);
        for b in (0..ps.len()).map(|k| (4 * k) as u16) {
            self.inline_ib
                .extend_from_slice(&[b, b + 1, b + 2, b, b + 2, b + 3]);
        }
    }

    /// The view's `OGF_GCONTAINER` of visual `i`: its ranges, or the one it has already.
    fn gcontainer(&mut self, i: usize, v: &Visual, r: &Ranges<'_>) -> Option<GContainer> {
        match (r.vertices, r.indices) {
            (Some(vr), Some(ir)) => Some(GContainer {
                vb_index: vr[0],
                vb_offset: vr[1],
                vb_count: vr[2],
                ib_index: ir[0],
                ib_offset: ir[1],
                ib_count: ir[2],
            }),
            (None, None) => v.gcontainer(),
            (has, _) => {
                let (what, missing) = if has.is_some() {
                    ("vertices", "indices")
                } else {
                    ("indices", "vertices")
                };
                self.warnings.push(format!(
                    "visual {i}: has {what} but not {missing}; no geometry"
                ));
                v.gcontainer()
            }
        }
    }

    /// OGF 3 progressive: the stored indices are the coarse mesh; the vertex splits bring back
    /// the full detail (every vertex of the visual), appended to the extra index buffer and
    /// `g` pointed at them. True when applied (the visual is then drawn whole, as a normal
    /// one).
    fn full_detail(&mut self, i: usize, raw: &[u8], g: &mut GContainer) -> bool {
        let src: Option<&[u16]> = if g.ib_index == self.inline_ib_index {
            self.inline_ib
                .get(g.ib_offset as usize..(g.ib_offset + g.ib_count) as usize)
        } else {
            self.ibs.get(g.ib_index as usize).and_then(|ib| {
                ib.get(
                    g.ib_offset as usize
                        ..(g.ib_offset as usize).saturating_add(g.ib_count as usize),
                )
            })
        };
        match src.map(<[u16]>::to_vec) {
            Some(mut ix) => match vipm_full_detail(raw, &mut ix, g.vb_count) {
                Ok(()) => {
                    g.ib_index = self.inline_ib_index;
                    g.ib_offset = self.inline_ib.len() as u32;
                    self.inline_ib.extend_from_slice(&ix);
                    true
                }
                Err(why) => {
                    self.warnings.push(format!(
                        "visual {i}: progressive vertex splits not applied ({why}); exported \
                         at its stored detail"
                    ));
                    false
                }
            },
            None => {
                self.warnings
                    .push(format!("visual {i}: index range outside its buffer"));
                false
            }
        }
    }

    /// A static visual of XRLC ≤ 11 reads its level buffer through the SHORT4-split copy
    /// (made once per buffer).
    fn split(&mut self, g: &mut GContainer, t: u8) {
        if self.version > 11 || !is_static(t) || g.vb_index as usize >= self.base_vbs {
            return;
        }
        let split = match self.split_of.get(&g.vb_index) {
            Some(&k) => Some(k),
            None => {
                let src = &self.vbs[g.vb_index as usize];
                let nb = split_short4(&src.decl).map(|decl| VertexBuffer {
                    decl,
                    count: src.count,
                    data: src.data.clone(),
                });
                nb.map(|nb| {
                    self.vbs.push(nb);
                    let k = self.vbs.len() as u32 - 1;
                    self.split_of.insert(g.vb_index, k);
                    k
                })
            }
        };
        if let Some(k) = split {
            g.vb_index = k;
        }
    }

    /// Old glows name a (shader, texture) pair as `OGF_TEXTURE_L` does.
    fn glows(&mut self) -> Result<Vec<Glow>, WriteError> {
        let level = self.level;
        level
            .old_glows()
            .iter()
            .enumerate()
            .map(|(k, g)| {
                Ok(Glow {
                    position: g.position,
                    radius: g.radius,
                    shader: self.entry(g.shader, g.texture, &format!("glow {k}: shader"))?,
                })
            })
            .collect()
    }

    /// The view's level (13/14 chunks and ids) and geom, after every visual.
    fn finish(mut self, visuals: Vec<Framed<Visual>>) -> Result<Flat, WriteError> {
        if !self.inline_ib.is_empty() {
            self.ibs.push(std::mem::take(&mut self.inline_ib).into());
        }
        let glows = self.glows()?;
        let level = self.level;
        let mut visuals = Some(visuals);
        let mut chunks = Vec::new();
        for c in &level.chunks {
            let (id, value) = match &c.value {
                LevelChunk::Shaders(_) => (
                    crate::level::SHADERS,
                    LevelChunk::Shaders(self.table.clone()),
                ),
                LevelChunk::Visuals(_) => (
                    crate::level::VISUALS,
                    LevelChunk::Visuals(visuals.take().unwrap_or_default()),
                ),
                LevelChunk::OldLights(ls) => (
                    crate::level::LIGHT_DYNAMIC,
                    LevelChunk::Lights(ls.iter().map(OldLight::to_light).collect()),
                ),
                LevelChunk::OldGlows(_) => (crate::level::GLOWS, LevelChunk::Glows(glows.clone())),
                LevelChunk::PortalsV5(p) => (crate::level::PORTALS, LevelChunk::Portals(p.clone())),
                // the view's header is the 13/14 one: version (and the word's high half)
                LevelChunk::NamedHeader(h) => (c.id(), LevelChunk::Header(h.header)),
                LevelChunk::Header(_)
                | LevelChunk::Portals(_)
                | LevelChunk::Lights(_)
                | LevelChunk::Glows(_)
                | LevelChunk::Sectors(_) => (c.id(), c.value.clone()),
                _ => continue,
            };
            chunks.push(Framed::plain(id, value));
        }
        let quality = level.header().map_or(0, |h| h.quality);
        let geom = if level.is_old() {
            Geom {
                chunks: vec![
                    Framed::plain(
                        geom::HEADER,
                        GeomChunk::Header(Header {
                            version: self.version,
                            quality,
                        }),
                    ),
                    Framed::plain(geom::VB, GeomChunk::VertexBuffers(self.vbs)),
                    Framed::plain(geom::IB, GeomChunk::IndexBuffers(self.ibs)),
                    Framed::plain(geom::SWIS, GeomChunk::Swis(level.swis().to_vec())),
                ],
            }
        } else {
            Geom { chunks: Vec::new() }
        };
        Ok(Flat {
            level: Level { chunks },
            geom,
            warnings: self.warnings,
        })
    }
}

/// An FVF buffer (the level's or a visual's own) as a D3D9 buffer of the view.
fn fvf_view(version: u16, code: u32, count: u32, data: &[u8]) -> VertexBuffer {
    VertexBuffer {
        decl: fvf::declaration(code, UvOrder::for_version(version))
            .unwrap_or_else(|_| Declaration::new(Vec::new())),
        count,
        data: data.to_vec().into(),
    }
}

/// The OGF 4 chunks of visual `v`: one `OGF_HEADER` (bounding box and sphere from the old
/// chunks or header), the container, the tree and LOD records, the children, and the chunks
/// the 13/14 layout shares.
fn ogf4_chunks(v: &Visual, t: u8, sid: u16, gc: Option<GContainer>) -> Vec<Framed<OgfChunk>> {
    let mut chunks: Vec<Framed<OgfChunk>> = Vec::new();
    let short = v.short_header();
    let h = v.header();
    let (bmin, bmax) = v
        .find_chunk(|c| match c {
            OgfChunk::Bbox { min, max } => Some((*min, *max)),
            _ => None,
        })
        .or(h.map(|h| (h.bbox_min, h.bbox_max)))
        .unwrap_or_default();
    let (sc, sr) = v
        .find_chunk(|c| match c {
            OgfChunk::BSphere { center, radius } => Some((*center, *radius)),
            _ => None,
        })
        .or(h.map(|h| (h.sphere_center, h.sphere_radius)))
        .unwrap_or_default();
    if short.is_some() || h.is_some() {
        chunks.push(Framed::plain(
            ogf::HEADER,
            OgfChunk::Header(OgfHeader {
                format_version: 4,
                model_type: t,
                shader_id: sid,
                bbox_min: bmin,
                bbox_max: bmax,
                sphere_center: sc,
                sphere_radius: sr,
            }),
        ));
    }
    if let Some(g) = gc {
        chunks.push(Framed::plain(ogf::GCONTAINER, OgfChunk::GContainer(g)));
    }
    if let Some(td) = v.treedef() {
        chunks.push(Framed::plain(ogf::TREEDEF2, OgfChunk::TreeDef(td)));
    }
    if let Some(q) = v.lod_quads() {
        chunks.push(Framed::plain(ogf::LODDEF2, OgfChunk::LodDef(q.to_vec())));
    }
    if !v.children().is_empty() {
        chunks.push(Framed::plain(
            ogf::CHILDREN_L,
            OgfChunk::Children(v.children().to_vec()),
        ));
    }
    for c in &v.chunks {
        match &c.value {
            OgfChunk::SwiData(_) if short.is_none() => chunks.push(c.clone()),
            OgfChunk::SwiContainer(_) | OgfChunk::FastPath(_) | OgfChunk::Texture { .. } => {
                chunks.push(c.clone())
            }
            _ => {}
        }
    }
    chunks
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::level::{OldGlow, GLOWS, HEADER};

    /// An XRLC 8 level of only a header and `n` glows, each naming its own (shader, texture)
    /// pair (shader `k`, texture 0), so the view's table needs `n` entries after its first,
    /// empty one.
    fn glows_level(n: u32) -> Level {
        let glows = (0..n)
            .map(|k| OldGlow {
                position: [0.0; 3],
                radius: 1.0,
                texture: 0,
                shader: k,
            })
            .collect();
        Level {
            chunks: vec![
                Framed::plain(
                    HEADER,
                    LevelChunk::Header(Header {
                        version: 8,
                        quality: 0,
                    }),
                ),
                Framed::plain(GLOWS, LevelChunk::OldGlows(glows)),
            ],
        }
    }

    #[test]
    fn a_shader_table_past_u16_is_an_error_naming_the_field() {
        // the 13/14 glow's `shader_index` is a u16 (xrLC `Build.cpp`;
        // docs/formats/xray-level.md §13.2), as is OGF_HEADER's `shader_id`
        // (docs/formats/xray-level.md §5.1): entries 1..=65535 fit, 65536 does not
        let f = flatten(&glows_level(65_535)).unwrap();
        let last = f.level.glows().last().map(|g| g.shader);
        assert_eq!(last, Some(65_535));
        let e = flatten(&glows_level(65_536)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot write glow 65535: shader: value 65536 does not fit in its u16 field"
        );
    }
}
