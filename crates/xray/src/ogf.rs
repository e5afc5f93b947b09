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
//! Unknown chunks (e.g. the junk chunks of build-2215 levels) are kept raw.

use levelgeom_binary::{fit, ReadError, Reader, WriteError, Writer};

use crate::chunk::{self, Context, Framed};
use crate::geom::SwiItem;

/// `OGF_HEADER`.
pub const HEADER: u32 = 1;
/// `OGF_TEXTURE`.
pub const TEXTURE: u32 = 2;
/// `OGF_SWIDATA`.
pub const SWIDATA: u32 = 6;
/// `OGF_CHILDREN_L`.
pub const CHILDREN_L: u32 = 10;
/// `OGF_LODDEF2`.
pub const LODDEF2: u32 = 11;
/// `OGF_TREEDEF2`.
pub const TREEDEF2: u32 = 12;
/// `OGF_SWICONTAINER`.
pub const SWICONTAINER: u32 = 20;
/// `OGF_GCONTAINER`.
pub const GCONTAINER: u32 = 21;
/// `OGF_FASTPATH`.
pub const FASTPATH: u32 = 22;

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

fn read_chunk(id: u32, r: &mut Reader<'_>) -> Result<OgfChunk, ReadError> {
    let c = match id {
        HEADER => OgfChunk::Header(OgfHeader {
            format_version: r.u8()?,
            model_type: r.u8()?,
            shader_id: r.u16()?,
            bbox_min: f3(r)?,
            bbox_max: f3(r)?,
            sphere_center: f3(r)?,
            sphere_radius: r.f32()?,
        }),
        TEXTURE => OgfChunk::Texture {
            texture: r.cstr()?.to_vec(),
            shader: r.cstr()?.to_vec(),
        },
        SWIDATA => OgfChunk::SwiData(SwiItem::read(r)?),
        CHILDREN_L => {
            let n = r.u32_count(4)?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(r.u32()?);
            }
            OgfChunk::Children(v)
        }
        LODDEF2 => {
            let mut quads = Vec::with_capacity(8);
            for q in 0..8 {
                r.push("quad", Some(q));
                let mut vs = [LodVertex {
                    pos: [0.0; 3],
                    uv: [0.0; 2],
                    rgb_hemi: 0,
                    sun: 0,
                    pad: [0; 3],
                }; 4];
                for v in &mut vs {
                    v.pos = f3(r)?;
                    v.uv = r.f32s::<2>()?;
                    v.rgb_hemi = r.u32()?;
                    v.sun = r.u8()?;
                    v.pad = r.array::<3>()?;
                }
                quads.push(vs);
                r.pop();
            }
            OgfChunk::LodDef(quads)
        }
        TREEDEF2 => OgfChunk::TreeDef(TreeDef {
            xform: r.f32s::<16>()?,
            c_scale: r.f32s::<5>()?,
            c_bias: r.f32s::<5>()?,
        }),
        SWICONTAINER => OgfChunk::SwiContainer(r.u32()?),
        GCONTAINER => OgfChunk::GContainer(GContainer {
            vb_index: r.u32()?,
            vb_offset: r.u32()?,
            vb_count: r.u32()?,
            ib_index: r.u32()?,
            ib_offset: r.u32()?,
            ib_count: r.u32()?,
        }),
        FASTPATH => OgfChunk::FastPath(read_chunks(r)?),
        _ => OgfChunk::Raw(r.take_rest().to_vec()),
    };
    r.finish()?;
    Ok(c)
}

fn read_chunks(r: &mut Reader<'_>) -> Result<Vec<Framed<OgfChunk>>, ReadError> {
    chunk::read_all(r, Context::Visual, |h, b| read_chunk(h.id(), b))
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
    /// Parse a visual's payload.
    pub fn read(r: &mut Reader<'_>) -> Result<Visual, ReadError> {
        Ok(Visual {
            chunks: read_chunks(r)?,
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
            OgfChunk::TreeDef(t) => Some(*t),
            _ => None,
        })
    }

    /// Child visual indices.
    pub fn children(&self) -> &[u32] {
        self.chunks
            .iter()
            .find_map(|c| match &c.value {
                OgfChunk::Children(v) => Some(v.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// LOD billboard quads.
    pub fn lod_quads(&self) -> Option<&[[LodVertex; 4]]> {
        self.chunks.iter().find_map(|c| match &c.value {
            OgfChunk::LodDef(q) => Some(q.as_slice()),
            _ => None,
        })
    }
}
