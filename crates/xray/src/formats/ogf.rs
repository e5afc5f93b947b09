//! OGF v4 visuals as stored inside `level` chunk 3 (`fsL_VISUALS`), one nested chunk each.
//!
//! A visual is itself a chunk list. Known chunks (xray-16 `FMesh.hpp`):
//!
//! | id | name | payload |
//! |---|---|---|
//! | 1 | `OGF_HEADER` | 44 bytes: `u8 format_version (4); u8 type; u16 shader_id; f32 bbox_min[3], bbox_max[3]; f32 sphere_center[3], radius` |
//! | 2 | `OGF_TEXTURE` | `stringZ texture; stringZ shader` |
//! | 6 | `OGF_SWIDATA` | `u32 reserved[4]; u32 count; count × {u32 offset; u16 num_tris; u16 num_verts}` |
//! | 10 | `OGF_CHILDREN_L` | `u32 n; u32 visual_index[n]` |
//! | 11 | `OGF_LODDEF2` | 8 quads × 4 × `{f32 pos[3]; f32 uv[2]; u32 rgb_hemi; u8 sun; u8 pad[3]}` (pad kept raw) |
//! | 12 | `OGF_TREEDEF2` | `f32 xform[16]` (row-major, translation in 12..15); `c_scale`, `c_bias` = `{f32 rgb[3]; f32 hemi; f32 sun}` |
//! | 20 | `OGF_SWICONTAINER` | `u32` index into level.geom's SWIS |
//! | 21 | `OGF_GCONTAINER` | `u32 vb_index, vb_offset, vb_count, ib_index, ib_offset, ib_count` |
//! | 22 | `OGF_FASTPATH` | nested chunks: a GCONTAINER into level.geomx (+ SWIDATA) |
//!
//! Unknown chunks (e.g. the junk chunks of build-2215 levels) are kept raw. `OGF_CHILDREN_L`
//! with `u16` entries (build 2215, found by its size) is kept as such.
//!
//! ## OGF formats 3 and 2 (levels of XRLC 12 and older)
//!
//! The format is the first byte of `OGF_HEADER` ([`crate::chunk::refine`] reads it before the
//! other chunks, which come first in xrLC's order). Their chunk ids (blender-xray
//! `formats/ogf/fmt.py` `Chunks_v3`, `Chunks_v2`; [`kind_of`]):
//!
//! | OGF 3 | OGF 2 | name | payload |
//! |---|---|---|---|
//! | 1 | 1 | `OGF_HEADER` | 4 bytes: `u8 format_version; u8 type; u16 shader_id` (+ anything after, kept) |
//! | 2 | – | `OGF_TEXTURE` | `stringZ texture; stringZ shader` |
//! | 3 | 3 | `OGF_TEXTURE_L` | `u32 texture_id; u32 shader_id` (into the level's tables) |
//! | 6 | 6 | `OGF_BBOX` | `f32 min[3], max[3]` |
//! | 7 | – | `OGF_VERTICES` | inline FVF vertices: `u32 fvf; u32 count; data` ([`crate::fvf`]) |
//! | 8 | 8 | `OGF_INDICES` | inline indices: `u32 count; u16[count]` |
//! | 9 | – | `OGF_SWIDATA` | VIPM vertex splits (nested chunks; kept raw) |
//! | 10 | 11 | `OGF_VCONTAINER` | `u32 vb_index, vb_offset, vb_count` into the level's VB chunk |
//! | 11 | 12 | `OGF_BSPHERE` | `f32 center[3], radius` |
//! | 12 | 13 | `OGF_CHILDREN_L` | `u32 n; u32 visual_index[n]` |
//! | 19 | – | `OGF_ICONTAINER` | `u32 ib_index, ib_offset, ib_count` into the level's IB chunk |
//! | 21 | – | `OGF_LODDEF2` | as format 4; before XRLC 11 the vertices are 24 bytes (no sun, no pad) |
//! | 22 | – | `OGF_TREEDEF2` | as format 4; before XRLC 11 `c_scale`/`c_bias` are `{rgb, hemi}` (96 bytes in all) |
//!
//! | 15 | – | `OGF_DPATCH` | detail patch sprites: 32-byte `DPatch {f32 P[3]; f32 N[3]; f32 S; u32 C}` ([`DPatch`]) |
//! | 16 | – | `OGF_P_LODS` | `MT_PROGRESSIVE_STRIPS`: nested chunks 0, 1, …, one per detail level, each `{OGF_VCONTAINER or OGF_VERTICES, OGF_INDICES}`; the last one is the full detail |
//!
//! OGF 3 model types ([`model_type_v3`]): 0 normal, 1 hierarchy, 2 progressive (fixed VIPM),
//! 6 detail patch, 8 cached, 10 progressive strips, 11 LOD, 12 tree. LOD and tree layouts before
//! XRLC 11 also apply to format-4 visuals of such levels.
//!
//! `OGF_DPATCH` and `OGF_P_LODS` are read as the engine of 2002-01-15 reads them
//! (xray-engine-repo `b4385f03b0`: `xr_3da/FDetailPatch.cpp` asserts a size that is a multiple
//! of `sizeof(DPatch)` = 32, `#pragma pack(4)`; `xr_3da/FProgressive.cpp` opens `OGF_P_LODS`
//! and reads nested chunks 0, 1, … until one is missing, each with `OGF_VCONTAINER` (else
//! `OGF_VERTICES`) and `OGF_INDICES`) and as xrLC of the same date writes them (`xrLC/
//! OGF_Face_Save.cpp` `05d999e07a` `OGF::Save_Progressive`: up to 16 samples, the last one with
//! every vertex). Neither xray_re (`xr_ogf_v3.cxx` `load_dpatch` is `xr_not_implemented`,
//! `load_lods` wants an `OGF_HEADER` in each level) nor blender-xray reads them.
//!
//! ## OGF 4 in XRLC 12 (builds 1935–2218)
//!
//! From 2004-08-19 (xray-engine-repo `8e15ee2845`, `xr_3da/Fmesh.h`) level visuals are format
//! 4 with the 44-byte `OGF_HEADER` and format-4 chunk ids, but there is no `OGF_GCONTAINER` yet
//! (it came with XRLC 13 on 2005-02-01, `5b2b88979b`): the geometry is `OGF_VCONTAINER` (7) +
//! `OGF_ICONTAINER` (8), each `u32 buffer, offset, count` into the level's `fsL_VB` / `fsL_IB`
//! (`xr_3da/FVisual.cpp` `116f0a4741` `Fvisual::Load`, `FTreeVisual.cpp` `28af5534e8`; xrLC
//! `OGF_Face_Save.cpp` `a5f427d74b` `Save_Normal_PM`, `OGF_Reference::Save`). Progressive
//! visuals keep their sliding windows in `OGF_P_LODS` (6), the layout 13/14 call `OGF_SWIDATA`
//! (`FProgressive.cpp` `28af5534e8`), tree-PM ones name an SWIS item in `OGF_SWICONTAINER` (20,
//! from 2004-10-29). xray_re (`xr_ogf_format.h` `OGF4_VCONTAINER = 0x7`, `OGF4_ICONTAINER =
//! 0x8`; `xr_ogf_v4.cxx` `load_vcontainer`, `load_icontainer`) and blender-xray (`Chunks_v4`)
//! read these chunks. [`kind_of_in`] reads ids 7 and 8 as containers in levels of XRLC ≤ 12
//! only; in 13/14 levels they stay raw as before.

use levelgeom_binary::{fit, ReadError, Reader, WriteError, Writer};

use crate::chunk::{self, Context, Framed};
use crate::fvf::FvfBuffer;
use crate::geom::SwiItem;

pub use super::ids::ogf::*;

/// The OGF format the visuals of a `level` of XRLC `version` (≤ 12) are written in: OGF 3 from
/// XRLC 5 (the engine of 2002-01-15, xray-engine-repo `b4385f03b0`, `XRCL_PRODUCTION_VERSION 5`,
/// `xrOGF_FormatVersion = 3`, `FBasicVisual::Load` verifies it; xray_re `xr_ogf_format.h`: "OGF
/// v3 - builds 1098, 1114, 1154"); XRLC 4 predates that history, and OGF 2 is what
/// blender-xray reads in such levels (`Chunks_v2`).
pub fn format_of_build(version: u16) -> u8 {
    if version <= 4 {
        2
    } else {
        3
    }
}

/// What chunk `id` of an OGF `format` (2, 3, 4) visual of a level of XRLC `version` holds: as
/// [`kind_of`], and format-4 ids 7 and 8 are `OGF_VCONTAINER` / `OGF_ICONTAINER` in levels of
/// XRLC ≤ 12 (module docs).
pub fn kind_of_in(format: u8, version: u16, id: u32) -> Option<Kind> {
    let old = crate::builds::known_version(version) && version <= 12;
    match (format, id) {
        (4, VCONTAINER) if old => Some(Kind::VContainer),
        (4, ICONTAINER) if old => Some(Kind::IContainer),
        _ => kind_of(format, id),
    }
}

/// OGF format 3 model types (FBasicVisual of builds 1469–1865).
pub mod model_type_v3 {
    /// `MT_NORMAL`.
    pub const NORMAL: u8 = 0;
    /// `MT_HIERRARHY`.
    pub const HIERARCHY: u8 = 1;
    /// `MT_PROGRESSIVE` (FProgressiveFixedVisual, VIPM vertex splits).
    pub const PROGRESSIVE: u8 = 2;
    /// `MT_DETAIL_PATCH` (FDetailPatch, builds of 2002: `OGF_DPATCH`).
    pub const DETAIL_PATCH: u8 = 6;
    /// `MT_CACHED` (drawn as normal).
    pub const CACHED: u8 = 8;
    /// `MT_PROGRESSIVE2` (FProgressive); `MT_PROGRESSIVE_STRIPS` in the engine of 2002, whose
    /// detail levels are in `OGF_P_LODS`.
    pub const PROGRESSIVE2: u8 = 10;
    /// `MT_LOD`.
    pub const LOD: u8 = 11;
    /// `MT_TREE`.
    pub const TREE: u8 = 12;

    /// The format-4 model type a format-3 one corresponds to ([`super::model_type`]), or
    /// `u8::MAX` when there is none.
    pub fn to_v4(t: u8) -> u8 {
        use super::model_type as m;
        match t {
            NORMAL | CACHED => m::NORMAL,
            HIERARCHY => m::HIERARCHY,
            PROGRESSIVE | PROGRESSIVE2 => m::PROGRESSIVE,
            LOD => m::LOD,
            TREE => m::TREE_ST,
            _ => u8::MAX,
        }
    }
}

/// Model types (`MT_*`) that occur in levels.
pub mod model_type {
    /// `MT_NORMAL` (Fvisual).
    pub const NORMAL: u8 = 0;
    /// `MT_HIERRARHY` (sic).
    pub const HIERARCHY: u8 = 1;
    /// `MT_PROGRESSIVE`.
    pub const PROGRESSIVE: u8 = 2;
    /// `MT_LOD`.
    pub const LOD: u8 = 6;
    /// `MT_TREE_ST`.
    pub const TREE_ST: u8 = 7;
    /// `MT_TREE_PM`.
    pub const TREE_PM: u8 = 11;

    /// The engine's name of a model type.
    pub fn name(t: u8) -> &'static str {
        match t {
            NORMAL => "normal",
            HIERARCHY => "hierarchy",
            PROGRESSIVE => "progressive",
            LOD => "lod",
            TREE_ST => "tree_st",
            TREE_PM => "tree_pm",
            _ => "unknown",
        }
    }
}

/// `OGF_HEADER` (44 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OgfHeader {
    /// OGF format version (4).
    pub format_version: u8,
    /// Model type ([`model_type`]).
    pub model_type: u8,
    /// Index into the level's shader table; 0 = none.
    pub shader_id: u16,
    /// World-space bounding box minimum (X-Ray space).
    pub bbox_min: [f32; 3],
    /// Bounding box maximum.
    pub bbox_max: [f32; 3],
    /// Bounding sphere centre.
    pub sphere_center: [f32; 3],
    /// Bounding sphere radius.
    pub sphere_radius: f32,
}

/// `OGF_GCONTAINER`: which part of which buffers the visual draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GContainer {
    /// Vertex buffer index.
    pub vb_index: u32,
    /// First vertex (the base added to every index).
    pub vb_offset: u32,
    /// Vertices used.
    pub vb_count: u32,
    /// Index buffer index.
    pub ib_index: u32,
    /// First index.
    pub ib_offset: u32,
    /// Indices (3 per triangle).
    pub ib_count: u32,
}

/// `OGF_TREEDEF2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreeDef {
    /// Row-major D3D matrix (rows i, j, k, c; translation in elements 12..14).
    pub xform: [f32; 16],
    /// Colour scale `{rgb, hemi, sun}`.
    pub c_scale: [f32; 5],
    /// Colour bias `{rgb, hemi, sun}`.
    pub c_bias: [f32; 5],
}

impl TreeDef {
    /// Apply the matrix to a model-space point: `P.x·i + P.y·j + P.z·k + c`.
    pub fn transform(&self, p: [f32; 3]) -> [f32; 3] {
        let m = &self.xform;
        [
            p[0] * m[0] + p[1] * m[4] + p[2] * m[8] + m[12],
            p[0] * m[1] + p[1] * m[5] + p[2] * m[9] + m[13],
            p[0] * m[2] + p[1] * m[6] + p[2] * m[10] + m[14],
        ]
    }
}

/// One vertex of a LOD billboard quad (28 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodVertex {
    /// World position.
    pub pos: [f32; 3],
    /// Texture coordinate.
    pub uv: [f32; 2],
    /// D3DCOLOR `0xAARRGGBB`, A = hemi.
    pub rgb_hemi: u32,
    /// Sun factor.
    pub sun: u8,
    /// Uninitialised padding (garbage in real files; kept).
    pub pad: [u8; 3],
}

/// One detail patch sprite of `OGF_DPATCH` (32 bytes, xr_3da `FDetailPatch.h` `b4385f03b0`:
/// `#pragma pack(push,4) struct DPatch { Fvector P; Fvector N; float S; DWORD C; }`). The engine
/// draws it as a screen-facing square of half-size `S` (world units) around `P`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DPatch {
    /// Centre (X-Ray space).
    pub position: [f32; 3],
    /// Normal of the surface it grows on.
    pub normal: [f32; 3],
    /// Half-size in world units.
    pub size: f32,
    /// D3DCOLOR `0xAARRGGBB`.
    pub color: u32,
}

/// One detail level of an `OGF_P_LODS` chunk: its own chunk list (`OGF_VCONTAINER` or
/// `OGF_VERTICES`, and `OGF_INDICES`).
pub type Lod = Vec<Framed<OgfChunk>>;

/// A chunk of a visual.
#[derive(Clone, Debug, PartialEq)]
pub enum OgfChunk {
    /// 1.
    Header(OgfHeader),
    /// 2.
    Texture {
        /// Texture name (no NUL).
        texture: Vec<u8>,
        /// Shader name (no NUL).
        shader: Vec<u8>,
    },
    /// 6.
    SwiData(SwiItem),
    /// 10.
    Children(Vec<u32>),
    /// 11: eight quads of four vertices.
    LodDef(Vec<[LodVertex; 4]>),
    /// 12.
    TreeDef(TreeDef),
    /// 20.
    SwiContainer(u32),
    /// 21.
    GContainer(GContainer),
    /// 22: nested chunks.
    FastPath(Vec<Framed<OgfChunk>>),
    /// `OGF_CHILDREN_L` with `u16` entries (build 2215), values widened.
    ChildrenNarrow(Vec<u32>),
    /// OGF 2/3 header (4 bytes and whatever follows, kept).
    ShortHeader {
        /// Format (3 or 2).
        format_version: u8,
        /// Model type ([`model_type_v3`] for format 3).
        model_type: u8,
        /// Shader id (index into the shader table from XRLC 12; overridden by
        /// `OGF_TEXTURE_L` before).
        shader_id: u16,
        /// Bytes after the 4 (none in known files).
        rest: Vec<u8>,
    },
    /// OGF 2/3 `OGF_TEXTURE_L`: indices into the level's texture and shader tables.
    TextureL {
        /// Texture index.
        texture: u32,
        /// Shader index.
        shader: u32,
    },
    /// OGF 2/3 `OGF_BBOX`.
    Bbox {
        /// Minimum.
        min: [f32; 3],
        /// Maximum.
        max: [f32; 3],
    },
    /// OGF 2/3 `OGF_BSPHERE`.
    BSphere {
        /// Centre.
        center: [f32; 3],
        /// Radius.
        radius: f32,
    },
    /// OGF 3 `OGF_VERTICES`: the visual's own FVF vertices.
    Vertices(FvfBuffer),
    /// OGF 2/3 `OGF_INDICES`: the visual's own indices.
    Indices(Vec<u16>),
    /// OGF 2/3 `OGF_VCONTAINER`: `(vb_index, vb_offset, vb_count)`.
    VContainer([u32; 3]),
    /// OGF 3 `OGF_ICONTAINER`: `(ib_index, ib_offset, ib_count)`.
    IContainer([u32; 3]),
    /// `OGF_LODDEF2` before XRLC 11: 24-byte vertices (`sun` reads 255, `pad` 0; not stored).
    LodDefOld(Vec<[LodVertex; 4]>),
    /// `OGF_TREEDEF2` before XRLC 11: `c_scale`/`c_bias` without sun (slot 4 reads 1 / 0; not
    /// stored).
    TreeDefOld(TreeDef),
    /// OGF 3 `OGF_DPATCH`: detail patch sprites.
    DPatches(Vec<DPatch>),
    /// OGF 3 `OGF_P_LODS`: the detail levels of a progressive-strips visual, coarsest first
    /// (the nested chunk ids are the level numbers 0, 1, …).
    PLods(Vec<Framed<Lod>>),
    /// `OGF_TREEDEF2` of xrLC 2003-09-02 to 2003-09-08 (112 bytes): each colour written as
    /// the whole `base_color {Fvector rgb; float hemi; float sun; float _tmp_}`
    /// (xrLC/OGF_Face_Save.cpp `3d8b88e0f9` `fs.w(&c_scale, sizeof(c_scale))`; xrLC/xrFace.h);
    /// the two `_tmp_` words (after scale, after bias) kept verbatim.
    TreeDefTmp(TreeDef, [[u8; 4]; 2]),
    /// Unknown, verbatim.
    Raw(Vec<u8>),
}

/// A visual: its chunks in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct Visual {
    /// The chunks.
    pub chunks: Vec<Framed<OgfChunk>>,
}

fn f3(r: &mut Reader<'_>) -> Result<[f32; 3], ReadError> {
    r.f32s::<3>()
}

/// How a visual's chunks are read: its OGF format and the level's XRLC version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Dialect {
    format: u8,
    version: u16,
    /// Inside `OGF_FASTPATH` or an `OGF_P_LODS` level: those chunks do not nest again (a
    /// nested one is kept raw), which bounds the recursion on hostile input.
    nested: bool,
}

impl Dialect {
    fn context(self) -> Context {
        match self.format {
            3 => Context::VisualV3,
            2 => Context::VisualV2,
            _ => Context::Visual,
        }
    }
}

fn read_lod(r: &mut Reader<'_>, with_sun: bool) -> Result<Vec<[LodVertex; 4]>, ReadError> {
    let mut quads = Vec::with_capacity(8);
    for q in 0..8 {
        r.push("quad", Some(q));
        let mut vs = [LodVertex {
            pos: [0.0; 3],
            uv: [0.0; 2],
            rgb_hemi: 0,
            sun: 255,
            pad: [0; 3],
        }; 4];
        for v in &mut vs {
            v.pos = f3(r)?;
            v.uv = r.f32s::<2>()?;
            v.rgb_hemi = r.u32()?;
            if with_sun {
                v.sun = r.u8()?;
                v.pad = r.array::<3>()?;
            }
        }
        quads.push(vs);
        r.pop();
    }
    Ok(quads)
}

/// `OGF_LODDEF2` with 24-byte vertices: 8 quads × 4 × 24.
const LOD_OLD_SIZE: usize = 8 * 4 * 24;
/// `OGF_LODDEF2` with 28-byte vertices: 8 quads × 4 × 28.
const LOD_SIZE: usize = 8 * 4 * 28;

/// `OGF_CHILDREN_L`: a u32 count of u32 indices, or of u16 indices when the size says so.
fn read_children(r: &mut Reader<'_>) -> Result<OgfChunk, ReadError> {
    let at = r.pos();
    let n = r.u32()?;
    if u64::from(n) * 2 == r.remaining() as u64 && n > 0 {
        let mut v = Vec::with_capacity(n as usize);
        for _ in 0..n {
            v.push(u32::from(r.u16()?));
        }
        return Ok(OgfChunk::ChildrenNarrow(v));
    }
    let n = r.count(n, 4).map_err(|mut e| {
        e.offset = at as u64;
        e
    })?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(r.u32()?);
    }
    Ok(OgfChunk::Children(v))
}

/// `OGF_LODDEF2`, by the chunk's size (issue 22): the LOD vertex grew from 24 to 28 bytes
/// (sun + pad) on 2003-09-05, within XRLC 11 (xrLC/OGF_Face_Save.cpp; xray_re reads 28 from
/// 11).
fn read_lod_def(r: &mut Reader<'_>) -> Result<OgfChunk, ReadError> {
    match r.remaining() {
        LOD_OLD_SIZE => Ok(OgfChunk::LodDefOld(read_lod(r, false)?)),
        LOD_SIZE => Ok(OgfChunk::LodDef(read_lod(r, true)?)),
        n => Err(r.invalid(format!(
            "OGF_LODDEF2 of {n} bytes: 8 quads of 24-byte (to 2003-09-04, {LOD_OLD_SIZE}) or \
             28-byte vertices ({LOD_SIZE}) are known"
        ))),
    }
}

/// `OGF_TREEDEF2` by size: 96 (rgb+hemi colours) to 2003-09-01, 112 (whole base_color with
/// _tmp_) 2003-09-02..08, 104 (5 floats each) from 2003-09-09 (xrLC/OGF_Face_Save.cpp).
fn read_tree_def(r: &mut Reader<'_>) -> Result<OgfChunk, ReadError> {
    match r.remaining() {
        112 => {
            let xform = r.f32s::<16>()?;
            let c_scale = r.f32s::<5>()?;
            let t0 = r.array::<4>()?;
            let c_bias = r.f32s::<5>()?;
            let t1 = r.array::<4>()?;
            Ok(OgfChunk::TreeDefTmp(
                TreeDef {
                    xform,
                    c_scale,
                    c_bias,
                },
                [t0, t1],
            ))
        }
        96 => {
            let xform = r.f32s::<16>()?;
            let s = r.f32s::<4>()?;
            let b = r.f32s::<4>()?;
            Ok(OgfChunk::TreeDefOld(TreeDef {
                xform,
                c_scale: [s[0], s[1], s[2], s[3], 1.0],
                c_bias: [b[0], b[1], b[2], b[3], 0.0],
            }))
        }
        104 => Ok(OgfChunk::TreeDef(TreeDef {
            xform: r.f32s::<16>()?,
            c_scale: r.f32s::<5>()?,
            c_bias: r.f32s::<5>()?,
        })),
        n => Err(r.invalid(format!(
            "OGF_TREEDEF2 of {n} bytes: 96, 112 and 104 are known"
        ))),
    }
}

/// The 32-byte detail patch records filling the chunk.
fn read_dpatches(r: &mut Reader<'_>) -> Result<Vec<DPatch>, ReadError> {
    let n = r.remaining() / 32;
    let mut v = Vec::with_capacity(n);
    for k in 0..n {
        r.push("patch", Some(k));
        v.push(DPatch {
            position: f3(r)?,
            normal: f3(r)?,
            size: r.f32()?,
            color: r.u32()?,
        });
        r.pop();
    }
    Ok(v)
}

fn read_chunk(d: Dialect, id: u32, r: &mut Reader<'_>) -> Result<OgfChunk, ReadError> {
    let c = match kind_of_in(d.format, d.version, id) {
        Some(Kind::Header) if d.format < 4 => OgfChunk::ShortHeader {
            format_version: r.u8()?,
            model_type: r.u8()?,
            shader_id: r.u16()?,
            rest: r.take_rest().to_vec(),
        },
        Some(Kind::Header) => OgfChunk::Header(OgfHeader {
            format_version: r.u8()?,
            model_type: r.u8()?,
            shader_id: r.u16()?,
            bbox_min: f3(r)?,
            bbox_max: f3(r)?,
            sphere_center: f3(r)?,
            sphere_radius: r.f32()?,
        }),
        Some(Kind::Texture) => OgfChunk::Texture {
            texture: r.cstr()?.to_vec(),
            shader: r.cstr()?.to_vec(),
        },
        Some(Kind::SwiData) if d.format == 4 => OgfChunk::SwiData(SwiItem::read(r)?),
        Some(Kind::ChildrenL) => read_children(r)?,
        Some(Kind::LodDef) => read_lod_def(r)?,
        Some(Kind::TreeDef) => read_tree_def(r)?,
        Some(Kind::SwiContainer) => OgfChunk::SwiContainer(r.u32()?),
        Some(Kind::GContainer) => OgfChunk::GContainer(GContainer {
            vb_index: r.u32()?,
            vb_offset: r.u32()?,
            vb_count: r.u32()?,
            ib_index: r.u32()?,
            ib_offset: r.u32()?,
            ib_count: r.u32()?,
        }),
        Some(Kind::FastPath) if !d.nested => {
            OgfChunk::FastPath(read_chunks(Dialect { nested: true, ..d }, r)?)
        }
        Some(Kind::TextureL) => OgfChunk::TextureL {
            texture: r.u32()?,
            shader: r.u32()?,
        },
        Some(Kind::Bbox) => OgfChunk::Bbox {
            min: f3(r)?,
            max: f3(r)?,
        },
        Some(Kind::BSphere) => OgfChunk::BSphere {
            center: f3(r)?,
            radius: r.f32()?,
        },
        Some(Kind::Vertices) => OgfChunk::Vertices(FvfBuffer::read(r)?),
        Some(Kind::Indices) => {
            let k = r.u32_count(2)?;
            let mut v = Vec::with_capacity(k);
            for _ in 0..k {
                v.push(r.u16()?);
            }
            OgfChunk::Indices(v)
        }
        Some(Kind::VContainer) => OgfChunk::VContainer([r.u32()?, r.u32()?, r.u32()?]),
        Some(Kind::IContainer) => OgfChunk::IContainer([r.u32()?, r.u32()?, r.u32()?]),
        // the engine asserts a whole number of 32-byte records; another size stays raw
        Some(Kind::DPatch) if r.remaining() % 32 == 0 => OgfChunk::DPatches(read_dpatches(r)?),
        Some(Kind::PLods) if !d.nested => {
            let inner = Dialect { nested: true, ..d };
            OgfChunk::PLods(chunk::read_all(r, Context::Lods, |_, b| {
                read_chunks(inner, b)
            })?)
        }
        _ => OgfChunk::Raw(r.take_rest().to_vec()),
    };
    r.finish()?;
    Ok(c)
}

fn read_chunks(d: Dialect, r: &mut Reader<'_>) -> Result<Vec<Framed<OgfChunk>>, ReadError> {
    chunk::read_all(r, d.context(), |h, b| read_chunk(d, h.id(), b))
}

fn cstr(w: &mut Writer, field: &str, s: &[u8]) -> Result<(), WriteError> {
    if let Some(k) = s.iter().position(|&b| b == 0) {
        return Err(WriteError::invalid(
            field,
            format!("has a NUL byte at {k}; the name is stored NUL-terminated"),
        ));
    }
    w.bytes(s);
    w.u8(0);
    Ok(())
}

fn write_chunk(c: &OgfChunk, w: &mut Writer) -> Result<(), WriteError> {
    match c {
        OgfChunk::Header(h) => {
            w.u8(h.format_version);
            w.u8(h.model_type);
            w.u16(h.shader_id);
            w.f32s(&h.bbox_min);
            w.f32s(&h.bbox_max);
            w.f32s(&h.sphere_center);
            w.f32(h.sphere_radius);
        }
        OgfChunk::Texture { texture, shader } => {
            cstr(w, "texture", texture)?;
            cstr(w, "shader", shader)?;
        }
        OgfChunk::SwiData(s) => s.write(w)?,
        OgfChunk::Children(v) => {
            w.u32(fit(v.len(), || "child count".into())?);
            for &i in v {
                w.u32(i);
            }
        }
        OgfChunk::LodDef(quads) => {
            if quads.len() != 8 {
                return Err(WriteError::invalid(
                    "quads",
                    format!("{} quads; OGF_LODDEF2 holds exactly 8", quads.len()),
                ));
            }
            for q in quads {
                for v in q {
                    w.f32s(&v.pos);
                    w.f32s(&v.uv);
                    w.u32(v.rgb_hemi);
                    w.u8(v.sun);
                    w.bytes(&v.pad);
                }
            }
        }
        OgfChunk::TreeDef(t) => {
            w.f32s(&t.xform);
            w.f32s(&t.c_scale);
            w.f32s(&t.c_bias);
        }
        OgfChunk::SwiContainer(i) => w.u32(*i),
        OgfChunk::GContainer(g) => {
            for x in [
                g.vb_index,
                g.vb_offset,
                g.vb_count,
                g.ib_index,
                g.ib_offset,
                g.ib_count,
            ] {
                w.u32(x);
            }
        }
        OgfChunk::FastPath(cs) => write_chunks(cs, w)?,
        OgfChunk::ChildrenNarrow(v) => {
            w.u32(fit(v.len(), || "child count".into())?);
            for &i in v {
                w.u16(fit(i as usize, || "child index (stored as u16)".into())?);
            }
        }
        OgfChunk::ShortHeader {
            format_version,
            model_type,
            shader_id,
            rest,
        } => {
            w.u8(*format_version);
            w.u8(*model_type);
            w.u16(*shader_id);
            w.bytes(rest);
        }
        OgfChunk::TextureL { texture, shader } => {
            w.u32(*texture);
            w.u32(*shader);
        }
        OgfChunk::Bbox { min, max } => {
            w.f32s(min);
            w.f32s(max);
        }
        OgfChunk::BSphere { center, radius } => {
            w.f32s(center);
            w.f32(*radius);
        }
        OgfChunk::Vertices(vb) => vb.write(w)?,
        OgfChunk::Indices(v) => {
            w.u32(fit(v.len(), || "index count".into())?);
            for &x in v {
                w.u16(x);
            }
        }
        OgfChunk::VContainer(c) | OgfChunk::IContainer(c) => {
            for &x in c {
                w.u32(x);
            }
        }
        OgfChunk::LodDefOld(quads) => {
            if quads.len() != 8 {
                return Err(WriteError::invalid(
                    "quads",
                    format!("{} quads; OGF_LODDEF2 holds exactly 8", quads.len()),
                ));
            }
            for q in quads {
                for v in q {
                    w.f32s(&v.pos);
                    w.f32s(&v.uv);
                    w.u32(v.rgb_hemi);
                }
            }
        }
        OgfChunk::TreeDefOld(t) => {
            w.f32s(&t.xform);
            w.f32s(&t.c_scale[..4]);
            w.f32s(&t.c_bias[..4]);
        }
        OgfChunk::DPatches(v) => {
            for p in v {
                w.f32s(&p.position);
                w.f32s(&p.normal);
                w.f32(p.size);
                w.u32(p.color);
            }
        }
        OgfChunk::PLods(lods) => {
            for l in lods {
                chunk::write_framed(w, Context::Lods, l, |cs, w| write_chunks(cs, w))?;
            }
        }
        OgfChunk::TreeDefTmp(t, tmp) => {
            w.f32s(&t.xform);
            w.f32s(&t.c_scale);
            w.bytes(&tmp[0]);
            w.f32s(&t.c_bias);
            w.bytes(&tmp[1]);
        }
        OgfChunk::Raw(b) => w.bytes(b),
    }
    Ok(())
}

fn write_chunks(cs: &[Framed<OgfChunk>], w: &mut Writer) -> Result<(), WriteError> {
    for c in cs {
        chunk::write_framed(w, Context::Visual, c, write_chunk)?;
    }
    Ok(())
}

impl Visual {
    /// Parse a visual's payload (OGF 4 of an XRLC 13/14 level).
    pub fn read(r: &mut Reader<'_>) -> Result<Visual, ReadError> {
        Self::read_in(r, 14)
    }

    /// Parse a visual's payload in a level of XRLC `version`; the OGF format (and with it the
    /// chunk ids) comes from the visual's own `OGF_HEADER`.
    pub fn read_in(r: &mut Reader<'_>, version: u16) -> Result<Visual, ReadError> {
        let format = match chunk::refine(Context::Visual, r.rest()) {
            Context::VisualV3 => 3,
            Context::VisualV2 => 2,
            _ => 4,
        };
        Ok(Visual {
            chunks: read_chunks(
                Dialect {
                    format,
                    version,
                    nested: false,
                },
                r,
            )?,
        })
    }

    /// Serialise the payload; errors name the field inside the visual (`OGF_TEXTURE/texture`).
    pub fn write(&self, w: &mut Writer) -> Result<(), WriteError> {
        write_chunks(&self.chunks, w)
    }

    fn find<T>(&self, f: impl Fn(&OgfChunk) -> Option<T>) -> Option<T> {
        self.chunks.iter().find_map(|c| f(&c.value))
    }

    /// The header.
    pub fn header(&self) -> Option<OgfHeader> {
        self.find(|c| match c {
            OgfChunk::Header(h) => Some(*h),
            _ => None,
        })
    }

    /// OGF format 2/3 header fields `(format, model_type, shader_id)`, if this is such a visual.
    pub fn short_header(&self) -> Option<(u8, u8, u16)> {
        self.find(|c| match c {
            OgfChunk::ShortHeader {
                format_version,
                model_type,
                shader_id,
                ..
            } => Some((*format_version, *model_type, *shader_id)),
            _ => None,
        })
    }

    /// The first chunk of this visual `f` picks out.
    pub fn find_chunk<T>(&self, f: impl Fn(&OgfChunk) -> Option<T>) -> Option<T> {
        self.find(f)
    }

    /// The engine's name of this visual's type, for OGF 4 and (through
    /// [`model_type_v3::to_v4`]) OGF 2/3 headers alike: `normal`, `tree_st`, … (`unknown`);
    /// OGF 3's own types 6 and 10 are `detail_patch` and `progressive_strips`.
    pub fn type_name(&self) -> &'static str {
        match (self.header(), self.short_header()) {
            (Some(h), _) => model_type::name(h.model_type),
            (None, Some((3, model_type_v3::DETAIL_PATCH, _))) => "detail_patch",
            (None, Some((3, model_type_v3::PROGRESSIVE2, _))) => "progressive_strips",
            (None, Some((3, t, _))) => model_type::name(model_type_v3::to_v4(t)),
            (None, Some((_, t, _))) => model_type::name(t),
            _ => "unknown",
        }
    }

    /// The model type (from the header), if any.
    pub fn model_type(&self) -> Option<u8> {
        self.header().map(|h| h.model_type)
    }

    /// The geometry range into level.geom.
    pub fn gcontainer(&self) -> Option<GContainer> {
        self.find(|c| match c {
            OgfChunk::GContainer(g) => Some(*g),
            _ => None,
        })
    }

    /// The geometry range into level.geomx (inside FASTPATH).
    pub fn fastpath(&self) -> Option<GContainer> {
        self.find(|c| match c {
            OgfChunk::FastPath(cs) => cs.iter().find_map(|c| match c.value {
                OgfChunk::GContainer(g) => Some(g),
                _ => None,
            }),
            _ => None,
        })
    }

    /// Sliding windows of the fast-path geometry (OGF_SWIDATA inside OGF_FASTPATH).
    pub fn fastpath_swidata(&self) -> Option<&SwiItem> {
        self.chunks.iter().find_map(|c| match &c.value {
            OgfChunk::FastPath(cs) => cs.iter().find_map(|c| match &c.value {
                OgfChunk::SwiData(s) => Some(s),
                _ => None,
            }),
            _ => None,
        })
    }

    /// Inline sliding windows (MT_PROGRESSIVE).
    pub fn swidata(&self) -> Option<&SwiItem> {
        self.chunks.iter().find_map(|c| match &c.value {
            OgfChunk::SwiData(s) => Some(s),
            _ => None,
        })
    }

    /// Index into level.geom's SWIS (MT_TREE_PM).
    pub fn swi_container(&self) -> Option<u32> {
        self.find(|c| match c {
            OgfChunk::SwiContainer(i) => Some(*i),
            _ => None,
        })
    }

    /// The tree instance definition.
    pub fn treedef(&self) -> Option<TreeDef> {
        self.find(|c| match c {
            OgfChunk::TreeDef(t) | OgfChunk::TreeDefOld(t) | OgfChunk::TreeDefTmp(t, _) => Some(*t),
            _ => None,
        })
    }

    /// Child visual indices.
    pub fn children(&self) -> &[u32] {
        self.chunks
            .iter()
            .find_map(|c| match &c.value {
                OgfChunk::Children(v) | OgfChunk::ChildrenNarrow(v) => Some(v.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// LOD billboard quads.
    pub fn lod_quads(&self) -> Option<&[[LodVertex; 4]]> {
        self.chunks.iter().find_map(|c| match &c.value {
            OgfChunk::LodDef(q) | OgfChunk::LodDefOld(q) => Some(q.as_slice()),
            _ => None,
        })
    }
}
