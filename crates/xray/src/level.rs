//! The `level` file: header, shader table, visuals (OGF v4), portals, lights, glows, sectors.
//!
//! Top-level chunks in xrLC's order 1, 4, 6, 7, 3, 2, 8:
//!
//! | id | name | payload |
//! |---|---|---|
//! | 1 | `fsL_HEADER` | `u16 version (14); u16 quality` |
//! | 2 | `fsL_SHADERS` | [`crate::shaders`] |
//! | 3 | `fsL_VISUALS` | nested chunks 0, 1, 2, …, each an OGF visual ([`crate::ogf`]) |
//! | 4 | `fsL_PORTALS` | 80-byte portals ([`crate::sectors`]) |
//! | 6 | `fsL_LIGHT_DYNAMIC` | 108-byte records: `u32 controller` + D3D9 `Flight` |
//! | 7 | `fsL_GLOWS` | 18-byte records: `f32 pos[3]; f32 radius; u16 shader_index` |
//! | 8 | `fsL_SECTORS` | nested per-sector chunks ([`crate::sectors`]) |
//!
//! Unknown chunks are kept raw; compressed chunks keep their stored bytes.

use levelgeom_binary::{Limits, ReadError, Reader, Warning, WriteError, Writer};

use crate::chunk::{self, Context, Framed};
use crate::geom::Header;
use crate::ogf::Visual;
use crate::sectors::{self, Portal, Sector};
use crate::shaders::{self, ShaderEntry};

/// `fsL_HEADER`.
pub const HEADER: u32 = 1;
/// `fsL_SHADERS`.
pub const SHADERS: u32 = 2;
/// `fsL_VISUALS`.
pub const VISUALS: u32 = 3;
/// `fsL_PORTALS`.
pub const PORTALS: u32 = 4;
/// `fsL_LIGHT_DYNAMIC`.
pub const LIGHT_DYNAMIC: u32 = 6;
/// `fsL_GLOWS`.
pub const GLOWS: u32 = 7;
/// `fsL_SECTORS`.
pub const SECTORS: u32 = 8;

/// A dynamic light: the controller id and the D3D9 `Flight` (108 bytes in all).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Light {
    /// Controller (light group) id.
    pub controller: u32,
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

/// A top-level chunk of `level`.
#[derive(Clone, Debug, PartialEq)]
pub enum LevelChunk {
    /// 1.
    Header(Header),
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
    /// Unknown, verbatim.
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
        });
        r.pop();
    }
    Ok(v)
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
        let chunks = chunk::read_all(&mut r, Context::Level, |h, b| {
            Ok(match h.id() {
                HEADER => LevelChunk::Header(Header::read(b)?),
                SHADERS => LevelChunk::Shaders(shaders::read(b)?),
                VISUALS => LevelChunk::Visuals(chunk::read_all(b, Context::Visuals, |_, v| {
                    Visual::read(v)
                })?),
                PORTALS => LevelChunk::Portals(sectors::read_portals(b)?),
                LIGHT_DYNAMIC => LevelChunk::Lights(read_lights(b)?),
                GLOWS => LevelChunk::Glows(read_glows(b)?),
                SECTORS => LevelChunk::Sectors(sectors::read_sectors(b)?),
                _ => LevelChunk::Raw(b.take_rest().to_vec()),
            })
        })?;
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

    /// Serialise (byte-exact for an unchanged parse). A count or size that does not fit its
    /// field is an error naming it (`fsL_VISUALS/visual[3]/OGF_CHILDREN_L/child count`).
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        let mut w = Writer::new();
        for c in &self.chunks {
            chunk::write_framed(&mut w, Context::Level, c, write_chunk)?;
        }
        Ok(w.into_inner())
    }

    /// The header.
    pub fn header(&self) -> Option<Header> {
        self.chunks.iter().find_map(|c| match c.value {
            LevelChunk::Header(h) => Some(h),
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

    /// Portals.
    pub fn portals(&self) -> &[Portal] {
        self.chunks
            .iter()
            .find_map(|c| match &c.value {
                LevelChunk::Portals(p) => Some(p.as_slice()),
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

fn write_chunk(c: &LevelChunk, w: &mut Writer) -> Result<(), WriteError> {
    match c {
        LevelChunk::Header(h) => h.write(w),
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
                w.u32(l.light_type);
                w.f32s(&l.diffuse);
                w.f32s(&l.specular);
                w.f32s(&l.ambient);
                w.f32s(&l.position);
                w.f32s(&l.direction);
                w.f32(l.range);
                w.f32(l.falloff);
                w.f32s(&l.attenuation);
                w.f32(l.theta);
                w.f32(l.phi);
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
        LevelChunk::Raw(b) => w.bytes(b),
    }
    Ok(())
}
