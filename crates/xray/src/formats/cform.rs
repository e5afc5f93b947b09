//! `level.cform`: the collision mesh. It is **not** a chunk file (the issue assumed so); the
//! version-4 layout (xray-16 `hdrCFORM`, `CDB::TRI`) is:
//!
//! | offset | size | meaning |
//! |---|---|---|
//! | 0 | 4 | `u32 version` (4) |
//! | 4 | 4 | `u32 vertcount` |
//! | 8 | 4 | `u32 facecount` |
//! | 12 | 24 | `Fbox aabb` (min xyz, max xyz) |
//! | 36 | 12 × vertcount | vertices `f32 xyz` |
//! | … | 16 × facecount | triangles `u32 verts[3]; u32 dummy` (material, flags, sector packed; kept raw) |
//!
//! Versions 2 and 3 (older builds; blender-xray `formats/level/imp/cform.py` reads them as
//! `6I2HI`) have 32-byte triangles: `u32 verts[3]`, three `u32` of unknown use (kept raw),
//! a `u16` of unknown use (kept raw), `u16 sector`, `u32 material` ([`OldTri`]).
//!
//! The model keeps every field, so it rebuilds byte for byte.

use levelgeom_binary::{fit, ReadError, Reader, Warning, WriteError, Writer};

/// The current version (16-byte triangles).
pub const VERSION: u32 = 4;
/// Every version read: 2 and 3 (32-byte triangles) and 4.
pub const VERSIONS: [u32; 3] = [2, 3, 4];

/// Bytes per triangle of a version.
pub fn tri_size(version: u32) -> usize {
    if version == VERSION {
        16
    } else {
        32
    }
}

/// The fields a version 2/3 triangle has besides its vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OldTri {
    /// Three `u32` after the vertices, of unknown use (kept raw).
    pub raw: [u32; 3],
    /// A `u16` of unknown use (kept raw).
    pub raw16: u16,
    /// The sector.
    pub sector: u16,
    /// The game material id.
    pub material: u32,
}

/// A collision triangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tri {
    /// Vertex indices.
    pub verts: [u32; 3],
    /// Version 4: packed material (14 bits), suppress-shadows, suppress-wallmarks, sector (16
    /// bits). Versions 2/3: 0 (their fields are in [`Tri::old`]).
    pub dummy: u32,
    /// The fields of a version 2/3 triangle, `None` in version 4.
    pub old: Option<OldTri>,
}

/// A whole `level.cform`.
#[derive(Clone, Debug, PartialEq)]
pub struct Cform {
    /// Version (4).
    pub version: u32,
    /// Bounding box min.
    pub bbox_min: [f32; 3],
    /// Bounding box max.
    pub bbox_max: [f32; 3],
    /// Vertices.
    pub vertices: Vec<[f32; 3]>,
    /// Triangles.
    pub tris: Vec<Tri>,
}

/// True when `bytes` are exactly a version-4 cform (header counts match the length).
pub fn sniff(bytes: &[u8]) -> bool {
    let w = |i: usize| {
        bytes
            .get(i * 4..i * 4 + 4)
            .map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
    };
    match (w(0), w(1), w(2)) {
        (Some(v), Some(vc), Some(fc)) if VERSIONS.contains(&(v as u32)) => {
            36 + vc * 12 + fc * tri_size(v as u32) as u64 == bytes.len() as u64
        }
        _ => false,
    }
}

/// True when `bytes` start the way a collision file of any known version (2–4) does, even if
/// the counts no longer match the length (a damaged or cut file): the version word, then the
/// two counts and a bounding box of finite floats as far as the bytes go. For detection
/// after the stricter tests failed, so that [`Cform::read`] can say where such a file breaks.
pub fn looks_like(bytes: &[u8]) -> bool {
    let word = |i: usize| {
        bytes
            .get(i * 4..i * 4 + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let finite = (3..9)
        .filter_map(word)
        .all(|w| f32::from_bits(w).is_finite());
    matches!(word(0), Some(2..=4)) && bytes.len() >= 12 && finite
}

impl Cform {
    /// Parse (no warnings are known yet; the list is there so that callers treat every file
    /// alike).
    pub fn read(bytes: &[u8]) -> Result<(Cform, Vec<Warning>), ReadError> {
        let mut r = Reader::new(bytes);
        r.push("hdrCFORM", None);
        let version = r.u32()?;
        if !VERSIONS.contains(&version) {
            return Err(r.invalid_at(
                0,
                format!("cform version {version}; versions 2, 3 and 4 are known"),
            ));
        }
        let vc = r.u32()?;
        let fc = r.u32()?;
        let bbox_min = r.f32s()?;
        let bbox_max = r.f32s()?;
        r.pop();
        r.push("vertices", None);
        let n = r.count(vc, 12)?;
        let mut vertices = Vec::with_capacity(n);
        for _ in 0..n {
            vertices.push(r.f32s()?);
        }
        r.pop();
        r.push("faces", None);
        let n = r.count(fc, tri_size(version))?;
        let mut tris = Vec::with_capacity(n);
        for _ in 0..n {
            let verts = [r.u32()?, r.u32()?, r.u32()?];
            tris.push(if version == VERSION {
                Tri {
                    verts,
                    dummy: r.u32()?,
                    old: None,
                }
            } else {
                Tri {
                    verts,
                    dummy: 0,
                    old: Some(OldTri {
                        raw: [r.u32()?, r.u32()?, r.u32()?],
                        raw16: r.u16()?,
                        sector: r.u16()?,
                        material: r.u32()?,
                    }),
                }
            });
        }
        r.finish()?;
        let c = Cform {
            version,
            bbox_min,
            bbox_max,
            vertices,
            tris,
        };
        Ok((c, Vec::new()))
    }

    /// Serialise; more than `u32::MAX` vertices or faces is an error naming the count.
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        let vc: u32 = fit(self.vertices.len(), || "hdrCFORM/vertcount".into())?;
        let fc: u32 = fit(self.tris.len(), || "hdrCFORM/facecount".into())?;
        let mut w = Writer::new();
        w.u32(self.version);
        w.u32(vc);
        w.u32(fc);
        w.f32s(&self.bbox_min);
        w.f32s(&self.bbox_max);
        for v in &self.vertices {
            w.f32s(v);
        }
        let old = self.version != VERSION;
        for (k, t) in self.tris.iter().enumerate() {
            for i in t.verts {
                w.u32(i);
            }
            match (old, &t.old) {
                (false, None) => w.u32(t.dummy),
                (true, Some(o)) => {
                    for x in o.raw {
                        w.u32(x);
                    }
                    w.u16(o.raw16);
                    w.u16(o.sector);
                    w.u32(o.material);
                }
                _ => {
                    return Err(WriteError::invalid(
                        format!("faces[{k}]"),
                        format!(
                            "a version {} file needs {} triangles",
                            self.version,
                            if old { "version 2/3" } else { "version 4" }
                        ),
                    ))
                }
            }
        }
        Ok(w.into_inner())
    }
}
