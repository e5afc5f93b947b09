//! The vertex codec: raw vertex bytes ⇄ positions, normals, tangents, UVs and colours, driven
//! by a [`Declaration`].
//!
//! Every element gets a *role* from its usage, usage index and type (spec §2.3):
//!
//! | element | role | decode | encode (xrLC) |
//! |---|---|---|---|
//! | POSITION0 FLOAT3 | position | f32 ×3 as stored | as stored |
//! | NORMAL0 D3DCOLOR | normal + hemi | `x = b2/255·2−1, y = b1/…, z = b0/…`; hemi `= b3/255` | `clamp(⌊(n+1)·0.5·255⌋)`; `⌊hemi·255⌋` |
//! | TANGENT0/BINORMAL0 D3DCOLOR | tangent / binormal | as normal; alpha = base-UV fraction (below) or kept as `*_alpha` | as normal |
//! | TEXCOORD0 SHORT2 | base UV | `u = (s16 + T.a/255)/1024`, `v = (s16 + B.a/255)/1024` | `r = uv·1024`, `s16 = ⌊r⌋`, `frac = ⌊255.5·(r−s16)⌋` |
//! | TEXCOORD0 SHORT4 | tree UV + wind | `u,v = x/2048, y/2048`; wind `= (z/2048, w/2048)` | `⌊·2048⌋` |
//! | TEXCOORD0 FLOAT2 | base UV (v13) | f32 ×2 | as stored |
//! | TEXCOORD1 SHORT2 | lightmap UV | `s16/32768` | `⌊uv·32768⌋` |
//! | COLOR0 D3DCOLOR | colour + sun | `rgb = (b2, b1, b0)/255`; sun `= b3/255` | `⌊c·255⌋` |
//! | anything else | `other` | by type: floats as stored, integers as their values, `*N` types `/max` | inverse, rounding to nearest |
//!
//! All clamps are to the stored type's range. The encoder evaluates the xrLC formulas exactly
//! (in `f64`, where the products of `f32` inputs are exact). The decoder evaluates the spec
//! formula and rounds to `f32`; where that rounding lands a value just outside the encoder's
//! bucket (the decoded values sit on or near bucket edges because xrLC floors), it moves the
//! value by the fewest `f32` steps back into the bucket. So decoding then encoding gives back
//! every stored byte, and the decoded value differs from the formula by at most a few ULPs.
//! Bytes of a vertex that no element covers are written as zero.

use crate::decl::{DeclType, Declaration, Element, Usage};

/// Decoded vertices of one buffer (structure of arrays; an empty vector = attribute absent).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Vertices {
    /// Number of vertices.
    pub count: usize,
    /// Positions (X-Ray space: left-handed, +Y up).
    pub positions: Vec<[f32; 3]>,
    /// Normals as decoded (not re-normalised; normalise for display).
    pub normals: Vec<[f32; 3]>,
    /// Sky occlusion 0..1 (alpha of a packed normal).
    pub hemi: Vec<f32>,
    /// Tangents (dP/du) as decoded.
    pub tangents: Vec<[f32; 3]>,
    /// Binormals (dP/dv) as decoded.
    pub binormals: Vec<[f32; 3]>,
    /// Tangent alpha 0..1 when it is not a base-UV fraction (0 in MU/tree vertices).
    pub tangent_alpha: Vec<f32>,
    /// Binormal alpha 0..1 when it is not a base-UV fraction.
    pub binormal_alpha: Vec<f32>,
    /// Base texture UV (D3D: origin top-left).
    pub uv: Vec<[f32; 2]>,
    /// Lightmap UV.
    pub lightmap: Vec<[f32; 2]>,
    /// Tree wind factor (SHORT4 `z/2048`) and the fourth word (`w/2048`, 0 in xrLC output).
    pub wind: Vec<[f32; 2]>,
    /// Vertex colour RGB 0..1.
    pub colors: Vec<[f32; 3]>,
    /// Direct-sun occlusion 0..1 (alpha of the vertex colour).
    pub sun: Vec<f32>,
    /// Elements without a role: the element and its values by type.
    pub other: Vec<(Element, Vec<[f32; 4]>)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Position,
    PackedNormal,
    FloatNormal,
    PackedTangent,
    PackedBinormal,
    BaseFixed,
    BaseFloat,
    Tree,
    Lightmap,
    LightmapFloat,
    Color,
    Other,
}

fn roles(decl: &Declaration) -> Vec<Role> {
    let mut seen: Vec<Role> = Vec::new();
    decl.elements
        .iter()
        .map(|e| {
            let t = e.decl_type();
            let u = e.usage_kind();
            let i = e.usage_index;
            let role = if e.stream != 0 {
                Role::Other
            } else {
                match (u, i, t) {
                    (Some(Usage::Position), 0, Some(DeclType::Float3)) => Role::Position,
                    (Some(Usage::Normal), 0, Some(DeclType::D3dColor)) => Role::PackedNormal,
                    (Some(Usage::Normal), 0, Some(DeclType::Float3)) => Role::FloatNormal,
                    (Some(Usage::Tangent), 0, Some(DeclType::D3dColor)) => Role::PackedTangent,
                    (Some(Usage::Binormal), 0, Some(DeclType::D3dColor)) => Role::PackedBinormal,
                    (Some(Usage::TexCoord), 0, Some(DeclType::Short2)) => Role::BaseFixed,
                    (Some(Usage::TexCoord), 0, Some(DeclType::Float2)) => Role::BaseFloat,
                    (Some(Usage::TexCoord), 0, Some(DeclType::Short4)) => Role::Tree,
                    (Some(Usage::TexCoord), 1, Some(DeclType::Short2)) => Role::Lightmap,
                    (Some(Usage::TexCoord), 1, Some(DeclType::Float2)) => Role::LightmapFloat,
                    (Some(Usage::Color), 0, Some(DeclType::D3dColor)) => Role::Color,
                    _ => Role::Other,
                }
            };
            // each role once; the "same slot" groups share one output vector
            let slot = |r: Role| match r {
                Role::PackedNormal | Role::FloatNormal => 1,
                Role::BaseFixed | Role::BaseFloat | Role::Tree => 2,
                Role::Lightmap | Role::LightmapFloat => 3,
                _ => r as u8 as i32 + 10,
            };
            if role != Role::Other && seen.iter().any(|&s| slot(s) == slot(role)) {
                Role::Other
            } else {
                seen.push(role);
                role
            }
        })
        .collect()
}

/// True when base-UV fractions live in the tangent/binormal alphas.
fn has_fractions(r: &[Role]) -> bool {
    r.contains(&Role::BaseFixed)
        && r.contains(&Role::PackedTangent)
        && r.contains(&Role::PackedBinormal)
}

/// The next larger f32 (`f32::next_up`, written out for the crate's MSRV 1.85).
fn next_up(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        x
    } else if x == 0.0 {
        f32::from_bits(1)
    } else if x > 0.0 {
        f32::from_bits(x.to_bits() + 1)
    } else {
        f32::from_bits(x.to_bits() - 1)
    }
}

/// The next smaller f32.
fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

/// Move `v` by the fewest f32 steps (at most 64 each way) until `ok(v)`; `v` itself if none.
fn fit(v: f32, ok: impl Fn(f32) -> bool) -> f32 {
    if ok(v) {
        return v;
    }
    let (mut up, mut down) = (v, v);
    for _ in 0..64 {
        up = next_up(up);
        if ok(up) {
            return up;
        }
        down = next_down(down);
        if ok(down) {
            return down;
        }
    }
    v
}

fn clamp_floor(x: f64, lo: f64, hi: f64) -> f64 {
    let f = x.floor();
    if f.is_nan() {
        0.0
    } else {
        f.clamp(lo, hi)
    }
}

/// Encode one component of a packed direction: `clamp(⌊(n+1)·0.5·255⌋, 0, 255)`.
pub fn encode_dir(n: f32) -> u8 {
    clamp_floor((f64::from(n) + 1.0) * 0.5 * 255.0, 0.0, 255.0) as u8
}

/// Decode one component of a packed direction: `b/255·2−1`.
pub fn decode_dir(b: u8) -> f32 {
    let v = (f64::from(b) / 255.0 * 2.0 - 1.0) as f32;
    fit(v, |x| encode_dir(x) == b)
}

/// Encode a 0..1 value as xrLC's `u8_clr`: `clamp(⌊a·255⌋, 0, 255)`.
pub fn encode_unit(a: f32) -> u8 {
    clamp_floor(f64::from(a) * 255.0, 0.0, 255.0) as u8
}

/// Decode a 0..1 byte: `b/255`.
pub fn decode_unit(b: u8) -> f32 {
    let v = (f64::from(b) / 255.0) as f32;
    fit(v, |x| encode_unit(x) == b)
}

/// Encode a base UV coordinate (`s24_tc_base`): the s16 and the fraction byte.
pub fn encode_base(uv: f32) -> (i16, u8) {
    let r = f64::from(uv) * 1024.0;
    let p = clamp_floor(r, -32768.0, 32767.0);
    let s = clamp_floor(255.5 * (r - p), 0.0, 255.0);
    (p as i16, s as u8)
}

/// Decode a base UV coordinate: `(s16 + frac/255)/1024`.
pub fn decode_base(s: i16, frac: u8) -> f32 {
    let v = ((f64::from(s) + f64::from(frac) / 255.0) / 1024.0) as f32;
    fit(v, |x| encode_base(x) == (s, frac))
}

/// Encode a coordinate as `clamp(⌊x·scale⌋)` into an s16 (lightmap: 32768, tree: 2048).
pub fn encode_fixed(x: f32, scale: f64) -> i16 {
    clamp_floor(f64::from(x) * scale, -32768.0, 32767.0) as i16
}

/// Decode an s16 fixed-point coordinate: `s/scale`.
pub fn decode_fixed(s: i16, scale: f64) -> f32 {
    let v = (f64::from(s) / scale) as f32;
    fit(v, |x| encode_fixed(x, scale) == s)
}

/// Lightmap UV scale (`s16_tc_lmap`).
pub const LMAP_SCALE: f64 = 32768.0;
/// Tree/MU UV scale (`32768 / 16`).
pub const TREE_SCALE: f64 = 2048.0;

fn rd<const K: usize>(b: &[u8], at: usize) -> [u8; K] {
    let mut o = [0u8; K];
    if let Some(s) = b.get(at..at + K) {
        o.copy_from_slice(s);
    }
    o
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(rd::<4>(b, at))
}

fn i16_at(b: &[u8], at: usize) -> i16 {
    i16::from_le_bytes(rd::<2>(b, at))
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(rd::<2>(b, at))
}

/// Half float to f32 (exact).
pub fn half_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1F);
    let man = u32::from(h & 0x3FF);
    let bits = if exp == 0 {
        if man == 0 {
            sign
        } else {
            // subnormal: value = man · 2^-24
            let v = man as f32 * (1.0 / 16_777_216.0);
            return if sign != 0 { -v } else { v };
        }
    } else if exp == 31 {
        sign | 0x7F80_0000 | (man << 13)
    } else {
        sign | ((exp + 112) << 23) | (man << 13)
    };
    f32::from_bits(bits)
}

/// f32 to half float (exact for values that came from a half; truncating otherwise).
pub fn f32_to_half(f: f32) -> u16 {
    let b = f.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xFF) as i32;
    let man = b & 0x7F_FFFF;
    if exp == 255 {
        return sign | 0x7C00 | (man >> 13) as u16 | u16::from(man != 0 && man >> 13 == 0);
    }
    let e = exp - 112;
    if e >= 31 {
        return sign | 0x7C00;
    }
    if e <= 0 {
        // subnormal half: value / 2^-24
        let v = (f.abs() * 16_777_216.0) as u32;
        return sign | (v.min(0x3FF) as u16);
    }
    sign | ((e as u16) << 10) | (man >> 13) as u16
}

fn decode_generic(e: &Element, b: &[u8]) -> [f32; 4] {
    let o = usize::from(e.offset);
    let mut v = [0f32; 4];
    let Some(t) = e.decl_type() else { return v };
    use DeclType::*;
    match t {
        Float1 | Float2 | Float3 | Float4 => {
            let n = t.size() / 4;
            for (k, x) in v.iter_mut().enumerate().take(n) {
                *x = f32_at(b, o + 4 * k);
            }
        }
        D3dColor => {
            let c = rd::<4>(b, o);
            v = [c[2], c[1], c[0], c[3]].map(decode_unit);
        }
        UByte4 => v = rd::<4>(b, o).map(f32::from),
        UByte4N => v = rd::<4>(b, o).map(|x| f32::from(x) / 255.0),
        Short2 | Short4 | Short2N | Short4N => {
            let n = t.size() / 2;
            for (k, x) in v.iter_mut().enumerate().take(n) {
                let s = f32::from(i16_at(b, o + 2 * k));
                *x = if matches!(t, Short2N | Short4N) {
                    s / 32767.0
                } else {
                    s
                };
            }
        }
        UShort2N | UShort4N => {
            let n = t.size() / 2;
            for (k, x) in v.iter_mut().enumerate().take(n) {
                *x = f32::from(u16_at(b, o + 2 * k)) / 65535.0;
            }
        }
        UDec3 | Dec3N => {
            let w = u32::from_le_bytes(rd::<4>(b, o));
            for (k, x) in v.iter_mut().enumerate().take(3) {
                let raw = (w >> (10 * k)) & 0x3FF;
                *x = if t == Dec3N {
                    let s = if raw >= 512 {
                        raw as i32 - 1024
                    } else {
                        raw as i32
                    };
                    s as f32 / 511.0
                } else {
                    raw as f32
                };
            }
            v[3] = (w >> 30) as f32;
        }
        Float16x2 | Float16x4 => {
            let n = t.size() / 2;
            for (k, x) in v.iter_mut().enumerate().take(n) {
                *x = half_to_f32(u16_at(b, o + 2 * k));
            }
        }
        Unused => {}
    }
    v
}

fn put(b: &mut [u8], at: usize, bytes: &[u8]) {
    if let Some(s) = b.get_mut(at..at + bytes.len()) {
        s.copy_from_slice(bytes);
    }
}

fn round_clamp(x: f32, lo: f32, hi: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.round().clamp(lo, hi)
    }
}

fn encode_generic(e: &Element, v: [f32; 4], b: &mut [u8]) {
    let o = usize::from(e.offset);
    let Some(t) = e.decl_type() else { return };
    use DeclType::*;
    match t {
        Float1 | Float2 | Float3 | Float4 => {
            for (k, x) in v.iter().enumerate().take(t.size() / 4) {
                put(b, o + 4 * k, &x.to_le_bytes());
            }
        }
        D3dColor => {
            let c = v.map(encode_unit);
            put(b, o, &[c[2], c[1], c[0], c[3]]);
        }
        UByte4 => put(b, o, &v.map(|x| round_clamp(x, 0.0, 255.0) as u8)),
        UByte4N => put(b, o, &v.map(|x| round_clamp(x * 255.0, 0.0, 255.0) as u8)),
        Short2 | Short4 | Short2N | Short4N => {
            for (k, x) in v.iter().enumerate().take(t.size() / 2) {
                let s = if matches!(t, Short2N | Short4N) {
                    x * 32767.0
                } else {
                    *x
                };
                let s = round_clamp(s, -32768.0, 32767.0) as i16;
                put(b, o + 2 * k, &s.to_le_bytes());
            }
        }
        UShort2N | UShort4N => {
            for (k, x) in v.iter().enumerate().take(t.size() / 2) {
                let s = round_clamp(x * 65535.0, 0.0, 65535.0) as u16;
                put(b, o + 2 * k, &s.to_le_bytes());
            }
        }
        UDec3 | Dec3N => {
            let mut w = 0u32;
            for (k, x) in v.iter().enumerate().take(3) {
                let raw = if t == Dec3N {
                    (round_clamp(x * 511.0, -512.0, 511.0) as i32 as u32) & 0x3FF
                } else {
                    round_clamp(*x, 0.0, 1023.0) as u32
                };
                w |= raw << (10 * k);
            }
            w |= (round_clamp(v[3], 0.0, 3.0) as u32) << 30;
            put(b, o, &w.to_le_bytes());
        }
        Float16x2 | Float16x4 => {
            for (k, x) in v.iter().enumerate().take(t.size() / 2) {
                put(b, o + 2 * k, &f32_to_half(*x).to_le_bytes());
            }
        }
        Unused => {}
    }
}

fn dir3(c: [u8; 4]) -> [f32; 3] {
    [decode_dir(c[2]), decode_dir(c[1]), decode_dir(c[0])]
}

/// Decode `count` vertices of `stride` bytes each (the caller checked `raw.len()`).
pub fn decode(decl: &Declaration, raw: &[u8]) -> Vertices {
    let stride = decl.stride();
    let count = raw.len().checked_div(stride).unwrap_or(0);
    let rs = roles(decl);
    let frac = has_fractions(&rs);
    let mut v = Vertices {
        count,
        ..Default::default()
    };
    let mut other: Vec<(Element, Vec<[f32; 4]>)> = Vec::new();
    for (e, r) in decl.elements.iter().zip(&rs) {
        if *r == Role::Other {
            other.push((*e, Vec::with_capacity(count)));
        }
    }
    let find = |role: Role| {
        decl.elements
            .iter()
            .zip(&rs)
            .find(|(_, r)| **r == role)
            .map(|(e, _)| *e)
    };
    let tan = find(Role::PackedTangent);
    let bin = find(Role::PackedBinormal);
    for vert in raw.chunks_exact(stride.max(1)).take(count) {
        let mut oi = 0;
        for (e, r) in decl.elements.iter().zip(&rs) {
            let o = usize::from(e.offset);
            match r {
                Role::Position => {
                    v.positions
                        .push([f32_at(vert, o), f32_at(vert, o + 4), f32_at(vert, o + 8)]);
                }
                Role::PackedNormal => {
                    let c = rd::<4>(vert, o);
                    v.normals.push(dir3(c));
                    v.hemi.push(decode_unit(c[3]));
                }
                Role::FloatNormal => {
                    v.normals
                        .push([f32_at(vert, o), f32_at(vert, o + 4), f32_at(vert, o + 8)]);
                }
                Role::PackedTangent => {
                    let c = rd::<4>(vert, o);
                    v.tangents.push(dir3(c));
                    if !frac {
                        v.tangent_alpha.push(decode_unit(c[3]));
                    }
                }
                Role::PackedBinormal => {
                    let c = rd::<4>(vert, o);
                    v.binormals.push(dir3(c));
                    if !frac {
                        v.binormal_alpha.push(decode_unit(c[3]));
                    }
                }
                Role::BaseFixed => {
                    let (fu, fv) = match (frac, tan, bin) {
                        (true, Some(t), Some(b)) => (
                            rd::<4>(vert, usize::from(t.offset))[3],
                            rd::<4>(vert, usize::from(b.offset))[3],
                        ),
                        _ => (0, 0),
                    };
                    v.uv.push([
                        decode_base(i16_at(vert, o), fu),
                        decode_base(i16_at(vert, o + 2), fv),
                    ]);
                }
                Role::BaseFloat => v.uv.push([f32_at(vert, o), f32_at(vert, o + 4)]),
                Role::Tree => {
                    let s = |k: usize| decode_fixed(i16_at(vert, o + 2 * k), TREE_SCALE);
                    v.uv.push([s(0), s(1)]);
                    v.wind.push([s(2), s(3)]);
                }
                Role::Lightmap => {
                    let s = |k: usize| decode_fixed(i16_at(vert, o + 2 * k), LMAP_SCALE);
                    v.lightmap.push([s(0), s(1)]);
                }
                Role::LightmapFloat => v.lightmap.push([f32_at(vert, o), f32_at(vert, o + 4)]),
                Role::Color => {
                    let c = rd::<4>(vert, o);
                    v.colors
                        .push([decode_unit(c[2]), decode_unit(c[1]), decode_unit(c[0])]);
                    v.sun.push(decode_unit(c[3]));
                }
                Role::Other => {
                    if let Some((_, vals)) = other.get_mut(oi) {
                        vals.push(decode_generic(e, vert));
                    }
                    oi += 1;
                }
            }
        }
    }
    v.other = other;
    v
}

fn get<T: Copy + Default>(v: &[T], i: usize) -> T {
    v.get(i).copied().unwrap_or_default()
}

fn pack_dir(n: [f32; 3], a: u8) -> [u8; 4] {
    [encode_dir(n[2]), encode_dir(n[1]), encode_dir(n[0]), a]
}

/// Encode `v` with `decl` (the inverse of [`decode`]); missing attributes encode as zero.
pub fn encode(decl: &Declaration, v: &Vertices) -> Vec<u8> {
    let stride = decl.stride();
    let rs = roles(decl);
    let frac = has_fractions(&rs);
    let mut out = vec![0u8; stride.saturating_mul(v.count)];
    let find = |role: Role| {
        decl.elements
            .iter()
            .zip(&rs)
            .find(|(_, r)| **r == role)
            .map(|(e, _)| *e)
    };
    let tan = find(Role::PackedTangent);
    let bin = find(Role::PackedBinormal);
    for (i, vert) in out.chunks_exact_mut(stride.max(1)).enumerate() {
        let mut oi = 0;
        for (e, r) in decl.elements.iter().zip(&rs) {
            let o = usize::from(e.offset);
            match r {
                Role::Position | Role::FloatNormal => {
                    let p = if *r == Role::Position {
                        get(&v.positions, i)
                    } else {
                        get(&v.normals, i)
                    };
                    for (k, x) in p.iter().enumerate() {
                        put(vert, o + 4 * k, &x.to_le_bytes());
                    }
                }
                Role::PackedNormal => {
                    put(
                        vert,
                        o,
                        &pack_dir(get(&v.normals, i), encode_unit(get(&v.hemi, i))),
                    );
                }
                Role::PackedTangent => {
                    // with fractions the alpha is written by the base UV below
                    let a = if frac {
                        0
                    } else {
                        encode_unit(get(&v.tangent_alpha, i))
                    };
                    put(vert, o, &pack_dir(get(&v.tangents, i), a));
                }
                Role::PackedBinormal => {
                    let a = if frac {
                        0
                    } else {
                        encode_unit(get(&v.binormal_alpha, i))
                    };
                    put(vert, o, &pack_dir(get(&v.binormals, i), a));
                }
                Role::BaseFixed => {
                    let uv = get(&v.uv, i);
                    let (su, fu) = encode_base(uv[0]);
                    let (sv, fv) = encode_base(uv[1]);
                    put(vert, o, &su.to_le_bytes());
                    put(vert, o + 2, &sv.to_le_bytes());
                    if let (true, Some(t), Some(b)) = (frac, tan, bin) {
                        put(vert, usize::from(t.offset) + 3, &[fu]);
                        put(vert, usize::from(b.offset) + 3, &[fv]);
                    }
                }
                Role::BaseFloat | Role::LightmapFloat => {
                    let uv = if *r == Role::BaseFloat {
                        get(&v.uv, i)
                    } else {
                        get(&v.lightmap, i)
                    };
                    put(vert, o, &uv[0].to_le_bytes());
                    put(vert, o + 4, &uv[1].to_le_bytes());
                }
                Role::Tree => {
                    let uv = get(&v.uv, i);
                    let w = get(&v.wind, i);
                    for (k, x) in [uv[0], uv[1], w[0], w[1]].iter().enumerate() {
                        put(vert, o + 2 * k, &encode_fixed(*x, TREE_SCALE).to_le_bytes());
                    }
                }
                Role::Lightmap => {
                    let uv = get(&v.lightmap, i);
                    put(vert, o, &encode_fixed(uv[0], LMAP_SCALE).to_le_bytes());
                    put(vert, o + 2, &encode_fixed(uv[1], LMAP_SCALE).to_le_bytes());
                }
                Role::Color => {
                    let c = get(&v.colors, i);
                    let s = encode_unit(get(&v.sun, i));
                    put(
                        vert,
                        o,
                        &[encode_unit(c[2]), encode_unit(c[1]), encode_unit(c[0]), s],
                    );
                }
                Role::Other => {
                    let val = v
                        .other
                        .get(oi)
                        .and_then(|(_, vals)| vals.get(i).copied())
                        .unwrap_or_default();
                    encode_generic(e, val, vert);
                    oi += 1;
                }
            }
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::decl;

    #[test]
    fn every_byte_value_survives_the_scalar_codecs() {
        for b in 0..=255u8 {
            assert_eq!(encode_dir(decode_dir(b)), b);
            assert_eq!(encode_unit(decode_unit(b)), b);
            // the decoded value is the formula's within a few ulps
            assert!((decode_dir(b) - (b as f32 / 255.0 * 2.0 - 1.0)).abs() < 1e-6);
        }
        for s in [-32768i16, -1000, -1, 0, 1, 511, 1024, 2047, 32767] {
            for f in [0u8, 1, 2, 127, 128, 254, 255] {
                assert_eq!(encode_base(decode_base(s, f)), (s, f), "s={s} f={f}");
            }
            assert_eq!(encode_fixed(decode_fixed(s, LMAP_SCALE), LMAP_SCALE), s);
            assert_eq!(encode_fixed(decode_fixed(s, TREE_SCALE), TREE_SCALE), s);
        }
    }

    #[test]
    fn spec_formulas_by_hand() {
        // normal x is byte 2: bytes [B=0, G=128, R=255, A=51]
        assert_eq!(decode_dir(255), 1.0);
        assert_eq!(decode_dir(0), -1.0);
        // base uv: s16 = 512, frac = 51 → (512 + 0.2)/1024
        assert!((decode_base(512, 51) - 0.500_195_3).abs() < 1e-6);
        // lightmap: 16384/32768 = 0.5, tree: 1024/2048 = 0.5
        assert_eq!(decode_fixed(16384, LMAP_SCALE), 0.5);
        assert_eq!(decode_fixed(1024, TREE_SCALE), 0.5);
        // encoder: 0.5 → r = 512 → (512, 0); 0.25/1024 → frac ⌊255.5·0.25⌋ = 63
        assert_eq!(encode_base(0.5), (512, 0));
        assert_eq!(encode_base(0.25 / 1024.0), (0, 63));
    }

    #[test]
    fn a_lightmapped_vertex_by_hand() {
        let mut raw = Vec::new();
        for f in [1.0f32, 2.0, 3.0] {
            raw.extend_from_slice(&f.to_le_bytes());
        }
        raw.extend_from_slice(&[0, 128, 255, 204]); // N: x=+1, y≈0, z=-1, hemi 0.8
        raw.extend_from_slice(&[255, 0, 0, 51]); // T: z=+1, frac u = 51
        raw.extend_from_slice(&[0, 255, 0, 0]); // B: y=+1, frac v = 0
        raw.extend_from_slice(&512i16.to_le_bytes());
        raw.extend_from_slice(&(-1024i16).to_le_bytes());
        raw.extend_from_slice(&16384i16.to_le_bytes());
        raw.extend_from_slice(&32767i16.to_le_bytes());
        let d = decl::r1_lmap();
        let v = decode(&d, &raw);
        assert_eq!(v.count, 1);
        assert_eq!(v.positions, vec![[1.0, 2.0, 3.0]]);
        assert_eq!(v.normals[0][0], 1.0);
        assert_eq!(v.normals[0][2], -1.0);
        assert!((v.hemi[0] - 0.8).abs() < 1e-6);
        assert_eq!(v.tangents[0], [-1.0, -1.0, 1.0]);
        assert!((v.uv[0][0] - (512.0 + 0.2) / 1024.0).abs() < 1e-6);
        assert_eq!(v.uv[0][1], -1.0);
        assert_eq!(v.lightmap[0], [0.5, 32767.0 / 32768.0]);
        assert!(v.tangent_alpha.is_empty());
        assert_eq!(encode(&d, &v), raw);
    }

    #[test]
    fn generic_types_round_trip() {
        use DeclType::*;
        let types = [
            Float1, Float4, UByte4, UByte4N, Short2N, Short4N, UShort2N, UShort4N, UDec3, Dec3N,
            Float16x2, Float16x4,
        ];
        let mut elements = vec![Element::new(0, Float3, Usage::Position, 0)];
        let mut off = 12u16;
        for (k, t) in types.iter().enumerate() {
            elements.push(Element::new(off, *t, Usage::TexCoord, 2 + k as u8));
            off += t.size() as u16;
        }
        let d = Declaration::new(elements);
        assert_eq!(d.stride(), off as usize);
        let mut x: u32 = 99;
        let raw: Vec<u8> = (0..d.stride() * 5)
            .map(|_| {
                x = x.wrapping_mul(1664525).wrapping_add(1013904223);
                (x >> 24) as u8 & 0x3F // small values avoid NaN float patterns
            })
            .collect();
        let v = decode(&d, &raw);
        assert_eq!(v.other.len(), types.len());
        assert_eq!(encode(&d, &v), raw);
        assert_eq!(half_to_f32(0x3C00), 1.0);
        assert_eq!(f32_to_half(-2.0), 0xC000);
    }
}
