//! `level.geom` and `level.geomx` (XRLC versions 13 and 14): the shared vertex and index buffers
//! that the `level` file's visuals point into. (Up to XRLC 12 the same buffers live inside
//! `level` itself, [`crate::level`]; their readers and writers here serve both.)
//!
//! Top-level chunks, in xrLC's order:
//!
//! | id | name | payload |
//! |---|---|---|
//! | 1 | `fsL_HEADER` | `u16 version; u16 quality` (quality is not set by xrLC for geom; kept raw) |
//! | 9 | `fsL_VB` | `u32 n`; n × { declaration (8-byte elements + `D3DDECL_END`), `u32 vertex_count`, `vertex_count × stride` bytes } |
//! | 10 | `fsL_IB` | `u32 n`; n × { `u32 index_count`, `index_count × u16` } |
//! | 11 | `fsL_SWIS` | `u32 n`; n × { `u32 reserved[4]`, `u32 count`, count × { `u32 offset; u16 num_tris; u16 num_verts` } } |
//!
//! Other chunks are kept raw. Vertices stay as raw bytes (byte-exact by construction); decode
//! them with [`VertexBuffer::decode`]. Indices are [`IndexData`]: `u16`s, borrowed from the file
//! in place when it is read shared ([`Geom::read_shared`]).

use std::ops::Range;
use std::sync::Arc;

use levelgeom_binary::{fit, Limits, ReadError, Reader, Warning, WriteError, Writer};

use crate::chunk::{self, Context, Framed};
use crate::decl::Declaration;
use crate::index_data::IndexData;
use crate::vertex::{self, Vertices};
use crate::vertex_data::VertexData;

pub use super::ids::geom::*;

/// xrLC splits vertex buffers at this many vertices (u16 indices).
pub const MAX_VB_VERTICES: usize = 65_535;

/// `hdrLEVEL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// XRLC version (14 in release games, 13 in early 2005 builds).
    pub version: u16,
    /// Build quality (0 draft, 1 high, 2 custom); uninitialised in geom files.
    pub quality: u16,
}

impl Header {
    /// Read the 4-byte payload.
    pub fn read(r: &mut Reader<'_>) -> Result<Header, ReadError> {
        let h = Header {
            version: r.u16()?,
            quality: r.u16()?,
        };
        r.finish()?;
        Ok(h)
    }

    /// Write the payload.
    pub fn write(&self, w: &mut Writer) {
        w.u16(self.version);
        w.u16(self.quality);
    }
}

/// One vertex buffer: its declaration and raw vertices.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexBuffer {
    /// The vertex declaration.
    pub decl: Declaration,
    /// Number of vertices.
    pub count: u32,
    /// `count × stride` raw bytes (a shared range of the file when read with
    /// [`Geom::read_shared`]).
    pub data: VertexData,
}

impl VertexBuffer {
    /// Build a buffer by encoding decoded vertices; more than `u32::MAX` vertices (or more
    /// bytes than memory can address) is an error naming `vertex count`.
    pub fn encode(decl: Declaration, v: &Vertices) -> Result<VertexBuffer, WriteError> {
        let count: u32 = fit(v.count, || "vertex count".into())?;
        if v.count.checked_mul(decl.stride()).is_none() {
            return Err(WriteError::invalid(
                "vertex count",
                format!("{} vertices × {} bytes overflow", v.count, decl.stride()),
            ));
        }
        let data = vertex::encode(&decl, v).into();
        Ok(VertexBuffer { decl, count, data })
    }

    /// Write declaration, count and vertex bytes (the bytes must be `count × stride`).
    pub fn write(&self, w: &mut Writer) -> Result<(), WriteError> {
        let expect = (self.count as usize).checked_mul(self.stride());
        if expect != Some(self.data.len()) {
            return Err(WriteError::invalid(
                "vertex data",
                format!(
                    "{} bytes, but {} vertices × {} bytes per vertex need {}",
                    self.data.len(),
                    self.count,
                    self.stride(),
                    u64::from(self.count) * self.stride() as u64
                ),
            ));
        }
        self.decl.write(w);
        w.u32(self.count);
        w.bytes(&self.data);
        Ok(())
    }

    /// Decode all vertices.
    pub fn decode(&self) -> Vertices {
        vertex::decode(&self.decl, &self.data)
    }

    /// Bytes per vertex.
    pub fn stride(&self) -> usize {
        self.decl.stride()
    }
}

/// `FSlideWindow`: one level of detail of a progressive mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlideWindow {
    /// First index of the window, in indices, relative to the visual's `ib_offset`.
    pub offset: u32,
    /// Triangles in the window.
    pub num_tris: u16,
    /// Vertices the window uses (a prefix of the visual's vertices).
    pub num_verts: u16,
}

/// `FSlideWindowItem`: the windows of one progressive mesh; `sw[0]` is full detail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwiItem {
    /// Four words xrLC never initialises; kept raw.
    pub reserved: [u32; 4],
    /// The windows.
    pub windows: Vec<SlideWindow>,
}

impl SwiItem {
    /// Read reserved words, count and windows.
    pub fn read(r: &mut Reader<'_>) -> Result<SwiItem, ReadError> {
        let reserved = [r.u32()?, r.u32()?, r.u32()?, r.u32()?];
        let n = r.u32_count(8)?;
        let mut windows = Vec::with_capacity(n);
        for i in 0..n {
            r.push("sw", Some(i));
            windows.push(SlideWindow {
                offset: r.u32()?,
                num_tris: r.u16()?,
                num_verts: r.u16()?,
            });
            r.pop();
        }
        Ok(SwiItem { reserved, windows })
    }

    /// Write it.
    pub fn write(&self, w: &mut Writer) -> Result<(), WriteError> {
        let n: u32 = fit(self.windows.len(), || "window count".into())?;
        for x in self.reserved {
            w.u32(x);
        }
        w.u32(n);
        for s in &self.windows {
            w.u32(s.offset);
            w.u16(s.num_tris);
            w.u16(s.num_verts);
        }
        Ok(())
    }
}

/// A top-level chunk of a geom file.
#[derive(Clone, Debug, PartialEq)]
pub enum GeomChunk {
    /// Chunk 1.
    Header(Header),
    /// Chunk 9.
    VertexBuffers(Vec<VertexBuffer>),
    /// Chunk 10 (each buffer a shared range of the file when read with
    /// [`Geom::read_shared`]).
    IndexBuffers(Vec<IndexData>),
    /// Chunk 11.
    Swis(Vec<SwiItem>),
    /// Anything else, verbatim.
    Raw(Vec<u8>),
}

/// A whole `level.geom` or `level.geomx`.
#[derive(Clone, Debug, PartialEq)]
pub struct Geom {
    /// The chunks in file order.
    pub chunks: Vec<Framed<GeomChunk>>,
}

/// Read a `u32` count, then that many D3D9 vertex buffers (the payload of `fsL_VB`).
pub fn read_vbs(r: &mut Reader<'_>) -> Result<Vec<VertexBuffer>, ReadError> {
    read_vbs_in(r, None)
}

/// Where `part` lies inside `file`, when it is a part of it.
fn range_in(file: &[u8], part: &[u8]) -> Option<Range<usize>> {
    let (base, at) = (file.as_ptr() as usize, part.as_ptr() as usize);
    (at >= base && at + part.len() <= base + file.len()).then(|| at - base..at - base + part.len())
}

/// [`read_vbs`]; vertex bytes that lie in `file` (the reader reads it, not a decompressed
/// chunk) are shared with it instead of copied.
fn read_vbs_in(
    r: &mut Reader<'_>,
    file: Option<&Arc<Vec<u8>>>,
) -> Result<Vec<VertexBuffer>, ReadError> {
    let n = r.u32_count(12)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        r.push("vb", Some(i));
        let decl = Declaration::read(r)?;
        let stride = decl.stride();
        let at = r.pos();
        let count = r.u32()?;
        let len = r.count(count, stride).map_err(|mut e| {
            e.offset = at as u64;
            e
        })?;
        let raw = r.bytes(len * stride)?;
        let data = file
            .and_then(|f| VertexData::shared(f, range_in(f, raw)?))
            .unwrap_or_else(|| raw.to_vec().into());
        if stride == 0 && count > 0 {
            return Err(r.invalid_at(at, "vertices declared with a zero-byte stride"));
        }
        out.push(VertexBuffer { decl, count, data });
        r.pop();
    }
    r.finish()?;
    Ok(out)
}

/// Read a `u32` count, then that many index buffers (the payload of `fsL_IB`), each decoded
/// into indices of its own.
pub fn read_ibs(r: &mut Reader<'_>) -> Result<Vec<IndexData>, ReadError> {
    read_ibs_in(r, None)
}

/// [`read_ibs`]; indices that lie in `file` (the reader reads it, not a decompressed chunk)
/// are shared with it instead of copied, where they can be borrowed in place ([`IndexData`]).
fn read_ibs_in(
    r: &mut Reader<'_>,
    file: Option<&Arc<Vec<u8>>>,
) -> Result<Vec<IndexData>, ReadError> {
    let n = r.u32_count(4)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        r.push("ib", Some(i));
        let k = r.u32_count(2)?;
        let raw = r.bytes(k * 2)?;
        out.push(
            file.and_then(|f| IndexData::shared(f, range_in(f, raw)?))
                .unwrap_or_else(|| IndexData::from_le_bytes(raw)),
        );
        r.pop();
    }
    r.finish()?;
    Ok(out)
}

/// Read a `u32` count, then that many SWI items.
pub fn read_swis(r: &mut Reader<'_>) -> Result<Vec<SwiItem>, ReadError> {
    let n = r.u32_count(20)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        r.push("item", Some(i));
        out.push(SwiItem::read(r)?);
        r.pop();
    }
    r.finish()?;
    Ok(out)
}

impl Geom {
    /// Parse a whole file. Warnings are things tolerated on the way (none are known yet for
    /// geom files; the list is there so that callers treat every engine alike).
    pub fn read(bytes: &[u8]) -> Result<(Geom, Vec<Warning>), ReadError> {
        Self::read_with(bytes, Limits::DEFAULT)
    }

    /// [`Self::read`] with explicit allocation limits for compressed chunks.
    pub fn read_with(bytes: &[u8], limits: Limits) -> Result<(Geom, Vec<Warning>), ReadError> {
        Self::read_in(bytes, None, limits)
    }

    /// [`Self::read_with`] of a whole file held in an `Arc`: the vertex bytes and the indices
    /// stay in it (shared ranges, [`VertexData`] and [`IndexData`]) instead of being copied;
    /// same values, same errors.
    pub fn read_shared(
        file: &Arc<Vec<u8>>,
        limits: Limits,
    ) -> Result<(Geom, Vec<Warning>), ReadError> {
        Self::read_in(file, Some(file), limits)
    }

    fn read_in(
        bytes: &[u8],
        file: Option<&Arc<Vec<u8>>>,
        limits: Limits,
    ) -> Result<(Geom, Vec<Warning>), ReadError> {
        let mut r = Reader::with_limits(bytes, limits);
        let chunks = chunk::read_all(&mut r, Context::Geom, |h, b| {
            Ok(match h.id() {
                HEADER => GeomChunk::Header(Header::read(b)?),
                VB => GeomChunk::VertexBuffers(read_vbs_in(b, file)?),
                IB => GeomChunk::IndexBuffers(read_ibs_in(b, file)?),
                SWIS => GeomChunk::Swis(read_swis(b)?),
                _ => GeomChunk::Raw(b.take_rest().to_vec()),
            })
        })?;
        let g = Geom { chunks };
        if g.vertex_buffers().is_none() || g.index_buffers().is_none() {
            return Err(ReadError::invalid(
                0,
                Default::default(),
                "not a level.geom: vertex buffer chunk 9 or index buffer chunk 10 is missing",
            ));
        }
        Ok((g, Vec::new()))
    }

    /// Serialise (byte-exact for an unchanged parse). A count or size that does not fit its
    /// field is an error naming it (`fsL_IB/ib[2]/index count`).
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        // sized once: chunks are written in place, so the file is one allocation
        let mut w = Writer::with_capacity(self.size_hint());
        chunk::write_all_framed(&mut w, Context::Geom, &self.chunks, &[], |v, w| match v {
            GeomChunk::Header(h) => {
                h.write(w);
                Ok(())
            }
            GeomChunk::VertexBuffers(vbs) => write_vbs(w, vbs),
            GeomChunk::IndexBuffers(ibs) => write_ibs(w, ibs),
            GeomChunk::Swis(items) => write_swis(w, items),
            GeomChunk::Raw(b) => {
                w.bytes(b);
                Ok(())
            }
        })?;
        Ok(w.into_inner())
    }

    /// About the size of [`Self::to_bytes`] (exact for uncompressed chunks; compressed ones
    /// count their stored bytes).
    fn size_hint(&self) -> usize {
        self.chunks
            .iter()
            .map(|c| {
                8 + match &c.value {
                    _ if c.stored.is_some() => c.stored.as_ref().map_or(0, Vec::len),
                    GeomChunk::Header(_) => 4,
                    GeomChunk::VertexBuffers(vbs) => {
                        4 + vbs
                            .iter()
                            .map(|vb| 8 * vb.decl.elements.len() + 12 + vb.data.len())
                            .sum::<usize>()
                    }
                    GeomChunk::IndexBuffers(ibs) => {
                        4 + ibs.iter().map(|ib| 4 + 2 * ib.len()).sum::<usize>()
                    }
                    GeomChunk::Swis(items) => {
                        4 + items
                            .iter()
                            .map(|it| 20 + 8 * it.windows.len())
                            .sum::<usize>()
                    }
                    GeomChunk::Raw(b) => b.len(),
                }
            })
            .sum()
    }

    /// The header, if present.
    pub fn header(&self) -> Option<Header> {
        self.chunks.iter().find_map(|c| match c.value {
            GeomChunk::Header(h) => Some(h),
            _ => None,
        })
    }

    /// The vertex buffers.
    pub fn vertex_buffers(&self) -> Option<&[VertexBuffer]> {
        self.chunks.iter().find_map(|c| match &c.value {
            GeomChunk::VertexBuffers(v) => Some(v.as_slice()),
            _ => None,
        })
    }

    /// The index buffers.
    pub fn index_buffers(&self) -> Option<&[IndexData]> {
        self.chunks.iter().find_map(|c| match &c.value {
            GeomChunk::IndexBuffers(v) => Some(v.as_slice()),
            _ => None,
        })
    }

    /// The SWI items (empty when the chunk is absent).
    pub fn swis(&self) -> &[SwiItem] {
        self.chunks
            .iter()
            .find_map(|c| match &c.value {
                GeomChunk::Swis(v) => Some(v.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// Mutable vertex buffers.
    pub fn vertex_buffers_mut(&mut self) -> Option<&mut Vec<VertexBuffer>> {
        self.chunks.iter_mut().find_map(|c| match &mut c.value {
            GeomChunk::VertexBuffers(v) => Some(v),
            _ => None,
        })
    }
}

/// Write vertex buffers with their count (the payload of `fsL_VB`).
pub fn write_vbs(w: &mut Writer, vbs: &[VertexBuffer]) -> Result<(), WriteError> {
    w.u32(fit(vbs.len(), || "vertex buffer count".into())?);
    for (i, vb) in vbs.iter().enumerate() {
        vb.write(w).map_err(|e| e.within(&format!("vb[{i}]")))?;
    }
    Ok(())
}

/// Write index buffers with their count (the payload of `fsL_IB`).
pub fn write_ibs(w: &mut Writer, ibs: &[IndexData]) -> Result<(), WriteError> {
    w.u32(fit(ibs.len(), || "index buffer count".into())?);
    for (i, ib) in ibs.iter().enumerate() {
        w.u32(fit(ib.len(), || format!("ib[{i}]/index count"))?);
        ib.write(w);
    }
    Ok(())
}

/// Write a SWI item list with its count.
pub fn write_swis(w: &mut Writer, items: &[SwiItem]) -> Result<(), WriteError> {
    w.u32(fit(items.len(), || "item count".into())?);
    for (i, it) in items.iter().enumerate() {
        it.write(w).map_err(|e| e.within(&format!("item[{i}]")))?;
    }
    Ok(())
}
