//! `level` chunks 4 (portals) and 8 (sectors): the visibility structure.
//!
//! Chunk 4 `fsL_PORTALS` is an array of 80-byte `level_portal_data_t`:
//!
//! | offset | size | meaning |
//! |---|---|---|
//! | 0 | 2 | `u16 sector_front` |
//! | 2 | 2 | `u16 sector_back` |
//! | 4 | 72 | polygon: 6 × `f32 xyz` (unused slots as stored) |
//! | 76 | 4 | `u32` vertex count of the polygon |
//!
//! Chunk 8 `fsL_SECTORS` holds one nested chunk per sector (ids 0, 1, …), each with sub-chunk 1
//! `fsP_Portals` (`u16` portal ids) and sub-chunk 2 `fsP_Root` (`u32` root visual index).
//! Unknown sub-chunks (build 2215 has 3/4/5) are kept raw.

use levelgeom_binary::{ReadError, Reader, WriteError, Writer};

use crate::chunk::{self, Context, Framed};

/// A portal between two sectors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Portal {
    /// Sector on the front side.
    pub sector_front: u16,
    /// Sector on the back side.
    pub sector_back: u16,
    /// Polygon vertices (only the first `count` are used).
    pub poly: [[f32; 3]; 6],
    /// Number of used vertices.
    pub count: u32,
}

/// Read the portal array.
pub fn read_portals(r: &mut Reader<'_>) -> Result<Vec<Portal>, ReadError> {
    if r.remaining() % 80 != 0 {
        return Err(r.invalid(format!(
            "portal chunk of {} bytes is not a multiple of 80",
            r.remaining()
        )));
    }
    let mut v = Vec::with_capacity(r.remaining() / 80);
    while !r.is_empty() {
        let sector_front = r.u16()?;
        let sector_back = r.u16()?;
        let mut poly = [[0f32; 3]; 6];
        for p in &mut poly {
            *p = r.f32s::<3>()?;
        }
        v.push(Portal {
            sector_front,
            sector_back,
            poly,
            count: r.u32()?,
        });
    }
    Ok(v)
}

/// Read the XRLC 4/5 portal array: 80-byte records `u16 sector_front; u16 sector_back; u32
/// count; f32 poly[6][3]` (the count before the vertices; blender-xray's importer and xray_re's
/// `fsl_portal_v5` agree).
pub fn read_portals_v5(r: &mut Reader<'_>) -> Result<Vec<Portal>, ReadError> {
    if r.remaining() % 80 != 0 {
        return Err(r.invalid(format!(
            "portal chunk of {} bytes is not a multiple of 80",
            r.remaining()
        )));
    }
    let mut v = Vec::with_capacity(r.remaining() / 80);
    while !r.is_empty() {
        let sector_front = r.u16()?;
        let sector_back = r.u16()?;
        let count = r.u32()?;
        let mut poly = [[0f32; 3]; 6];
        for p in &mut poly {
            *p = r.f32s::<3>()?;
        }
        v.push(Portal {
            sector_front,
            sector_back,
            poly,
            count,
        });
    }
    Ok(v)
}

/// Write the XRLC 4/5 portal array (see [`read_portals_v5`]).
pub fn write_portals_v5(v: &[Portal], w: &mut Writer) {
    for p in v {
        w.u16(p.sector_front);
        w.u16(p.sector_back);
        w.u32(p.count);
        for q in &p.poly {
            w.f32s(q);
        }
    }
}

/// Write the portal array.
pub fn write_portals(v: &[Portal], w: &mut Writer) {
    for p in v {
        w.u16(p.sector_front);
        w.u16(p.sector_back);
        for q in &p.poly {
            w.f32s(q);
        }
        w.u32(p.count);
    }
}

/// A sector sub-chunk.
#[derive(Clone, Debug, PartialEq)]
pub enum SectorChunk {
    /// 1: portal ids.
    Portals(Vec<u16>),
    /// 2: root visual index.
    Root(u32),
    /// Unknown, verbatim.
    Raw(Vec<u8>),
}

/// One sector: its sub-chunks in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct Sector {
    /// Sub-chunks.
    pub chunks: Vec<Framed<SectorChunk>>,
}

impl Sector {
    /// The root visual index.
    pub fn root(&self) -> Option<u32> {
        self.chunks.iter().find_map(|c| match c.value {
            SectorChunk::Root(r) => Some(r),
            _ => None,
        })
    }

    /// The portal ids.
    pub fn portals(&self) -> &[u16] {
        self.chunks
            .iter()
            .find_map(|c| match &c.value {
                SectorChunk::Portals(p) => Some(p.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }
}

/// Read the sectors chunk.
pub fn read_sectors(r: &mut Reader<'_>) -> Result<Vec<Framed<Sector>>, ReadError> {
    chunk::read_all(r, Context::Sectors, |_, b| {
        let chunks = chunk::read_all(b, Context::Sector, |h, s| {
            Ok(match h.id() {
                1 => {
                    if s.remaining() % 2 != 0 {
                        return Err(s.invalid("odd-sized portal list"));
                    }
                    let mut v = Vec::with_capacity(s.remaining() / 2);
                    while !s.is_empty() {
                        v.push(s.u16()?);
                    }
                    SectorChunk::Portals(v)
                }
                2 => {
                    let v = s.u32()?;
                    s.finish()?;
                    SectorChunk::Root(v)
                }
                _ => SectorChunk::Raw(s.take_rest().to_vec()),
            })
        })?;
        Ok(Sector { chunks })
    })
}

/// Write the sectors chunk payload.
pub fn write_sectors(v: &[Framed<Sector>], w: &mut Writer) -> Result<(), WriteError> {
    for s in v {
        chunk::write_framed(w, Context::Sectors, s, |s, w| {
            for c in &s.chunks {
                chunk::write_framed(w, Context::Sector, c, |c, w| {
                    match c {
                        SectorChunk::Portals(p) => {
                            for &x in p {
                                w.u16(x);
                            }
                        }
                        SectorChunk::Root(r) => w.u32(*r),
                        SectorChunk::Raw(b) => w.bytes(b),
                    }
                    Ok(())
                })?;
            }
            Ok(())
        })?;
    }
    Ok(())
}
