//! The vertex codec: raw vertex bytes ⇄ positions, normals, tangents, UVs and colours, driven
//! by a [`Declaration`].
//!
//! Every element gets a *role* from its usage, usage index and type (docs/formats/xray-level.md §2.3):
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

/// `clamp(⌊x⌋, lo, hi)`, NaN giving 0 (`lo`, `hi` are small integers).
///
/// `floor` is a library call on the baseline x86-64 target, and the codec floors several times
/// per component; truncating through `i64` and correcting negative fractions is the same
/// function here: `x as i64` is exact truncation for |x| < 2^63, saturates beyond (the clamp
/// range is far inside) and maps NaN to 0.
#[inline]
fn clamp_floor(x: f64, lo: f64, hi: f64) -> f64 {
    let t = x as i64 as f64;
    let f = if t > x { t - 1.0 } else { t };
    f.clamp(lo, hi)
}

/// Encode one component of a packed direction: `clamp(⌊(n+1)·0.5·255⌋, 0, 255)`.
pub fn encode_dir(n: f32) -> u8 {
    clamp_floor((f64::from(n) + 1.0) * 0.5 * 255.0, 0.0, 255.0) as u8
}

/// Decode one component of a packed direction: `b/255·2−1` (from a 256-entry table).
pub fn decode_dir(b: u8) -> f32 {
    tables().dir[usize::from(b)]
}

fn decode_dir_exact(b: u8) -> f32 {
    let v = (f64::from(b) / 255.0 * 2.0 - 1.0) as f32;
    fit(v, |x| encode_dir(x) == b)
}

/// Encode a 0..1 value as xrLC's `u8_clr`: `clamp(⌊a·255⌋, 0, 255)`.
pub fn encode_unit(a: f32) -> u8 {
    clamp_floor(f64::from(a) * 255.0, 0.0, 255.0) as u8
}

/// Decode a 0..1 byte: `b/255` (from a 256-entry table).
pub fn decode_unit(b: u8) -> f32 {
    tables().unit[usize::from(b)]
}

fn decode_unit_exact(b: u8) -> f32 {
    let v = (f64::from(b) / 255.0) as f32;
    fit(v, |x| encode_unit(x) == b)
}

/// Encode a base UV coordinate (`s24_tc_base`): the s16 and the fraction byte.
#[inline]
pub fn encode_base(uv: f32) -> (i16, u8) {
    let r = f64::from(uv) * 1024.0;
    let p = clamp_floor(r, -32768.0, 32767.0);
    let s = clamp_floor(255.5 * (r - p), 0.0, 255.0);
    (p as i16, s as u8)
}

/// Decode a base UV coordinate: `(s16 + frac/255)/1024`.
pub fn decode_base(s: i16, frac: u8) -> f32 {
    base_with(tables(), s, frac)
}

/// [`decode_base`] with the tables at hand (the decoding loop's, looked up once). The
/// formula's value is kept when the encoder gives back `(s, frac)` — `fit`'s first test, here
/// inline — and only otherwise moved by `fit` (out of line: it is rare). That test is first
/// made on the offset `r − s` against the byte's bucket ([`fraction_bucket`]: `r = v·1024`
/// and `r − s` are exact in f64), which settles almost every value without a `floor`.
#[inline]
fn base_with(t: &ByteTables, s: i16, frac: u8) -> f32 {
    let b = usize::from(frac);
    // `frac/255` from a table (the same f64 quotient); `·2^-10` is exactly `/1024`
    let v = ((f64::from(s) + t.frac[b]) * (1.0 / 1024.0)) as f32;
    let d = f64::from(v) * 1024.0 - f64::from(s);
    let (lo, hi) = t.bucket[b];
    if (d >= lo && d < hi) || encode_base(v) == (s, frac) {
        v
    } else {
        fit_base(v, s, frac)
    }
}

#[cold]
#[inline(never)]
fn fit_base(v: f32, s: i16, frac: u8) -> f32 {
    fit(v, |x| encode_base(x) == (s, frac))
}

/// Encode a coordinate as `clamp(⌊x·scale⌋)` into an s16 (lightmap: 32768, tree: 2048).
pub fn encode_fixed(x: f32, scale: f64) -> i16 {
    clamp_floor(f64::from(x) * scale, -32768.0, 32767.0) as i16
}

/// Decode an s16 fixed-point coordinate: `s/scale` (tables for [`LMAP_SCALE`] and
/// [`TREE_SCALE`], computed otherwise).
pub fn decode_fixed(s: i16, scale: f64) -> f32 {
    if scale == LMAP_SCALE {
        lmap_table()[usize::from(s as u16)]
    } else if scale == TREE_SCALE {
        tree_table()[usize::from(s as u16)]
    } else {
        decode_fixed_exact(s, scale)
    }
}

fn decode_fixed_exact(s: i16, scale: f64) -> f32 {
    let v = (f64::from(s) / scale) as f32;
    fit(v, |x| encode_fixed(x, scale) == s)
}

/// Lightmap UV scale (`s16_tc_lmap`).
pub const LMAP_SCALE: f64 = 32768.0;
/// Tree/MU UV scale (`32768 / 16`).
pub const TREE_SCALE: f64 = 2048.0;

// Decoding speed. Each decoded value is the formula's result nudged by `fit` into the
// encoder's bucket, which costs one to a few `floor` evaluations in f64 per component; done for
// every component of every vertex that made decoding ~5x slower than encoding. Every byte (and
// every s16 of the two fixed-point scales) decodes to one value, so the values are computed once
// per process into tables, by the same functions, and decoding becomes a lookup.

/// Decoded values of every byte, for packed directions and 0..1 bytes.
#[derive(Debug)]
struct ByteTables {
    dir: [f32; 256],
    unit: [f32; 256],
    /// `b/255` in f64, the fraction byte of a base UV.
    frac: [f64; 256],
    /// For fraction byte `b`: `[lo, hi)` inside `[b/255.5, (b+1)/255.5) ∩ [0, 1)`, the offsets
    /// `r − s` of a base UV's `r = uv·1024` that encode to `(s, b)` ([`base_with`]).
    bucket: [(f64, f64); 256],
}

/// The offsets `d = r − s` sure to encode to fraction byte `b` (see [`ByteTables::bucket`]).
///
/// [`encode_base`] gives `(s, b)` for `r = s + d` exactly when `0 ≤ d < 1` (then `⌊r⌋ = s`,
/// no clamp for an s16 `s`) and `b ≤ 255.5·d < b + 1`. The f64 quotients `b/255.5` and
/// `(b+1)/255.5` are each within half an ulp of the real bounds, so one ulp inwards they are
/// inside the real bucket (`0` is exact): a `d` within these bounds is in the bucket; one
/// outside them is decided by [`encode_base`] itself.
fn fraction_bucket(b: usize) -> (f64, f64) {
    let lo = if b == 0 {
        0.0
    } else {
        f64::from_bits((b as f64 / 255.5).to_bits() + 1)
    };
    let hi = f64::from_bits(((b + 1) as f64 / 255.5).to_bits() - 1).min(1.0);
    (lo, hi)
}

fn tables() -> &'static ByteTables {
    static T: std::sync::OnceLock<ByteTables> = std::sync::OnceLock::new();
    T.get_or_init(|| ByteTables {
        dir: std::array::from_fn(|b| decode_dir_exact(b as u8)),
        unit: std::array::from_fn(|b| decode_unit_exact(b as u8)),
        frac: std::array::from_fn(|b| b as f64 / 255.0),
        bucket: std::array::from_fn(fraction_bucket),
    })
}

/// Decoded values of every s16 (indexed by its bit pattern as u16) at `scale`, computed in
/// parallel (each value on its own: the same table; 65,536 fits made on one thread held up the
/// first range's decoding by milliseconds).
fn fixed_table(scale: f64) -> Vec<f32> {
    use rayon::prelude::*;
    (0..=u16::MAX)
        .into_par_iter()
        .map(|u| decode_fixed_exact(u as i16, scale))
        .collect()
}

fn lmap_table() -> &'static [f32] {
    static T: std::sync::OnceLock<Vec<f32>> = std::sync::OnceLock::new();
    T.get_or_init(|| fixed_table(LMAP_SCALE))
}

fn tree_table() -> &'static [f32] {
    static T: std::sync::OnceLock<Vec<f32>> = std::sync::OnceLock::new();
    T.get_or_init(|| fixed_table(TREE_SCALE))
}

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

/// f32 to half float, rounding to nearest (ties to even) as IEEE 754 conversion does; exact
/// for values that came from a half, so decode then encode gives back every bit pattern.
pub fn f32_to_half(f: f32) -> u16 {
    let b = f.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xFF) as i32;
    let man = b & 0x7F_FFFF;
    if exp == 255 {
        // infinity, or NaN keeping its top payload bits (and staying a NaN)
        return sign | 0x7C00 | (man >> 13) as u16 | u16::from(man != 0 && man >> 13 == 0);
    }
    let e = exp - 112;
    if e >= 31 {
        return sign | 0x7C00;
    }
    if e <= 0 {
        // subnormal half: value / 2^-24 (scaling by a power of two is exact); 1024 rounds up
        // into the smallest normal, which is the right bit pattern
        let v = (f.abs() * 16_777_216.0).round_ties_even();
        return sign | (v.min(1024.0) as u16);
    }
    let mut h = ((e as u32) << 10) | (man >> 13);
    let rest = man & 0x1FFF;
    if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) {
        h += 1; // a carry into the exponent is correct, up to infinity (0x7C00)
    }
    sign | h as u16
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

fn dir3(t: &ByteTables, c: [u8; 4]) -> [f32; 3] {
    let d = |b: u8| t.dir[usize::from(b)];
    [d(c[2]), d(c[1]), d(c[0])]
}

/// Reserve room for `count` values in the vectors that `rs` will fill, so that decoding a
/// large buffer does not re-allocate and copy them as they grow.
fn reserve(v: &mut Vertices, rs: &[Role], frac: bool, count: usize) {
    for r in rs {
        match r {
            Role::Position => v.positions.reserve_exact(count),
            Role::PackedNormal => {
                v.normals.reserve_exact(count);
                v.hemi.reserve_exact(count);
            }
            Role::FloatNormal => v.normals.reserve_exact(count),
            Role::PackedTangent => {
                v.tangents.reserve_exact(count);
                if !frac {
                    v.tangent_alpha.reserve_exact(count);
                }
            }
            Role::PackedBinormal => {
                v.binormals.reserve_exact(count);
                if !frac {
                    v.binormal_alpha.reserve_exact(count);
                }
            }
            Role::BaseFixed | Role::BaseFloat => v.uv.reserve_exact(count),
            Role::Tree => {
                v.uv.reserve_exact(count);
                v.wind.reserve_exact(count);
            }
            Role::Lightmap | Role::LightmapFloat => v.lightmap.reserve_exact(count),
            Role::Color => {
                v.colors.reserve_exact(count);
                v.sun.reserve_exact(count);
            }
            Role::Other => {}
        }
    }
}

/// Receives the values of a buffer's vertices attribute by attribute ([`Decoder::columns`]):
/// each column — every vertex's value of one attribute, in vertex order — once for every
/// attribute the declaration has, in groups in this order: position; normal, then hemi;
/// tangent, then its alpha; binormal, then its alpha; base UV, then the tree wind; lightmap
/// UV; colour, then sun. So a method may use what an earlier group gave (the tangent frame
/// needs the normal, tangent and binormal). The alphas come only when they are not base-UV
/// fractions.
///
/// The column methods (plural) give a whole column as an iterator; by default they call the
/// per-vertex method (singular, `i` = the vertex's index in the buffer) for each value, and
/// per-vertex methods not overridden drop the values. A receiver that stores a column
/// overrides the column method (one `extend`, no per-vertex call).
pub trait Columns {
    /// Position (X-Ray space).
    fn position(&mut self, _i: usize, _p: [f32; 3]) {}
    /// Normal as decoded.
    fn normal(&mut self, _i: usize, _n: [f32; 3]) {}
    /// Sky occlusion.
    fn hemi(&mut self, _i: usize, _h: f32) {}
    /// Tangent as decoded.
    fn tangent(&mut self, _i: usize, _t: [f32; 3]) {}
    /// Tangent alpha.
    fn tangent_alpha(&mut self, _i: usize, _a: f32) {}
    /// Binormal as decoded.
    fn binormal(&mut self, _i: usize, _b: [f32; 3]) {}
    /// Binormal alpha.
    fn binormal_alpha(&mut self, _i: usize, _a: f32) {}
    /// Base texture UV.
    fn uv(&mut self, _i: usize, _uv: [f32; 2]) {}
    /// Tree wind factor and fourth word.
    fn wind(&mut self, _i: usize, _w: [f32; 2]) {}
    /// Lightmap UV.
    fn lightmap(&mut self, _i: usize, _uv: [f32; 2]) {}
    /// Vertex colour RGB.
    fn color(&mut self, _i: usize, _c: [f32; 3]) {}
    /// Direct-sun occlusion.
    fn sun(&mut self, _i: usize, _s: f32) {}

    /// Every position ([`Columns::position`] each by default).
    fn positions(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        all.enumerate().for_each(|(i, x)| self.position(i, x));
    }
    /// Every normal.
    fn normals(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        all.enumerate().for_each(|(i, x)| self.normal(i, x));
    }
    /// Every hemi.
    fn hemis(&mut self, all: impl Iterator<Item = f32>) {
        all.enumerate().for_each(|(i, x)| self.hemi(i, x));
    }
    /// Every tangent.
    fn tangents(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        all.enumerate().for_each(|(i, x)| self.tangent(i, x));
    }
    /// Every tangent alpha.
    fn tangent_alphas(&mut self, all: impl Iterator<Item = f32>) {
        all.enumerate().for_each(|(i, x)| self.tangent_alpha(i, x));
    }
    /// Every binormal.
    fn binormals(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        all.enumerate().for_each(|(i, x)| self.binormal(i, x));
    }
    /// Every binormal alpha.
    fn binormal_alphas(&mut self, all: impl Iterator<Item = f32>) {
        all.enumerate().for_each(|(i, x)| self.binormal_alpha(i, x));
    }
    /// Every base UV.
    fn uvs(&mut self, all: impl Iterator<Item = [f32; 2]>) {
        all.enumerate().for_each(|(i, x)| self.uv(i, x));
    }
    /// Every tree wind.
    fn winds(&mut self, all: impl Iterator<Item = [f32; 2]>) {
        all.enumerate().for_each(|(i, x)| self.wind(i, x));
    }
    /// Every lightmap UV.
    fn lightmaps(&mut self, all: impl Iterator<Item = [f32; 2]>) {
        all.enumerate().for_each(|(i, x)| self.lightmap(i, x));
    }
    /// Every colour.
    fn colors(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        all.enumerate().for_each(|(i, x)| self.color(i, x));
    }
    /// Every sun.
    fn suns(&mut self, all: impl Iterator<Item = f32>) {
        all.enumerate().for_each(|(i, x)| self.sun(i, x));
    }
}

/// A declaration prepared for decoding attribute by attribute (with the values [`decode`]
/// gives), so that a caller can put them straight where it needs them.
#[derive(Clone, Debug)]
pub struct Decoder<'d> {
    decl: &'d Declaration,
    roles: Vec<Role>,
    /// The elements with a role, in [`Columns`] order.
    columns: Vec<(Element, Role)>,
    frac: bool,
    tan: Option<Element>,
    bin: Option<Element>,
    lmap: Option<&'static [f32]>,
    tree: Option<&'static [f32]>,
    t: &'static ByteTables,
}

impl<'d> Decoder<'d> {
    /// Prepare `decl`.
    pub fn new(decl: &'d Declaration) -> Self {
        let roles = roles(decl);
        let mut columns: Vec<(Element, Role)> = decl
            .elements
            .iter()
            .copied()
            .zip(roles.iter().copied())
            .filter(|(_, r)| *r != Role::Other)
            .collect();
        // the enum's order is the groups' order
        columns.sort_by_key(|(_, r)| *r as u8);
        Decoder {
            frac: has_fractions(&roles),
            tan: element_with(decl, &roles, Role::PackedTangent),
            bin: element_with(decl, &roles, Role::PackedBinormal),
            lmap: roles.contains(&Role::Lightmap).then(lmap_table),
            tree: roles.contains(&Role::Tree).then(tree_table),
            t: tables(),
            decl,
            roles,
            columns,
        }
    }

    /// This decoder with only the position and normal groups: [`Decoder::columns`] then
    /// calls [`Columns::positions`], [`Columns::normals`] and [`Columns::hemis`] (the packed
    /// normal's fourth byte) and nothing else.
    #[must_use]
    pub fn geometry(mut self) -> Self {
        self.columns
            .retain(|(_, r)| matches!(r, Role::Position | Role::PackedNormal | Role::FloatNormal));
        self
    }

    /// This decoder with only the position group: [`Decoder::columns`] then calls
    /// [`Columns::positions`] and nothing else.
    #[must_use]
    pub fn positions(mut self) -> Self {
        self.columns.retain(|(_, r)| matches!(r, Role::Position));
        self
    }

    /// Decode the whole vertices of `raw` (the declaration's stride each) into `out`,
    /// attribute by attribute (see [`Columns`]; elements without a role are left out:
    /// [`decode`] has them).
    pub fn columns(&self, raw: &[u8], out: &mut impl Columns) {
        let stride = self.decl.stride().max(1);
        let verts = || raw.chunks_exact(stride);
        let t = self.t;
        let unit = |b: u8| t.unit[usize::from(b)];
        let frac = self.frac;
        for &(e, r) in &self.columns {
            let o = usize::from(e.offset);
            let f3 = |v: &[u8]| [f32_at(v, o), f32_at(v, o + 4), f32_at(v, o + 8)];
            let f2 = |v: &[u8]| [f32_at(v, o), f32_at(v, o + 4)];
            let dir = |v: &[u8]| dir3(t, rd::<4>(v, o));
            let alpha = |v: &[u8]| unit(rd::<4>(v, o)[3]);
            match r {
                Role::Position => out.positions(verts().map(f3)),
                Role::PackedNormal => {
                    out.normals(verts().map(dir));
                    out.hemis(verts().map(alpha));
                }
                Role::FloatNormal => out.normals(verts().map(f3)),
                Role::PackedTangent => {
                    out.tangents(verts().map(dir));
                    if !frac {
                        out.tangent_alphas(verts().map(alpha));
                    }
                }
                Role::PackedBinormal => {
                    out.binormals(verts().map(dir));
                    if !frac {
                        out.binormal_alphas(verts().map(alpha));
                    }
                }
                Role::BaseFixed => {
                    let alphas = match (frac, self.tan, self.bin) {
                        (true, Some(t), Some(b)) => {
                            Some((usize::from(t.offset), usize::from(b.offset)))
                        }
                        _ => None,
                    };
                    out.uvs(verts().map(|v| {
                        let (fu, fv) = alphas
                            .map_or((0, 0), |(ta, ba)| (rd::<4>(v, ta)[3], rd::<4>(v, ba)[3]));
                        [
                            base_with(t, i16_at(v, o), fu),
                            base_with(t, i16_at(v, o + 2), fv),
                        ]
                    }));
                }
                Role::BaseFloat => out.uvs(verts().map(f2)),
                Role::Tree => {
                    let tab = self.tree.unwrap_or(&[]);
                    let s = |v: &[u8], k: usize| {
                        let x = u16_at(v, o + 2 * k);
                        tab.get(usize::from(x))
                            .copied()
                            .unwrap_or_else(|| decode_fixed_exact(x as i16, TREE_SCALE))
                    };
                    out.uvs(verts().map(|v| [s(v, 0), s(v, 1)]));
                    out.winds(verts().map(|v| [s(v, 2), s(v, 3)]));
                }
                Role::Lightmap => {
                    let tab = self.lmap.unwrap_or(&[]);
                    let s = |v: &[u8], k: usize| {
                        let x = u16_at(v, o + 2 * k);
                        tab.get(usize::from(x))
                            .copied()
                            .unwrap_or_else(|| decode_fixed_exact(x as i16, LMAP_SCALE))
                    };
                    out.lightmaps(verts().map(|v| [s(v, 0), s(v, 1)]));
                }
                Role::LightmapFloat => out.lightmaps(verts().map(f2)),
                Role::Color => {
                    out.colors(verts().map(|v| {
                        let c = rd::<4>(v, o);
                        [unit(c[2]), unit(c[1]), unit(c[0])]
                    }));
                    out.suns(verts().map(alpha));
                }
                Role::Other => {}
            }
        }
    }
}

/// [`Columns`] extending the vectors of [`Vertices`] by every column.
impl Columns for Vertices {
    fn positions(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        self.positions.extend(all);
    }
    fn normals(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        self.normals.extend(all);
    }
    fn hemis(&mut self, all: impl Iterator<Item = f32>) {
        self.hemi.extend(all);
    }
    fn tangents(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        self.tangents.extend(all);
    }
    fn tangent_alphas(&mut self, all: impl Iterator<Item = f32>) {
        self.tangent_alpha.extend(all);
    }
    fn binormals(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        self.binormals.extend(all);
    }
    fn binormal_alphas(&mut self, all: impl Iterator<Item = f32>) {
        self.binormal_alpha.extend(all);
    }
    fn uvs(&mut self, all: impl Iterator<Item = [f32; 2]>) {
        self.uv.extend(all);
    }
    fn winds(&mut self, all: impl Iterator<Item = [f32; 2]>) {
        self.wind.extend(all);
    }
    fn lightmaps(&mut self, all: impl Iterator<Item = [f32; 2]>) {
        self.lightmap.extend(all);
    }
    fn colors(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        self.colors.extend(all);
    }
    fn suns(&mut self, all: impl Iterator<Item = f32>) {
        self.sun.extend(all);
    }
}

/// Decode `count` vertices of `stride` bytes each (the caller checked `raw.len()`).
pub fn decode(decl: &Declaration, raw: &[u8]) -> Vertices {
    let stride = decl.stride();
    let count = raw.len().checked_div(stride).unwrap_or(0);
    let d = Decoder::new(decl);
    let mut v = Vertices {
        count,
        ..Default::default()
    };
    reserve(&mut v, &d.roles, d.frac, count);
    let raw = &raw[..count * stride];
    d.columns(raw, &mut v);
    let others = decl.elements.iter().zip(&d.roles);
    v.other = others
        .filter(|(_, r)| **r == Role::Other)
        .map(|(e, _)| {
            let vals = raw
                .chunks_exact(stride.max(1))
                .map(|vert| decode_generic(e, vert))
                .collect();
            (*e, vals)
        })
        .collect();
    v
}

fn get<T: Copy + Default>(v: &[T], i: usize) -> T {
    v.get(i).copied().unwrap_or_default()
}

fn pack_dir(n: [f32; 3], a: u8) -> [u8; 4] {
    [encode_dir(n[2]), encode_dir(n[1]), encode_dir(n[0]), a]
}

/// The first element of `decl` whose role (from [`roles`]) is `role`.
fn element_with(decl: &Declaration, rs: &[Role], role: Role) -> Option<Element> {
    decl.elements
        .iter()
        .zip(rs)
        .find(|(_, r)| **r == role)
        .map(|(e, _)| *e)
}

/// Encode `v` with `decl` (the inverse of [`decode`]); missing attributes encode as zero.
pub fn encode(decl: &Declaration, v: &Vertices) -> Vec<u8> {
    let stride = decl.stride();
    let rs = roles(decl);
    let frac = has_fractions(&rs);
    let mut out = vec![0u8; stride.saturating_mul(v.count)];
    let tan = element_with(decl, &rs, Role::PackedTangent);
    let bin = element_with(decl, &rs, Role::PackedBinormal);
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

    /// The decoder before the speed-up: the formulas in f64 with `f64::floor`, nudged by `fit`.
    mod reference {
        use super::super::fit;

        fn cf(x: f64, lo: f64, hi: f64) -> f64 {
            let f = x.floor();
            if f.is_nan() {
                0.0
            } else {
                f.clamp(lo, hi)
            }
        }
        pub fn enc_dir(n: f32) -> u8 {
            cf((f64::from(n) + 1.0) * 0.5 * 255.0, 0.0, 255.0) as u8
        }
        pub fn dir(b: u8) -> f32 {
            fit((f64::from(b) / 255.0 * 2.0 - 1.0) as f32, |x| {
                enc_dir(x) == b
            })
        }
        pub fn unit(b: u8) -> f32 {
            let e = |a: f32| cf(f64::from(a) * 255.0, 0.0, 255.0) as u8;
            fit((f64::from(b) / 255.0) as f32, |x| e(x) == b)
        }
        pub fn enc_base(uv: f32) -> (i16, u8) {
            let r = f64::from(uv) * 1024.0;
            let p = cf(r, -32768.0, 32767.0);
            (p as i16, cf(255.5 * (r - p), 0.0, 255.0) as u8)
        }
        pub fn base(s: i16, f: u8) -> f32 {
            let v = ((f64::from(s) + f64::from(f) / 255.0) / 1024.0) as f32;
            fit(v, |x| enc_base(x) == (s, f))
        }
        pub fn fixed(s: i16, scale: f64) -> f32 {
            let e = |x: f32| cf(f64::from(x) * scale, -32768.0, 32767.0) as i16;
            fit((f64::from(s) / scale) as f32, |x| e(x) == s)
        }
    }

    #[test]
    fn table_decoding_gives_the_reference_bits() {
        for b in 0..=255u8 {
            assert_eq!(decode_dir(b).to_bits(), reference::dir(b).to_bits());
            assert_eq!(decode_unit(b).to_bits(), reference::unit(b).to_bits());
        }
        for u in 0..=u16::MAX {
            let s = u as i16;
            for scale in [LMAP_SCALE, TREE_SCALE, 1000.0] {
                assert_eq!(
                    decode_fixed(s, scale).to_bits(),
                    reference::fixed(s, scale).to_bits()
                );
            }
            if u % 7 == 0 {
                for f in [0u8, 1, 2, 51, 127, 128, 200, 254, 255] {
                    assert_eq!(
                        decode_base(s, f).to_bits(),
                        reference::base(s, f).to_bits(),
                        "s={s} f={f}"
                    );
                }
            }
        }
    }

    #[test]
    fn base_uv_decoding_gives_the_reference_bits_for_every_code() {
        // every s16 with every fraction byte: the bucket test (and `fit` behind it) against
        // the decoder before the speed-up
        for u in 0..=u16::MAX {
            let s = u as i16;
            for f in 0..=255u8 {
                let got = decode_base(s, f);
                assert_eq!(
                    got.to_bits(),
                    reference::base(s, f).to_bits(),
                    "s={s} f={f}"
                );
            }
        }
        // the buckets lie inside the real ones: 255.5·lo ≥ b, 255.5·hi < b + 1 (exact in f64
        // only approximately, so against the neighbours of the bounds)
        for b in 0..256usize {
            let (lo, hi) = fraction_bucket(b);
            assert!(lo <= hi && hi <= 1.0 && lo >= 0.0);
            assert!(lo * 255.5 >= b as f64, "b={b}");
            assert!(hi * 255.5 < (b + 1) as f64, "b={b}");
        }
    }

    #[test]
    fn fast_floor_is_floor() {
        let xs = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            -1.0,
            -1.5,
            254.999_999_9,
            255.0,
            255.5,
            -32768.5,
            -32769.0,
            32767.9,
            4.0e18,
            -4.0e18,
            1.0e300,
            -1.0e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
        ];
        for x in xs {
            for (lo, hi) in [(0.0, 255.0), (-32768.0, 32767.0)] {
                let want = if x.is_nan() {
                    0.0
                } else {
                    x.floor().clamp(lo, hi)
                };
                assert_eq!(clamp_floor(x, lo, hi), want, "x={x}");
            }
        }
        // and every encoder agrees with the reference on a sweep of values
        for k in -40_000..40_000 {
            let x = k as f32 / 1234.5;
            assert_eq!(encode_dir(x / 30.0), reference::enc_dir(x / 30.0));
            assert_eq!(
                encode_base(x / 1024.0 * 37.0),
                reference::enc_base(x / 1024.0 * 37.0)
            );
        }
    }

    fn one_element(ty: DeclType, bytes: &[u8]) -> [f32; 4] {
        let d = Declaration::new(vec![
            Element::new(0, DeclType::Float3, Usage::Position, 0),
            Element::new(12, ty, Usage::TexCoord, 2),
        ]);
        let mut raw = vec![0u8; 12];
        raw.extend_from_slice(bytes);
        let v = decode(&d, &raw);
        assert_eq!(v.other.len(), 1, "{}", ty.name());
        let got = v.other[0].1[0];
        assert_eq!(encode(&d, &v), raw, "{} re-encodes", ty.name());
        got
    }

    fn le16(v: &[u16]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn every_generic_type_decodes_to_hand_computed_values() {
        use DeclType::*;
        // D3D9 semantics (d3d9types.h): *N types divide by the type's maximum, UDEC3/DEC3N are
        // three 10-bit lanes (x lowest) and a 2-bit w, FLOAT16 is IEEE binary16.
        assert_eq!(
            one_element(Float1, &1.5f32.to_le_bytes()),
            [1.5, 0.0, 0.0, 0.0]
        );
        let f4: Vec<u8> = [1.0f32, -2.0, 0.25, 8.0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        assert_eq!(one_element(Float4, &f4), [1.0, -2.0, 0.25, 8.0]);
        assert_eq!(one_element(Float2, &f4[..8]), [1.0, -2.0, 0.0, 0.0]);
        // D3DCOLOR: bytes B, G, R, A → (R, G, B, A)/255
        assert_eq!(
            one_element(D3dColor, &[0, 51, 255, 102]),
            [1.0, 0.2, 0.0, 0.4]
        );
        assert_eq!(one_element(UByte4, &[1, 2, 3, 250]), [1.0, 2.0, 3.0, 250.0]);
        assert_eq!(
            one_element(UByte4N, &[0, 255, 51, 102]),
            [0.0, 1.0, 0.2, 0.4]
        );
        assert_eq!(
            one_element(Short2, &le16(&[(-5i16) as u16, 300])),
            [-5.0, 300.0, 0.0, 0.0]
        );
        assert_eq!(
            one_element(Short4, &le16(&[0x8000, 0x7FFF, 0, 1])),
            [-32768.0, 32767.0, 0.0, 1.0]
        );
        assert_eq!(
            one_element(Short2N, &le16(&[0x7FFF, 0x8001])),
            [1.0, -1.0, 0.0, 0.0]
        );
        let s4n = one_element(Short4N, &le16(&[0x8000, 16384, 0, 0xC000]));
        assert_eq!(s4n[0], -32768.0 / 32767.0);
        assert_eq!(s4n[1], 16384.0 / 32767.0);
        assert_eq!(s4n[3], -16384.0 / 32767.0);
        assert_eq!(
            one_element(UShort2N, &le16(&[0xFFFF, 0])),
            [1.0, 0.0, 0.0, 0.0]
        );
        let u4n = one_element(UShort4N, &le16(&[13107, 65535, 0, 32768]));
        assert_eq!(u4n[0], 0.2);
        assert_eq!(u4n[3], 32768.0 / 65535.0);
        let udec3 = 1u32 | (2 << 10) | (1023 << 20) | (3 << 30);
        assert_eq!(
            one_element(UDec3, &udec3.to_le_bytes()),
            [1.0, 2.0, 1023.0, 3.0]
        );
        // DEC3N lanes are two's complement: 511 → +1, 513 (= −511) → −1, 512 (= −512)
        let dec3n = 511u32 | (513 << 10) | (512 << 20) | (1 << 30);
        assert_eq!(
            one_element(Dec3N, &dec3n.to_le_bytes()),
            [1.0, -1.0, -512.0 / 511.0, 1.0]
        );
        assert_eq!(
            one_element(Float16x2, &le16(&[0x3C00, 0xC000])),
            [1.0, -2.0, 0.0, 0.0]
        );
        let h = one_element(Float16x4, &le16(&[0x7BFF, 0x0001, 0x3555, 0x8000]));
        assert_eq!(h[0], 65504.0);
        assert_eq!(h[1], 2.0f32.powi(-24));
        assert_eq!(h[2], 0.333_251_95);
        assert_eq!(h[3].to_bits(), 0x8000_0000);
    }

    #[test]
    fn every_value_of_the_generic_types_re_encodes() {
        use DeclType::*;
        // all 65536 words of the 16-bit types (NaN halves included), all 10-bit lanes of the
        // packed types, all bytes of the byte types
        let words: Vec<u8> = le16(&(0..=u16::MAX).collect::<Vec<_>>());
        for ty in [
            Short2, Short2N, UShort2N, Float16x2, Short4, Short4N, UShort4N, Float16x4,
        ] {
            let n = ty.size();
            let d = Declaration::new(vec![Element::new(0, ty, Usage::TexCoord, 3)]);
            let raw = &words[..words.len() / n * n];
            let v = decode(&d, raw);
            assert_eq!(encode(&d, &v), raw, "{}", ty.name());
        }
        let mut packed = Vec::new();
        for k in 0..1024u32 {
            let w = k | ((1023 - k) << 10) | (((k * 7) & 1023) << 20) | ((k & 3) << 30);
            packed.extend_from_slice(&w.to_le_bytes());
        }
        let bytes: Vec<u8> = (0..=255u8).collect();
        for (ty, raw) in [
            (UDec3, &packed),
            (Dec3N, &packed),
            (UByte4, &bytes),
            (UByte4N, &bytes),
            (D3dColor, &bytes),
        ] {
            let d = Declaration::new(vec![Element::new(0, ty, Usage::TexCoord, 3)]);
            let v = decode(&d, raw);
            assert_eq!(v.count, raw.len() / 4);
            assert_eq!(&encode(&d, &v), raw, "{}", ty.name());
        }
    }

    #[test]
    fn halves_round_to_nearest_even() {
        // one half ulp at 1.0 is 2^-10
        let u = 1.0 / 1024.0;
        assert_eq!(f32_to_half(1.0 + 0.75 * u), 0x3C01); // nearest, not truncated
        assert_eq!(f32_to_half(1.0 + 0.25 * u), 0x3C00);
        assert_eq!(f32_to_half(1.0 + 0.5 * u), 0x3C00); // tie → even
        assert_eq!(f32_to_half(1.0 + 1.5 * u), 0x3C02); // tie → even
        assert_eq!(f32_to_half(-(1.0 + 0.75 * u)), 0xBC01);
        assert_eq!(f32_to_half(65504.0), 0x7BFF);
        assert_eq!(f32_to_half(65519.0), 0x7BFF);
        assert_eq!(f32_to_half(65520.0), 0x7C00); // the tie above the largest half → ∞
        assert_eq!(f32_to_half(2.0f32.powi(-25)), 0x0000); // tie → even 0
        assert_eq!(f32_to_half(3.0 * 2.0f32.powi(-25)), 0x0002); // 1.5 → 2
        assert_eq!(f32_to_half(0.999_99 * 2.0f32.powi(-14)), 0x0400); // rounds up to the smallest normal
        assert_eq!(f32_to_half(0.1), 0x2E66);
        assert_eq!(f32_to_half(f32::INFINITY), 0x7C00);
        assert_eq!(f32_to_half(f32::NAN) & 0x7C00, 0x7C00);
        assert_ne!(f32_to_half(f32::NAN) & 0x3FF, 0);
    }
}
