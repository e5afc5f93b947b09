//! `--to-version`: the imported level written in the other `level.geom` build, XRLC 13 ⇄ 14.
//!
//! The two builds differ only in how the geometry files encode vertices (docs/formats/xray-level.md §3; every chunk
//! id and every `level` chunk, OGF visual and `level.cform` is the same):
//!
//! | | XRLC 13 | XRLC 14 |
//! |---|---|---|
//! | header (`level`, `level.geom`, `level.geomx` chunk 1) | `version = 13` | `version = 14` |
//! | static base UV (`TEXCOORD0` of the lightmapped and vertex-lit layouts) | `FLOAT2`, 8 bytes (`v13_lmap` 36 bytes) | `SHORT2` `⌊uv·1024⌋` + fraction bytes `⌊255.5·(uv·1024 − s16)⌋` in the alphas of TANGENT (u) and BINORMAL (v) (`r1_lmap`, `r1_vert`: 32 bytes) |
//! | tangent / binormal alpha | its own byte (0 in what we write) | the base-UV fractions |
//! | `level.geomx` | `FLOAT3` position + `SHORT2 TEXCOORD0` `⌊uv·1024⌋` (16 bytes) | position only (12 bytes) |
//! | tree / MU layout (`SHORT4 TEXCOORD0`) | the same | the same |
//!
//! A declaration is converted by changing the type of its stream-0 `TEXCOORD0` element between
//! `SHORT2` and `FLOAT2` and moving the elements behind it by the 4 bytes of difference (so
//! `r1_lmap` ⇄ `v13_lmap` and `r1_vert` ⇄ the 36-byte v13 vertex-lit layout); buffers without
//! such an element (trees) keep their bytes. The vertices are decoded and re-encoded with the
//! codec, whose decode → encode gives back every stored byte.
//!
//! **14 → 13 loses nothing**: the decoded base UV (`(s16 + frac/255)/1024` rounded to `f32`)
//! is stored as that `f32`, and encoding it again gives back the same `s16` and fraction byte
//! (checked here for every vertex: the buffer converted back must be the original bytes, else
//! the difference is named as a loss). The v13 `level.geomx` needs a base UV that the v14 one
//! does not have: each fast-path vertex gets the UV of the first vertex of its visual's
//! `level.geom` range at the same position (a note says how many had none, or several
//! different ones: seams), quantised as v13 stores it (`⌊uv·1024⌋`).
//!
//! **13 → 14 loses**: base UVs are quantised (largest error below `1/(255.5·1024)` ≈ 3.8e-6
//! inside the SHORT2 range ±32, more when clamped), non-zero tangent/binormal alphas are
//! replaced by the fractions, and `level.geomx` drops its UVs. Each is named with its size, and
//! the conversion is refused unless the caller allows loss.

use std::collections::HashMap;

use serde::Serialize;

use crate::decl::{DeclType, Declaration, Element, Usage};
use crate::geom::{GeomChunk, VertexBuffer};
use crate::level::{Level, LevelChunk};
use crate::vertex::{self, Vertices};

use super::{ImportError, Imported};

/// The builds `--to-version` converts between: every build import reads and writes.
pub const VERSIONS: [u16; 9] = [4, 5, 8, 9, 10, 11, 12, 13, 14];

/// Whether `v` is one of the two `level.geom` builds (13, 14); the others keep their geometry
/// inside `level`.
pub fn has_geom_file(v: u16) -> bool {
    matches!(v, 13 | 14)
}

/// What a conversion did (in [`super::Summary::conversion`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Conversion {
    /// The base level's build.
    pub from: u16,
    /// The build written.
    pub to: u16,
    /// `level.geom` vertex buffers re-encoded (the others, trees', kept their bytes).
    pub vertex_buffers: usize,
    /// Vertices in them.
    pub vertices: usize,
    /// `level.geomx` vertex buffers re-encoded.
    pub geomx_buffers: usize,
    /// Largest difference between a base UV and what the target build stores (0 when exact).
    pub max_uv_error: f64,
    /// What was lost (converted only because loss was allowed).
    pub lost: Vec<String>,
    /// Everything else worth telling (values derived for the target build).
    pub notes: Vec<String>,
}

impl Conversion {
    /// Add what a further step of the same conversion did (counts summed, lists appended).
    pub fn absorb(&mut self, step: Conversion) {
        self.vertex_buffers += step.vertex_buffers;
        self.vertices += step.vertices;
        self.geomx_buffers += step.geomx_buffers;
        self.max_uv_error = self.max_uv_error.max(step.max_uv_error);
        self.lost.extend(step.lost);
        self.notes.extend(step.notes);
    }
}

/// Refuse a `--to-version` that is not one of [`VERSIONS`] before any work is done.
///
/// # Errors
/// [`ImportError::TargetVersion`].
pub fn check_target(from: u16, to: u16) -> Result<(), ImportError> {
    if to == from || (VERSIONS.contains(&to) && VERSIONS.contains(&from)) {
        Ok(())
    } else {
        Err(ImportError::TargetVersion { from, to })
    }
}

/// The declaration of `d` in build `to`: `None` when it has no static base UV to convert.
pub fn convert_decl(d: &Declaration, to: u16) -> Option<Declaration> {
    let (old, new) = match to {
        13 => (DeclType::Short2, DeclType::Float2),
        14 => (DeclType::Float2, DeclType::Short2),
        _ => return None,
    };
    let tc = d
        .elements
        .iter()
        .find(|e| e.stream == 0 && e.usage == Usage::TexCoord as u8 && e.usage_index == 0)?;
    if tc.decl_type() != Some(old) {
        return None;
    }
    let at = tc.offset;
    let grow = |o: u16| if to == 13 { o + 4 } else { o - 4 };
    let elements: Vec<Element> = d
        .elements
        .iter()
        .map(|e| {
            let mut e = *e;
            if e.stream == 0 && e.offset == at && e.usage == Usage::TexCoord as u8 {
                e.ty = new as u8;
            } else if e.stream == 0 && e.offset > at {
                e.offset = grow(e.offset);
            }
            e
        })
        .collect();
    Some(Declaration {
        elements,
        end: d.end,
    })
}

/// The v13 `level.geomx` layout: position and a `SHORT2` base UV (`/1024`), 16 bytes.
pub fn v13_geomx() -> Declaration {
    Declaration::new(vec![
        Element::new(0, DeclType::Float3, Usage::Position, 0),
        Element::new(12, DeclType::Short2, Usage::TexCoord, 0),
    ])
}

/// The header word(s) of build `to`: its version, and for XRLC 13 no quality. The XRLC 13
/// engine reads `hdrLEVEL` as one `u32 XRLC_version` (`xr_3da/xrLevel.h` to 2005-09-07,
/// `355d582495` being the first `u16 version; u16 quality`; see `crate::level::HeaderForm`), so a
/// quality in the high half would make it read another version. Returns the quality dropped.
fn set_version(h: &mut crate::geom::Header, to: u16) -> Option<u16> {
    h.version = to;
    let dropped = (to == 13 && h.quality != 0).then_some(h.quality);
    if to == 13 {
        h.quality = 0;
    }
    dropped
}

fn set_header(chunks: &mut [crate::chunk::Framed<GeomChunk>], to: u16) -> Option<u16> {
    let mut dropped = None;
    for c in chunks {
        if let GeomChunk::Header(h) = &mut c.value {
            dropped = dropped.or(set_version(h, to));
        }
    }
    dropped
}

fn set_level_header(level: &mut Level, to: u16) -> Option<u16> {
    let mut dropped = None;
    for c in &mut level.chunks {
        if let LevelChunk::Header(h) = &mut c.value {
            dropped = dropped.or(set_version(h, to));
        }
    }
    dropped
}

/// What the target build stores of a base UV coordinate, decoded back.
fn stored_base(x: f32) -> f32 {
    let (s, f) = vertex::encode_base(x);
    vertex::decode_base(s, f)
}

/// Convert `out` (an import of a level of build `from`, in that build) to build `to` in place.
///
/// The steps: an old build (4–12) is first raised to XRLC 13 ([`super::upgrade`]), a target
/// older than 13 is reached from XRLC 13 ([`super::downgrade`]), and 13 ⇄ 14 is the
/// `level.geom` re-encoding of this module; e.g. 9 → 14 is 9 → 13 → 14, 14 → 12 is
/// 14 → 13 → 12. What every step lost is collected, and the whole conversion refused when
/// anything was lost and `allow_loss` is false.
///
/// # Errors
/// [`ImportError::TargetVersion`] for builds not in [`VERSIONS`]; [`ImportError::Loss`] when
/// the conversion would lose data and `allow_loss` is false (`out` must then be dropped);
/// [`ImportError::Write`] when a buffer does not fit.
pub fn convert(
    out: &mut Imported,
    from: u16,
    to: u16,
    allow_loss: bool,
) -> Result<Option<Conversion>, ImportError> {
    convert_with(out, from, to, allow_loss, None)
}

/// [`convert`], taking the vertex buffers from `converted` where they are the ones it was made
/// from ([`Converted`]).
///
/// # Errors
/// As [`convert`].
pub fn convert_with(
    out: &mut Imported,
    from: u16,
    to: u16,
    allow_loss: bool,
    converted: Option<Converted>,
) -> Result<Option<Conversion>, ImportError> {
    check_target(from, to)?;
    if from == to {
        return Ok(None);
    }
    let mut c = Conversion {
        from,
        to,
        ..Conversion::default()
    };
    let mut at = from;
    // the v13 level.geomx UVs of an upgraded level are derived (old builds have no
    // level.geomx): dropping them again on the way to 14 loses nothing of the base
    let derived_geomx = !has_geom_file(at);
    if derived_geomx {
        c.absorb(super::upgrade::to_13(out, at)?);
        at = 13;
    }
    if !has_geom_file(to) {
        if at == 14 {
            // level.geomx is dropped on the way down: its 14 → 13 re-encoding (and the note
            // on the UVs it would derive) is not wanted; the downgrade says it is dropped
            let mut step = geom_build(out, 14, 13, false, converted)?;
            step.notes.retain(|n| !n.starts_with("level.geomx"));
            step.geomx_buffers = 0;
            c.absorb(step);
        }
        c.absorb(super::downgrade::from_13(out, to)?);
    } else if at != to {
        c.absorb(geom_build(out, at, to, derived_geomx, converted)?);
    }
    // the layout written, with the builds it is for (crate::builds: the latest layout where
    // the version had several)
    c.notes
        .insert(0, format!("written as {}", crate::builds::target_name(to)));
    if !c.lost.is_empty() && !allow_loss {
        return Err(ImportError::Loss {
            from,
            to,
            lost: c.lost.join("; "),
        });
    }
    Ok(Some(c))
}

/// The base's `level.geom` vertex buffers re-encoded 13 ⇄ 14 as [`convert`] re-encodes them,
/// made from the base alone (beside the import, [`super::import_prepared`]): [`convert`] takes
/// them, and what the re-encoding found lost, for buffers equal to the ones they were made
/// from instead of re-encoding those again.
#[derive(Clone, Debug)]
pub struct Converted {
    /// The buffers re-encoded (clones of the base's, sharing their bytes).
    from: Vec<VertexBuffer>,
    /// The build they were re-encoded for (13 or 14).
    to: u16,
    /// The re-encoded buffers; their bytes shared, so that clones cost no copy and compare
    /// equal unread.
    vbs: Vec<VertexBuffer>,
    /// What the re-encoding counted and found lost.
    step: Conversion,
}

impl Converted {
    /// The vertex buffers of `geom` (of build `from`) re-encoded as [`convert`] to `to` does:
    /// to 13 on the way from 14 to any other build, to 14 from 13; `None` when [`convert`]
    /// re-encodes none (the same build, or a base without `level.geom`).
    ///
    /// # Errors
    /// As [`convert`] for the vertex buffers (a buffer that does not fit).
    pub fn new(
        geom: &crate::geom::Geom,
        from: u16,
        to: u16,
    ) -> Result<Option<Converted>, ImportError> {
        let step_to = match (from, to) {
            (14, t) if t != 14 => 13,
            (13, 14) => 14,
            _ => return Ok(None),
        };
        let from_vbs = geom.vertex_buffers().unwrap_or(&[]).to_vec();
        let mut step = Conversion::default();
        let vbs = geom_buffers(&from_vbs, step_to, &mut step)?
            .into_iter()
            .map(|mut vb| {
                vb.data = vb.data.into_shared();
                vb
            })
            .collect();
        Ok(Some(Converted {
            from: from_vbs,
            to: step_to,
            vbs,
            step,
        }))
    }

    /// The re-encoded buffers (the build [`convert`] goes through: 13 from 14, or 14 from 13).
    pub fn vertex_buffers(&self) -> &[VertexBuffer] {
        &self.vbs
    }

    /// The build of [`vertex_buffers`](Self::vertex_buffers).
    pub fn build(&self) -> u16 {
        self.to
    }
}

/// The chunks that [`convert`] of a level with the `level.geom` `geom` (of build `from`,
/// nothing edited) to `to` compresses, made from `geom` (and `converted`, its vertex buffers
/// re-encoded, [`Converted::new`]) alone so that a caller can pack them beforehand
/// ([`crate::level::pack_ahead`]): XRLC 12's vertex buffers (`vertex`) and its index and SWI
/// buffers (`others`), each as [`super::downgrade`] makes it; none for other builds. A
/// caller must use them only for chunks of equal value ([`crate::chunk::Packed`]): an edit
/// changes the import's buffers.
///
/// # Errors
/// As [`convert`] for the vertex buffers (a layout XRLC 12 cannot hold).
pub fn packed_chunks(
    geom: &crate::geom::Geom,
    converted: Option<&Converted>,
    from: u16,
    to: u16,
    which: Packable,
) -> Result<Vec<LevelChunk>, ImportError> {
    if to != 12 || !matches!(from, 13 | 14) {
        return Ok(Vec::new());
    }
    match which {
        Packable::Vertex => {
            let vbs = match converted {
                Some(c) if c.to == 13 => c.vertex_buffers(),
                _ if from == 13 => geom.vertex_buffers().unwrap_or(&[]),
                // the 13 buffers are the re-encoded ones: without them, nothing is known
                _ => return Ok(Vec::new()),
            };
            Ok(vec![super::downgrade::vertex_chunk(vbs, to)?])
        }
        // as downgrade's buffer chunks: the base's index and SWI buffers, unchanged
        Packable::Others => Ok(vec![
            LevelChunk::IndexBuffers(geom.index_buffers().unwrap_or(&[]).to_vec()),
            LevelChunk::Swis(geom.swis().to_vec()),
        ]),
    }
}

/// Which of [`packed_chunks`]: the large vertex-buffer chunk, or the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packable {
    /// The vertex buffers.
    Vertex,
    /// The index and SWI buffers.
    Others,
}

/// XRLC 13 ⇄ 14 (`from`, `to` each 13 or 14, different): the module's `level.geom` and
/// `level.geomx` re-encoding; what is lost is listed, not refused (see [`convert`]).
/// `derived_geomx`: the v13 `level.geomx` UVs were derived by an earlier step (dropping them
/// is then a note, not a loss).
fn geom_build(
    out: &mut Imported,
    from: u16,
    to: u16,
    derived_geomx: bool,
    converted: Option<Converted>,
) -> Result<Conversion, ImportError> {
    let mut c = Conversion {
        from,
        to,
        ..Conversion::default()
    };
    let vbs = out.geom.vertex_buffers().unwrap_or(&[]).to_vec();
    let new_vbs = match converted {
        // the same buffers re-encoded for the same build: the same result (for the import's
        // own copies of the base's buffers the comparison reads no byte: shared bytes)
        Some(done) if done.to == to && done.from == vbs => {
            c.absorb(done.step);
            done.vbs
        }
        _ => geom_buffers(&vbs, to, &mut c)?,
    };
    let new_geomx_vbs = match &out.geomx {
        Some(gx) if to == 13 => {
            let xvbs = gx.vertex_buffers().unwrap_or(&[]);
            Some(geomx_to_13(&out.level, &vbs, xvbs, &mut c)?)
        }
        Some(gx) => {
            let xvbs = gx.vertex_buffers().unwrap_or(&[]);
            Some(geomx_to_14(xvbs, derived_geomx, &mut c)?)
        }
        None => None,
    };
    // commit
    if let Some(v) = out.geom.vertex_buffers_mut() {
        *v = new_vbs;
    }
    let mut dropped = set_header(&mut out.geom.chunks, to);
    if let Some(gx) = &mut out.geomx {
        if let (Some(v), Some(nx)) = (gx.vertex_buffers_mut(), new_geomx_vbs) {
            *v = nx;
        }
        dropped = dropped.or(set_header(&mut gx.chunks, to));
    }
    dropped = dropped.or(set_level_header(&mut out.level, to));
    if let Some(q) = dropped {
        c.notes.push(format!(
            "the headers' XRLC quality {q} is written as 0: the XRLC 13 engine reads the header \
             as one u32 version word"
        ));
    }
    Ok(c)
}

/// The `level.geom` vertex buffers `vbs` re-encoded for XRLC `to`, with what is lost in `c`.
fn geom_buffers(
    vbs: &[VertexBuffer],
    to: u16,
    c: &mut Conversion,
) -> Result<Vec<VertexBuffer>, ImportError> {
    let mut new_vbs = Vec::with_capacity(vbs.len());
    let (mut quantised, mut alphas) = (0usize, 0usize);
    for (k, vb) in vbs.iter().enumerate() {
        let Some(decl) = convert_decl(&vb.decl, to) else {
            new_vbs.push(vb.clone());
            continue;
        };
        let v = vb.decode();
        if to == 14 {
            for uv in &v.uv {
                let e = uv
                    .iter()
                    .map(|&x| (f64::from(x) - f64::from(stored_base(x))).abs())
                    .fold(0.0, f64::max);
                if e > 0.0 {
                    quantised += 1;
                }
                c.max_uv_error = c.max_uv_error.max(e);
            }
            alphas += (0..v.count)
                .filter(|&i| {
                    v.tangent_alpha.get(i).is_some_and(|&a| a != 0.0)
                        || v.binormal_alpha.get(i).is_some_and(|&a| a != 0.0)
                })
                .count();
        }
        let nb = VertexBuffer::encode(decl, &v)?;
        if to == 13 {
            // exact: converting back must give the original bytes
            let back = VertexBuffer::encode(vb.decl.clone(), &nb.decode())?;
            let differ = back
                .data
                .chunks(vb.stride().max(1))
                .zip(vb.data.chunks(vb.stride().max(1)))
                .filter(|(a, b)| a != b)
                .count();
            if differ > 0 {
                c.lost.push(format!(
                    "{differ} vertices of level.geom buffer {k} do not survive the FLOAT2 \
                     layout (bytes no element covers, or values outside the codec's range)"
                ));
            }
        }
        c.vertex_buffers += 1;
        c.vertices += v.count;
        new_vbs.push(nb);
    }
    if quantised > 0 {
        c.lost.push(format!(
            "base UVs of {quantised} vertices quantised to XRLC 14's SHORT2 + fraction bytes \
             (largest UV error {:.3e})",
            c.max_uv_error
        ));
    }
    if alphas > 0 {
        c.lost.push(format!(
            "non-zero tangent/binormal alpha of {alphas} vertices (XRLC 14 stores the base-UV \
             fractions there)"
        ));
    }
    Ok(new_vbs)
}

/// The `level.geomx` buffers `xvbs` for XRLC 13: position-only ones get base UVs from the
/// `level.geom` buffers `vbs` ([`fastpath_uvs`]); others are kept (a note in `c`).
fn geomx_to_13(
    level: &Level,
    vbs: &[VertexBuffer],
    xvbs: &[VertexBuffer],
    c: &mut Conversion,
) -> Result<Vec<VertexBuffer>, ImportError> {
    let mut nx = Vec::with_capacity(xvbs.len());
    let uvs = fastpath_uvs(level, vbs, xvbs);
    let (mut none, mut seams) = (0usize, 0usize);
    for (k, xvb) in xvbs.iter().enumerate() {
        if xvb.decl != crate::decl::x_vert() {
            c.notes.push(format!(
                "level.geomx buffer {k} is not position-only: kept as it is"
            ));
            nx.push(xvb.clone());
            continue;
        }
        let mut v = xvb.decode();
        let found = &uvs[k];
        v.uv = (0..v.count)
            .map(|i| match found.get(i).copied().flatten() {
                Some((uv, seam)) => {
                    seams += usize::from(seam);
                    uv
                }
                None => {
                    none += 1;
                    [0.0, 0.0]
                }
            })
            .collect();
        nx.push(VertexBuffer::encode(v13_geomx(), &v)?);
        c.geomx_buffers += 1;
    }
    c.notes.push(format!(
        "level.geomx base UVs (XRLC 13 keeps one per fast-path vertex, XRLC 14 none) \
         taken from the visual's level.geom vertex at the same position, as ⌊uv·1024⌋; \
         {none} vertices had none (given 0, 0), {seams} are at seams (several UVs: \
         the first taken)"
    ));
    Ok(nx)
}

/// The `level.geomx` buffers `xvbs` for XRLC 14 (position-only): the base UVs of XRLC 13
/// buffers dropped, a loss in `c` unless `derived_geomx` (an earlier step made them).
fn geomx_to_14(
    xvbs: &[VertexBuffer],
    derived_geomx: bool,
    c: &mut Conversion,
) -> Result<Vec<VertexBuffer>, ImportError> {
    let mut nx = Vec::with_capacity(xvbs.len());
    let mut dropped = 0usize;
    for (k, xvb) in xvbs.iter().enumerate() {
        if xvb.decl == crate::decl::x_vert() {
            nx.push(xvb.clone());
            continue;
        }
        if xvb.decl != v13_geomx() {
            c.notes.push(format!(
                "level.geomx buffer {k} has neither the XRLC 13 nor the 14 layout: \
                 kept as it is"
            ));
            nx.push(xvb.clone());
            continue;
        }
        let v = xvb.decode();
        dropped +=
            v.uv.iter()
                .filter(|uv| uv[0] != 0.0 || uv[1] != 0.0)
                .count();
        let p = Vertices {
            count: v.count,
            positions: v.positions,
            ..Vertices::default()
        };
        nx.push(VertexBuffer::encode(crate::decl::x_vert(), &p)?);
        c.geomx_buffers += 1;
    }
    if dropped > 0 && derived_geomx {
        c.notes.push(format!(
            "level.geomx base UVs of {dropped} vertices dropped again (XRLC 14's \
             level.geomx is position-only; the base had no level.geomx)"
        ));
    } else if dropped > 0 {
        c.lost.push(format!(
            "level.geomx base UVs of {dropped} vertices (XRLC 14's level.geomx is \
             position-only)"
        ));
    }
    Ok(nx)
}

/// For each `level.geomx` buffer, per vertex: the base UV of the first `level.geom` vertex of
/// a visual using it at the same position, and whether that visual's vertices at that
/// position have several different UVs.
#[allow(clippy::type_complexity)]
fn fastpath_uvs(
    level: &Level,
    vbs: &[VertexBuffer],
    xvbs: &[VertexBuffer],
) -> Vec<Vec<Option<([f32; 2], bool)>>> {
    let mut out: Vec<Vec<Option<([f32; 2], bool)>>> =
        xvbs.iter().map(|b| vec![None; b.count as usize]).collect();
    let mut decoded: Vec<Option<Vertices>> = vec![None; vbs.len()];
    let mut xdecoded: Vec<Option<Vertices>> = vec![None; xvbs.len()];
    for vis in level.visuals() {
        let (Some(g), Some(f)) = (vis.gcontainer(), vis.fastpath()) else {
            continue;
        };
        let (gi, fi) = (g.vb_index as usize, f.vb_index as usize);
        let (Some(vb), Some(xvb)) = (vbs.get(gi), xvbs.get(fi)) else {
            continue;
        };
        let main = decoded[gi].get_or_insert_with(|| vb.decode());
        let mut by_pos: HashMap<[u32; 3], ([f32; 2], bool)> = HashMap::new();
        let start = g.vb_offset as usize;
        let end = (start + g.vb_count as usize).min(main.count);
        for i in start..end {
            let (Some(p), Some(uv)) = (main.positions.get(i), main.uv.get(i)) else {
                continue;
            };
            let e = by_pos.entry(p.map(f32::to_bits)).or_insert((*uv, false));
            e.1 |= e.0 != *uv;
        }
        let x = xdecoded[fi].get_or_insert_with(|| xvb.decode());
        let xs = f.vb_offset as usize;
        let xe = (xs + f.vb_count as usize).min(x.count);
        let slots = out[fi].iter_mut().zip(&x.positions).take(xe).skip(xs);
        for (slot, p) in slots {
            if slot.is_none() {
                *slot = by_pos.get(&p.map(f32::to_bits)).copied();
            }
        }
    }
    out
}
