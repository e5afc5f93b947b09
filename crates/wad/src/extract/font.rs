//! The FONT chunk: its glyphs composited into one sheet (`font.png`) and their metrics
//! (`font.json`, the same list in the manifest).

use serde_json::{json, Value};

use super::{Extracted, FONT_FILE, FONT_METRICS_FILE};
use crate::font::{Font, Glyph, GLYPHS, SPACE_ADVANCE};
use crate::latin1;
use crate::level::Level;
use crate::scene::TextView;
use crate::tags::Tag;
use crate::text::ENTRY_FLAT_COLOUR;

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
    if e.flags & ENTRY_FLAT_COLOUR != 0 {
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

/// The sheet of a level with FONT and TEXT chunks, its metrics file and its manifest item.
pub(super) fn font(level: &Level, out: &mut Extracted) {
    let Some(font) = level.font() else {
        return;
    };
    let view = level.text().map(TextView::from_text);
    let cells: Vec<_> = font
        .glyphs
        .iter()
        .take(GLYPHS) // a table built in memory may be longer; the sheet has 256 cells
        .map(|g| view.as_ref().and_then(|v| cell(v, g)))
        .collect();
    let cw = cells.iter().flatten().map(|c| c.width).max().unwrap_or(0);
    let ch = cells.iter().flatten().map(|c| c.height).max().unwrap_or(0);
    let has_sheet = cw != 0 && ch != 0;
    if has_sheet {
        out.font = Some(sheet(&cells, [cw, ch]));
    } else {
        out.warnings
            .push("FONT: no glyph names a decodable texture rectangle; no font.png".into());
    }
    let glyphs = metrics(font, view.as_ref(), &cells, has_sheet.then_some([cw, ch]));
    let doc = json!({
        "chunk": "FONT",
        "offset": level.payload_offset(Tag::FONT),
        "sheet": has_sheet.then_some(FONT_FILE),
        "cell": has_sheet.then_some([cw, ch]),
        "space_advance": SPACE_ADVANCE,
        "glyphs": glyphs,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    out.files
        .push((FONT_METRICS_FILE.into(), text.into_bytes()));
    out.items.push(json!({
        "kind": "font",
        "chunk": "FONT",
        "offset": level.payload_offset(Tag::FONT),
        "file": has_sheet.then_some(FONT_FILE),
        "metrics": FONT_METRICS_FILE,
        "cell": has_sheet.then_some([cw, ch]),
        "layout": "16 x 16 cells, glyph code = row * 16 + column",
        "glyphs": doc["glyphs"],
    }));
}

/// The sheet: each glyph's rectangle copied to the top left of its cell.
fn sheet(cells: &[Option<Cell<'_>>], [cw, ch]: [u32; 2]) -> FontSheet {
    let (w, h) = (16 * cw, 16 * ch);
    let mut rgba = vec![0u8; (w * h * 4) as usize];
    for (i, c) in cells.iter().enumerate() {
        let Some(c) = c else {
            continue;
        };
        let (ox, oy) = ((i as u32 % 16) * cw, (i as u32 / 16) * ch);
        for y in 0..c.height {
            for x in 0..c.width {
                let s = (((c.v0 + y) * c.page_width + c.u0 + x) * 4) as usize;
                let d = (((oy + y) * w + ox + x) * 4) as usize;
                rgba[d..d + 4].copy_from_slice(&c.page[s..s + 4]);
            }
        }
    }
    FontSheet {
        width: w,
        height: h,
        rgba,
        cell: [cw, ch],
    }
}

/// One object per glyph: its code and character, the four FONT words (docs/formats/argonaut-wad.md §5.4), the
/// texture entry's page and rectangle, and where its pixels are in the sheet
/// (`[x, y, width, height]`, `null` when the glyph has none).
fn metrics(
    font: &Font,
    view: Option<&TextView>,
    cells: &[Option<Cell<'_>>],
    cell_size: Option<[u32; 2]>,
) -> Vec<Value> {
    font.glyphs
        .iter()
        .take(GLYPHS)
        .enumerate()
        .map(|(code, g)| {
            let entry = view.and_then(|v| v.entries.get(usize::from(g.texture)));
            let sheet = match (cells.get(code).and_then(Option::as_ref), cell_size) {
                (Some(c), Some([cw, ch])) => Some([
                    (code as u32 % 16) * cw,
                    (code as u32 / 16) * ch,
                    c.width,
                    c.height,
                ]),
                _ => None,
            };
            json!({
                "code": code,
                "char": latin1::decode(&[code as u8]),
                "texture": g.texture,
                "y_offset": g.y_offset,
                "advance": g.advance,
                "height": g.height,
                "page": entry.filter(|e| e.flags & ENTRY_FLAT_COLOUR == 0).map(|e| e.page),
                "rect": entry.filter(|e| e.flags & ENTRY_FLAT_COLOUR == 0).map(|e| e.rect),
                "sheet": sheet,
            })
        })
        .collect()
}
