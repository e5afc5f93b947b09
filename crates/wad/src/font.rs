//! `FONT`: the 256-glyph font table (`sub_558C90`; the PSX TPSX/DPSX files hold the same table).
//!
//! ```text
//! offset | size       | meaning
//!      0 | 256 × 8    | per character code 0..=255: 4 × u16
//!        |            |   +0 texture entry, +2 baseline, +4 width, +6 height
//! ```
//!
//! The field names come from the PSX reading of the same table (Rartrin `FontPSX`, docs/formats/argonaut-wad.md §3)
//! **\[M\]**; the game reads exactly 2048 bytes.

use levelgeom_binary::{ReadError, Reader, Writer};

/// Number of glyphs in the table.
pub const GLYPHS: usize = 256;

/// One glyph entry (8 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Glyph {
    /// Texture entry index (+0).
    pub texture: u16,
    /// Baseline (+2).
    pub baseline: u16,
    /// Width (+4).
    pub width: u16,
    /// Height (+6).
    pub height: u16,
}

/// The FONT chunk: exactly [`GLYPHS`] entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Font {
    /// The glyphs, indexed by character code (always 256 after [`Font::read`]).
    pub glyphs: Vec<Glyph>,
}

impl Default for Font {
    fn default() -> Self {
        Font {
            glyphs: vec![Glyph::default(); GLYPHS],
        }
    }
}

impl Font {
    /// Read the 2048-byte payload.
    pub fn read(r: &mut Reader<'_>) -> Result<Font, ReadError> {
        r.count(GLYPHS as u32, 8)?;
        let mut glyphs = Vec::with_capacity(GLYPHS);
        for _ in 0..GLYPHS {
            glyphs.push(Glyph {
                texture: r.u16()?,
                baseline: r.u16()?,
                width: r.u16()?,
                height: r.u16()?,
            });
        }
        Ok(Font { glyphs })
    }

    /// Write the payload (the glyphs as they are; a table of another length is written as is).
    pub fn write(&self, w: &mut Writer) {
        for g in &self.glyphs {
            w.u16(g.texture);
            w.u16(g.baseline);
            w.u16(g.width);
            w.u16(g.height);
        }
    }
}
