//! Direct3D 7 flexible vertex formats (FVF): the vertex buffers of xrLC builds 4–9.
//!
//! An old vertex buffer is `u32 fvf; u32 vertex_count; vertex_count × stride bytes`, the layout
//! of each vertex given by the FVF bits, in this fixed order:
//!
//! | bits | element | bytes |
//! |---|---|---|
//! | `0x00E` = 0x002 `XYZ` / 0x004 `XYZRHW` / 0x006..0x00E `XYZB1..5` | position (+ RHW, + 1–5 blend weights) | 12 / 16 / 12 + 4k |
//! | 0x010 `NORMAL` | f32 × 3 | 12 |
//! | 0x020 `PSIZE` | f32 | 4 |
//! | 0x040 `DIFFUSE` | D3DCOLOR (bytes B, G, R, A) | 4 |
//! | 0x080 `SPECULAR` | D3DCOLOR | 4 |
//! | 0xF00 `TEXCOUNT` (>> 8) | that many texture coordinate sets | 8 each by default |
//! | bits 16 + 2i (`D3DFVF_TEXCOORDSIZEn`) | size of set i: 0 → 2 floats, 1 → 3, 2 → 4, 3 → 1 | |
//!
//! Other bits are refused (their layout is not known, so neither is the stride). xrLC wrote
//! `XYZ | NORMAL | TEX2` or `XYZ | DIFFUSE | TEX1/TEX2` with two-float sets. In builds 4 and 5
//! (XRLC versions 4, 5) the two sets are stored lightmap first, texture second (blender-xray
//! issue #689); from version 8 on, texture first.
//!
//! Decoding goes through the equivalent D3D9 [`Declaration`] ([`declaration`]), so an FVF
//! buffer decodes into the same [`Vertices`] as a D3D9 one (`DIFFUSE` → vertex colour,
//! `SPECULAR` → an `other` element, extra texture sets → `other`).

use levelgeom_binary::{fit, ReadError, Reader, WriteError, Writer};

use crate::decl::{DeclType, Declaration, Element, Usage};
use crate::vertex::{self, Vertices};

/// `D3DFVF_XYZ`.
pub const XYZ: u32 = 0x002;
/// `D3DFVF_XYZRHW`.
pub const XYZRHW: u32 = 0x004;
/// `D3DFVF_POSITION_MASK` (without the D3D9-only `XYZW` bit).
pub const POSITION_MASK: u32 = 0x00E;
/// `D3DFVF_NORMAL`.
pub const NORMAL: u32 = 0x010;
/// `D3DFVF_PSIZE`.
pub const PSIZE: u32 = 0x020;
/// `D3DFVF_DIFFUSE`.
pub const DIFFUSE: u32 = 0x040;
/// `D3DFVF_SPECULAR`.
pub const SPECULAR: u32 = 0x080;
/// `D3DFVF_TEXCOUNT_MASK`.
pub const TEXCOUNT_MASK: u32 = 0xF00;
/// `D3DFVF_TEXCOUNT_SHIFT`.
pub const TEXCOUNT_SHIFT: u32 = 8;
/// One texture coordinate set (`D3DFVF_TEX1`).
pub const TEX1: u32 = 0x100;
/// Two texture coordinate sets (`D3DFVF_TEX2`).
pub const TEX2: u32 = 0x200;

/// How the texture coordinate sets of an FVF buffer are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UvOrder {
    /// Texture first, lightmap second (XRLC 8 and later).
    TextureFirst,
    /// Lightmap first, texture second (XRLC 4 and 5).
    LightmapFirst,
}

impl UvOrder {
    /// The order a level of XRLC `version` uses.
    pub fn for_version(version: u16) -> UvOrder {
        if version <= 5 {
            UvOrder::LightmapFirst
        } else {
            UvOrder::TextureFirst
        }
    }
}

/// Why an FVF code cannot be laid out.
fn unknown_bits(fvf: u32) -> Option<u32> {
    let count = (fvf & TEXCOUNT_MASK) >> TEXCOUNT_SHIFT;
    let size_bits = if count == 0 {
        0
    } else {
        ((1u64 << (2 * count.min(8))) - 1) as u32
    };
    let known = POSITION_MASK | NORMAL | PSIZE | DIFFUSE | SPECULAR | TEXCOUNT_MASK;
    let rest = fvf & !known & !(size_bits << 16);
    (rest != 0 || count > 8).then_some(rest)
}

/// The D3D9 declaration equivalent to `fvf` (elements at their FVF offsets), or why not.
pub fn declaration(fvf: u32, order: UvOrder) -> Result<Declaration, String> {
    if let Some(bits) = unknown_bits(fvf) {
        return Err(format!(
            "vertex format 0x{fvf:08X} has bits 0x{bits:08X} (or more than 8 texture sets) \
             this reader does not know"
        ));
    }
    use DeclType::*;
    let mut e = Vec::new();
    let mut o: u16 = 0;
    match fvf & POSITION_MASK {
        0 => {}
        XYZ => {
            e.push(Element::new(o, Float3, Usage::Position, 0));
            o += 12;
        }
        XYZRHW => {
            e.push(Element::new(o, Float4, Usage::PositionT, 0));
            o += 16;
        }
        p => {
            // XYZB1 (0x006) .. XYZB5 (0x00E): position and 1..5 blend weights
            let weights = (p - XYZRHW) / 2;
            e.push(Element::new(o, Float3, Usage::Position, 0));
            o += 12;
            for k in 0..weights {
                e.push(Element::new(o, Float1, Usage::BlendWeight, k as u8));
                o += 4;
            }
        }
    }
    if fvf & NORMAL != 0 {
        e.push(Element::new(o, Float3, Usage::Normal, 0));
        o += 12;
    }
    if fvf & PSIZE != 0 {
        e.push(Element::new(o, Float1, Usage::PSize, 0));
        o += 4;
    }
    if fvf & DIFFUSE != 0 {
        e.push(Element::new(o, D3dColor, Usage::Color, 0));
        o += 4;
    }
    if fvf & SPECULAR != 0 {
        e.push(Element::new(o, D3dColor, Usage::Color, 1));
        o += 4;
    }
    let count = (fvf & TEXCOUNT_MASK) >> TEXCOUNT_SHIFT;
    for i in 0..count {
        let (ty, size) = match (fvf >> (16 + 2 * i)) & 3 {
            0 => (Float2, 8),
            1 => (Float3, 12),
            2 => (Float4, 16),
            _ => (Float1, 4),
        };
        let index = match (order, i) {
            (UvOrder::LightmapFirst, 0) if count >= 2 => 1,
            (UvOrder::LightmapFirst, 1) => 0,
            _ => i as u8,
        };
        e.push(Element::new(o, ty, Usage::TexCoord, index));
        o += size;
    }
    Ok(Declaration::new(e))
}

/// Bytes per vertex of `fvf`, or why it cannot be laid out.
pub fn stride(fvf: u32) -> Result<usize, String> {
    declaration(fvf, UvOrder::TextureFirst).map(|d| d.stride())
}

/// An FVF vertex buffer: the code, the vertex count and the raw vertices.
#[derive(Clone, Debug, PartialEq)]
pub struct FvfBuffer {
    /// The FVF code as stored.
    pub fvf: u32,
    /// Number of vertices.
    pub count: u32,
    /// `count × stride` raw bytes.
    pub data: Vec<u8>,
}

impl FvfBuffer {
    /// Read `u32 fvf; u32 count; data`, validating the count against the bytes that remain.
    pub fn read(r: &mut Reader<'_>) -> Result<FvfBuffer, ReadError> {
        let at = r.pos();
        let fvf = r.u32()?;
        let stride = stride(fvf).map_err(|m| r.invalid_at(at, m))?;
        let cat = r.pos();
        let count = r.u32()?;
        if stride == 0 && count > 0 {
            return Err(r.invalid_at(at, format!("vertex format 0x{fvf:08X} has no elements")));
        }
        let len = r.count(count, stride.max(1)).map_err(|mut e| {
            e.offset = cat as u64;
            e
        })?;
        let data = r.bytes(len * stride)?.to_vec();
        Ok(FvfBuffer { fvf, count, data })
    }

    /// Write it back (the bytes must be `count × stride`).
    pub fn write(&self, w: &mut Writer) -> Result<(), WriteError> {
        let stride = stride(self.fvf).map_err(|m| WriteError::invalid("vertex format", m))?;
        if (self.count as usize).checked_mul(stride) != Some(self.data.len()) {
            return Err(WriteError::invalid(
                "vertex data",
                format!(
                    "{} bytes, but {} vertices × {stride} bytes per vertex need {}",
                    self.data.len(),
                    self.count,
                    u64::from(self.count) * stride as u64
                ),
            ));
        }
        w.u32(self.fvf);
        w.u32(self.count);
        w.bytes(&self.data);
        Ok(())
    }

    /// Encode decoded vertices with `fvf` (texture sets in `order`).
    pub fn encode(fvf: u32, order: UvOrder, v: &Vertices) -> Result<FvfBuffer, WriteError> {
        let decl = declaration(fvf, order).map_err(|m| WriteError::invalid("vertex format", m))?;
        let count: u32 = fit(v.count, || "vertex count".into())?;
        Ok(FvfBuffer {
            fvf,
            count,
            data: vertex::encode(&decl, v),
        })
    }

    /// Bytes per vertex (0 for a code this reader does not know; [`Self::read`] refuses those).
    pub fn stride(&self) -> usize {
        stride(self.fvf).unwrap_or(0)
    }

    /// Decode all vertices, the texture sets taken in `order`.
    pub fn decode(&self, order: UvOrder) -> Vertices {
        match declaration(self.fvf, order) {
            Ok(d) => vertex::decode(&d, &self.data),
            Err(_) => Vertices::default(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn strides_of_the_xrlc_formats() {
        assert_eq!(stride(XYZ | NORMAL | TEX2).unwrap(), 12 + 12 + 16);
        assert_eq!(stride(XYZ | DIFFUSE | TEX1).unwrap(), 12 + 4 + 8);
        assert_eq!(stride(XYZ | DIFFUSE | TEX2).unwrap(), 12 + 4 + 16);
        // XYZB2 + specular + one 3-float set (TEXCOORDSIZE3(0) = 1 << 16)
        assert_eq!(
            stride(0x008 | SPECULAR | TEX1 | (1 << 16)).unwrap(),
            12 + 8 + 4 + 12
        );
        assert!(stride(XYZ | 0x1000).is_err());
        // a size bit for a set that is not there
        assert!(stride(XYZ | TEX1 | (1 << 18)).is_err());
    }

    #[test]
    fn old_builds_store_the_lightmap_set_first() {
        let d = declaration(XYZ | NORMAL | TEX2, UvOrder::LightmapFirst).unwrap();
        let tc: Vec<(u16, u8)> = d
            .elements
            .iter()
            .filter(|e| e.usage == Usage::TexCoord as u8)
            .map(|e| (e.offset, e.usage_index))
            .collect();
        assert_eq!(tc, vec![(24, 1), (32, 0)]);
        let d = declaration(XYZ | NORMAL | TEX2, UvOrder::TextureFirst).unwrap();
        assert_eq!(d.elements[2].usage_index, 0);
        assert_eq!(d.elements[2].offset, 24);
    }

    #[test]
    fn a_buffer_reads_and_writes_back_and_counts_are_checked() {
        let mut w = Writer::new();
        w.u32(XYZ | DIFFUSE | TEX1);
        w.u32(1);
        for f in [1.0f32, 2.0, 3.0] {
            w.f32(f);
        }
        w.bytes(&[10, 20, 30, 40]);
        w.f32(0.25);
        w.f32(0.75);
        let b = w.into_inner();
        let vb = FvfBuffer::read(&mut Reader::new(&b)).unwrap();
        let v = vb.decode(UvOrder::TextureFirst);
        assert_eq!(v.positions, vec![[1.0, 2.0, 3.0]]);
        assert_eq!(v.uv, vec![[0.25, 0.75]]);
        // colour bytes are B, G, R, A
        assert_eq!(v.colors[0][0], 30.0 / 255.0);
        let mut w = Writer::new();
        vb.write(&mut w).unwrap();
        assert_eq!(w.into_inner(), b);
        let mut bad = b.clone();
        bad[4] = 200; // 200 vertices
        let e = FvfBuffer::read(&mut Reader::new(&bad)).unwrap_err();
        assert_eq!(e.offset, 4);
    }
}
