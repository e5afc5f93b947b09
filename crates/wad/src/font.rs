//! `FONT`: the 256-glyph font table, read by `sub_558C90` (the PSX TPSX/DPSX files hold the same
//! table).
//!
//! ```text
//! offset | size       | meaning
//!      0 | 256 × 8    | per character code 0..=255: 4 × u16
//!        |            |   +0 texture entry, +2 y offset, +4 advance, +6 height
//! ```
//!
//! What each field does comes from the game's text routines in the public decompile of
//! `groove.exe` (repository `iamBVC/ENG-Reverse-Engineering`, `REVERSED/decompiled/`,
//! docs/formats/argonaut-wad.md §5.4): `sub_436A80` and `sub_436550` draw a string glyph by glyph
//! with `sub_435D10(entry, x, y − (+2 >> 1), +4, +6, colour, …)` and move the pen by `+4`;
//! `sub_436510` and `sub_436A20` measure a string by summing `+4`. A space is never looked up
//! (its advance is a fixed 10, and `sub_436A20` gives `#` 3). `sub_435D10` draws the rectangle
//! from `(x, y)` to `(x + w, y + h / 2)`: the y values of the table count half as much as the x
//! value, like the `+2 >> 1` of the callers. The game reads exactly 2048 bytes.

use levelgeom_binary::{ReadError, Reader, Writer};

/// Number of glyphs in the table.
pub const GLYPHS: usize = 256;

/// The advance of a space, fixed in the game's text routines (`sub_436510`, `sub_436550`,
/// `sub_436A80`: `+10` for byte 0x20; the table's entry for it is never read).
pub const SPACE_ADVANCE: u16 = 10;

/// One glyph entry (8 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Glyph {
    /// +0: the texture entry (the game's runtime material, `dword_581154 + 20·index`) whose
    /// rectangle is drawn; ENG-RE's Python calls it the material index.
    pub texture: u16,
    /// +2: how far above the text line's y the glyph's top edge is drawn, in the units of
    /// [`Self::height`] (the draw routines subtract `y_offset >> 1`). Equal to the height, the
    /// line's y is the glyph's bottom. ENG-RE calls it the y-centre offset, the PSX reading
    /// (Rartrin `FontPSX`) the baseline.
    pub y_offset: u16,
    /// +4: the width the glyph is drawn at and the pen's advance after it.
    pub advance: u16,
    /// +6: the height the glyph is drawn at (halved on screen by `sub_435D10`, as `y_offset`).
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
                y_offset: r.u16()?,
                advance: r.u16()?,
                height: r.u16()?,
            });
        }
        Ok(Font { glyphs })
    }

    /// Write the payload (the glyphs as they are; a table of another length is written as is).
    pub fn write(&self, w: &mut Writer) {
        for g in &self.glyphs {
            w.u16(g.texture);
            w.u16(g.y_offset);
            w.u16(g.advance);
            w.u16(g.height);
        }
    }

    /// The width the game gives `text` (Latin-1 bytes): the sum of the advances, a space
    /// [`SPACE_ADVANCE`] (`sub_436510`), stopping at a NUL.
    pub fn text_width(&self, text: &[u8]) -> u32 {
        text.iter()
            .take_while(|&&b| b != 0)
            .map(|&b| match b {
                b' ' => u32::from(SPACE_ADVANCE),
                _ => self
                    .glyphs
                    .get(usize::from(b))
                    .map_or(0, |g| u32::from(g.advance)),
            })
            .sum()
    }
}
