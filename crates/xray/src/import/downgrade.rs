//! `--to-version N` for an old build N (XRLC 4, 5, 8–12) from XRLC 13: the geometry moved
//! into `level` in build N's layout, written as that build's xrLC did (chunk ids and order of
//! [`crate::level::part`], the layouts [`crate::flat`] reads back).
//!
//! | | 12 | 10, 11 | 9 | 8 | 5, 4 |
//! |---|---|---|---|---|---|
//! | vertices | the 13 buffers' bytes (late-v12 layouts, `FLOAT2` base UV) | `FLOAT3, D3DCOLOR N, SHORT4 (u·1024, v·1024, lu·32768, lv·32768)`; vertex-lit `FLOAT3, N, COLOR, FLOAT2`; trees `FLOAT3, N, SHORT4 (u·2048, v·2048, wind, 0)` | FVF in `fsL_VB_OLD` | FVF | FVF, texture sets lightmap first |
//! | indices | IB chunk | IB chunk | IB chunk | `OGF_INDICES` per visual (early 8; late 8's IB chunk 11 is read, not written) | `OGF_INDICES` |
//! | compression | VB, IB, SWIS LZHUF | – | – | – | – |
//! | visuals | OGF 4 with `OGF_VCONTAINER` (7) + `OGF_ICONTAINER` (8), the layout of builds 1935–2218 ([`VisualWriter::ogf4`]) | OGF 3 | OGF 3 | OGF 3 | OGF 3 (5), OGF 2 (4) |
//! | material | header shader id (13's table) | `OGF_TEXTURE_L` into one table | same | same | into the texture and shader tables |
//! | lights | 108 bytes | 108 | 108 | 176 (D3D7 + `xrLIGHT`) | 124 |
//! | glows | 18 bytes | 24 (texture, shader) | 24 | 24 | 24 |
//! | collision | `level.cform` (v4) | `level.cform` | `fsL_CFORM` v2 | `fsL_CFORM` v2 | `fsL_CFORM` v2 |
//!
//! Where one XRLC version had several visual layouts, the latest is written: XRLC 12 levels
//! were OGF 3 until 2004-08-18 and OGF 4 with V/ICONTAINER from 2004-08-19 until XRLC 13
//! (2005-02-01, which brought `OGF_GCONTAINER`); the engine of that last stretch loads every
//! visual type from them ([`crate::ogf`] module docs cite it), progressive and tree-PM visuals
//! included, so their sliding windows are kept. The visuals' OGF format follows the build's
//! engine: OGF 3 from XRLC 5 (engine of 2002-01-15, `xrOGF_FormatVersion = 3`), OGF 2 for
//! XRLC 4, which no public engine source covers ([`crate::ogf::format_of_build`]).
//!
//! FVF codes: lightmapped `XYZ|NORMAL|TEX2`, vertex-lit `XYZ|DIFFUSE|TEX1`, trees
//! `XYZ|NORMAL|TEX1`. Progressive visuals before 12 (OGF 3 stores vertex splits, not windows)
//! are written at full detail (`sw[0]`) as normal visuals, tree-PM ones as plain trees on their
//! `sw[0]` window. XRLC 4, 5 and 8 have no tree or LOD visuals: a tree instance becomes a normal
//! visual on a world-space copy of its vertices, a LOD a hierarchy over its trees. Every
//! difference between what the target reads back and the 13 level is named in
//! [`Conversion::lost`] with its count (and the largest UV error); values the target needs
//! and 13 does not have are named in the notes.

mod records;
mod unwritable;
mod vertices;

use std::collections::BTreeMap;

use crate::cform::Cform;
use crate::chunk::{Framed, COMPRESSED};
use crate::fvf::{FvfBuffer, UvOrder};
use crate::geom::{Geom, SlideWindow, SwiItem, VertexBuffer};
use crate::index_data::IndexData;
use crate::level::{Level, LevelChunk, Part};
use crate::ogf::{
    self, model_type, model_type_v3, GContainer, LodVertex, OgfChunk, OgfHeader, TreeDef, Visual,
};

use super::{Conversion, ImportError, Imported};
use records::Tables;
pub use unwritable::Unwritable;
use vertices::{Buffer, Layout};

/// What the conversion loses, gathered while writing.
#[derive(Debug, Default)]
pub(super) struct Losses {
    /// Vertex attributes the target layouts do not store: vertices per attribute.
    dropped: BTreeMap<&'static str, usize>,
    uv_quantised: usize,
    max_uv_error: f64,
    lmap_quantised: usize,
    max_lmap_error: f64,
    positions: usize,
    lost: Vec<String>,
    notes: Vec<String>,
}

fn refuse(version: u16, cause: Unwritable) -> ImportError {
    ImportError::OldBuild { version, cause }
}

/// The builds written.
const TARGETS: [u16; 7] = [4, 5, 8, 9, 10, 11, 12];

/// The id of `p` in a `level` of build `v`.
fn id_of(v: u16, p: Part) -> Result<u32, ImportError> {
    crate::level::id_of(v, p).ok_or_else(|| refuse(v, Unwritable::NoChunkId(p)))
}

/// Rewrite `out` (an XRLC 13 level) in the old build `to` (see the module docs).
///
/// # Errors
/// [`ImportError::TargetVersion`] for a build not in 4, 5, 8–12; [`ImportError::OldBuild`]
/// naming what the build cannot hold (a vertex layout or visual type it has no form for, an
/// index range outside its buffer); [`ImportError::Write`] when a count does not fit.
pub(super) fn from_13(out: &mut Imported, to: u16) -> Result<Conversion, ImportError> {
    if !TARGETS.contains(&to) {
        return Err(ImportError::TargetVersion { from: 13, to });
    }
    let mut loss = Losses::default();
    let src = &out.level;
    let quality = src.header().map_or(0, |h| h.quality);
    let vbs = out.geom.vertex_buffers().unwrap_or(&[]);
    let ibs = out.geom.index_buffers().unwrap_or(&[]);
    let swis = out.geom.swis();
    let visuals = src.visuals();
    let format: u8 = crate::ogf::format_of_build(to);

    let Buffers {
        mut bufs,
        vb_map,
        reencoded,
    } = vertex_buffers(vbs, to, &mut loss)?;

    // --- visuals
    let mut tables = Tables::new(to, src.shaders().unwrap_or(&[]));
    let mut w = VisualWriter {
        to,
        format,
        vb_map: &vb_map,
        vbs,
        ibs,
        swis,
        tables: &mut tables,
        loss: &mut loss,
        world_trees: None,
        counts: Counts::default(),
    };
    let mut out_visuals = Vec::with_capacity(visuals.len());
    for (i, v) in src.visuals_framed().unwrap_or(&[]).iter().enumerate() {
        let nv = w.visual(i, &v.value)?;
        out_visuals.push(Framed::plain(v.id(), nv));
    }
    let counts = std::mem::take(&mut w.counts);
    if let Some(b) = w.world_trees.take() {
        bufs.push(Buffer::Fvf(b));
    }
    drop(w);
    counts.report(to, &mut loss);

    // --- the level's chunks, in xrLC's order
    // the header form of the target build (128 bytes with the name up to 10; the caller
    // puts the source's name in, crate::level::header_chunk)
    let mut chunks = vec![Framed::plain(
        crate::level::HEADER,
        crate::level::header_chunk(to, quality, b""),
    )];
    let lights = src.lights();
    let (light_chunk, controllers) = records::lights(to, lights);
    let glow_chunk = records::glows(to, src.glows(), &mut tables);
    if let Some(t) = &tables.textures {
        chunks.push(Framed::plain(
            id_of(to, Part::Textures)?,
            LevelChunk::Textures(t.clone()),
        ));
    }
    chunks.push(Framed::plain(
        id_of(to, Part::Shaders)?,
        LevelChunk::Shaders(tables.shaders.clone()),
    ));
    chunks.extend(buffer_chunks(to, bufs, ibs, swis, &mut loss)?);
    chunks.push(Framed::plain(
        id_of(to, Part::Visuals)?,
        LevelChunk::Visuals(out_visuals),
    ));
    let mut cform = out.cform.clone();
    if to <= 9 {
        chunks.extend(embedded_cform(to, cform.take(), &mut loss)?);
    }
    let portals = src.portals().to_vec();
    chunks.push(Framed::plain(
        id_of(to, Part::Portals)?,
        if to >= 8 {
            LevelChunk::Portals(portals)
        } else {
            LevelChunk::PortalsV5(portals)
        },
    ));
    if let Some(id) = crate::level::id_of(to, Part::LightControl) {
        // 9–11: their renderers open fsL_LIGHT_CONTROL unconditionally; xrLC writes it just
        // before the lights (xrLC/xrSaveLights.cpp)
        let max = lights.iter().map(|l| l.controller).max().unwrap_or(0);
        chunks.push(Framed::plain(
            id,
            LevelChunk::Raw(crate::level::light_control(max)),
        ));
    }
    chunks.push(Framed::plain(id_of(to, Part::Lights)?, light_chunk));
    chunks.push(Framed::plain(id_of(to, Part::Glows)?, glow_chunk));
    chunks.push(Framed::plain(
        id_of(to, Part::Sectors)?,
        LevelChunk::Sectors(src.sectors().to_vec()),
    ));
    let written = Written {
        to,
        src,
        tables: &tables,
        controllers,
        geomx: out.geomx.is_some(),
    };
    written.report(&mut loss);

    // --- commit
    out.level = Level { chunks };
    out.geom = Geom { chunks: Vec::new() };
    out.geomx = None;
    out.cform = cform;
    Ok(loss.into_conversion(to, reencoded))
}

/// The vertex buffers of the 13 level re-encoded for an old build.
struct Buffers {
    bufs: Vec<Buffer>,
    /// Each 13 buffer's index in `bufs` (`None`: a tree buffer left out).
    vb_map: Vec<Option<u32>>,
    /// (Buffers, vertices) re-encoded.
    reencoded: (usize, usize),
}

/// The vertex buffers of the 13 level re-encoded for build `to`, one for one (trees' left out
/// where trees become statics, XRLC ≤ 8).
fn vertex_buffers(
    vbs: &[VertexBuffer],
    to: u16,
    loss: &mut Losses,
) -> Result<Buffers, ImportError> {
    let trees_as_statics = to <= 8;
    let mut bufs: Vec<Buffer> = Vec::new();
    let mut vb_map: Vec<Option<u32>> = Vec::with_capacity(vbs.len());
    let mut reencoded = (0usize, 0usize);
    for (k, vb) in vbs.iter().enumerate() {
        let l = match (vertices::layout_of(&vb.decl), to) {
            (Some(l), _) => l,
            (None, 12) => Layout::Lightmapped,
            (None, _) => {
                return Err(refuse(
                    to,
                    Unwritable::VertexLayout {
                        buffer: k,
                        elements: vb.decl.elements.len(),
                        stride: vb.stride(),
                    },
                ))
            }
        };
        if trees_as_statics && l == Layout::Tree {
            vb_map.push(None);
            continue;
        }
        bufs.push(vertices::encode(k, vb, l, to, loss)?);
        if to != 12 {
            reencoded.0 += 1;
            reencoded.1 += vb.count as usize;
        }
        vb_map.push(Some(bufs.len() as u32 - 1));
    }
    Ok(Buffers {
        bufs,
        vb_map,
        reencoded,
    })
}

/// The vertex-buffer chunk [`from_13`] writes for XRLC `to` (10–12, D3D9 buffers) from the
/// XRLC 13 vertex buffers `vbs`: the same value as that chunk's (the buffers re-encoded, the
/// world trees' FVF buffer, which `to` does not keep here, left out), made without the rest of
/// the conversion so that a caller can pack it beforehand ([`crate::level::pack_ahead`]).
///
/// # Errors
/// As [`from_13`] for the vertex buffers (a layout `to` cannot hold, a buffer too large).
pub fn vertex_chunk(vbs: &[VertexBuffer], to: u16) -> Result<LevelChunk, ImportError> {
    let Buffers { bufs, .. } = vertex_buffers(vbs, to, &mut Losses::default())?;
    Ok(LevelChunk::VertexBuffers(d3d_only(bufs)))
}

/// The D3D9 buffers of `bufs` (the FVF one of the world trees left out).
fn d3d_only(bufs: Vec<Buffer>) -> Vec<VertexBuffer> {
    bufs.into_iter()
        .filter_map(|b| match b {
            Buffer::D3d(b) => Some(b),
            Buffer::Fvf(_) => None,
        })
        .collect()
}

/// The buffer chunks of build `to`: vertex buffers (D3D9 from 10, FVF before), index buffers
/// (from 9) and SWIS (12), LZHUF-compressed in 12 as xrLC wrote them.
fn buffer_chunks(
    to: u16,
    bufs: Vec<Buffer>,
    ibs: &[IndexData],
    swis: &[SwiItem],
    loss: &mut Losses,
) -> Result<Vec<Framed<LevelChunk>>, ImportError> {
    let mut chunks = Vec::new();
    let packed = if to == 12 { COMPRESSED } else { 0 };
    if to >= 10 {
        chunks.push(Framed::plain(
            id_of(to, Part::VertexBuffers)? | packed,
            LevelChunk::VertexBuffers(d3d_only(bufs)),
        ));
    } else {
        let fvf: Vec<FvfBuffer> = bufs
            .into_iter()
            .filter_map(|b| match b {
                Buffer::Fvf(b) => Some(b),
                Buffer::D3d(_) => None,
            })
            .collect();
        chunks.push(Framed::plain(
            id_of(to, Part::FvfBuffers)?,
            LevelChunk::FvfBuffers(fvf),
        ));
    }
    // from 9 (8 is written in its early layout, indices inside the visuals: the one of the
    // public builds 1114/1154 and of both peer readers; the late-8 engine opens fsL_IBUFFERS
    // only when present, crate::builds)
    if to >= 9 {
        chunks.push(Framed::plain(
            id_of(to, Part::IndexBuffers)? | packed,
            LevelChunk::IndexBuffers(ibs.to_vec()),
        ));
    }
    if to == 12 {
        chunks.push(Framed::plain(
            id_of(to, Part::Swis)? | packed,
            LevelChunk::Swis(swis.to_vec()),
        ));
    } else if !swis.is_empty() {
        loss.notes.push(format!(
            "level.geom's {} SWI items are not written (XRLC {to} has no SWIS chunk; their \
             visuals are drawn at full detail)",
            swis.len()
        ));
    }
    Ok(chunks)
}

/// XRLC ≤ 9: the collision as the version-2 cform embedded in `level` (`fsL_CFORM`), if the
/// base has one.
fn embedded_cform(
    to: u16,
    cform: Option<Cform>,
    loss: &mut Losses,
) -> Result<Option<Framed<LevelChunk>>, ImportError> {
    let Some(c) = cform else {
        loss.notes.push(format!(
            "no collision: XRLC {to} keeps it in `level`, and the base has none"
        ));
        return Ok(None);
    };
    let (c2, flagged) = records::cform_v2(&c);
    if flagged > 0 {
        loss.lost.push(format!(
            "suppress-shadow/wallmark flags of {flagged} collision triangles (the version-2 \
             cform XRLC {to} embeds has no place for them)"
        ));
    }
    // packed as xrLC packed it: `fs.write_chunk(fsL_CFORM|CFS_CompressMark, …)`
    // (xrLC/xrBuildCForm.cpp, 2002-01-15 `05d999e07a` to 2003-06-13 `bf250a46c8`;
    // level.cform from 2003-06-20)
    let chunk = Framed::plain(
        id_of(to, Part::Cform)? | COMPRESSED,
        LevelChunk::Raw(c2.to_bytes()?),
    );
    loss.notes.push(format!(
        "the collision is embedded in `level` (fsL_CFORM, version 2) as XRLC {to} keeps it; no \
         level.cform is written"
    ));
    Ok(Some(chunk))
}

/// What was written, for the notes on what build `to` could not hold or derived.
struct Written<'a> {
    to: u16,
    src: &'a Level,
    tables: &'a Tables,
    /// Lights whose controller the build stores nowhere.
    controllers: usize,
    /// The base had a `level.geomx`.
    geomx: bool,
}

impl Written<'_> {
    fn report(&self, loss: &mut Losses) {
        let to = self.to;
        let lights = self.src.lights();
        if self.controllers > 0 {
            loss.lost.push(format!(
                "the controller of {} lights (XRLC {to} stores none; read back as 1 for \
                 directional lights, 2 otherwise)",
                self.controllers
            ));
        }
        if to <= 8 && !lights.is_empty() {
            loss.notes.push(format!(
                "{} lights get the XRLC {to} record's extra fields derived: frame 0, {}",
                lights.len(),
                if to == 8 {
                    "flags 3 (affects static and dynamic), no name"
                } else {
                    "flags 0, no key frames"
                }
            ));
        }
        let dropped_chunks: Vec<u32> = self
            .src
            .chunks
            .iter()
            .filter(|c| matches!(c.value, LevelChunk::Raw(_)))
            .map(Framed::id)
            .collect();
        if !dropped_chunks.is_empty() {
            loss.lost.push(format!(
                "`level` chunks {dropped_chunks:?} of unknown meaning (not carried into XRLC {to})"
            ));
        }
        if !self.tables.no_slash.is_empty() {
            loss.lost.push(format!(
                "shader entries without a `/` ({:?}): an XRLC {to} material is a (shader, \
                 texture) pair, read back as `shader/`",
                self.tables.no_slash
            ));
        }
        if to < 12 {
            loss.notes.push(format!(
                "materials written as (shader, texture) pairs of {}; texture lists kept as the \
                 13 entries name them",
                if to <= 5 {
                    "the texture and shader tables"
                } else {
                    "the one shader table"
                }
            ));
        }
        // the layout of the target build that is written (module docs)
        loss.notes.push(match to {
            12 => "visuals written as XRLC 12's last layout has them: OGF 4 with OGF_VCONTAINER \
                   + OGF_ICONTAINER (builds 1935–2218, xrLC of 2004-08-19 .. 2005-01); the OGF 3 \
                   layout of earlier XRLC 12 builds is not written"
                .to_string(),
            4 => "visuals written as OGF 2 (what blender-xray reads in XRLC 4 levels; no engine \
                  source of XRLC 4 is public)"
                .to_string(),
            _ => format!(
                "visuals written as OGF 3, the format XRLC {to}'s engine loads (xrOGF_FormatVersion \
                 3 from the engine of 2002-01-15 until 2004-08-18)"
            ),
        });
        if self.geomx {
            loss.notes.push(format!(
                "level.geomx (the fast depth-pass copy) is not written: XRLC {to} has none"
            ));
        }
    }
}

impl Losses {
    fn into_conversion(mut self, to: u16, reencoded: (usize, usize)) -> Conversion {
        let mut lost = Vec::new();
        if self.positions > 0 {
            lost.push(format!(
                "positions of {} vertices (outside what XRLC {to} stores)",
                self.positions
            ));
        }
        if self.uv_quantised > 0 {
            lost.push(format!(
                "base UVs of {} vertices quantised to XRLC {to}'s ⌊uv·1024⌋/1024 (largest UV \
                 error {:.3e})",
                self.uv_quantised, self.max_uv_error
            ));
        }
        if self.lmap_quantised > 0 {
            lost.push(format!(
                "lightmap UVs of {} vertices changed (largest error {:.3e})",
                self.lmap_quantised, self.max_lmap_error
            ));
        }
        for (what, n) in &self.dropped {
            lost.push(format!(
                "{what} of {n} vertices (XRLC {to}'s vertex layouts store none)"
            ));
        }
        lost.append(&mut self.lost);
        Conversion {
            from: 13,
            to,
            vertex_buffers: reencoded.0,
            vertices: reencoded.1,
            geomx_buffers: 0,
            max_uv_error: self.max_uv_error,
            lost,
            notes: self.notes,
        }
    }
}

/// How many visuals of each kind changed form.
#[derive(Debug, Default)]
struct Counts {
    progressive_full: usize,
    progressive_kept: usize,
    tree_pm: usize,
    trees_static: usize,
    lods_hierarchy: usize,
    lod_sun: usize,
    lod_pad: usize,
    tree_sun: usize,
    texture_chunks: usize,
    fastpath: usize,
    raw_chunks: usize,
}

impl Counts {
    fn report(&self, to: u16, loss: &mut Losses) {
        let lost = &mut loss.lost;
        if self.progressive_full > 0 {
            lost.push(format!(
                "the sliding windows of {} progressive visuals (XRLC {to}'s OGF 3 has vertex \
                 splits instead): written at full detail (sw[0]) as normal visuals",
                self.progressive_full
            ));
        }
        if self.tree_pm > 0 {
            lost.push(format!(
                "the sliding windows of {} progressive tree visuals: written as plain trees on \
                 their full-detail window",
                self.tree_pm
            ));
        }
        if self.trees_static > 0 {
            lost.push(format!(
                "{} tree instances written as normal visuals on world-space copies of their \
                 vertices (XRLC {to} has no tree visuals: instancing, wind and colour \
                 scale/bias dropped)",
                self.trees_static
            ));
        }
        if self.lods_hierarchy > 0 {
            lost.push(format!(
                "the billboards of {} LOD visuals (XRLC {to} has no LOD visuals: written as \
                 hierarchies over their trees)",
                self.lods_hierarchy
            ));
        }
        if self.lod_sun > 0 {
            lost.push(format!(
                "the sun byte of {} LOD billboard vertices (24-byte LOD vertices before XRLC \
                 11; read back as 255)",
                self.lod_sun
            ));
        }
        if self.tree_sun > 0 {
            lost.push(format!(
                "the sun colour scale/bias of {} trees (tree colours are rgb + hemi before \
                 XRLC 11; read back as 1 / 0)",
                self.tree_sun
            ));
        }
        if self.texture_chunks > 0 {
            lost.push(format!(
                "OGF_TEXTURE of {} visuals (OGF 2 has no such chunk)",
                self.texture_chunks
            ));
        }
        if self.raw_chunks > 0 {
            lost.push(format!(
                "{} visual chunks of unknown meaning (not carried into OGF {})",
                self.raw_chunks,
                match to {
                    12 => 4,
                    _ => crate::ogf::format_of_build(to),
                }
            ));
        }
        let notes = &mut loss.notes;
        if self.progressive_kept > 0 {
            notes.push(format!(
                "{} progressive / progressive-tree visuals keep their sliding windows \
                 (OGF_P_LODS inline, SWIS via OGF_SWICONTAINER)",
                self.progressive_kept
            ));
        }
        if self.lod_pad > 0 {
            notes.push(format!(
                "the padding bytes of {} LOD vertices dropped (uninitialised in xrLC's output)",
                self.lod_pad
            ));
        }
        if self.fastpath > 0 {
            notes.push(format!(
                "OGF_FASTPATH of {} visuals dropped with level.geomx",
                self.fastpath
            ));
        }
    }
}

/// Writes the visuals of one level in the target build.
struct VisualWriter<'a> {
    to: u16,
    format: u8,
    vb_map: &'a [Option<u32>],
    vbs: &'a [crate::geom::VertexBuffer],
    ibs: &'a [IndexData],
    swis: &'a [crate::geom::SwiItem],
    tables: &'a mut Tables,
    loss: &'a mut Losses,
    /// XRLC ≤ 8: the world-space copies of tree instances (one FVF buffer after the others).
    world_trees: Option<FvfBuffer>,
    counts: Counts,
}

fn oc(id: u32, c: OgfChunk) -> Framed<OgfChunk> {
    Framed::plain(id, c)
}

impl VisualWriter<'_> {
    fn ids(&self) -> (u32, u32, u32) {
        // (BSPHERE, VCONTAINER, CHILDREN_L)
        if self.format == 2 {
            (ogf::v2::BSPHERE, ogf::v2::VCONTAINER, ogf::v2::CHILDREN_L)
        } else {
            (ogf::v3::BSPHERE, ogf::v3::VCONTAINER, ogf::v3::CHILDREN_L)
        }
    }

    /// The vertex and index chunks of a visual drawing `g` (the window `w` of it, if given).
    fn geometry(
        &self,
        i: usize,
        g: &GContainer,
        w: Option<SlideWindow>,
        vcont: [u32; 3],
    ) -> Result<Vec<Framed<OgfChunk>>, ImportError> {
        let (_, vid, _) = self.ids();
        let (off, count) = match w {
            Some(w) => (
                g.ib_offset.saturating_add(w.offset),
                u32::from(w.num_tris) * 3,
            ),
            None => (g.ib_offset, g.ib_count),
        };
        let idx = self
            .ibs
            .get(g.ib_index as usize)
            .and_then(|b| b.get(off as usize..(off as usize).checked_add(count as usize)?))
            .ok_or_else(|| {
                refuse(
                    self.to,
                    Unwritable::IndexRange {
                        visual: i,
                        offset: off,
                        count,
                        buffer: g.ib_index,
                    },
                )
            })?;
        let mut c = vec![oc(vid, OgfChunk::VContainer(vcont))];
        if self.to >= 9 {
            c.push(oc(
                ogf::v3::ICONTAINER,
                OgfChunk::IContainer([g.ib_index, off, count]),
            ));
        } else {
            c.push(oc(ogf::v3::INDICES, OgfChunk::Indices(idx.to_vec())));
        }
        Ok(c)
    }

    fn vcontainer(&self, i: usize, g: &GContainer) -> Result<[u32; 3], ImportError> {
        let b = self
            .vb_map
            .get(g.vb_index as usize)
            .copied()
            .flatten()
            .ok_or_else(|| {
                refuse(
                    self.to,
                    Unwritable::BufferLeftOut {
                        visual: i,
                        buffer: g.vb_index,
                    },
                )
            })?;
        Ok([b, g.vb_offset, g.vb_count])
    }

    /// A tree instance's vertices in world space appended to the static copy buffer.
    fn world_copy(
        &mut self,
        i: usize,
        g: &GContainer,
        td: &TreeDef,
    ) -> Result<[u32; 3], ImportError> {
        let vb = self.vbs.get(g.vb_index as usize).ok_or_else(|| {
            refuse(
                self.to,
                Unwritable::NoVertexBuffer {
                    visual: i,
                    buffer: g.vb_index,
                },
            )
        })?;
        let v = vb.decode();
        let (s, n) = (g.vb_offset as usize, g.vb_count as usize);
        if s + n > v.count {
            return Err(refuse(
                self.to,
                Unwritable::VertexRange {
                    visual: i,
                    buffer: g.vb_index,
                },
            ));
        }
        let m = &td.xform;
        let turn = |p: [f32; 3]| {
            let q = [
                p[0] * m[0] + p[1] * m[4] + p[2] * m[8],
                p[0] * m[1] + p[1] * m[5] + p[2] * m[9],
                p[0] * m[2] + p[1] * m[6] + p[2] * m[10],
            ];
            let l = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
            if l > 0.0 {
                q.map(|x| x / l)
            } else {
                q
            }
        };
        let slice = |x: &Vec<[f32; 3]>| x.get(s..s + n).map(<[_]>::to_vec).unwrap_or_default();
        let part = crate::vertex::Vertices {
            count: n,
            positions: slice(&v.positions)
                .into_iter()
                .map(|p| td.transform(p))
                .collect(),
            normals: slice(&v.normals).into_iter().map(turn).collect(),
            hemi: v.hemi.get(s..s + n).map(<[_]>::to_vec).unwrap_or_default(),
            uv: v.uv.get(s..s + n).map(<[_]>::to_vec).unwrap_or_default(),
            wind: v.wind.get(s..s + n).map(<[_]>::to_vec).unwrap_or_default(),
            tangents: slice(&v.tangents),
            binormals: slice(&v.binormals),
            ..Default::default()
        };
        let order = UvOrder::for_version(self.to);
        let code = vertices::fvf_code(Layout::Tree);
        let enc = FvfBuffer::encode(code, order, &part)?;
        vertices::measure(&part, &enc.decode(order), self.loss);
        let index = self.vb_map.iter().flatten().count() as u32;
        let b = self.world_trees.get_or_insert_with(|| FvfBuffer {
            fvf: code,
            count: 0,
            data: Vec::new(),
        });
        let first = b.count;
        b.count = b
            .count
            .checked_add(enc.count)
            .ok_or_else(|| refuse(self.to, Unwritable::TreeCopies))?;
        b.data.extend_from_slice(&enc.data);
        Ok([index, first, enc.count])
    }

    fn visual(&mut self, i: usize, v: &Visual) -> Result<Visual, ImportError> {
        let to = self.to;
        let Some(h) = v.header() else {
            return Err(refuse(to, Unwritable::NoHeader { visual: i }));
        };
        let t = h.model_type;
        let g = v.gcontainer();
        if to == 12 {
            return self.ogf4(i, v);
        }
        let (_, _, kid) = self.ids();
        let need_g = || {
            g.ok_or_else(|| {
                refuse(
                    to,
                    Unwritable::NoGContainer {
                        visual: i,
                        model_type: t,
                    },
                )
            })
        };
        let mut body: Vec<Framed<OgfChunk>> = Vec::new();
        let out_type = match t {
            model_type::NORMAL => {
                let g = need_g()?;
                body.extend(self.geometry(i, &g, None, self.vcontainer(i, &g)?)?);
                model_type_v3::NORMAL
            }
            model_type::PROGRESSIVE => {
                let g = need_g()?;
                let w = v.swidata().and_then(|s| s.windows.first().copied());
                body.extend(self.geometry(i, &g, w, self.vcontainer(i, &g)?)?);
                self.counts.progressive_full += 1;
                model_type_v3::NORMAL
            }
            model_type::TREE_ST | model_type::TREE_PM => {
                let g = need_g()?;
                self.tree(i, t, v, &g, &mut body)?
            }
            model_type::LOD => self.lod(v, &mut body),
            model_type::HIERARCHY => {
                body.push(oc(kid, OgfChunk::Children(v.children().to_vec())));
                model_type_v3::HIERARCHY
            }
            other => {
                return Err(refuse(
                    to,
                    Unwritable::ModelType {
                        visual: i,
                        model_type: other,
                    },
                ))
            }
        };
        self.count_dropped(v);
        let mut c = self.head(v, &h, out_type);
        c.extend(body);
        Ok(Visual { chunks: c })
    }

    /// The body chunks of tree visual `i` (model type `t`, range `g`) pushed to `body`; its
    /// model type in the old form (a static NORMAL in world space up to XRLC 8).
    fn tree(
        &mut self,
        i: usize,
        t: u8,
        v: &Visual,
        g: &GContainer,
        body: &mut Vec<Framed<OgfChunk>>,
    ) -> Result<u8, ImportError> {
        let to = self.to;
        let td = v
            .treedef()
            .ok_or_else(|| refuse(to, Unwritable::NoTreeDef { visual: i }))?;
        let w = if t == model_type::TREE_PM {
            self.counts.tree_pm += 1;
            v.swi_container()
                .and_then(|k| self.swis.get(k as usize))
                .and_then(|s| s.windows.first().copied())
        } else {
            None
        };
        if to <= 8 {
            let vc = self.world_copy(i, g, &td)?;
            body.extend(self.geometry(i, g, w, vc)?);
            self.counts.trees_static += 1;
            Ok(model_type_v3::NORMAL)
        } else {
            body.extend(self.geometry(i, g, w, self.vcontainer(i, g)?)?);
            if to <= 10 {
                if td.c_scale[4] != 1.0 || td.c_bias[4] != 0.0 {
                    self.counts.tree_sun += 1;
                }
                body.push(oc(ogf::v3::TREEDEF2, OgfChunk::TreeDefOld(td)));
            } else {
                body.push(oc(ogf::v3::TREEDEF2, OgfChunk::TreeDef(td)));
            }
            Ok(model_type_v3::TREE)
        }
    }

    /// The body chunks of a LOD visual pushed to `body`; its model type in the old form (a
    /// hierarchy up to XRLC 8).
    fn lod(&mut self, v: &Visual, body: &mut Vec<Framed<OgfChunk>>) -> u8 {
        let to = self.to;
        let (_, _, kid) = self.ids();
        body.push(oc(kid, OgfChunk::Children(v.children().to_vec())));
        if to <= 8 {
            self.counts.lods_hierarchy += 1;
            model_type_v3::HIERARCHY
        } else {
            let q: Vec<[LodVertex; 4]> = v.lod_quads().unwrap_or(&[]).to_vec();
            if to <= 10 {
                for x in q.iter().flatten() {
                    self.counts.lod_sun += usize::from(x.sun != 255);
                    self.counts.lod_pad += usize::from(x.pad != [0; 3]);
                }
                body.push(oc(ogf::v3::LODDEF2, OgfChunk::LodDefOld(q)));
            } else {
                body.push(oc(ogf::v3::LODDEF2, OgfChunk::LodDef(q)));
            }
            model_type_v3::LOD
        }
    }

    /// Count the chunks of `v` the new form has no place for.
    fn count_dropped(&mut self, v: &Visual) {
        for c in &v.chunks {
            match &c.value {
                OgfChunk::FastPath(_) => self.counts.fastpath += 1,
                OgfChunk::Texture { .. } if self.format == 2 => self.counts.texture_chunks += 1,
                OgfChunk::Raw(_) => self.counts.raw_chunks += 1,
                _ => {}
            }
        }
    }

    /// The header, material, box and sphere chunks of `v` (header `h`) as a visual of model
    /// type `out_type` in the old form.
    fn head(&mut self, v: &Visual, h: &OgfHeader, out_type: u8) -> Vec<Framed<OgfChunk>> {
        let to = self.to;
        let (bs, _, _) = self.ids();
        let keeps_material = out_type != model_type_v3::HIERARCHY;
        let mut c = vec![oc(
            crate::ogf::HEADER,
            OgfChunk::ShortHeader {
                format_version: self.format,
                model_type: out_type,
                shader_id: if to >= 12 { h.shader_id } else { 0 },
                rest: Vec::new(),
            },
        )];
        if to < 12 && h.shader_id != 0 && keeps_material {
            let (texture, shader) = self.tables.pair(h.shader_id);
            // the same id in OGF 2
            c.push(oc(
                ogf::v3::TEXTURE_L,
                OgfChunk::TextureL { texture, shader },
            ));
        }
        if self.format == 3 {
            for x in &v.chunks {
                if let OgfChunk::Texture { .. } = x.value {
                    c.push(oc(ogf::v3::TEXTURE, x.value.clone()));
                }
            }
        }
        c.push(oc(
            6,
            OgfChunk::Bbox {
                min: h.bbox_min,
                max: h.bbox_max,
            },
        ));
        c.push(oc(
            bs,
            OgfChunk::BSphere {
                center: h.sphere_center,
                radius: h.sphere_radius,
            },
        ));
        c
    }

    /// A visual as XRLC 12 wrote it from 2004-08-19 until XRLC 13 (xrLC `OGF_Face_Save.cpp`,
    /// `OGF_Face.cpp` at xray-engine-repo `a5f427d74b`; ids of `Fmesh.h` `8e15ee2845`): the
    /// 13 visual's 44-byte header, `OGF_GCONTAINER` split into `OGF_VCONTAINER` (7) and
    /// `OGF_ICONTAINER` (8) naming the same buffers, the other chunks as they are (their ids and
    /// layouts did not change: `OGF_P_LODS` 6 is the layout 13 calls `OGF_SWIDATA`), no
    /// `OGF_FASTPATH`. Chunk order as xrLC's: `VCONTAINER, ICONTAINER, [TREEDEF2,] HEADER`, then
    /// the sliding windows; hierarchies and LODs `HEADER, CHILDREN_L[, LODDEF2]`.
    fn ogf4(&mut self, i: usize, v: &Visual) -> Result<Visual, ImportError> {
        let to = self.to;
        let Some(h) = v.header() else {
            return Err(refuse(to, Unwritable::NoHeader { visual: i }));
        };
        let t = h.model_type;
        let mut geometry = Vec::new();
        if matches!(
            t,
            model_type::NORMAL
                | model_type::PROGRESSIVE
                | model_type::TREE_ST
                | model_type::TREE_PM
        ) {
            let g = v.gcontainer().ok_or_else(|| {
                refuse(
                    to,
                    Unwritable::NoGContainer {
                        visual: i,
                        model_type: t,
                    },
                )
            })?;
            let in_ib = self
                .ibs
                .get(g.ib_index as usize)
                .is_some_and(|b| g.ib_offset as u64 + g.ib_count as u64 <= b.len() as u64);
            if !in_ib {
                return Err(refuse(
                    to,
                    Unwritable::IndexRange {
                        visual: i,
                        offset: g.ib_offset,
                        count: g.ib_count,
                        buffer: g.ib_index,
                    },
                ));
            }
            geometry.push(oc(
                ogf::VCONTAINER,
                OgfChunk::VContainer(self.vcontainer(i, &g)?),
            ));
            geometry.push(oc(
                ogf::ICONTAINER,
                OgfChunk::IContainer([g.ib_index, g.ib_offset, g.ib_count]),
            ));
        } else if !matches!(t, model_type::HIERARCHY | model_type::LOD) {
            return Err(refuse(
                to,
                Unwritable::ModelType {
                    visual: i,
                    model_type: t,
                },
            ));
        }
        if matches!(t, model_type::PROGRESSIVE | model_type::TREE_PM) {
            self.counts.progressive_kept += 1;
        }
        let mut c = geometry;
        let mut after = Vec::new();
        for x in &v.chunks {
            match &x.value {
                OgfChunk::TreeDef(_) | OgfChunk::TreeDefOld(_) => c.push(x.clone()),
                OgfChunk::Texture { .. }
                | OgfChunk::Children(_)
                | OgfChunk::ChildrenNarrow(_)
                | OgfChunk::LodDef(_)
                | OgfChunk::SwiData(_)
                | OgfChunk::SwiContainer(_) => after.push(x.clone()),
                OgfChunk::FastPath(_) => self.counts.fastpath += 1,
                OgfChunk::Raw(_) => self.counts.raw_chunks += 1,
                _ => {}
            }
        }
        c.push(oc(ogf::HEADER, OgfChunk::Header(h)));
        c.extend(after);
        Ok(Visual { chunks: c })
    }
}
