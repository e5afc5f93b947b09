//! `level.hom` (the renderer's occluder mesh) and `level.som` (the sound-occlusion mesh).
//!
//! Both are chunk files with the same frame (see `docs/formats/xray-level.md` §14, §15):
//!
//! | chunk | payload |
//! |---|---|
//! | 0 (`HOM_CHUNK_VERSION` / `SOM_CHUNK_VERSION`) | `u32 version` (0) |
//! | 1 (`HOM_CHUNK_POLYGONS` / `SOM_CHUNK_POLYGONS`) | polygons until the end of the chunk, no count |
//!
//! A `level.hom` polygon is 40 bytes, `Fvector v1, v2, v3; u32 flags` (flag 1 = two-sided); a
//! `level.som` polygon is 44 bytes, `Fvector v1, v2, v3; u32 b2sided; float occ`.
//!
//! Sources, which agree:
//! * xray_re-tools `sources/xray_re/xr_level_hom.h` (`HOM_VERSION = 0`, chunk ids 0/1,
//!   `struct hom_poly { fvector3 v[3]; uint32_t flags; }`, `HOM_FLAG_2SIDED = 0x1`) and
//!   `xr_level_som.h` (`struct som_poly { fvector3 v[3]; uint32_t b2sided; float occ; }`);
//!   both loaders assert that chunk 1 is a whole number of polygons.
//! * The engine (SkyLoaderr/xray-engine-repo, 2007-01-10 `73f59b7eb4`):
//!   `xr_3da/xrRender_R1/HOM.cpp` `CHOM::Load` reads chunk 1 only, as `#pragma pack(4) struct
//!   HOM_poly { Fvector v1,v2,v3; u32 flags; }` until its end, and treats any non-zero `flags`
//!   as two-sided (`if (!(T.flags || T.plane.classify(COP)>0))`); it warns `Invalid HOM
//!   triangle` for an area below `EPS_L` (0.001). The layout is the same in `xr_3da/HOM.cpp` of
//!   2003-04-01 (`952823371c`).
//! * `xr_3da/xrSound/SoundRender_Core.cpp` `set_geometry_som` (added 2005-02-26, `e53ceaf2fa`;
//!   builds before it have no `level.som`) asserts chunk 0 and `version==0`, then reads
//!   `struct SOM_poly { Fvector3 v1,v2,v3; u32 b2sided; float occ; }` from chunk 1, adding the
//!   reversed triangle when `b2sided` is set; `occ` multiplies the sound's volume
//!   (`SoundRender_Core_Processor.cpp`: `occ_value *= *(float*)&R->dummy`).
//! * The writer, LevelEditor `Editors/LevelEditor/Edit/BuilderOGF.cpp` (2005-10-04):
//!   `BuildHOMModel` / `BuildSOMModel` write chunk 0 = `u32 0`, then chunk 1 with each face's
//!   three world-space vertices, `w_u32(b2Sided)` (a BOOL: 0 or 1) and, for the SOM,
//!   `w_float(mtl->fSndOcclusionFactor)`, which `xrGame/GameMtlLib.h` documents as `0.f – 1.f`.
//!
//! The model keeps every chunk in order (other ids, compressed chunks, a version chunk that is
//! not 4 bytes, bytes after the last whole polygon), so an unchanged file writes back byte for
//! byte.

#[cfg(feature = "generate")]
pub mod generate;
pub mod scene;

use levelgeom_binary::Problem;
use levelgeom_binary::{ReadError, Reader, Severity, Warning, WriteError, Writer};

use crate::chunk::{self, Context, Framed, COMPRESSED};

/// Chunk id of the version word.
pub const VERSION_CHUNK: u32 = 0;
/// Chunk id of the polygons.
pub const POLYGONS_CHUNK: u32 = 1;
/// The only version known (xray_re-tools `HOM_VERSION`, `SOM_VERSION`; the SOM loader
/// verifies it).
pub const VERSION: u32 = 0;
/// A HOM polygon's flag: two-sided (xray_re-tools `HOM_FLAG_2SIDED`).
pub const HOM_FLAG_2SIDED: u32 = 0x1;
/// Below this area (square metres) the engine calls an occluder triangle invalid (`EPS_L`,
/// `HOM.cpp`).
pub const MIN_AREA: f32 = 0.001;

/// Whether the engine of XRLC build `version` reads a `level.hom`: `xr_3da/HOM.cpp` opens
/// `level.hom` from 2002-06-07 (xray-engine-repo `65b62445ff`), within the XRLC 8 era
/// (2002-04-01 – 2002-09-30, [`crate::builds::LAYOUTS`]); XRLC 4 and 5 predate it (see
/// `docs/formats/xray-level.md` §14).
pub fn hom_in_build(version: u16) -> bool {
    version >= 8
}

/// Whether the engine of XRLC build `version` reads a `level.som`: `set_geometry_som` from
/// 2005-02-26 (xray-engine-repo `e53ceaf2fa`), within the XRLC 13 era (2005-02-01 –
/// 2005-04-21); every earlier build has none (see `docs/formats/xray-level.md` §15).
pub fn som_in_build(version: u16) -> bool {
    version >= 13
}

/// A polygon record of one of the two files.
pub trait Polygon: Clone + std::fmt::Debug + PartialEq {
    /// Bytes per record.
    const SIZE: usize;
    /// The chunk context naming the file's chunks.
    const CONTEXT: Context;
    /// The file's name, for messages (`level.hom`).
    const FILE: &'static str;
    /// Read one record.
    fn read(r: &mut Reader<'_>) -> Result<Self, ReadError>;
    /// Write one record.
    fn write(&self, w: &mut Writer);
    /// The three vertices, in the level's (engine) space.
    fn verts(&self) -> &[[f32; 3]; 3];
    /// The three vertices, to move them.
    fn verts_mut(&mut self) -> &mut [[f32; 3]; 3];
    /// The two-sided word as stored (`flags` / `b2sided`).
    fn sided(&self) -> u32;
}

/// One `level.hom` polygon (40 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HomPoly {
    /// Vertices in level space.
    pub v: [[f32; 3]; 3],
    /// Flags; bit 0 two-sided ([`HOM_FLAG_2SIDED`]); the engine treats any non-zero value as
    /// two-sided.
    pub flags: u32,
}

/// One `level.som` polygon (44 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SomPoly {
    /// Vertices in level space.
    pub v: [[f32; 3]; 3],
    /// Two-sided (a BOOL: the engine adds the reversed triangle when non-zero).
    pub b2sided: u32,
    /// Sound occlusion factor of the material, 0–1.
    pub occ: f32,
}

fn read_verts(r: &mut Reader<'_>) -> Result<[[f32; 3]; 3], ReadError> {
    Ok([r.f32s()?, r.f32s()?, r.f32s()?])
}

impl Polygon for HomPoly {
    const SIZE: usize = 40;
    const CONTEXT: Context = Context::Hom;
    const FILE: &'static str = "level.hom";
    fn read(r: &mut Reader<'_>) -> Result<Self, ReadError> {
        Ok(HomPoly {
            v: read_verts(r)?,
            flags: r.u32()?,
        })
    }
    fn write(&self, w: &mut Writer) {
        for v in &self.v {
            w.f32s(v);
        }
        w.u32(self.flags);
    }
    fn verts(&self) -> &[[f32; 3]; 3] {
        &self.v
    }
    fn verts_mut(&mut self) -> &mut [[f32; 3]; 3] {
        &mut self.v
    }
    fn sided(&self) -> u32 {
        self.flags
    }
}

impl Polygon for SomPoly {
    const SIZE: usize = 44;
    const CONTEXT: Context = Context::Som;
    const FILE: &'static str = "level.som";
    fn read(r: &mut Reader<'_>) -> Result<Self, ReadError> {
        Ok(SomPoly {
            v: read_verts(r)?,
            b2sided: r.u32()?,
            occ: r.f32()?,
        })
    }
    fn write(&self, w: &mut Writer) {
        for v in &self.v {
            w.f32s(v);
        }
        w.u32(self.b2sided);
        w.f32(self.occ);
    }
    fn verts(&self) -> &[[f32; 3]; 3] {
        &self.v
    }
    fn verts_mut(&mut self) -> &mut [[f32; 3]; 3] {
        &mut self.v
    }
    fn sided(&self) -> u32 {
        self.b2sided
    }
}

/// The payload of one chunk.
#[derive(Clone, Debug, PartialEq)]
pub enum Body<P> {
    /// Chunk 0 of 4 bytes: the version.
    Version(u32),
    /// Chunk 1: the polygons, and the bytes after the last whole one (none in a sound file).
    Polygons {
        /// The polygons in file order.
        polys: Vec<P>,
        /// Bytes after the last whole polygon (kept; `check` reports them).
        tail: Vec<u8>,
    },
    /// Any other chunk (or a version chunk that is not 4 bytes), kept verbatim.
    Raw(Vec<u8>),
}

/// A whole `level.hom` or `level.som`: its chunks in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct Occluders<P> {
    /// Every chunk as stored (compressed ones decoded, their stored bytes kept).
    pub chunks: Vec<Framed<Body<P>>>,
}

/// `level.hom`.
pub type Hom = Occluders<HomPoly>;
/// `level.som`.
pub type Som = Occluders<SomPoly>;

impl<P: Polygon> Occluders<P> {
    /// A file as the LevelEditor writes it: version chunk 0 (= 0), then the polygons.
    pub fn new(polys: Vec<P>) -> Self {
        Occluders {
            chunks: vec![
                Framed::plain(VERSION_CHUNK, Body::Version(VERSION)),
                Framed::plain(
                    POLYGONS_CHUNK,
                    Body::Polygons {
                        polys,
                        tail: Vec::new(),
                    },
                ),
            ],
        }
    }

    /// Parse. A chunk header claiming more bytes than remain is an error naming its offset
    /// and chunk; a polygon chunk that is not a whole number of polygons keeps its last bytes
    /// (with a warning; `check` reports them as an error, as the engine would read past them).
    pub fn read(bytes: &[u8]) -> Result<(Self, Vec<Warning>), ReadError> {
        let mut r = Reader::new(bytes);
        let mut warnings = Vec::new();
        let chunks = chunk::read_all(&mut r, P::CONTEXT, |head, body| {
            Ok(match head.id() {
                VERSION_CHUNK if body.remaining() == 4 => Body::Version(body.u32()?),
                POLYGONS_CHUNK => {
                    let n = body.remaining() / P::SIZE;
                    let mut polys = Vec::with_capacity(n);
                    for i in 0..n {
                        polys.push(body.within("poly", Some(i), P::read)?);
                    }
                    let tail = body.take_rest().to_vec();
                    if !tail.is_empty() {
                        warnings.push(body.warning_at(
                            body.pos() - tail.len(),
                            format!(
                                "{} bytes after the last of {n} whole {}-byte polygons (kept)",
                                tail.len(),
                                P::SIZE
                            ),
                        ));
                    }
                    Body::Polygons { polys, tail }
                }
                _ => Body::Raw(body.take_rest().to_vec()),
            })
        })?;
        Ok((Occluders { chunks }, warnings))
    }

    /// Serialise (byte-exact for an unchanged parse).
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        let mut w = Writer::new();
        for c in &self.chunks {
            chunk::write_framed(&mut w, P::CONTEXT, c, |b, w| {
                write_body(b, w);
                Ok(())
            })?;
        }
        Ok(w.into_inner())
    }

    /// The version word (chunk 0), when there is one.
    pub fn version(&self) -> Option<u32> {
        self.chunks.iter().find_map(|c| match c.value {
            Body::Version(v) => Some(v),
            _ => None,
        })
    }

    /// Every polygon, in file order (of every polygon chunk, though files have one).
    pub fn polys(&self) -> impl Iterator<Item = &P> {
        self.chunks.iter().flat_map(|c| match &c.value {
            Body::Polygons { polys, .. } => polys.as_slice(),
            _ => &[],
        })
    }

    /// Mutable polygons of the first polygon chunk, when there is one.
    pub fn polys_mut(&mut self) -> Option<&mut Vec<P>> {
        self.chunks.iter_mut().find_map(|c| match &mut c.value {
            Body::Polygons { polys, .. } => Some(polys),
            _ => None,
        })
    }

    /// The absolute file offset of the first polygon chunk's payload, when that chunk is not
    /// compressed (offsets inside a compressed chunk are not file offsets).
    fn polygons_at(&self) -> Option<u64> {
        let mut pos = 0u64;
        for c in &self.chunks {
            let body = match (&c.stored, &c.value) {
                (Some(s), _) => s.len() as u64,
                (None, Body::Version(_)) => 4,
                (None, Body::Polygons { polys, tail }) => {
                    if c.raw_id & COMPRESSED == 0 {
                        return Some(pos + 8);
                    }
                    (polys.len() * P::SIZE + tail.len()) as u64
                }
                (None, Body::Raw(b)) => b.len() as u64,
            };
            pos += 8 + body;
        }
        None
    }

    /// The rules both files share: a version chunk of version 0, a polygon chunk of whole
    /// polygons, finite vertices, no degenerate triangle (area below [`MIN_AREA`], which the
    /// engine calls invalid), a two-sided word of 0 or 1.
    fn check_common(&self, sided_name: &str) -> Vec<Problem> {
        let mut out = Vec::new();
        let seg = |id: u32| chunk::name(P::CONTEXT, id).segment();
        match self.version() {
            None => out.push(Problem::new(
                seg(VERSION_CHUNK),
                format!(
                    "no 4-byte version chunk 0 (the {} loader asserts one)",
                    P::FILE
                ),
            )),
            Some(v) if v != VERSION => out.push(Problem::new(
                seg(VERSION_CHUNK),
                format!("version {v}; the engine knows only version {VERSION}"),
            )),
            Some(_) => {}
        }
        let base = self.polygons_at();
        let at = |i: usize, field: u64| base.map(|b| b + (i * P::SIZE) as u64 + field);
        let mut found = false;
        for c in &self.chunks {
            let Body::Polygons { polys, tail } = &c.value else {
                continue;
            };
            found = true;
            if !tail.is_empty() {
                let mut p = Problem::new(
                    seg(POLYGONS_CHUNK),
                    format!(
                        "{} bytes after the last whole {}-byte polygon: the engine reads \
                         polygons to the chunk's end and would read past it",
                        tail.len(),
                        P::SIZE
                    ),
                );
                if let Some(o) = at(polys.len(), 0) {
                    p = p.at(o);
                }
                out.push(p);
            }
            for (i, poly) in polys.iter().enumerate() {
                let path = format!("{}/poly[{i}]", seg(POLYGONS_CHUNK));
                let located = |p: Problem, field: u64| match at(i, field) {
                    Some(o) => p.at(o),
                    None => p,
                };
                let v = poly.verts();
                if v.iter().flatten().any(|c| !c.is_finite()) {
                    out.push(located(
                        Problem::new(&path, "a vertex coordinate is not finite"),
                        0,
                    ));
                } else {
                    let area = triangle_area(v);
                    if area < MIN_AREA {
                        out.push(located(
                            Problem::new(
                                &path,
                                format!(
                                    "degenerate triangle: area {area} m² is below {MIN_AREA} \
                                     (the engine warns `Invalid HOM triangle`)"
                                ),
                            )
                            .warning(),
                            0,
                        ));
                    }
                }
                if poly.sided() > 1 {
                    out.push(located(
                        Problem::new(
                            &path,
                            format!(
                                "{sided_name} is {}; the editor writes 0 or 1 (the engine \
                                 treats any non-zero value as two-sided)",
                                poly.sided()
                            ),
                        )
                        .warning(),
                        36,
                    ));
                }
            }
        }
        if !found {
            out.push(Problem::new(
                seg(POLYGONS_CHUNK),
                "no polygon chunk 1 (the engine opens it unconditionally)",
            ));
        }
        out
    }
}

fn write_body<P: Polygon>(b: &Body<P>, w: &mut Writer) {
    match b {
        Body::Version(v) => w.u32(*v),
        Body::Polygons { polys, tail } => {
            for p in polys {
                p.write(w);
            }
            w.bytes(tail);
        }
        Body::Raw(bytes) => w.bytes(bytes),
    }
}

/// The area of a triangle (Heron's formula from its edge lengths, as `HOM.cpp` `Area`
/// computes it, in f64 so that slivers do not come out negative).
pub fn triangle_area(v: &[[f32; 3]; 3]) -> f32 {
    let d = |a: [f32; 3], b: [f32; 3]| {
        let s: f64 = (0..3).map(|k| f64::from(a[k] - b[k]).powi(2)).sum();
        s.sqrt()
    };
    let (e1, e2, e3) = (d(v[0], v[1]), d(v[0], v[2]), d(v[1], v[2]));
    let p = (e1 + e2 + e3) / 2.0;
    (p * (p - e1) * (p - e2) * (p - e3)).max(0.0).sqrt() as f32
}

impl Hom {
    /// The consistency rules of a `level.hom` (see [`Occluders`]): version, whole polygons,
    /// finite and non-degenerate triangles, flags of 0 or 1.
    pub fn check(&self) -> Vec<Problem> {
        self.check_common("flags")
    }
}

impl Som {
    /// The consistency rules of a `level.som`: those of the HOM (with `b2sided` for the flags)
    /// and an occlusion factor in 0–1 (the material's `fSndOcclusionFactor`).
    pub fn check(&self) -> Vec<Problem> {
        let mut out = self.check_common("b2sided");
        let base = self.polygons_at();
        let seg = chunk::name(Context::Som, POLYGONS_CHUNK).segment();
        for (i, p) in self.polys().enumerate() {
            if !(0.0..=1.0).contains(&p.occ) {
                let mut pr = Problem::new(
                    format!("{seg}/poly[{i}]"),
                    format!(
                        "occlusion factor {} is outside 0–1 (a material's \
                         fSndOcclusionFactor; it multiplies the sound's volume)",
                        p.occ
                    ),
                );
                if let Some(b) = base {
                    pr = pr.at(b + (i * SomPoly::SIZE) as u64 + 40);
                }
                out.push(pr);
            }
        }
        out.sort_by_key(|p| (p.offset, p.severity == Severity::Warning));
        out
    }
}

/// Which of the two files some bytes are, by content: chunk 0 of 4 bytes first, then chunk 1
/// (the order the LevelEditor writes). Chunk 1's size decides where it divides only one of
/// the polygon sizes; when it divides both (a multiple of 440 bytes) the reading whose
/// two-sided words are 0 or 1 and whose SOM factors are finite wins, the HOM on a tie. A file
/// cut inside chunk 1 is still recognised, so that reading it says where it breaks.
pub fn sniff(bytes: &[u8]) -> Option<crate::Kind> {
    let word = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    if word(0)? != VERSION_CHUNK || word(4)? != 4 || word(12)? & !COMPRESSED != POLYGONS_CHUNK {
        return None;
    }
    let size = word(16)? as usize;
    let body = bytes.get(20..).unwrap_or(&[]);
    let body = &body[..size.min(body.len())];
    if word(12)? & COMPRESSED != 0 {
        // a compressed polygon chunk: the size says nothing; the HOM is the older file
        return Some(crate::Kind::Hom);
    }
    let (hom, som) = (size % HomPoly::SIZE == 0, size % SomPoly::SIZE == 0);
    match (hom, som) {
        (true, false) => Some(crate::Kind::Hom),
        (false, true) => Some(crate::Kind::Som),
        (false, false) => None,
        (true, true) => {
            let plausible = |rec: usize, extra: bool| {
                body.chunks_exact(rec).all(|p| {
                    let w = |k: usize| u32::from_le_bytes([p[k], p[k + 1], p[k + 2], p[k + 3]]);
                    w(36) <= 1
                        && (0..9).all(|k| f32::from_bits(w(k * 4)).is_finite())
                        && (!extra || f32::from_bits(w(40)).is_finite())
                })
            };
            if !plausible(HomPoly::SIZE, false) && plausible(SomPoly::SIZE, true) {
                Some(crate::Kind::Som)
            } else {
                Some(crate::Kind::Hom)
            }
        }
    }
}

/// Info on a `level.hom` or `level.som` (what `levelgeom info` prints).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct OccludersInfo {
    /// The version word, when there is a version chunk.
    pub version: Option<u32>,
    /// Polygons.
    pub polygons: usize,
    /// Polygons whose two-sided word is non-zero.
    pub two_sided: usize,
    /// Bounding box (min, max) of the vertices in level space, when there are any.
    pub bbox: Option<[[f32; 3]; 2]>,
    /// SOM only: the distinct occlusion factors with their polygon counts, ascending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occlusion: Option<Vec<Occlusion>>,
}

/// How many SOM polygons have one occlusion factor.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Occlusion {
    /// The factor.
    pub factor: f32,
    /// Polygons with it.
    pub polygons: usize,
}

impl<P: Polygon> Occluders<P> {
    fn info_common(&self) -> OccludersInfo {
        let mut bbox: Option<[[f32; 3]; 2]> = None;
        for v in self.polys().flat_map(|p| p.verts().iter()) {
            if v.iter().any(|c| !c.is_finite()) {
                continue;
            }
            let b = bbox.get_or_insert([*v, *v]);
            for k in 0..3 {
                b[0][k] = b[0][k].min(v[k]);
                b[1][k] = b[1][k].max(v[k]);
            }
        }
        OccludersInfo {
            version: self.version(),
            polygons: self.polys().count(),
            two_sided: self.polys().filter(|p| p.sided() != 0).count(),
            bbox,
            occlusion: None,
        }
    }
}

impl Hom {
    /// The summary `info` shows.
    pub fn info(&self) -> OccludersInfo {
        self.info_common()
    }
}

impl Som {
    /// The summary `info` shows, with the occlusion factors.
    pub fn info(&self) -> OccludersInfo {
        let mut occ: Vec<Occlusion> = Vec::new();
        let mut values: Vec<f32> = self.polys().map(|p| p.occ).collect();
        values.sort_by(f32::total_cmp);
        for v in values {
            match occ.last_mut() {
                Some(o) if o.factor.to_bits() == v.to_bits() => o.polygons += 1,
                _ => occ.push(Occlusion {
                    factor: v,
                    polygons: 1,
                }),
            }
        }
        OccludersInfo {
            occlusion: Some(occ),
            ..self.info_common()
        }
    }
}
