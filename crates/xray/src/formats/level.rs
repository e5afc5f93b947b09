//! The `level` file: header, shader table, visuals (OGF v4), portals, lights, glows, sectors.
//!
//! Top-level chunks in xrLC's order 1, 4, 6, 7, 3, 2, 8:
//!
//! | id | name | payload |
//! |---|---|---|
//! | 1 | `fsL_HEADER` | `u16 version (14); u16 quality`; older forms in [`HeaderForm`] |
//! | 2 | `fsL_SHADERS` | [`crate::shaders`] |
//! | 3 | `fsL_VISUALS` | nested chunks 0, 1, 2, …, each an OGF visual ([`crate::ogf`]) |
//! | 4 | `fsL_PORTALS` | 80-byte portals ([`crate::sectors`]) |
//! | 6 | `fsL_LIGHT_DYNAMIC` | 108-byte records: `u32 controller` + D3D9 `Flight` |
//! | 7 | `fsL_GLOWS` | 18-byte records: `f32 pos[3]; f32 radius; u16 shader_index` |
//! | 8 | `fsL_SECTORS` | nested per-sector chunks ([`crate::sectors`]) |
//!
//! Unknown chunks are kept raw; compressed chunks keep their stored bytes.
//!
//! ## Older builds (XRLC 4–12)
//!
//! Up to XRLC 12 there is no `level.geom`: the vertex and index buffers are chunks of `level`
//! itself, and the chunk ids move with the version ([`part`]; docs/formats/xray-level.md §3):
//!
//! | XRLC | ids |
//! |---|---|
//! | 4, 5 | 2 textures, 3 shaders, 4 visuals, 5 VB (FVF), 6 cform, 7 portals, 8 lights, 9 light key frames, 10 glows, 11 sectors |
//! | 8 | 2 shaders, 3 visuals, 4 VB (FVF), 5 cform, 6 portals, 7 lights, 9 glows, 10 sectors; late 8 (xrLC from 2002-08-30) 11 IB, visuals with `OGF_ICONTAINER`; xrLC of 2002-09-30 also 7 light control, 8 lights ([`Ids`]) |
//! | 9 | 2 shaders, 3 visuals, 4 VB_OLD (FVF), 5 cform, 6 portals, 7 light control, 8 lights, 9 glows, 10 sectors, 11 IB, 12 VB (D3D9) |
//! | 10, 11 | 2 shaders, 3 visuals, 4 portals, 5 light control, 6 lights, 7 glows, 8 sectors, 9 IB, 10 VB (D3D9) |
//! | 12 | as 10 + 11 SWIS; VB, IB and SWIS LZHUF-compressed by xrLC |
//!
//! The buffers have the layouts of `level.geom`'s chunks ([`crate::geom`]), FVF buffers those
//! of [`crate::fvf`]; visuals are OGF 3 ([`crate::ogf`]). The old record layouts:
//!
//! | part | XRLC | record |
//! |---|---|---|
//! | lights | 4, 5 | 124 bytes: D3D7 `D3DLIGHT7` (104 bytes, the same fields and order as D3D9's) + [`OldLightTail::Build5`] |
//! | lights | 8 | 176 bytes: `D3DLIGHT7` + [`OldLightTail::Build8`] (`u32 frame; u32 flags; char name[64]`) |
//! | lights | 8 of 2002-09-30, 9–14 | 108 bytes: `u32 controller` + `D3DLIGHT9` ([`Light`]) |
//! | glows | 4–11, early 12 | 24 bytes: `f32 pos[3]; f32 radius; u32 texture; u32 shader` ([`OldGlow`]) |
//! | glows | 12 (xrLC from 2003-10-20), 13, 14 | 18 bytes ([`Glow`]); 12 is read by the chunk's size |
//! | portals | 4, 5 | 80 bytes, the vertex count *before* the six vertices ([`LevelChunk::PortalsV5`]) |
//!
//! Old lights store no controller; [`OldLight::to_light`] gives the one xray_re assigns. The
//! embedded cform of 4–9 (found and unpacked by [`embedded_cform`]), the light controllers of
//! 9–11 ([`Part::LightControl`], written by [`light_control`]) and light key frames are kept
//! raw.

use levelgeom_binary::{Limits, ReadError, Reader, Warning, WriteError, Writer};

use crate::cform::Cform;
use crate::chunk::{self, Context, Framed};
use crate::fvf::FvfBuffer;
use crate::geom::{self, Header, SwiItem, VertexBuffer};
use crate::index_data::IndexData;
use crate::ogf::Visual;
use crate::sectors::{self, Portal, Sector};
use crate::shaders::{self, ShaderEntry};

pub use super::ids::level::*;

pub use super::builds::{known_version, VERSIONS};

/// Builds of the game known to have written levels of XRLC `version`, as a hint for `info`:
/// e.g. `"build 1098"`; every layout's builds where the version had several
/// ([`crate::builds::hint`]).
pub fn build_hint(version: u16) -> Option<String> {
    crate::builds::hint(version)
}

/// What chunk `id` of a `level` of XRLC `version` holds in the layout our writers write
/// ([`Ids::of_version`]; versions 13, 14 and unknown ones use the 13/14 ids), `None` for an id
/// the version does not use. A file is read by [`ids_of`], which also tells the dated layouts
/// whose ids differ within one version apart.
pub fn part(version: u16, id: u32) -> Option<Part> {
    Ids::of_version(version).part(id)
}

/// The chunk ids of the `level` file `bytes` ([`Ids`]), from its header's version and its
/// top-level chunk ids; `None` without a header. XRLC 8 is in the 2002-09-30 light layout
/// ([`Ids::light_control`]) exactly when it has a chunk 8: no other xrLC of XRLC 8 writes one
/// (`xrLC/xrSaveLights.cpp` writes only `fsL_LIGHTS` = 7 from 2002-04-01 to 2002-09-29, e.g.
/// `66fe78212a`; `fsL_LIGHT_KEYS` = 8 is declared in `xrLevel.h` but written by nothing),
/// while the 2002-09-30 one always writes it (`open_chunk(fsL_LIGHT_DYNAMIC)` even for no
/// lights, `0b46184139`). The chunk heads are walked as far as they fit; the full read reports
/// a broken one.
pub fn ids_of(bytes: &[u8]) -> Option<Ids> {
    let version = version_of(bytes)?;
    let light_control = version == 8 && top_level_ids(bytes).any(|id| id == 8);
    Some(Ids {
        version,
        light_control,
    })
}

/// The ids (compression bit removed) of the top-level chunks of `bytes`, as far as their heads
/// and sizes fit.
fn top_level_ids(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    let mut at = 0usize;
    std::iter::from_fn(move || {
        let head = bytes.get(at..at.checked_add(8)?)?;
        let id = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let size = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
        at = at.checked_add(8)?.checked_add(size)?;
        (at <= bytes.len()).then_some(id & !crate::chunk::COMPRESSED)
    })
}

/// The chunk id that holds `p` in a `level` of XRLC `version` in the layout our writers write
/// (the inverse of [`part`]), `None` when the version has no such chunk.
pub fn id_of(version: u16, p: Part) -> Option<u32> {
    Ids::of_version(version).id_of(p)
}

/// The XRLC version in the header chunk that starts `bytes` (xrLC writes it first), if any:
/// chunk 1 of 4 bytes (XRLC 11–14) or of [`NAMED_HEADER_SIZE`] bytes (XRLC 4–10; see
/// [`HeaderForm`]). The low 16 bits of the version word (the whole `u16` in 13/14).
pub fn version_of(bytes: &[u8]) -> Option<u16> {
    (bytes.len() >= 10 && starts_with_header(bytes))
        .then(|| u16::from_le_bytes([bytes[8], bytes[9]]))
}

/// True when `bytes` start with an `fsL_HEADER` chunk head of either size (4 or
/// [`NAMED_HEADER_SIZE`] bytes): the signature of a `level` or `level.geom` file.
pub fn starts_with_header(bytes: &[u8]) -> bool {
    let named = (NAMED_HEADER_SIZE as u32).to_le_bytes();
    bytes.len() >= 8
        && bytes[0..4] == [1, 0, 0, 0]
        && (bytes[4..8] == [4, 0, 0, 0] || bytes[4..8] == named)
}

/// Size of the XRLC 4–10 `fsL_HEADER` payload: `u32 XRLC_version; char name[124]`.
pub const NAMED_HEADER_SIZE: usize = 128;

/// Length of the name field of the XRLC 4–10 header.
pub const HEADER_NAME_LEN: usize = 124;

/// The form of `fsL_HEADER` (`hdrLEVEL`) that xrLC wrote for an XRLC version. xrLC writes
/// `sizeof(hdrLEVEL)` (xrLC/Build.cpp, 2002-01-15 `05d999e07a`: `fs.open_chunk(fsL_HEADER);
/// hdrLEVEL H; ZeroMemory(&H,sizeof(H))`); the struct by engine history
/// (`xr_3da/xrLevel.h` in SkyLoaderr/xray-engine-repo):
///
/// | XRLC | `hdrLEVEL` | bytes | evidence |
/// |---|---|---|---|
/// | 4 | not in the history (it starts at XRLC 5); both forms are read, [`Named`](HeaderForm::Named) is written as for 5 | 128 | inferred |
/// | 5–10 | `u32 XRLC_version; char name[124]` | 128 | `b4385f03b0` 2002-01-15 (5) … `6e603975e5` 2003-06-20 (10) |
/// | 11, 12, 13 | `u32 XRLC_version` | 4 | `8215fde6bc` 2003-08-29 (11) … `728f27bce1` 2005-04-22 |
/// | 14 | `u16 XRLC_version; u16 XRLC_quality` | 4 | `355d582495` 2005-09-07 |
///
/// xray_re (`xr_level.cxx` `xr_level::load`) skips the 124 name bytes for 5 and 8 only and
/// reads `u16 version, u16 quality` otherwise; blender-xray reads `u16, u16` (its importer
/// ignores what follows). In the `u32` forms we read the word as two `u16`s like they do:
/// the second is the version's high half, 0 in every file xrLC wrote, so quality reads 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderForm {
    /// `u32 XRLC_version; char name[124]` (XRLC 4–10).
    Named,
    /// `u32 XRLC_version` (XRLC 11–13).
    Version32,
    /// `u16 XRLC_version; u16 XRLC_quality` (XRLC 14).
    Quality,
}

/// The header form xrLC wrote for XRLC `version` (see [`HeaderForm`]); unknown versions above
/// 14 get the 14 form, unknown ones below 11 the named one.
pub fn header_form(version: u16) -> HeaderForm {
    match version {
        ..=10 => HeaderForm::Named,
        11..=13 => HeaderForm::Version32,
        _ => HeaderForm::Quality,
    }
}

/// The `fsL_HEADER` chunk payload a writer puts into a `level` of XRLC `version`, in that
/// build's form ([`header_form`]): for 4–10 the version and `name` (cut to 123 bytes so a NUL
/// ends it, the rest zero, as xrLC's `ZeroMemory` + `strcpy` leaves it); for 11–13 the `u32`
/// version (quality dropped: their engines compare the whole word with their version); for
/// 14 version and `quality`.
pub fn header_chunk(version: u16, quality: u16, name: &[u8]) -> LevelChunk {
    match header_form(version) {
        HeaderForm::Named => {
            let mut field = [0u8; HEADER_NAME_LEN];
            let n = name
                .iter()
                .position(|&b| b == 0)
                .unwrap_or(name.len())
                .min(HEADER_NAME_LEN - 1);
            field[..n].copy_from_slice(&name[..n]);
            LevelChunk::NamedHeader(NamedHeader {
                header: Header {
                    version,
                    quality: 0,
                },
                name: field,
            })
        }
        HeaderForm::Version32 => LevelChunk::Header(Header {
            version,
            quality: 0,
        }),
        HeaderForm::Quality => LevelChunk::Header(Header { version, quality }),
    }
}

/// The XRLC 4–10 header (128 bytes): the version word and the level's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamedHeader {
    /// The `u32` version read as two `u16`s: `version` and, as `quality`, its high half (0 in
    /// files xrLC wrote).
    pub header: Header,
    /// `char name[124]` as stored: NUL-terminated text, the bytes after the NUL kept verbatim.
    pub name: [u8; HEADER_NAME_LEN],
}

impl NamedHeader {
    /// Read the 128-byte payload.
    pub fn read(r: &mut Reader<'_>) -> Result<NamedHeader, ReadError> {
        let h = NamedHeader {
            header: Header {
                version: r.u16()?,
                quality: r.u16()?,
            },
            name: r.array()?,
        };
        r.finish()?;
        Ok(h)
    }

    /// Write the 128 bytes.
    pub fn write(&self, w: &mut Writer) {
        self.header.write(w);
        w.bytes(&self.name);
    }

    /// The name up to its first NUL (lossy UTF-8; xrLC wrote the level folder's name).
    pub fn name_text(&self) -> String {
        let n = self
            .name
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.name.len());
        String::from_utf8_lossy(&self.name[..n]).into_owned()
    }
}

/// The names xrLC's level editor gives its standard light controllers, in the order our
/// controller ids use them (0 hemisphere, 1 sun, 2 static: [`old_light_controller`]); from
/// `LCONTROL_HEMI`, `LCONTROL_DIR0`, `LCONTROL_STATIC` (Editors/.../communicate.h,
/// 2003-06-20 `6e603975e5`).
pub const LIGHT_CONTROLLERS: [&str; 3] = ["$hemi", "$dir0", "$static"];

/// The `fsL_LIGHT_CONTROL` payload a writer puts into a level of XRLC 9–11 whose lights use
/// controller ids up to `max_controller`: one record `{char name[64]; u32 count = 0}` per id
/// (the standard names of [`LIGHT_CONTROLLERS`], then `controller_3`, …), no animation data.
/// The renderers open the chunk without a null check (`FLightsController.cpp`, `Light_DB.cpp`)
/// and `IReader::open_chunk` returns null for a chunk of size 0 (xrCore/FS.cpp,
/// `6e603975e5`), so the table is never empty: at least the three standard controllers.
pub fn light_control(max_controller: u32) -> Vec<u8> {
    let n = max_controller.saturating_add(1).clamp(3, 256);
    let mut out = Vec::with_capacity(n as usize * 68);
    for k in 0..n {
        let mut name = [0u8; 64];
        let text = LIGHT_CONTROLLERS
            .get(k as usize)
            .map_or_else(|| format!("controller_{k}"), |s| (*s).to_string());
        name[..text.len()].copy_from_slice(text.as_bytes());
        out.extend_from_slice(&name);
        out.extend_from_slice(&0u32.to_le_bytes());
    }
    out
}

/// Fill an empty name field of the 128-byte header that starts the `level` file `bytes` with
/// `name` (cut to 123 bytes, then NUL; the field was all zero) and say whether it did: what a
/// writer does when the source had no name to keep, with the output folder's name, as xrLC
/// wrote its `L_name`. Bytes of any other file, or with a name already, are left as they are.
pub fn fill_header_name(bytes: &mut [u8], name: &str) -> bool {
    let field = 12..12 + HEADER_NAME_LEN;
    let named = (NAMED_HEADER_SIZE as u32).to_le_bytes();
    if bytes.len() < field.end || bytes[0..4] != [1, 0, 0, 0] || bytes[4..8] != named {
        return false;
    }
    if bytes[field.clone()].iter().any(|&b| b != 0) {
        return false;
    }
    let n = name.len().min(HEADER_NAME_LEN - 1);
    bytes[12..12 + n].copy_from_slice(&name.as_bytes()[..n]);
    true
}

/// The collision an XRLC 4–9 `level` keeps inside itself (`fsL_CFORM`), parsed; `None` for
/// other versions or without the chunk. xrLC wrote the chunk packed, as
/// `fsL_CFORM | CFS_CompressMark` (xrLC/xrBuildCForm.cpp from 2002-01-15 `05d999e07a` to
/// 2003-06-13 `bf250a46c8`: `fs.write_chunk(fsL_CFORM|CFS_CompressMark, …)`), so the chunk is
/// found by its id without the compression bit and unpacked; a plain one is read as it is.
/// Errors carry the file offset (inside a packed chunk: the offset in its unpacked bytes,
/// under `fsL_CFORM/lzhuf`).
pub fn embedded_cform(bytes: &[u8], limits: Limits) -> Result<Option<Cform>, ReadError> {
    let Some(ids) = ids_of(bytes).filter(|i| (4..=9).contains(&i.version)) else {
        return Ok(None);
    };
    let mut r = Reader::with_limits(bytes, limits);
    let chunks = chunk::read_all(&mut r, Context::OldLevel(ids), |h, b| {
        if ids.part(h.id()) != Some(Part::Cform) {
            b.take_rest();
            return Ok(None);
        }
        let base = b.pos();
        let path = b.path();
        let body = b.take_rest();
        Cform::read(body).map(|(c, _)| Some(c)).map_err(|mut e| {
            e.offset += base as u64;
            let mut segs = path.0.clone();
            segs.extend(e.path.0);
            e.path = levelgeom_binary::ChunkPath(segs);
            e
        })
    })?;
    Ok(chunks.into_iter().find_map(|c| c.value))
}

/// Read `fsL_HEADER` in the form its size says (4 or [`NAMED_HEADER_SIZE`] bytes; either is
/// accepted for every version, so a file is read as written).
fn read_header(r: &mut Reader<'_>) -> Result<LevelChunk, ReadError> {
    match r.remaining() {
        4 => Ok(LevelChunk::Header(Header::read(r)?)),
        NAMED_HEADER_SIZE => Ok(LevelChunk::NamedHeader(NamedHeader::read(r)?)),
        n => Err(r.invalid(format!(
            "fsL_HEADER of {n} bytes: expected 4 (XRLC 11–14: version) or 128 (XRLC 4–10: \
             version + 124-byte name)"
        ))),
    }
}

/// The naming context of a whole `level` file's chunks (by its version and [`ids_of`]).
pub fn context_of(bytes: &[u8]) -> Context {
    match ids_of(bytes) {
        Some(
            ids @ Ids {
                version: 4..=12, ..
            },
        ) => Context::OldLevel(ids),
        _ => Context::Level,
    }
}

/// The 104-byte D3D light record, the same fields in the same order in D3D7's `D3DLIGHT7`
/// (XRLC 4, 5, 8) and D3D9's `Flight` (XRLC 9–14).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct D3dLight {
    /// `D3DLIGHTTYPE` (1 point, 2 spot, 3 directional).
    pub light_type: u32,
    /// Diffuse RGBA.
    pub diffuse: [f32; 4],
    /// Specular RGBA.
    pub specular: [f32; 4],
    /// Ambient RGBA.
    pub ambient: [f32; 4],
    /// Position.
    pub position: [f32; 3],
    /// Direction.
    pub direction: [f32; 3],
    /// Range.
    pub range: f32,
    /// Spot falloff.
    pub falloff: f32,
    /// Attenuation 0, 1, 2.
    pub attenuation: [f32; 3],
    /// Spot inner angle.
    pub theta: f32,
    /// Spot outer angle.
    pub phi: f32,
}

impl D3dLight {
    /// Read the 104 bytes.
    pub fn read(r: &mut Reader<'_>) -> Result<D3dLight, ReadError> {
        Ok(D3dLight {
            light_type: r.u32()?,
            diffuse: r.f32s()?,
            specular: r.f32s()?,
            ambient: r.f32s()?,
            position: r.f32s()?,
            direction: r.f32s()?,
            range: r.f32()?,
            falloff: r.f32()?,
            attenuation: r.f32s()?,
            theta: r.f32()?,
            phi: r.f32()?,
        })
    }

    /// Write the 104 bytes.
    pub fn write(&self, w: &mut Writer) {
        w.u32(self.light_type);
        w.f32s(&self.diffuse);
        w.f32s(&self.specular);
        w.f32s(&self.ambient);
        w.f32s(&self.position);
        w.f32s(&self.direction);
        w.f32(self.range);
        w.f32(self.falloff);
        w.f32s(&self.attenuation);
        w.f32(self.theta);
        w.f32(self.phi);
    }
}

/// A dynamic light: the controller id and the D3D9 `Flight` (108 bytes in all).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Light {
    /// Controller (light group) id.
    pub controller: u32,
    /// The D3D light.
    pub d3d: D3dLight,
}

/// A glow sprite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glow {
    /// Position.
    pub position: [f32; 3],
    /// Radius.
    pub radius: f32,
    /// Shader table index.
    pub shader: u16,
}

/// The tail of an XRLC 4/5/8 light record after its 104-byte `D3DLIGHT7`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OldLightTail {
    /// XRLC 4, 5 (20 bytes; 124 in all). Field names from blender-xray's importer; xray_re
    /// reads the same 20 bytes as `unk[5]`, so the names are one reader's.
    Build5 {
        /// Frame stamp.
        frame: u32,
        /// Flags.
        flags: u32,
        /// Animation time.
        current_time: f32,
        /// Animation speed.
        speed: f32,
        /// First key in `fsL_LIGHT_KEY_FRAMES`.
        key_start: u16,
        /// Number of keys.
        key_count: u16,
    },
    /// XRLC 8 (72 bytes; 176 in all): the engine's `xrLIGHT` of that time.
    Build8 {
        /// `dwFrame`.
        frame: u32,
        /// Bit 0 affects static, 1 affects dynamic, 2 procedural.
        flags: u32,
        /// `string64 name` as stored (NUL-terminated text, bytes after the NUL kept).
        name: [u8; 64],
    },
}

/// A dynamic light of XRLC 4, 5 or 8: the D3D7 light (laid out as D3D9's `Flight`) and its
/// version's tail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OldLight {
    /// The D3D7 light.
    pub d3d: D3dLight,
    /// What follows the D3D light.
    pub tail: OldLightTail,
}

/// `D3DLIGHT_POINT`: the `type` of a light record.
pub const D3D_POINT: u32 = 1;
/// `D3DLIGHT_SPOT`.
pub const D3D_SPOT: u32 = 2;
/// `D3DLIGHT_DIRECTIONAL`.
pub const D3D_DIRECTIONAL: u32 = 3;

/// The controller an XRLC 4/5/8 light gets as a 13/14 record: 1 (sun) for a directional light,
/// 2 (static) otherwise. xray_re does this for point and directional lights (and rejects spots,
/// which blender-xray reads; they get 2 here).
pub fn old_light_controller(light_type: u32) -> u32 {
    if light_type == D3D_DIRECTIONAL {
        1
    } else {
        2
    }
}

impl OldLight {
    /// The 13/14 record of this light (controller from [`old_light_controller`]).
    pub fn to_light(&self) -> Light {
        Light {
            controller: old_light_controller(self.d3d.light_type),
            d3d: self.d3d,
        }
    }

    /// The XRLC 8 name up to its first NUL (`None` for 4/5 records).
    pub fn name(&self) -> Option<String> {
        match &self.tail {
            OldLightTail::Build8 { name, .. } => {
                let n = name.iter().position(|&b| b == 0).unwrap_or(name.len());
                Some(String::from_utf8_lossy(&name[..n]).into_owned())
            }
            OldLightTail::Build5 { .. } => None,
        }
    }
}

/// A glow of XRLC 4–11: a texture and a shader by index (into the texture and shader tables
/// in 4/5, both into the one table in 8–11), as in `OGF_TEXTURE_L`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OldGlow {
    /// Position.
    pub position: [f32; 3],
    /// Radius.
    pub radius: f32,
    /// Texture index (`u32` as stored).
    pub texture: u32,
    /// Shader index (`u32` as stored).
    pub shader: u32,
}

/// A top-level chunk of `level`.
#[derive(Clone, Debug, PartialEq)]
pub enum LevelChunk {
    /// 1: the 4-byte header (XRLC 11–14; see [`HeaderForm`]).
    Header(Header),
    /// 1: the 128-byte header of XRLC 4–10, with the level's name.
    NamedHeader(NamedHeader),
    /// 2.
    Shaders(Vec<ShaderEntry>),
    /// 3: the visuals, each a nested chunk (its id is its index).
    Visuals(Vec<Framed<Visual>>),
    /// 4.
    Portals(Vec<Portal>),
    /// 6.
    Lights(Vec<Light>),
    /// 7.
    Glows(Vec<Glow>),
    /// 8.
    Sectors(Vec<Framed<Sector>>),
    /// XRLC 4, 5: the texture table (visuals name a texture and a shader by index).
    Textures(Vec<ShaderEntry>),
    /// XRLC 9–12: D3D9-declared vertex buffers (the layout of `level.geom`'s chunk 9).
    VertexBuffers(Vec<VertexBuffer>),
    /// XRLC 4–9: FVF vertex buffers.
    FvfBuffers(Vec<FvfBuffer>),
    /// XRLC 9–12: index buffers.
    IndexBuffers(Vec<IndexData>),
    /// XRLC 12: sliding-window items.
    Swis(Vec<SwiItem>),
    /// XRLC 4, 5: portals with the vertex count first ([`crate::sectors::read_portals_v5`]).
    PortalsV5(Vec<Portal>),
    /// XRLC 4, 5, 8: lights with D3D7 records ([`OldLight`]).
    OldLights(Vec<OldLight>),
    /// XRLC 4–11 and early 12: 24-byte glows ([`OldGlow`]).
    OldGlows(Vec<OldGlow>),
    /// Unknown, or a part whose old layout is kept verbatim.
    Raw(Vec<u8>),
}

/// A whole `level` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Level {
    /// Chunks in file order.
    pub chunks: Vec<Framed<LevelChunk>>,
}

fn records(r: &Reader<'_>, size: usize, what: &str) -> Result<usize, ReadError> {
    if r.remaining() % size != 0 {
        return Err(r.invalid(format!(
            "{what} chunk of {} bytes is not a multiple of {size}",
            r.remaining()
        )));
    }
    Ok(r.remaining() / size)
}

fn read_lights(r: &mut Reader<'_>) -> Result<Vec<Light>, ReadError> {
    let n = records(r, 108, "light")?;
    let mut v = Vec::with_capacity(n);
    for i in 0..n {
        r.push("light", Some(i));
        v.push(Light {
            controller: r.u32()?,
            d3d: D3dLight::read(r)?,
        });
        r.pop();
    }
    Ok(v)
}

fn read_old_lights(r: &mut Reader<'_>, version: u16) -> Result<Vec<OldLight>, ReadError> {
    let size = if version == 8 { 176 } else { 124 };
    let n = records(r, size, "light")?;
    let mut v = Vec::with_capacity(n);
    for i in 0..n {
        r.push("light", Some(i));
        let d3d = D3dLight::read(r)?;
        let tail = if version == 8 {
            OldLightTail::Build8 {
                frame: r.u32()?,
                flags: r.u32()?,
                name: r.array()?,
            }
        } else {
            OldLightTail::Build5 {
                frame: r.u32()?,
                flags: r.u32()?,
                current_time: r.f32()?,
                speed: r.f32()?,
                key_start: r.u16()?,
                key_count: r.u16()?,
            }
        };
        v.push(OldLight { d3d, tail });
        r.pop();
    }
    Ok(v)
}

fn read_old_glows(r: &mut Reader<'_>) -> Result<Vec<OldGlow>, ReadError> {
    let n = records(r, 24, "glow")?;
    let mut v = Vec::with_capacity(n);
    for i in 0..n {
        r.push("glow", Some(i));
        v.push(OldGlow {
            position: r.f32s()?,
            radius: r.f32()?,
            texture: r.u32()?,
            shader: r.u32()?,
        });
        r.pop();
    }
    Ok(v)
}

fn read_fvf_buffers(r: &mut Reader<'_>) -> Result<Vec<FvfBuffer>, ReadError> {
    let n = r.u32_count(8)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        r.push("vb", Some(i));
        out.push(FvfBuffer::read(r)?);
        r.pop();
    }
    r.finish()?;
    Ok(out)
}

/// [`read_fvf_buffers`] without keeping the data (the same checks).
fn walk_fvf_buffers(r: &mut Reader<'_>) -> Result<(), ReadError> {
    let n = r.u32_count(8)?;
    for i in 0..n {
        r.push("vb", Some(i));
        let at = r.pos();
        let fvf = r.u32()?;
        let stride = crate::fvf::stride(fvf).map_err(|m| r.invalid_at(at, m))?;
        let cat = r.pos();
        let count = r.u32()?;
        if stride == 0 && count > 0 {
            return Err(r.invalid_at(at, format!("vertex format 0x{fvf:08X} has no elements")));
        }
        let len = r.count(count, stride.max(1)).map_err(|mut e| {
            e.offset = cat as u64;
            e
        })?;
        r.skip(len * stride)?;
        r.pop();
    }
    r.finish()
}

/// [`geom::read_vbs`] without keeping the data (the same checks).
fn walk_vbs(r: &mut Reader<'_>) -> Result<(), ReadError> {
    let n = r.u32_count(12)?;
    for i in 0..n {
        r.push("vb", Some(i));
        let stride = crate::decl::Declaration::read(r)?.stride();
        let at = r.pos();
        let count = r.u32()?;
        let len = r.count(count, stride).map_err(|mut e| {
            e.offset = at as u64;
            e
        })?;
        r.skip(len * stride)?;
        if stride == 0 && count > 0 {
            return Err(r.invalid_at(at, "vertices declared with a zero-byte stride"));
        }
        r.pop();
    }
    r.finish()
}

/// [`geom::read_ibs`] without keeping the indices (the same checks).
fn walk_ibs(r: &mut Reader<'_>) -> Result<(), ReadError> {
    let n = r.u32_count(4)?;
    for i in 0..n {
        r.push("ib", Some(i));
        let k = r.u32_count(2)?;
        r.skip(k * 2)?;
        r.pop();
    }
    r.finish()
}

/// The glow record size of an XRLC 12 `fsL_GLOWS` chunk. xrLC wrote 24-byte records
/// (`{f32 pos[3]; f32 radius; u32 texture; u32 shader}`, string indices) until 2003-10-19 and
/// 18-byte ones (`u16` shader) from 2003-10-20 (xrLC/Build.cpp `b58740e604` 2003-10-17 →
/// `2dd23ba610` 2003-10-20), both under XRLC 12. Decided by the chunk's size; a size both
/// divide (a multiple of 72) is decided by which reading gives sane glows (positions and
/// radius neither NaN, infinite, denormal nor beyond 10⁷; a positive radius), and refused
/// when both or neither do.
fn glow_size(r: &Reader<'_>) -> Result<usize, ReadError> {
    let n = r.remaining();
    let fits = |size: usize| n % size == 0;
    match (fits(24), fits(18)) {
        (true, false) => Ok(24),
        (false, true) => Ok(18),
        (true, true) if n == 0 => Ok(18),
        (true, true) => {
            let body = r.rest();
            let sane = |size: usize| {
                body.chunks_exact(size).all(|g| {
                    let f = |k: usize| f32::from_le_bytes([g[k], g[k + 1], g[k + 2], g[k + 3]]);
                    // no NaN, infinity or denormal (bytes of an integer read as a float)
                    let plain = |x: f32| x == 0.0 || x.is_normal() && x.abs() < 1.0e7;
                    let rad = f(12);
                    (0..3).all(|i| plain(f(4 * i))) && plain(rad) && rad > 0.0
                })
            };
            match (sane(24), sane(18)) {
                (true, false) => Ok(24),
                (false, true) => Ok(18),
                _ => Err(r.invalid(format!(
                    "glow chunk of {n} bytes reads as 24-byte records (xrLC to 2003-10-19) and \
                     as 18-byte ones (from 2003-10-20) alike: the layout is ambiguous"
                ))),
            }
        }
        (false, false) => Err(r.invalid(format!(
            "glow chunk of {n} bytes is a multiple of neither 24 (xrLC to 2003-10-19) nor 18 \
             (from 2003-10-20)"
        ))),
    }
}

fn read_glows(r: &mut Reader<'_>) -> Result<Vec<Glow>, ReadError> {
    let n = records(r, 18, "glow")?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(Glow {
            position: r.f32s()?,
            radius: r.f32()?,
            shader: r.u16()?,
        });
    }
    Ok(v)
}

impl Level {
    /// Parse a whole file. Warnings are things tolerated on the way (none are known yet for
    /// `level`; the list is there so that callers treat every engine alike).
    pub fn read(bytes: &[u8]) -> Result<(Level, Vec<Warning>), ReadError> {
        Self::read_with(bytes, Limits::DEFAULT)
    }

    /// [`Self::read`] with explicit allocation limits for compressed chunks.
    pub fn read_with(bytes: &[u8], limits: Limits) -> Result<(Level, Vec<Warning>), ReadError> {
        let mut r = Reader::with_limits(bytes, limits);
        // unknown versions are read with the 13/14 ids and layouts
        let ids = ids_of(bytes)
            .filter(|i| known_version(i.version))
            .unwrap_or(Ids::of_version(14));
        let ctx = context_of(bytes);
        let chunks = chunk::read_all(&mut r, ctx, |h, b| decode(ids, h.id(), b))?;
        let l = Level { chunks };
        if l.shaders().is_none() || l.visuals_framed().is_none() {
            return Err(ReadError::invalid(
                0,
                Default::default(),
                "not a level: shader chunk 2 or visuals chunk 3 is missing",
            ));
        }
        Ok((l, Vec::new()))
    }

    /// Read what `levelgeom info` shows without decoding the buffers of XRLC 4–12: the vertex,
    /// index and SWI chunks are walked with the checks of [`Self::read_with`] (counts against
    /// the bytes, strides, chunk ends; compressed ones are still decompressed, as the full read
    /// does) but their data is skipped, not copied, and they are left out of the result, as is
    /// the embedded cform; so the same files are refused, and the result is a summary, not for
    /// writing back. Visuals (and the vertices and indices XRLC 4/5/8 keep inside them) are read
    /// as usual. Other versions are read whole ([`Self::read_with`]).
    pub fn read_summary(bytes: &[u8], limits: Limits) -> Result<Level, ReadError> {
        let Some(ids) = ids_of(bytes).filter(|i| (4..=12).contains(&i.version)) else {
            return Self::read_with(bytes, limits).map(|(l, _)| l);
        };
        let mut r = Reader::with_limits(bytes, limits);
        let chunks = chunk::read_all(&mut r, Context::OldLevel(ids), |h, b| {
            match ids.part(h.id()) {
                Some(Part::FvfBuffers) => walk_fvf_buffers(b).map(|()| None),
                Some(Part::VertexBuffers) => walk_vbs(b).map(|()| None),
                Some(Part::IndexBuffers) => walk_ibs(b).map(|()| None),
                Some(Part::Swis) => geom::read_swis(b).map(|_| None),
                Some(Part::Cform) => {
                    b.take_rest();
                    Ok(None)
                }
                _ => decode(ids, h.id(), b).map(Some),
            }
        })?;
        let chunks = chunks
            .into_iter()
            .filter_map(|f| {
                f.value.map(|value| Framed {
                    raw_id: f.raw_id,
                    stored: f.stored,
                    value,
                })
            })
            .collect();
        let l = Level { chunks };
        if l.shaders().is_none() || l.visuals_framed().is_none() {
            return Err(ReadError::invalid(
                0,
                Default::default(),
                "not a level: shader chunk 2 or visuals chunk 3 is missing",
            ));
        }
        Ok(l)
    }

    /// The XRLC version from the header (`None` without one).
    pub fn version(&self) -> Option<u16> {
        self.header().map(|h| h.version)
    }

    /// The chunk ids of this level ([`Ids`]): its version's, and for XRLC 8 the 2002-09-30
    /// light layout when it has a chunk 8 (as [`ids_of`] decides for a file).
    pub fn ids(&self) -> Option<Ids> {
        let version = self.version()?;
        let light_control = version == 8 && self.chunks.iter().any(|c| c.id() == 8);
        Some(Ids {
            version,
            light_control,
        })
    }

    /// What chunk `id` of this level holds ([`Ids::part`]; the 13/14 ids without a header).
    pub fn part(&self, id: u32) -> Option<Part> {
        self.ids().unwrap_or(Ids::of_version(14)).part(id)
    }

    /// True when materials are (texture, shader) index pairs into string tables: each visual's
    /// `OGF_TEXTURE_L` and each 24-byte glow name a texture and a shader string. XRLC 4–11,
    /// and XRLC 12 as xrLC wrote it before 2003-10-20 (`b58740e604` 2003-10-17,
    /// `xrLC/Build.cpp` and `OGF_Face_Save.cpp` `RegisterString`), told apart from the later
    /// 12 (one `"shader/textures"` entry per OGF header `shader_id`, `2dd23ba610` 2003-10-20) by
    /// an `OGF_TEXTURE_L` in a visual or 24-byte glows.
    pub fn paired_materials(&self) -> bool {
        match self.version() {
            Some(..=11) => true,
            Some(12) => {
                !self.old_glows().is_empty()
                    || self.visuals().iter().any(|v| {
                        v.chunks
                            .iter()
                            .any(|c| matches!(c.value, crate::ogf::OgfChunk::TextureL { .. }))
                    })
            }
            _ => false,
        }
    }

    /// XRLC 4–12: the geometry is inside this file (no `level.geom`).
    pub fn is_old(&self) -> bool {
        self.version().is_some_and(|v| v <= 12)
    }

    /// The texture table of XRLC 4/5 levels.
    pub fn textures(&self) -> Option<&[ShaderEntry]> {
        self.chunks.iter().find_map(|c| match &c.value {
            LevelChunk::Textures(s) => Some(s.as_slice()),
            _ => None,
        })
    }

    /// D3D9 vertex buffers stored in `level` (XRLC 9–12).
    pub fn vertex_buffers(&self) -> Option<&[VertexBuffer]> {
        self.chunks.iter().find_map(|c| match &c.value {
            LevelChunk::VertexBuffers(v) => Some(v.as_slice()),
            _ => None,
        })
    }

    /// FVF vertex buffers stored in `level` (XRLC 4–9).
    pub fn fvf_buffers(&self) -> Option<&[FvfBuffer]> {
        self.chunks.iter().find_map(|c| match &c.value {
            LevelChunk::FvfBuffers(v) => Some(v.as_slice()),
            _ => None,
        })
    }

    /// Index buffers stored in `level` (XRLC 9–12).
    pub fn index_buffers(&self) -> Option<&[IndexData]> {
        self.chunks.iter().find_map(|c| match &c.value {
            LevelChunk::IndexBuffers(v) => Some(v.as_slice()),
            _ => None,
        })
    }

    /// SWI items stored in `level` (XRLC 12; empty otherwise).
    pub fn swis(&self) -> &[SwiItem] {
        self.chunks
            .iter()
            .find_map(|c| match &c.value {
                LevelChunk::Swis(v) => Some(v.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// Serialise (byte-exact for an unchanged parse). A count or size that does not fit its
    /// field is an error naming it (`fsL_VISUALS/visual[3]/OGF_CHILDREN_L/child count`).
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        self.to_bytes_with(&[])
    }

    /// [`to_bytes`](Self::to_bytes), a compressed chunk taking the packed bytes of the one of
    /// `ahead` of equal value ([`chunk::Packed`], made by [`pack_ahead`]).
    ///
    /// # Errors
    /// As [`to_bytes`](Self::to_bytes).
    pub fn to_bytes_with(
        &self,
        ahead: &[chunk::Packed<LevelChunk>],
    ) -> Result<Vec<u8>, WriteError> {
        let mut w = Writer::new();
        let ctx = match self.ids() {
            Some(
                ids @ Ids {
                    version: 4..=12, ..
                },
            ) => Context::OldLevel(ids),
            _ => Context::Level,
        };
        chunk::write_all_framed(&mut w, ctx, &self.chunks, ahead, write_chunk)?;
        Ok(w.into_inner())
    }

    /// The header's version and quality (of either form; in the `u32` forms of XRLC 4–13
    /// the quality is the version word's high half, see [`HeaderForm`]).
    pub fn header(&self) -> Option<Header> {
        self.chunks.iter().find_map(|c| match c.value {
            LevelChunk::Header(h) => Some(h),
            LevelChunk::NamedHeader(h) => Some(h.header),
            _ => None,
        })
    }

    /// The name in an XRLC 4–10 header (up to its NUL), `None` for a 4-byte header.
    pub fn header_name(&self) -> Option<String> {
        self.chunks.iter().find_map(|c| match &c.value {
            LevelChunk::NamedHeader(h) => Some(h.name_text()),
            _ => None,
        })
    }

    /// Replace the name field of an XRLC 4–10 header with `name` (all 124 bytes as given);
    /// false when the header is a 4-byte one (nothing changed).
    pub fn set_header_name(&mut self, name: &[u8; HEADER_NAME_LEN]) -> bool {
        for c in &mut self.chunks {
            if let LevelChunk::NamedHeader(h) = &mut c.value {
                h.name = *name;
                return true;
            }
        }
        false
    }

    /// The stored form of the header ([`HeaderForm::Named`] for 128 bytes; a 4-byte header
    /// is [`HeaderForm::Quality`] for 14, else [`HeaderForm::Version32`]).
    pub fn header_form(&self) -> Option<HeaderForm> {
        self.chunks.iter().find_map(|c| match c.value {
            LevelChunk::Header(h) if h.version >= 14 => Some(HeaderForm::Quality),
            LevelChunk::Header(_) => Some(HeaderForm::Version32),
            LevelChunk::NamedHeader(_) => Some(HeaderForm::Named),
            _ => None,
        })
    }

    /// The shader table.
    pub fn shaders(&self) -> Option<&[ShaderEntry]> {
        self.chunks.iter().find_map(|c| match &c.value {
            LevelChunk::Shaders(s) => Some(s.as_slice()),
            _ => None,
        })
    }

    /// The visual chunks (with their ids).
    pub fn visuals_framed(&self) -> Option<&[Framed<Visual>]> {
        self.chunks.iter().find_map(|c| match &c.value {
            LevelChunk::Visuals(v) => Some(v.as_slice()),
            _ => None,
        })
    }

    /// The visuals in file order (their index is their position, as the engine loads them).
    pub fn visuals(&self) -> Vec<&Visual> {
        self.visuals_framed()
            .unwrap_or(&[])
            .iter()
            .map(|f| &f.value)
            .collect()
    }

    /// Portals (of either layout).
    pub fn portals(&self) -> &[Portal] {
        self.chunks
            .iter()
            .find_map(|c| match &c.value {
                LevelChunk::Portals(p) | LevelChunk::PortalsV5(p) => Some(p.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// Dynamic lights.
    pub fn lights(&self) -> &[Light] {
        self.chunks
            .iter()
            .find_map(|c| match &c.value {
                LevelChunk::Lights(p) => Some(p.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// XRLC 4, 5, 8 lights (D3D7 records; [`Self::lights`] lists the 9–14 ones).
    pub fn old_lights(&self) -> &[OldLight] {
        self.chunks
            .iter()
            .find_map(|c| match &c.value {
                LevelChunk::OldLights(p) => Some(p.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// XRLC 4–11 glows ([`Self::glows`] lists the 12–14 ones).
    pub fn old_glows(&self) -> &[OldGlow] {
        self.chunks
            .iter()
            .find_map(|c| match &c.value {
                LevelChunk::OldGlows(p) => Some(p.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// Glows.
    pub fn glows(&self) -> &[Glow] {
        self.chunks
            .iter()
            .find_map(|c| match &c.value {
                LevelChunk::Glows(p) => Some(p.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// The sectors each visual belongs to: `out[v]` lists, in ascending order, every sector whose
    /// root visual (`fsP_Root`) is `v` or has `v` below it in the visual hierarchy (children
    /// of hierarchy visuals). A visual no sector reaches has an empty list. Out-of-range roots
    /// and child indices are skipped (`check` reports them); cycles are walked once.
    pub fn visual_sectors(&self) -> Vec<Vec<u16>> {
        let visuals = self.visuals();
        let mut out = vec![Vec::new(); visuals.len()];
        for (si, s) in self.sectors().iter().enumerate() {
            let Ok(si) = u16::try_from(si) else { break };
            let Some(root) = s.value.root() else { continue };
            let mut stack = vec![root as usize];
            while let Some(v) = stack.pop() {
                let Some(list) = out.get_mut(v) else { continue };
                if list.last() == Some(&si) {
                    continue;
                }
                list.push(si);
                stack.extend(visuals[v].children().iter().map(|&c| c as usize));
            }
        }
        out
    }

    /// Sectors.
    pub fn sectors(&self) -> &[Framed<Sector>] {
        self.chunks
            .iter()
            .find_map(|c| match &c.value {
                LevelChunk::Sectors(p) => Some(p.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }
}

/// Decode top-level chunk `id` of a level with the chunk ids `ids`.
fn decode(ids: Ids, id: u32, b: &mut Reader<'_>) -> Result<LevelChunk, ReadError> {
    let version = ids.version;
    Ok(match ids.part(id) {
        Some(Part::Header) => read_header(b)?,
        Some(Part::Shaders) => LevelChunk::Shaders(shaders::read(b)?),
        Some(Part::Textures) => LevelChunk::Textures(shaders::read(b)?),
        Some(Part::Visuals) => {
            LevelChunk::Visuals(chunk::read_all(b, Context::Visuals, |_, v| {
                Visual::read_in(v, version)
            })?)
        }
        Some(Part::Portals) if version >= 8 => LevelChunk::Portals(sectors::read_portals(b)?),
        Some(Part::Portals) => LevelChunk::PortalsV5(sectors::read_portals_v5(b)?),
        Some(Part::Lights) if ids.controller_lights() => LevelChunk::Lights(read_lights(b)?),
        Some(Part::Lights) => LevelChunk::OldLights(read_old_lights(b, version)?),
        // XRLC 12 has both glow records (24 bytes to 2003-10-19, 18 from 2003-10-20)
        Some(Part::Glows) if version == 12 => match glow_size(b)? {
            24 => LevelChunk::OldGlows(read_old_glows(b)?),
            _ => LevelChunk::Glows(read_glows(b)?),
        },
        Some(Part::Glows) if version >= 12 => LevelChunk::Glows(read_glows(b)?),
        Some(Part::Glows) => LevelChunk::OldGlows(read_old_glows(b)?),
        Some(Part::Sectors) => LevelChunk::Sectors(sectors::read_sectors(b)?),
        Some(Part::VertexBuffers) => LevelChunk::VertexBuffers(geom::read_vbs(b)?),
        Some(Part::FvfBuffers) => LevelChunk::FvfBuffers(read_fvf_buffers(b)?),
        Some(Part::IndexBuffers) => LevelChunk::IndexBuffers(geom::read_ibs(b)?),
        Some(Part::Swis) => LevelChunk::Swis(geom::read_swis(b)?),
        _ => LevelChunk::Raw(b.take_rest().to_vec()),
    })
}

/// `value`'s payload, as [`Level::to_bytes`] writes it, packed now for a compressed chunk of
/// that value that [`Level::to_bytes_with`] writes later ([`chunk::Packed`]).
///
/// # Errors
/// A value that does not fit its fields, as [`Level::to_bytes`].
pub fn pack_ahead(value: LevelChunk) -> Result<chunk::Packed<LevelChunk>, WriteError> {
    chunk::Packed::new(value, write_chunk)
}

fn write_chunk(c: &LevelChunk, w: &mut Writer) -> Result<(), WriteError> {
    match c {
        LevelChunk::Header(h) => h.write(w),
        LevelChunk::NamedHeader(h) => h.write(w),
        LevelChunk::Shaders(s) => shaders::write(s, w)?,
        LevelChunk::Visuals(vs) => {
            for v in vs {
                chunk::write_framed(w, Context::Visuals, v, |v, w| v.write(w))?;
            }
        }
        LevelChunk::Portals(p) => sectors::write_portals(p, w),
        LevelChunk::Lights(ls) => {
            for l in ls {
                w.u32(l.controller);
                l.d3d.write(w);
            }
        }
        LevelChunk::Glows(gs) => {
            for g in gs {
                w.f32s(&g.position);
                w.f32(g.radius);
                w.u16(g.shader);
            }
        }
        LevelChunk::Sectors(s) => sectors::write_sectors(s, w)?,
        LevelChunk::PortalsV5(p) => sectors::write_portals_v5(p, w),
        LevelChunk::OldLights(ls) => {
            for l in ls {
                l.d3d.write(w);
                match &l.tail {
                    OldLightTail::Build5 {
                        frame,
                        flags,
                        current_time,
                        speed,
                        key_start,
                        key_count,
                    } => {
                        w.u32(*frame);
                        w.u32(*flags);
                        w.f32(*current_time);
                        w.f32(*speed);
                        w.u16(*key_start);
                        w.u16(*key_count);
                    }
                    OldLightTail::Build8 { frame, flags, name } => {
                        w.u32(*frame);
                        w.u32(*flags);
                        w.bytes(name);
                    }
                }
            }
        }
        LevelChunk::OldGlows(gs) => {
            for g in gs {
                w.f32s(&g.position);
                w.f32(g.radius);
                w.u32(g.texture);
                w.u32(g.shader);
            }
        }
        LevelChunk::Textures(s) => shaders::write(s, w)?,
        LevelChunk::VertexBuffers(v) => geom::write_vbs(w, v)?,
        LevelChunk::FvfBuffers(v) => {
            w.u32(levelgeom_binary::fit(v.len(), || {
                "vertex buffer count".into()
            })?);
            for (i, vb) in v.iter().enumerate() {
                vb.write(w).map_err(|e| e.within(&format!("vb[{i}]")))?;
            }
        }
        LevelChunk::IndexBuffers(v) => geom::write_ibs(w, v)?,
        LevelChunk::Swis(v) => geom::write_swis(w, v)?,
        LevelChunk::Raw(b) => w.bytes(b),
    }
    Ok(())
}
