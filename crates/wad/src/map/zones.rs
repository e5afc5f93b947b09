//! The MAP's zones: the 32-entry zone table and the per-cell zone grid, what the game does with
//! them, and their `zones.json` / `zones.png` forms (docs/formats/argonaut-wad.md §18.6, §18.7).
//!
//! # What the game does (ENG-RE `REVERSED/decompiled/`, iamBVC/ENG-Reverse-Engineering)
//!
//! * `sub_42AC50` (the MAP loader) reads the table as 32 × `{u32, u32}` into a 256-byte block
//!   (`DAT_006DA350`) and the grid as W·H × u32, row by row (`grid[x + z·W]`), into
//!   `world + 0x48`. It uses neither itself.
//! * `sub_41E020` (every frame) takes the cell of the player (`x >> 12`, `z >> 12`, game space)
//!   and its zone `grid[cell]`; the **mask** of that zone becomes the visibility mask
//!   (`DAT_0058642C`, a mask of 0 is taken as `0xFFFFFFFF`, all zones). Outside the grid the mask
//!   is all zones. A strat standing in a cell whose zone's bit is clear loses its flag 0x40000
//!   (strats flagged 0x800 always keep it), and `sub_42BF40` draws the tiles of a cell only when
//!   the bit `grid[cell] & 0x1F` is set in the mask. So bit z of zone k's mask: the tiles and
//!   strats of zone z are drawn while the player stands in zone k.
//! * The **i32** of the player's zone plus the y (20.12) of the first tile (in file order) filed
//!   in the player's cell becomes `DAT_00586424` (`sub_41E020`; `0xFFFF0000`, −16.0, outside
//!   the grid, or an override a strat set). Strat scripts read it (value 0x78 of `sub_550E60`,
//!   which pushes the values a script reads), and the shadow pass `sub_555140` takes it as a
//!   strat's height when the strat's own is −0x1000. It is a height relative to the cell's tile, 20.12 fixed point: a water or floor
//!   level by its use; what it means in a level is not known further.

use serde::Serialize;

use super::{Map, Zone, ZONE_COUNT};

/// The colour of each zone in `zones.png` and `render --zones`, RGB (sRGB display values):
/// 32 distinct colours, zone z is `PALETTE[z]` (listed in docs/guide/pictures.md).
pub const PALETTE: [[u8; 3]; ZONE_COUNT] = [
    [0xE6, 0x19, 0x4B], // 0 red
    [0x3C, 0xB4, 0x4B], // 1 green
    [0xFF, 0xE1, 0x19], // 2 yellow
    [0x43, 0x63, 0xD8], // 3 blue
    [0xF5, 0x82, 0x31], // 4 orange
    [0x91, 0x1E, 0xB4], // 5 purple
    [0x42, 0xD4, 0xF4], // 6 cyan
    [0xF0, 0x32, 0xE6], // 7 magenta
    [0xBF, 0xEF, 0x45], // 8 lime
    [0xFA, 0xBE, 0xD4], // 9 pink
    [0x46, 0x99, 0x90], // 10 teal
    [0xDC, 0xBE, 0xFF], // 11 lavender
    [0x9A, 0x63, 0x24], // 12 brown
    [0xFF, 0xFA, 0xC8], // 13 beige
    [0x80, 0x00, 0x00], // 14 maroon
    [0xAA, 0xFF, 0xC3], // 15 mint
    [0x80, 0x80, 0x00], // 16 olive
    [0xFF, 0xD8, 0xB1], // 17 apricot
    [0x00, 0x00, 0x75], // 18 navy
    [0xA9, 0xA9, 0xA9], // 19 grey
    [0xFF, 0xFF, 0xFF], // 20 white
    [0x48, 0x3D, 0x8B], // 21 slate blue
    [0x2F, 0x4F, 0x4F], // 22 dark slate
    [0xFF, 0x69, 0xB4], // 23 hot pink
    [0xDA, 0xA5, 0x20], // 24 goldenrod
    [0x4B, 0x00, 0x82], // 25 indigo
    [0x00, 0xFF, 0x7F], // 26 spring green
    [0xCD, 0x5C, 0x5C], // 27 indian red
    [0x1E, 0x90, 0xFF], // 28 dodger blue
    [0x55, 0x6B, 0x2F], // 29 dark olive
    [0xD2, 0xB4, 0x8C], // 30 tan
    [0x70, 0x80, 0x90], // 31 slate grey
];

/// Pixels per cell side in `zones.png`.
pub const CELL_PIXELS: u32 = 8;

/// A cell without a tile is drawn in its zone's colour times this (darker).
pub const EMPTY_CELL_SHADE: f32 = 0.35;

/// The colour of zone `z` (`z & 0x1F`, as the renderer takes the bit).
pub fn zone_colour(z: u32) -> [u8; 3] {
    PALETTE[(z & 0x1F) as usize]
}

/// `#RRGGBB` of zone `z`'s colour.
pub fn zone_colour_hex(z: u32) -> String {
    let [r, g, b] = zone_colour(z);
    format!("#{r:02X}{g:02X}{b:02X}")
}

impl Zone {
    /// The zones this zone sees: the set bits of its mask, ascending (an empty list is a mask
    /// of 0, which the game takes as all zones).
    pub fn sees(&self) -> Vec<u32> {
        (0..ZONE_COUNT as u32)
            .filter(|b| self.mask & (1 << b) != 0)
            .collect()
    }

    /// Whether a player in this zone sees zone `z` (a mask of 0 sees all, as `sub_41E020`).
    pub fn sees_zone(&self, z: u32) -> bool {
        self.mask == 0 || self.mask & (1 << (z & 0x1F)) != 0
    }
}

/// The mask of a list of zone numbers (each below 32).
pub fn mask_of(zones: &[u32]) -> u32 {
    zones.iter().fold(0, |m, &z| m | (1 << (z & 0x1F)))
}

impl Map {
    /// The zone of the cell tile `i` stands in (the loader's cell rule, docs/formats/argonaut-wad.md §12.6), or `None`
    /// when it lies outside the grid or the grid is short.
    pub fn tile_zone(&self, i: usize) -> Option<u32> {
        let cell = self.cell_of(self.tiles.get(i)?.pos)?;
        self.zone_grid.get(cell).copied()
    }

    /// Per cell (`x + z·W`): whether at least one tile is filed in it.
    pub fn cells_with_tiles(&self) -> Vec<bool> {
        let cells = self.zone_grid.len();
        let mut has = vec![false; cells];
        for t in &self.tiles {
            if let Some(c) = self.cell_of(t.pos).filter(|&c| c < cells) {
                has[c] = true;
            }
        }
        has
    }

    /// The cells (`x + z·W`, ascending) that hold tiles but whose zone no zone used in the grid
    /// sees: the game draws those tiles only while the player is outside the grid.
    pub fn unseen_tile_cells(&self) -> Vec<usize> {
        let used: Vec<&Zone> = (0..ZONE_COUNT as u32)
            .filter(|z| self.zone_grid.contains(z))
            .map(|z| &self.zones[z as usize])
            .collect();
        self.cells_with_tiles()
            .iter()
            .enumerate()
            .filter(|&(c, &has)| {
                has && self
                    .zone_grid
                    .get(c)
                    .is_some_and(|&z| !used.iter().any(|u| u.sees_zone(z)))
            })
            .map(|(c, _)| c)
            .collect()
    }
}

/// One entry of `zones.json`'s `zones` list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ZoneEntry {
    /// The zone number (its index in the table).
    pub zone: u32,
    /// The zones it sees (the set bits of its mask); empty = mask 0 = all zones.
    pub sees: Vec<u32>,
    /// The i32 as stored (20.12 fixed point, see the module docs).
    pub height: i32,
}

/// The `zones.json` document `export --zones` writes and `replace --zones` reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ZonesDoc {
    /// What the numbers mean, for a reader of the file.
    pub about: &'static str,
    /// Grid width W.
    pub width: u32,
    /// Grid height H.
    pub height: u32,
    /// The 32 table entries, zone 0 first.
    pub zones: Vec<ZoneEntry>,
    /// The zone of every cell, `grid[x + z·W]`, cell row z = 0 at export z = 0 (the north edge
    /// of `zones.png` is the last row).
    pub grid: Vec<u32>,
    /// Per cell, whether a tile stands in it (not read back).
    pub tiles: Vec<u8>,
}

/// What [`ZonesDoc::about`] says.
pub const ABOUT: &str = "levelgeom zones of a WAD MAP: zones[k].sees lists the zones drawn while \
                         the player is in zone k (empty = all); height is the stored i32 (20.12 \
                         fixed point); grid[x + z*width] is the zone of cell (x, z), a tile at \
                         export (X, Z) is in cell x = int(X - 0.5), z = -int(Z + 0.5); tiles[c] \
                         is 1 where a tile stands (not read back)";

/// The `zones.json` of a MAP.
pub fn zones_doc(map: &Map) -> ZonesDoc {
    ZonesDoc {
        about: ABOUT,
        width: map.grid_w,
        height: map.grid_h,
        zones: map
            .zones
            .iter()
            .zip(0u32..)
            .map(|(z, k)| ZoneEntry {
                zone: k,
                sees: z.sees(),
                height: z.height,
            })
            .collect(),
        grid: map.zone_grid.clone(),
        tiles: map.cells_with_tiles().into_iter().map(u8::from).collect(),
    }
}

/// An RGBA8 picture, top row first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width · height · 4` bytes.
    pub rgba: Vec<u8>,
}

/// The largest grid side [`zones_picture`] draws (a picture of up to 4096 × 4096 pixels).
pub const MAX_PICTURE_CELLS: u32 = 4096 / CELL_PIXELS;

/// `zones.png`: every cell a [`CELL_PIXELS`]² block in its zone's [`PALETTE`] colour, cells
/// without a tile darker ([`EMPTY_CELL_SHADE`]); north up as `render --view top`: +x to the
/// right, −z (cell row H−1) at the top. `None` for an empty grid, one larger than
/// [`MAX_PICTURE_CELLS`] a side, or a zone grid that is not W·H long.
pub fn zones_picture(map: &Map) -> Option<Picture> {
    let (w, h) = (map.grid_w, map.grid_h);
    let cells = (w as usize).checked_mul(h as usize)?;
    if w == 0 || h == 0 || w > MAX_PICTURE_CELLS || h > MAX_PICTURE_CELLS {
        return None;
    }
    if map.zone_grid.len() != cells {
        return None;
    }
    let has = map.cells_with_tiles();
    let (pw, ph) = (w * CELL_PIXELS, h * CELL_PIXELS);
    let mut rgba = vec![0u8; (pw as usize) * (ph as usize) * 4];
    for cz in 0..h {
        for cx in 0..w {
            let c = (cx + cz * w) as usize;
            let shade = if has[c] { 1.0 } else { EMPTY_CELL_SHADE };
            let [r, g, b] = zone_colour(map.zone_grid[c]).map(|v| (f32::from(v) * shade) as u8);
            let top = (h - 1 - cz) * CELL_PIXELS;
            for py in top..top + CELL_PIXELS {
                for px in cx * CELL_PIXELS..(cx + 1) * CELL_PIXELS {
                    let at = ((py * pw + px) * 4) as usize;
                    rgba[at..at + 4].copy_from_slice(&[r, g, b, 255]);
                }
            }
        }
    }
    Some(Picture {
        width: pw,
        height: ph,
        rgba,
    })
}
