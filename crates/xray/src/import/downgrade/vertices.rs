//! The vertex buffers of an XRLC 13 `level.geom` re-encoded in an old build's layouts, with
//! what each re-encoding loses measured by reading the result back as that build's reader does.

use crate::decl::{DeclType, Declaration, Element, Usage};
use crate::fvf::{self, FvfBuffer, UvOrder};
use crate::geom::VertexBuffer;
use crate::vertex::{self, Vertices};

use super::{refuse, Losses, Unwritable};
use crate::import::ImportError;

/// What a 13 vertex buffer holds, by its declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Layout {
    /// Lightmapped static geometry (a `TEXCOORD1`).
    Lightmapped,
    /// Vertex-lit static geometry (a `COLOR0`).
    VertexLit,
    /// MU / tree vertices (`SHORT4 TEXCOORD0`).
    Tree,
}

/// The layout of `d`, or `None` for one xrLC does not write.
pub(super) fn layout_of(d: &Declaration) -> Option<Layout> {
    let tc0 = d.find(Usage::TexCoord, 0).and_then(Element::decl_type);
    if tc0 == Some(DeclType::Short4) {
        Some(Layout::Tree)
    } else if d.find(Usage::TexCoord, 1).is_some() {
        Some(Layout::Lightmapped)
    } else if d.find(Usage::Color, 0).is_some() && tc0.is_some() {
        Some(Layout::VertexLit)
    } else {
        None
    }
}

fn e(o: u16, t: DeclType, u: Usage, i: u8) -> Element {
    Element::new(o, t, u, i)
}

/// XRLC 10/11 static lightmapped and tree declaration as stored: `FLOAT3, D3DCOLOR NORMAL,
/// SHORT4 TEXCOORD0` (20 bytes).
pub(super) fn v10_short4() -> Declaration {
    use DeclType::*;
    Declaration::new(vec![
        e(0, Float3, Usage::Position, 0),
        e(12, D3dColor, Usage::Normal, 0),
        e(16, Short4, Usage::TexCoord, 0),
    ])
}

/// How a static visual of XRLC 10/11 reads [`v10_short4`]: `SHORT2 TEXCOORD0` (`/1024`) and
/// `SHORT2 TEXCOORD1` (`/32768`), the view's reading ([`crate::flat`]).
pub(super) fn v10_split() -> Declaration {
    use DeclType::*;
    Declaration::new(vec![
        e(0, Float3, Usage::Position, 0),
        e(12, D3dColor, Usage::Normal, 0),
        e(16, Short2, Usage::TexCoord, 0),
        e(20, Short2, Usage::TexCoord, 1),
    ])
}

/// XRLC 10/11 vertex-lit declaration: `FLOAT3, D3DCOLOR NORMAL, D3DCOLOR COLOR, FLOAT2
/// TEXCOORD0` (28 bytes).
pub(super) fn v10_vert() -> Declaration {
    use DeclType::*;
    Declaration::new(vec![
        e(0, Float3, Usage::Position, 0),
        e(12, D3dColor, Usage::Normal, 0),
        e(16, D3dColor, Usage::Color, 0),
        e(20, Float2, Usage::TexCoord, 0),
    ])
}

/// The FVF code of a layout (xrLC's: `XYZ|NORMAL|TEX2`, `XYZ|DIFFUSE|TEX1`, trees
/// `XYZ|NORMAL|TEX1`).
pub(super) fn fvf_code(l: Layout) -> u32 {
    match l {
        Layout::Lightmapped => fvf::XYZ | fvf::NORMAL | fvf::TEX2,
        Layout::VertexLit => fvf::XYZ | fvf::DIFFUSE | fvf::TEX1,
        Layout::Tree => fvf::XYZ | fvf::NORMAL | fvf::TEX1,
    }
}

/// A buffer in the target build.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Buffer {
    /// D3D9-declared (XRLC 10–12).
    D3d(VertexBuffer),
    /// FVF (XRLC 4–9).
    Fvf(FvfBuffer),
}

/// Compare what the target reads back (`back`) with the original vertices and add the
/// differences to `loss`.
pub(super) fn measure(orig: &Vertices, back: &Vertices, loss: &mut Losses) {
    let n = orig.count;
    let mut dropped = |name: &'static str, had: bool, has: bool| {
        if had && !has {
            *loss.dropped.entry(name).or_default() += n;
        }
    };
    dropped(
        "normals",
        !orig.normals.is_empty(),
        !back.normals.is_empty(),
    );
    dropped(
        "tangents and binormals",
        !orig.tangents.is_empty() || !orig.binormals.is_empty(),
        !back.tangents.is_empty() || !back.binormals.is_empty(),
    );
    dropped(
        "hemi (sky light)",
        !orig.hemi.is_empty(),
        !back.hemi.is_empty(),
    );
    dropped("sun", !orig.sun.is_empty(), !back.sun.is_empty());
    dropped(
        "vertex colours",
        !orig.colors.is_empty(),
        !back.colors.is_empty(),
    );
    dropped(
        "lightmap UVs",
        !orig.lightmap.is_empty(),
        !back.lightmap.is_empty(),
    );
    dropped(
        "tree wind factors",
        orig.wind.iter().any(|w| w[0] != 0.0 || w[1] != 0.0),
        !back.wind.is_empty(),
    );
    let worst = |a: &[[f32; 2]], b: &[[f32; 2]]| -> (usize, f64) {
        let mut changed = 0;
        let mut m = 0.0f64;
        for (x, y) in a.iter().zip(b) {
            let d = (0..2)
                .map(|k| (f64::from(x[k]) - f64::from(y[k])).abs())
                .fold(0.0, f64::max);
            if d > 0.0 {
                changed += 1;
            }
            m = m.max(d);
        }
        (changed, m)
    };
    let (c, m) = worst(&orig.uv, &back.uv);
    loss.uv_quantised += c;
    loss.max_uv_error = loss.max_uv_error.max(m);
    let (c, m) = worst(&orig.lightmap, &back.lightmap);
    loss.lmap_quantised += c;
    loss.max_lmap_error = loss.max_lmap_error.max(m);
    let moved = orig
        .positions
        .iter()
        .zip(&back.positions)
        .filter(|(a, b)| a != b)
        .count();
    loss.positions += moved;
}

/// Re-encode one 13 buffer (`k`, of layout `l`) in build `to`; `order` for FVF builds.
pub(super) fn encode(
    k: usize,
    vb: &VertexBuffer,
    l: Layout,
    to: u16,
    loss: &mut Losses,
) -> Result<Buffer, ImportError> {
    if to == 12 {
        // XRLC 12 keeps XRLC 13's D3D9 buffers as they are
        return Ok(Buffer::D3d(vb.clone()));
    }
    let v = vb.decode();
    let (buf, back) = match to {
        10 | 11 => {
            let (stored, read) = match l {
                Layout::Lightmapped => (v10_short4(), v10_split()),
                Layout::VertexLit => (v10_vert(), v10_vert()),
                Layout::Tree => (v10_short4(), v10_short4()),
            };
            let data = vertex::encode(&read, &v);
            let back = vertex::decode(&read, &data);
            let b = VertexBuffer {
                decl: stored,
                count: vb.count,
                data: data.into(),
            };
            (Buffer::D3d(b), back)
        }
        4 | 5 | 8 | 9 => {
            let order = UvOrder::for_version(to);
            let b = FvfBuffer::encode(fvf_code(l), order, &v)
                .map_err(|source| refuse(to, Unwritable::FvfBuffer { buffer: k, source }))?;
            let back = b.decode(order);
            (Buffer::Fvf(b), back)
        }
        _ => return Err(ImportError::TargetVersion { from: 13, to }),
    };
    measure(&v, &back, loss);
    Ok(buf)
}
