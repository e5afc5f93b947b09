//! `TEXT`: palettes, texture pages, texture entries and effects (docs/formats/argonaut-wad.md §5, §6; §20).
//!
//! groove.exe reads the whole chunk by its size (`sub_4067B0`) and parses it at END
//! (`sub_406880` → `sub_406AB0` → `sub_406D30` → `sub_406E40`):
//!
//! ```text
//! size      | meaning
//! ----------+----------------------------------------------------------------------------
//!         4 | u32 palette_count
//!           | per palette: u32 unknown; u32 n; u16 colours[n]; u8 extra[n]
//!         4 | u32 page_count
//!           | per page: u32 flags, u32 width, u32 height, then
//!           |   flags == 0          → width·height bytes (8-bit palette indices)
//!           |   flags & 0x80        → u32 comp_bytes + comp_bytes bytes of RLE16 (see `rle`)
//!           |   otherwise           → width·height × u16 (raw 16-bit)
//!         4 | u32 entry_count
//!     8 · n | texture entries: u16 flags, u8 page, u8 extra (page2 / palette),
//!           |                  u8 u0, u8 u1, u8 v0, u8 v1 (u1, v1 inclusive)
//!         … | effects: u32 count, then per effect u16 sprite, u8 type and by type:
//!           |   1, 2   → 3 bytes
//!           |   7, 9   → u16, u16, u8, u8
//!           |   8      → 3 bytes, then u16[byte 1]
//!           |   10, 11 → 4 bytes, then u16[byte 3]
//!           |   other  → nothing
//! ```
//!
//! `flags & 0x7F` of a page selects a pixel format in the exe; real pages are RLE with flags
//! 0x81..0x87 (docs/formats/argonaut-wad.md §12.8). 16-bit pixels are ABGR1555: red in bits 0–4, green 5–9, blue 10–14,
//! bit 15 alpha ([`abgr1555_to_rgba8`]).
//!
//! Byte exactness: RLE pages keep their compressed bytes as read, so an unchanged page is
//! written back exactly; [`TexturePage::from_pixels16`] re-encodes only edited pages. If the
//! bytes after the entries are not a well-formed effects list that ends exactly at the chunk
//! end, they are kept as [`Effects::Raw`].

use std::fmt;

use levelgeom_binary::{fit, ReadError, Reader, WriteError, Writer};

use crate::rle;

/// Page flag: the pixels are an RLE16 stream.
pub const PAGE_RLE: u32 = 0x80;
/// Page flags: the pixel-format selector bits.
pub const PAGE_FORMAT_MASK: u32 = 0x7F;

// Texture-entry flags, as groove.exe uses them (public decompile, repository
// iamBVC/ENG-Reverse-Engineering, REVERSED/decompiled/; docs/formats/argonaut-wad.md §5.3):
// sub_407240 (material upload) skips the page copy for bit 0 and converts the entry's texels
// with `(flags >> 1) & 1` as a parameter, doubles the copied width for bit 3 and height for
// bit 4, grows the rectangle by one texel on every side for bit 2, and sets bit 5 on the
// materials it makes for type 7/9 effects on the 256 × 256 pages it adds; sub_556510 (tile
// renderer) and sub_435D10 (2D quads) look the render state up by bits 12–14 + 5 · bits 8–10.

/// Entry flag bit 0: a flat colour; `u0, u1, v0` are R, G, B and `v1` a fourth byte.
pub const ENTRY_FLAT_COLOUR: u16 = 0x0001;
/// Entry flag bit 1: a cut-out (the renderer's alpha test and colour key follow it,
/// `sub_556510`; `sub_407240` passes it to the texel conversion).
pub const ENTRY_CUTOUT: u16 = 0x0002;
/// Entry flag bit 2: a padded border (the copied rectangle grows by one texel on every side).
pub const ENTRY_BORDER: u16 = 0x0004;
/// Entry flag bit 3: width × 2.
pub const ENTRY_DOUBLE_WIDTH: u16 = 0x0008;
/// Entry flag bit 4: height × 2.
pub const ENTRY_DOUBLE_HEIGHT: u16 = 0x0010;
/// Entry flag bit 5: a material the game made on a page it generated (set at run time by
/// `sub_407240` for animated effects; not expected in files).
pub const ENTRY_GENERATED_PAGE: u16 = 0x0020;
/// Entry flag bits 8–10: a further mode, the row of the render-state table (meaning unknown).
pub const ENTRY_MODE_MASK: u16 = 0x0700;
/// Entry flag bits 12–14: the blend mode.
pub const ENTRY_BLEND_MASK: u16 = 0x7000;

/// The single-bit entry flags and their names, as `info --json` shows them.
pub const ENTRY_FLAG_NAMES: [(u16, &str); 6] = [
    (ENTRY_FLAT_COLOUR, "flat_colour"),
    (ENTRY_CUTOUT, "cutout"),
    (ENTRY_BORDER, "padded_border"),
    (ENTRY_DOUBLE_WIDTH, "double_width"),
    (ENTRY_DOUBLE_HEIGHT, "double_height"),
    (ENTRY_GENERATED_PAGE, "generated_page"),
];

/// The entry flag bits without a known use (0x0040, 0x0080, 0x0800, 0x8000).
pub const ENTRY_UNKNOWN_MASK: u16 = !(0x003F | ENTRY_MODE_MASK | ENTRY_BLEND_MASK);

/// Pages larger than this many pixels are refused by the pixel decoders (a real page is 256×256;
/// the limit keeps a corrupt width/height from asking for gigabytes).
pub const MAX_PAGE_PIXELS: u64 = 1 << 24;

/// Convert an ABGR1555 word to RGBA8: R = bits 0–4, G = 5–9, B = 10–14, each widened as
/// `(v << 3) | (v >> 2)`; A = 255 when bit 15 is set, else 0 (so word 0 is fully transparent).
pub fn abgr1555_to_rgba8(w: u16) -> [u8; 4] {
    let c = |v: u16| {
        let v = (v & 0x1F) as u8;
        (v << 3) | (v >> 2)
    };
    [
        c(w),
        c(w >> 5),
        c(w >> 10),
        if w & 0x8000 != 0 { 255 } else { 0 },
    ]
}

/// [`abgr1555_to_rgba8`] (the pixel of docs/formats/argonaut-wad.md §6.1) in two lookups: the
/// RGBA8 bits each byte of the word contributes, as little-endian words whose OR is the pixel.
/// R (bits 0–4), B (10–14) and A (15) lie in one byte each; G's 5 bits `g = lo + 8·hi` straddle
/// them (3 low, 2 high), and its widening
/// `(g << 3) | (g >> 2)` splits exactly into `(lo << 3) | (lo >> 2)` (bits 3–5 and 0) and
/// `(hi << 6) | (hi << 1)` (bits 6–7 and 1–2), which do not overlap.
const RGBA8_OF_LOW: [u32; 256] = rgba8_of_byte(false);
/// The high byte's half of [`RGBA8_OF_LOW`].
const RGBA8_OF_HIGH: [u32; 256] = rgba8_of_byte(true);

/// The table of [`RGBA8_OF_LOW`] (`high == false`) or [`RGBA8_OF_HIGH`].
const fn rgba8_of_byte(high: bool) -> [u32; 256] {
    /// A 5-bit channel widened to 8 bits, as [`abgr1555_to_rgba8`] does.
    const fn widen(v: u32) -> u32 {
        (v << 3) | (v >> 2)
    }
    let mut t = [0u32; 256];
    let mut b = 0u32;
    while b < 256 {
        t[b as usize] = if high {
            let g = ((b & 0x3) << 6) | ((b & 0x3) << 1);
            let a = if b & 0x80 != 0 { 255 } else { 0 };
            (g << 8) | (widen((b >> 2) & 0x1F) << 16) | (a << 24)
        } else {
            let lo = b >> 5;
            widen(b & 0x1F) | (((lo << 3) | (lo >> 2)) << 8)
        };
        b += 1;
    }
    t
}

/// [`abgr1555_to_rgba8`] through the byte tables.
#[inline]
fn rgba8(w: u16) -> [u8; 4] {
    let [lo, hi] = w.to_le_bytes();
    (RGBA8_OF_LOW[usize::from(lo)] | RGBA8_OF_HIGH[usize::from(hi)]).to_le_bytes()
}

/// `n` ABGR1555 words as RGBA8 ([`abgr1555_to_rgba8`]), converted straight into an output
/// allocated once at its final size (no intermediate word buffer, no growth while collecting).
/// `words` yields `n` words (fewer leave transparent black).
fn rgba8_of(n: usize, words: impl Iterator<Item = u16>) -> Vec<u8> {
    let mut out = vec![0u8; n * 4];
    for (px, w) in out.chunks_exact_mut(4).zip(words) {
        px.copy_from_slice(&rgba8(w));
    }
    out
}

/// The RGBA8 pixels of an RLE16 stream for `n` pixels, decoded straight into the output (a run
/// converted once and repeated) with [`rle::walk`]; what the decoder leaves unwritten is word
/// 0, transparent black, as [`rle::decode`] gives it.
fn rgba8_of_rle(stream: &[u8], n: usize) -> Result<Vec<u8>, PixelError> {
    let mut out: Vec<u8> = Vec::with_capacity(n * 4);
    rle::walk(stream, n, |span| {
        match span {
            rle::Span::Run { word, count } => {
                let px = rgba8(word);
                let start = out.len();
                out.resize(start + 4 * count, 0);
                for c in out[start..].chunks_exact_mut(4) {
                    c.copy_from_slice(&px);
                }
            }
            rle::Span::Literal(words) => {
                // appended pixel by pixel into the room reserved (no zeroing first)
                for w in words.chunks_exact(2) {
                    out.extend_from_slice(&rgba8(u16::from_le_bytes([w[0], w[1]])));
                }
            }
        }
    })
    .map_err(PixelError::Rle)?;
    out.resize(n * 4, 0);
    Ok(out)
}

/// A palette.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Palette {
    /// The first word (meaning unknown).
    pub unknown: u32,
    /// The ABGR1555 colours.
    pub colours: Vec<u16>,
    /// One byte per colour after the colours (meaning unknown); same length as `colours`.
    pub extra: Vec<u8>,
}

/// How a page's pixels are stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PageData {
    /// `flags == 0`: one palette index per pixel.
    Indexed(Vec<u8>),
    /// `flags != 0` without 0x80: one ABGR1555 word per pixel.
    Raw16(Vec<u16>),
    /// `flags & 0x80`: the RLE16 stream exactly as stored; `comp_bytes` is its length.
    Rle(Vec<u8>),
}

/// Why pixels could not be produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PixelError {
    /// `width · height` is above [`MAX_PAGE_PIXELS`].
    TooLarge {
        /// The page width.
        width: u32,
        /// The page height.
        height: u32,
    },
    /// The stored pixel count differs from `width · height`.
    SizeMismatch {
        /// `width · height`.
        expected: u64,
        /// What is stored.
        actual: usize,
    },
    /// The RLE stream is too short.
    Rle(rle::RleError),
    /// An 8-bit page was asked for 16-bit pixels, or has no palette.
    NeedsPalette,
}

impl fmt::Display for PixelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PixelError::TooLarge { width, height } => {
                write!(f, "page of {width}×{height} pixels is too large to decode")
            }
            PixelError::SizeMismatch { expected, actual } => {
                write!(
                    f,
                    "page holds {actual} pixels, width × height is {expected}"
                )
            }
            PixelError::Rle(e) => e.fmt(f),
            PixelError::NeedsPalette => f.write_str("8-bit page needs a palette"),
        }
    }
}

impl std::error::Error for PixelError {}

/// A texture page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TexturePage {
    /// The page flags (0x80 = RLE, low 7 bits = pixel format).
    pub flags: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The pixels as stored.
    pub data: PageData,
}

impl TexturePage {
    /// A page from 16-bit pixels, RLE-encoded (flags `0x80 | format`) as real pages are.
    pub fn from_pixels16(
        width: u32,
        height: u32,
        format: u8,
        pixels: &[u16],
    ) -> Result<TexturePage, PixelError> {
        let n = Self::checked_pixels(width, height)?;
        if pixels.len() as u64 != n {
            return Err(PixelError::SizeMismatch {
                expected: n,
                actual: pixels.len(),
            });
        }
        Ok(TexturePage {
            flags: PAGE_RLE | (u32::from(format) & PAGE_FORMAT_MASK),
            width,
            height,
            data: PageData::Rle(rle::encode(pixels)),
        })
    }

    /// A raw 16-bit page (flags = `format`, which must be non-zero and below 0x80).
    pub fn raw16(width: u32, height: u32, format: u8, pixels: Vec<u16>) -> TexturePage {
        TexturePage {
            flags: u32::from(format) & PAGE_FORMAT_MASK,
            width,
            height,
            data: PageData::Raw16(pixels),
        }
    }

    /// An 8-bit palette-indexed page (flags 0).
    pub fn indexed(width: u32, height: u32, indices: Vec<u8>) -> TexturePage {
        TexturePage {
            flags: 0,
            width,
            height,
            data: PageData::Indexed(indices),
        }
    }

    fn checked_pixels(width: u32, height: u32) -> Result<u64, PixelError> {
        let n = u64::from(width) * u64::from(height);
        if n > MAX_PAGE_PIXELS {
            Err(PixelError::TooLarge { width, height })
        } else {
            Ok(n)
        }
    }

    /// `width · height`.
    pub fn pixel_count(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }

    /// The storage form the flags call for, as a word: "8-bit", "raw16" or "rle".
    pub fn storage_name(&self) -> &'static str {
        match self.data {
            PageData::Indexed(_) => "8-bit",
            PageData::Raw16(_) => "raw16",
            PageData::Rle(_) => "rle",
        }
    }

    /// True when the data variant is the one the flags select (what [`Text::read`] produces).
    pub fn is_consistent(&self) -> bool {
        matches!((&self.data, self.flags), (PageData::Indexed(_), 0))
            || matches!(&self.data, PageData::Rle(_) if self.flags & PAGE_RLE != 0)
            || matches!(&self.data, PageData::Raw16(_) if self.flags != 0 && self.flags & PAGE_RLE == 0)
    }

    /// Whether the RLE stream's packets run past the page (the overrun flag of
    /// [`Self::decode_rle`], with its errors), found by walking the packets without decoding
    /// the pixels (`None` for other storage forms).
    pub fn rle_overrun(&self) -> Option<Result<bool, PixelError>> {
        let PageData::Rle(stream) = &self.data else {
            return None;
        };
        Some(Self::checked_pixels(self.width, self.height).and_then(|n| {
            rle::walk(stream, n as usize, |_| {})
                .map(|(_, overrun)| overrun)
                .map_err(PixelError::Rle)
        }))
    }

    /// The decoded RLE stream with its overrun flag (`None` for other storage forms).
    pub fn decode_rle(&self) -> Option<Result<rle::Decoded, PixelError>> {
        let PageData::Rle(stream) = &self.data else {
            return None;
        };
        Some(
            Self::checked_pixels(self.width, self.height)
                .and_then(|n| rle::decode(stream, n as usize).map_err(PixelError::Rle)),
        )
    }

    /// The 16-bit pixels, row by row (`width · height` words). 8-bit pages give
    /// [`PixelError::NeedsPalette`].
    pub fn pixels16(&self) -> Result<Vec<u16>, PixelError> {
        let n = Self::checked_pixels(self.width, self.height)?;
        match &self.data {
            PageData::Raw16(p) => {
                if p.len() as u64 != n {
                    return Err(PixelError::SizeMismatch {
                        expected: n,
                        actual: p.len(),
                    });
                }
                Ok(p.clone())
            }
            PageData::Rle(s) => rle::decode(s, n as usize)
                .map(|d| d.pixels)
                .map_err(PixelError::Rle),
            PageData::Indexed(_) => Err(PixelError::NeedsPalette),
        }
    }

    /// RGBA8 pixels (4 bytes per pixel, row by row). 8-bit pages use `palette`; an index past
    /// the palette gives transparent black.
    pub fn to_rgba8_with(&self, palette: Option<&Palette>) -> Result<Vec<u8>, PixelError> {
        let n = Self::checked_pixels(self.width, self.height)?;
        let n = n as usize; // bounded by MAX_PAGE_PIXELS
        match &self.data {
            PageData::Indexed(ix) => {
                let pal = palette.ok_or(PixelError::NeedsPalette)?;
                if ix.len() != n {
                    return Err(PixelError::SizeMismatch {
                        expected: n as u64,
                        actual: ix.len(),
                    });
                }
                let colour = |i: u8| pal.colours.get(usize::from(i)).copied().unwrap_or(0);
                Ok(rgba8_of(n, ix.iter().map(|&i| colour(i))))
            }
            PageData::Raw16(p) if p.len() == n => Ok(rgba8_of(n, p.iter().copied())),
            PageData::Rle(s) => rgba8_of_rle(s, n),
            _ => Ok(rgba8_of(n, self.pixels16()?.into_iter())),
        }
    }

    /// RGBA8 pixels; 8-bit pages use the first palette of `palettes` (the material's palette
    /// byte selects one in the game; use [`Self::to_rgba8_with`] to pick another).
    pub fn to_rgba8(&self, palettes: &[Palette]) -> Result<Vec<u8>, PixelError> {
        self.to_rgba8_with(palettes.first())
    }
}

/// One 8-byte texture entry (the game expands it to a 20-byte material record).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextureEntry {
    /// Flags (see the `ENTRY_*` constants).
    pub flags: u16,
    /// The texture page.
    pub page: u8,
    /// Second page / palette byte (0xFF = none in the samples).
    pub extra: u8,
    /// Left texel column (or R for flat colours).
    pub u0: u8,
    /// Right texel column, inclusive (or G).
    pub u1: u8,
    /// Top texel row (or B).
    pub v0: u8,
    /// Bottom texel row, inclusive (or a fourth colour byte of unknown use).
    pub v1: u8,
}

impl TextureEntry {
    /// True for a flat-colour entry (flag bit 0).
    pub fn is_flat_colour(&self) -> bool {
        self.flags & ENTRY_FLAT_COLOUR != 0
    }

    /// The blend mode, flag bits 12–14.
    pub fn blend_mode(&self) -> u8 {
        ((self.flags & ENTRY_BLEND_MASK) >> 12) as u8
    }

    /// The further mode, flag bits 8–10.
    pub fn mode(&self) -> u8 {
        ((self.flags & ENTRY_MODE_MASK) >> 8) as u8
    }

    /// The names of the single-bit flags set ([`ENTRY_FLAG_NAMES`], in bit order).
    pub fn flag_names(&self) -> Vec<&'static str> {
        ENTRY_FLAG_NAMES
            .iter()
            .filter(|(bit, _)| self.flags & bit != 0)
            .map(|&(_, name)| name)
            .collect()
    }

    /// The flag bits without a known use ([`ENTRY_UNKNOWN_MASK`]).
    pub fn unknown_flags(&self) -> u16 {
        self.flags & ENTRY_UNKNOWN_MASK
    }
}

/// What follows an effect's type byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EffectBody {
    /// Types 1 and 2: three bytes.
    Bytes3([u8; 3]),
    /// Types 7 and 9: u16, u16, u8, u8.
    Words {
        /// First u16.
        a: u16,
        /// Second u16.
        b: u16,
        /// First u8.
        c: u8,
        /// Second u8.
        d: u8,
    },
    /// Type 8: three bytes, then `head[1]` u16 values.
    Table3 {
        /// The bytes; `head[1]` is the count of `values` (kept as stored).
        head: [u8; 3],
        /// The values.
        values: Vec<u16>,
    },
    /// Types 10 and 11: four bytes, then `head[3]` u16 values.
    Table4 {
        /// The bytes; `head[3]` is the count of `values` (kept as stored).
        head: [u8; 4],
        /// The values.
        values: Vec<u16>,
    },
    /// Any other type: nothing.
    Empty,
}

/// One effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Effect {
    /// The sprite (texture entry) it animates.
    pub sprite: u16,
    /// The type byte.
    pub kind: u8,
    /// The type-dependent rest.
    pub body: EffectBody,
}

/// The effects part at the end of TEXT.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effects {
    /// The chunk ends right after the entries.
    Absent,
    /// A well-formed list that ends exactly at the chunk end.
    List(Vec<Effect>),
    /// Bytes that do not parse as such a list, kept verbatim.
    Raw(Vec<u8>),
}

/// The TEXT chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text {
    /// The palettes (TENG levels have none).
    pub palettes: Vec<Palette>,
    /// The texture pages.
    pub pages: Vec<TexturePage>,
    /// The texture entries faces refer to.
    pub entries: Vec<TextureEntry>,
    /// The effects part.
    pub effects: Effects,
}

fn read_u16s(r: &mut Reader<'_>, n: usize) -> Result<Vec<u16>, ReadError> {
    let n = r.count(n as u64, 2)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(r.u16()?);
    }
    Ok(v)
}

fn read_effects(r: &mut Reader<'_>) -> Result<Vec<Effect>, ReadError> {
    let n = r.u32_count(3)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        out.push(r.within("effects", Some(i), |r| {
            let sprite = r.u16()?;
            let kind = r.u8()?;
            let body = match kind {
                1 | 2 => EffectBody::Bytes3(r.array::<3>()?),
                7 | 9 => EffectBody::Words {
                    a: r.u16()?,
                    b: r.u16()?,
                    c: r.u8()?,
                    d: r.u8()?,
                },
                8 => {
                    let head = r.array::<3>()?;
                    let values = read_u16s(r, usize::from(head[1]))?;
                    EffectBody::Table3 { head, values }
                }
                10 | 11 => {
                    let head = r.array::<4>()?;
                    let values = read_u16s(r, usize::from(head[3]))?;
                    EffectBody::Table4 { head, values }
                }
                _ => EffectBody::Empty,
            };
            Ok(Effect { sprite, kind, body })
        })?);
    }
    r.finish()?;
    Ok(out)
}

impl Text {
    /// Read the payload.
    pub fn read(r: &mut Reader<'_>) -> Result<Text, ReadError> {
        let np = r.within("palettes", None, |r| r.u32_count(8))?;
        let mut palettes = Vec::with_capacity(np);
        for i in 0..np {
            palettes.push(r.within("palettes", Some(i), |r| {
                let unknown = r.u32()?;
                let n = r.u32_count(3)?;
                let colours = read_u16s(r, n)?;
                let extra = r.bytes(n)?.to_vec();
                Ok(Palette {
                    unknown,
                    colours,
                    extra,
                })
            })?);
        }
        let n = r.within("pages", None, |r| r.u32_count(12))?;
        let mut pages = Vec::with_capacity(n);
        for i in 0..n {
            pages.push(r.within("pages", Some(i), |r| {
                let flags = r.u32()?;
                let width = r.u32()?;
                let height = r.u32()?;
                let px = u64::from(width) * u64::from(height);
                let data = if flags & PAGE_RLE != 0 {
                    let len = r.u32_count(1)?;
                    PageData::Rle(r.bytes(len)?.to_vec())
                } else if flags != 0 {
                    let n = r.count(px, 2)?;
                    PageData::Raw16(read_u16s(r, n)?)
                } else {
                    let n = r.count(px, 1)?;
                    PageData::Indexed(r.bytes(n)?.to_vec())
                };
                Ok(TexturePage {
                    flags,
                    width,
                    height,
                    data,
                })
            })?);
        }
        let n = r.within("entries", None, |r| r.u32_count(8))?;
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            let b = r.array::<8>()?;
            entries.push(TextureEntry {
                flags: u16::from_le_bytes([b[0], b[1]]),
                page: b[2],
                extra: b[3],
                u0: b[4],
                u1: b[5],
                v0: b[6],
                v1: b[7],
            });
        }
        let effects = if r.is_empty() {
            Effects::Absent
        } else {
            let mut probe = r.clone();
            match read_effects(&mut probe) {
                Ok(list) => {
                    r.take_rest();
                    Effects::List(list)
                }
                Err(_) => Effects::Raw(r.take_rest().to_vec()),
            }
        };
        Ok(Text {
            palettes,
            pages,
            entries,
            effects,
        })
    }

    /// Write the payload. Fails, naming the field (`TEXT/pages[2]/stream length`), when a
    /// list or stream is too long for its u32 count.
    pub fn write(&self, w: &mut Writer) -> Result<(), WriteError> {
        w.u32(fit(self.palettes.len(), || "TEXT/palette count".into())?);
        for (i, p) in self.palettes.iter().enumerate() {
            w.u32(p.unknown);
            w.u32(fit(p.colours.len(), || {
                format!("TEXT/palettes[{i}]/colour count")
            })?);
            for c in &p.colours {
                w.u16(*c);
            }
            w.bytes(&p.extra);
        }
        w.u32(fit(self.pages.len(), || "TEXT/page count".into())?);
        for (i, p) in self.pages.iter().enumerate() {
            w.u32(p.flags);
            w.u32(p.width);
            w.u32(p.height);
            match &p.data {
                PageData::Indexed(ix) => w.bytes(ix),
                PageData::Raw16(px) => {
                    for v in px {
                        w.u16(*v);
                    }
                }
                PageData::Rle(s) => {
                    w.u32(fit(s.len(), || format!("TEXT/pages[{i}]/stream length"))?);
                    w.bytes(s);
                }
            }
        }
        w.u32(fit(self.entries.len(), || "TEXT/entry count".into())?);
        for e in &self.entries {
            w.u16(e.flags);
            w.bytes(&[e.page, e.extra, e.u0, e.u1, e.v0, e.v1]);
        }
        match &self.effects {
            Effects::Absent => {}
            Effects::Raw(b) => w.bytes(b),
            Effects::List(list) => {
                w.u32(fit(list.len(), || "TEXT/effect count".into())?);
                for e in list {
                    w.u16(e.sprite);
                    w.u8(e.kind);
                    match &e.body {
                        EffectBody::Bytes3(b) => w.bytes(b),
                        EffectBody::Words { a, b, c, d } => {
                            w.u16(*a);
                            w.u16(*b);
                            w.u8(*c);
                            w.u8(*d);
                        }
                        EffectBody::Table3 { head, values } => {
                            w.bytes(head);
                            values.iter().for_each(|v| w.u16(*v));
                        }
                        EffectBody::Table4 { head, values } => {
                            w.bytes(head);
                            values.iter().for_each(|v| w.u16(*v));
                        }
                        EffectBody::Empty => {}
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte tables give the formula's pixel for every one of the 65,536 words, among them
    /// the hand-checked primaries (pure R, G, B with alpha, word 0 transparent black).
    #[test]
    fn tables_give_every_words_pixel() {
        assert_eq!(rgba8(0x801F), [255, 0, 0, 255]);
        assert_eq!(rgba8(0x83E0), [0, 255, 0, 255]);
        assert_eq!(rgba8(0xFC00), [0, 0, 255, 255]);
        assert_eq!(rgba8(0x0000), [0, 0, 0, 0]);
        // G = 0b10001 straddling the bytes: (17 << 3) | (17 >> 2) = 140
        assert_eq!(rgba8(0b10001 << 5), [0, 140, 0, 0]);
        for w in 0..=u16::MAX {
            assert_eq!(rgba8(w), abgr1555_to_rgba8(w), "word {w:#06x}");
        }
    }

    /// The walk without pixels answers as the decoding: no overrun for a stream made by the
    /// encoder, the overrun of a run longer than the page (hand-made: 4 pixels, a run of 6),
    /// the error of a stream cut inside a packet, and `None` for a raw page.
    #[test]
    fn rle_overrun_is_the_decodings_flag() {
        let page = |width, height, stream: Vec<u8>| TexturePage {
            flags: PAGE_RLE,
            width,
            height,
            data: PageData::Rle(stream),
        };
        let agree = |p: &TexturePage| {
            let walked = p.rle_overrun();
            let decoded = p.decode_rle().map(|d| d.map(|d| d.overrun));
            assert_eq!(walked, decoded);
            walked
        };
        let pixels: Vec<u16> = (0..64u16)
            .map(|i| if i < 20 { 0x8000 } else { i })
            .collect();
        assert_eq!(agree(&page(8, 8, rle::encode(&pixels))), Some(Ok(false)));
        // count −6 (a run), word 0x801F: six pixels for a page of four
        let run6 = [(-6i16).to_le_bytes(), 0x801Fu16.to_le_bytes()].concat();
        assert_eq!(agree(&page(2, 2, run6.clone())), Some(Ok(true)));
        assert!(matches!(
            agree(&page(2, 2, run6[..3].to_vec())),
            Some(Err(_))
        ));
        let raw = TexturePage {
            flags: 1,
            width: 1,
            height: 1,
            data: PageData::Raw16(vec![0]),
        };
        assert_eq!(raw.rle_overrun(), None);
    }
}
