//! D3D9 vertex declarations (`D3DVERTEXELEMENT9`) as stored at the start of each vertex buffer.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 2 | `Stream` (0; `0xFF` marks the terminator `D3DDECL_END`) |
//! | 2 | 2 | `Offset` of the element inside a vertex |
//! | 4 | 1 | `Type` ([`DeclType`]) |
//! | 5 | 1 | `Method` (always 0 in xrLC output) |
//! | 6 | 1 | `Usage` ([`Usage`]) |
//! | 7 | 1 | `UsageIndex` (TEXCOORD 0 = base, 1 = lightmap) |
//!
//! The list ends with `D3DDECL_END = {0xFF, 0, 17, 0, 0, 0}`; the engine stops at `Stream ==
//! 0xFF` and allows at most 64 elements. The terminator is kept verbatim. The vertex stride is
//! `max(Offset + size(Type))` over the elements of stream 0 (D3DX semantics).

use levelgeom_binary::{ReadError, Reader, Writer};

/// Most elements before the terminator (`MAXD3DDECLLENGTH`).
pub const MAX_ELEMENTS: usize = 64;

/// `D3DDECLTYPE` codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum DeclType {
    Float1 = 0,
    Float2 = 1,
    Float3 = 2,
    Float4 = 3,
    D3dColor = 4,
    UByte4 = 5,
    Short2 = 6,
    Short4 = 7,
    UByte4N = 8,
    Short2N = 9,
    Short4N = 10,
    UShort2N = 11,
    UShort4N = 12,
    UDec3 = 13,
    Dec3N = 14,
    Float16x2 = 15,
    Float16x4 = 16,
    Unused = 17,
}

impl DeclType {
    /// The type for a code, if it is one.
    pub fn from_code(c: u8) -> Option<DeclType> {
        use DeclType::*;
        Some(match c {
            0 => Float1,
            1 => Float2,
            2 => Float3,
            3 => Float4,
            4 => D3dColor,
            5 => UByte4,
            6 => Short2,
            7 => Short4,
            8 => UByte4N,
            9 => Short2N,
            10 => Short4N,
            11 => UShort2N,
            12 => UShort4N,
            13 => UDec3,
            14 => Dec3N,
            15 => Float16x2,
            16 => Float16x4,
            17 => Unused,
            _ => return None,
        })
    }

    /// Bytes one value of this type occupies.
    pub fn size(self) -> usize {
        use DeclType::*;
        match self {
            Float1 | D3dColor | UByte4 | Short2 | UByte4N | Short2N | UShort2N | UDec3 | Dec3N
            | Float16x2 => 4,
            Float2 | Short4 | Short4N | UShort4N | Float16x4 => 8,
            Float3 => 12,
            Float4 => 16,
            Unused => 0,
        }
    }

    /// The D3D name (`FLOAT3`, `D3DCOLOR`, …).
    pub fn name(self) -> &'static str {
        use DeclType::*;
        match self {
            Float1 => "FLOAT1",
            Float2 => "FLOAT2",
            Float3 => "FLOAT3",
            Float4 => "FLOAT4",
            D3dColor => "D3DCOLOR",
            UByte4 => "UBYTE4",
            Short2 => "SHORT2",
            Short4 => "SHORT4",
            UByte4N => "UBYTE4N",
            Short2N => "SHORT2N",
            Short4N => "SHORT4N",
            UShort2N => "USHORT2N",
            UShort4N => "USHORT4N",
            UDec3 => "UDEC3",
            Dec3N => "DEC3N",
            Float16x2 => "FLOAT16_2",
            Float16x4 => "FLOAT16_4",
            Unused => "UNUSED",
        }
    }
}

/// `D3DDECLUSAGE` codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Usage {
    Position = 0,
    BlendWeight = 1,
    BlendIndices = 2,
    Normal = 3,
    PSize = 4,
    TexCoord = 5,
    Tangent = 6,
    Binormal = 7,
    TessFactor = 8,
    PositionT = 9,
    Color = 10,
    Fog = 11,
    Depth = 12,
    Sample = 13,
}

impl Usage {
    /// The usage for a code, if it is one.
    pub fn from_code(c: u8) -> Option<Usage> {
        use Usage::*;
        Some(match c {
            0 => Position,
            1 => BlendWeight,
            2 => BlendIndices,
            3 => Normal,
            4 => PSize,
            5 => TexCoord,
            6 => Tangent,
            7 => Binormal,
            8 => TessFactor,
            9 => PositionT,
            10 => Color,
            11 => Fog,
            12 => Depth,
            13 => Sample,
            _ => return None,
        })
    }

    /// The D3D name (`POSITION`, `TEXCOORD`, …).
    pub fn name(self) -> &'static str {
        use Usage::*;
        match self {
            Position => "POSITION",
            BlendWeight => "BLENDWEIGHT",
            BlendIndices => "BLENDINDICES",
            Normal => "NORMAL",
            PSize => "PSIZE",
            TexCoord => "TEXCOORD",
            Tangent => "TANGENT",
            Binormal => "BINORMAL",
            TessFactor => "TESSFACTOR",
            PositionT => "POSITIONT",
            Color => "COLOR",
            Fog => "FOG",
            Depth => "DEPTH",
            Sample => "SAMPLE",
        }
    }
}

/// One `D3DVERTEXELEMENT9`, fields as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element {
    /// Stream number (0; 0xFF for the terminator).
    pub stream: u16,
    /// Byte offset inside a vertex.
    pub offset: u16,
    /// `D3DDECLTYPE` code.
    pub ty: u8,
    /// `D3DDECLMETHOD` code.
    pub method: u8,
    /// `D3DDECLUSAGE` code.
    pub usage: u8,
    /// Usage index.
    pub usage_index: u8,
}

impl Element {
    /// The terminator `D3DDECL_END()`.
    pub const END: Element = Element {
        stream: 0xFF,
        offset: 0,
        ty: 17,
        method: 0,
        usage: 0,
        usage_index: 0,
    };

    /// A stream-0 element with method DEFAULT.
    pub fn new(offset: u16, ty: DeclType, usage: Usage, usage_index: u8) -> Element {
        Element {
            stream: 0,
            offset,
            ty: ty as u8,
            method: 0,
            usage: usage as u8,
            usage_index,
        }
    }

    /// The type, if the code is known.
    pub fn decl_type(&self) -> Option<DeclType> {
        DeclType::from_code(self.ty)
    }

    /// The usage, if the code is known.
    pub fn usage_kind(&self) -> Option<Usage> {
        Usage::from_code(self.usage)
    }

    /// Bytes the element covers.
    pub fn size(&self) -> usize {
        self.decl_type().map_or(0, DeclType::size)
    }
}

/// A vertex declaration: the elements and the terminator exactly as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declaration {
    /// Elements before the terminator.
    pub elements: Vec<Element>,
    /// The terminator as stored (normally [`Element::END`]).
    pub end: Element,
}

impl Declaration {
    /// A declaration from elements, with the standard terminator.
    pub fn new(elements: Vec<Element>) -> Declaration {
        Declaration {
            elements,
            end: Element::END,
        }
    }

    /// Read elements up to and including the one with `Stream == 0xFF`.
    pub fn read(r: &mut Reader<'_>) -> Result<Declaration, ReadError> {
        let mut elements = Vec::new();
        loop {
            let at = r.pos();
            let e = Element {
                stream: r.u16()?,
                offset: r.u16()?,
                ty: r.u8()?,
                method: r.u8()?,
                usage: r.u8()?,
                usage_index: r.u8()?,
            };
            if e.stream == 0xFF {
                return Ok(Declaration { elements, end: e });
            }
            if elements.len() == MAX_ELEMENTS {
                return Err(r.invalid_at(
                    at,
                    format!("vertex declaration has no terminator within {MAX_ELEMENTS} elements"),
                ));
            }
            if e.decl_type().is_none() || e.ty == DeclType::Unused as u8 {
                return Err(r.invalid_at(
                    at,
                    format!(
                        "vertex element {} has unknown type code {}",
                        elements.len(),
                        e.ty
                    ),
                ));
            }
            elements.push(e);
        }
    }

    /// Write elements and terminator.
    pub fn write(&self, w: &mut Writer) {
        for e in self.elements.iter().chain(std::iter::once(&self.end)) {
            w.u16(e.stream);
            w.u16(e.offset);
            w.u8(e.ty);
            w.u8(e.method);
            w.u8(e.usage);
            w.u8(e.usage_index);
        }
    }

    /// Bytes per vertex: `max(offset + size)` over stream-0 elements.
    pub fn stride(&self) -> usize {
        self.elements
            .iter()
            .filter(|e| e.stream == 0)
            .map(|e| usize::from(e.offset) + e.size())
            .max()
            .unwrap_or(0)
    }

    /// The first stream-0 element with this usage and usage index.
    pub fn find(&self, usage: Usage, index: u8) -> Option<&Element> {
        self.elements
            .iter()
            .find(|e| e.stream == 0 && e.usage == usage as u8 && e.usage_index == index)
    }

    /// Problems a renderer would reject: unknown usages, non-zero streams or methods,
    /// overlapping elements, a missing position, a non-standard terminator.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, e) in self.elements.iter().enumerate() {
            if e.stream != 0 {
                out.push(format!(
                    "element {i} uses stream {} (only stream 0 is read)",
                    e.stream
                ));
            }
            if e.usage_kind().is_none() {
                out.push(format!("element {i} has unknown usage code {}", e.usage));
            }
            if e.method > 6 {
                out.push(format!("element {i} has unknown method code {}", e.method));
            }
            for (j, f) in self.elements.iter().enumerate().skip(i + 1) {
                let (a0, a1) = (usize::from(e.offset), usize::from(e.offset) + e.size());
                let (b0, b1) = (usize::from(f.offset), usize::from(f.offset) + f.size());
                if e.stream == f.stream && a0 < b1 && b0 < a1 {
                    out.push(format!("elements {i} and {j} overlap"));
                }
                if e.stream == f.stream && e.usage == f.usage && e.usage_index == f.usage_index {
                    out.push(format!(
                        "elements {i} and {j} have the same usage and index"
                    ));
                }
            }
        }
        if self.find(Usage::Position, 0).is_none() {
            out.push("no POSITION element".into());
        }
        if self.end != Element::END {
            out.push("terminator differs from D3DDECL_END".into());
        }
        out
    }
}

/// The declaration xrLC writes for lightmapped static geometry (`r1_decl_lmap`, 32 bytes).
pub fn r1_lmap() -> Declaration {
    use DeclType::*;
    Declaration::new(vec![
        Element::new(0, Float3, Usage::Position, 0),
        Element::new(12, D3dColor, Usage::Normal, 0),
        Element::new(16, D3dColor, Usage::Tangent, 0),
        Element::new(20, D3dColor, Usage::Binormal, 0),
        Element::new(24, Short2, Usage::TexCoord, 0),
        Element::new(28, Short2, Usage::TexCoord, 1),
    ])
}

/// The declaration for vertex-lit static geometry (`r1_decl_vert`, 32 bytes).
pub fn r1_vert() -> Declaration {
    use DeclType::*;
    Declaration::new(vec![
        Element::new(0, Float3, Usage::Position, 0),
        Element::new(12, D3dColor, Usage::Normal, 0),
        Element::new(16, D3dColor, Usage::Tangent, 0),
        Element::new(20, D3dColor, Usage::Binormal, 0),
        Element::new(24, D3dColor, Usage::Color, 0),
        Element::new(28, Short2, Usage::TexCoord, 0),
    ])
}

/// The declaration for MU models and trees (`mu_model_decl`, 32 bytes).
pub fn mu_model() -> Declaration {
    use DeclType::*;
    Declaration::new(vec![
        Element::new(0, Float3, Usage::Position, 0),
        Element::new(12, D3dColor, Usage::Normal, 0),
        Element::new(16, D3dColor, Usage::Tangent, 0),
        Element::new(20, D3dColor, Usage::Binormal, 0),
        Element::new(24, Short4, Usage::TexCoord, 0),
    ])
}

/// The position-only declaration of `level.geomx` (`x_decl_vert`, 12 bytes).
pub fn x_vert() -> Declaration {
    Declaration::new(vec![Element::new(0, DeclType::Float3, Usage::Position, 0)])
}

/// The version-13 lightmapped layout: FLOAT2 base UV, 36 bytes.
pub fn v13_lmap() -> Declaration {
    use DeclType::*;
    Declaration::new(vec![
        Element::new(0, Float3, Usage::Position, 0),
        Element::new(12, D3dColor, Usage::Normal, 0),
        Element::new(16, D3dColor, Usage::Tangent, 0),
        Element::new(20, D3dColor, Usage::Binormal, 0),
        Element::new(24, Float2, Usage::TexCoord, 0),
        Element::new(32, Short2, Usage::TexCoord, 1),
    ])
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn standard_layouts_have_the_spec_strides() {
        assert_eq!(r1_lmap().stride(), 32);
        assert_eq!(r1_vert().stride(), 32);
        assert_eq!(mu_model().stride(), 32);
        assert_eq!(x_vert().stride(), 12);
        assert_eq!(v13_lmap().stride(), 36);
        assert!(r1_lmap().problems().is_empty());
    }

    #[test]
    fn declaration_round_trips_and_needs_a_terminator() {
        let mut w = Writer::new();
        mu_model().write(&mut w);
        let b = w.into_inner();
        assert_eq!(b.len(), 6 * 8);
        assert_eq!(&b[40..], &[0xFF, 0, 0, 0, 17, 0, 0, 0]);
        let d = Declaration::read(&mut Reader::new(&b)).unwrap();
        assert_eq!(d, mu_model());
        let e = Declaration::read(&mut Reader::new(&b[..40])).unwrap_err();
        assert_eq!(e.offset, 40);
        let mut bad = b.clone();
        bad[12] = 99; // type of element 1
        let e = Declaration::read(&mut Reader::new(&bad)).unwrap_err();
        assert_eq!(e.offset, 8);
    }
}
