//! The FONT chunk's glyphs composited into one sheet.

use serde_json::json;

use super::{Extracted, FONT_FILE};
use crate::font::Glyph;
use crate::level::Level;
use crate::scene::TextView;
use crate::tags::Tag;

/// The font sheet: the 256 glyphs in a 16 × 16 grid of equal cells, glyph code = row × 16 +
/// column, each glyph's texture-entry rectangle at its cell's top left.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FontSheet {
    /// Width in pixels (16 cells).
    pub width: u32,
    /// Height in pixels (16 cells).
    pub height: u32,
    /// RGBA8 pixels, top row first (transparent black where no glyph is).
    pub rgba: Vec<u8>,
    /// The cell size: the widest and the tallest glyph rectangle.
    pub cell: [u32; 2],
}

/// Where a glyph's texels are: a page's pixels and width, and the rectangle in it.
struct Cell<'a> {
    page: &'a [u8],
    page_width: u32,
    u0: u32,
    v0: u32,
    width: u32,
    height: u32,
}

/// The rectangle a glyph names on its decoded page; `None` for a flat colour, an entry or page
/// that is not there, or a rectangle outside its page.
fn cell<'a>(view: &'a TextView, g: &Glyph) -> Option<Cell<'a>> {
    let e = view.entries.get(usize::from(g.texture))?;
    if e.flags & 1 != 0 {
        return None; // a flat colour, no texels
    }
    let page = view.pages.get(usize::from(e.page))?;
    let px = page.rgba.as_ref().ok()?;
    let [u0, u1, v0, v1] = e.rect.map(u32::from);
    (u0 <= u1 && v0 <= v1 && u1 < page.width && v1 < page.height).then_some(Cell {
        page: px,
        page_width: page.width,
        u0,
        v0,
        width: u1 - u0 + 1,
        height: v1 - v0 + 1,
    })
}

/// The sheet of a level with FONT and TEXT chunks, and its manifest item.
pub(super) fn font(level: &Level, out: &mut Extracted) {
    let (Some(font), Some(text)) = (level.font(), level.text()) else {
        return;
    };
    let view = TextView::from_text(text);
    let cells: Vec<_> = font.glyphs.iter().map(|g| cell(&view, g)).collect();
    let cw = cells.iter().flatten().map(|c| c.width).max().unwrap_or(0);
    let ch = cells.iter().flatten().map(|c| c.height).max().unwrap_or(0);
    if cw == 0 || ch == 0 {
        out.warnings
            .push("FONT: no glyph names a decodable texture rectangle; no font.png".into());
        return;
    }
    let (w, h) = (16 * cw, 16 * ch);
    let mut sheet = vec![0u8; (w * h * 4) as usize];
    for (i, c) in cells.iter().enumerate() {
        let Some(c) = c else {
            continue;
        };
        let (ox, oy) = ((i as u32 % 16) * cw, (i as u32 / 16) * ch);
        for y in 0..c.height {
            for x in 0..c.width {
                let s = (((c.v0 + y) * c.page_width + c.u0 + x) * 4) as usize;
                let d = (((oy + y) * w + ox + x) * 4) as usize;
                sheet[d..d + 4].copy_from_slice(&c.page[s..s + 4]);
            }
        }
    }
    out.font = Some(FontSheet {
        width: w,
        height: h,
        rgba: sheet,
        cell: [cw, ch],
    });
    out.items.push(json!({
        "kind": "font",
        "chunk": "FONT",
        "offset": level.payload_offset(Tag::FONT),
        "file": FONT_FILE,
        "cell": [cw, ch],
        "layout": "16 x 16 cells, glyph code = row * 16 + column",
    }));
}
