//! The MAP tile part for imported tiles (docs/formats/argonaut-wad.md §21.4).
//!
//! Changed: the tile count, records A (float) and B (fixed point, z negated, ry = rot), the
//! model indices, the vertex-colour blocks (one set of nVerts words per tile, byte 3 = 0, so
//! the docs/formats/argonaut-wad.md §12.1 layer count is 1), the swap block (emptied when the original tiles are replaced,
//! kept when they are kept: new tiles have `anim_flag` 0 and come after the old ones, so the
//! k-th record still belongs to the k-th flagged tile), the grid size when the mesh leaves it
//! (the zone grid is laid out again, new cells in zone 0) and the zones per [`Zones`].
//! Everything else (params, strat records, route nodes, objects, chain table, view distance, final word)
//! is left as it is.

use crate::map::{Map, Tile, TileColours, TileTransform};

use super::Zones;

/// One new tile: its placement A, model index, and its one colour set.
#[derive(Clone, Debug, PartialEq)]
pub struct NewTile {
    /// Position (cell centre, band height).
    pub pos: [f32; 3],
    /// TRAK model index (final, after any kept models).
    pub model: u32,
    /// One colour word per vertex of the model.
    pub colours: Vec<u32>,
}

/// The fixed-point record B of a tile at `pos` with rotation `rot` (20.12, game space).
pub fn transform(pos: [f32; 3], rot: u32) -> TileTransform {
    let fx = |v: f64| (v * 4096.0).round() as i32;
    TileTransform {
        rot: [0, rot as i32, 0],
        pos: [
            fx(f64::from(pos[0])),
            fx(f64::from(pos[1])),
            fx(-f64::from(pos[2])),
        ],
    }
}

/// Rebuild `map`'s tile part in place.
pub fn rebuild(map: &mut Map, tiles: Vec<NewTile>, keep: bool, zones: Zones, grid: (u32, u32)) {
    if !keep {
        map.tiles.clear();
        map.transforms.clear();
        map.model_indices.clear();
        map.colours.clear();
        if let Some(s) = &mut map.swaps {
            s.clear();
        }
    }
    for t in tiles {
        map.tiles.push(Tile {
            pos: t.pos,
            rot: 0,
            model: t.model,
            anim_flag: 0,
        });
        map.transforms.push(transform(t.pos, 0));
        map.model_indices.push(t.model);
        map.colours.push(TileColours {
            layers: vec![t.colours],
            swap_layers: None,
        });
    }
    let (w, h) = grid;
    if (w, h) != (map.grid_w, map.grid_h) {
        let (ow, oh) = (map.grid_w as usize, map.grid_h as usize);
        let mut z = vec![0u32; w as usize * h as usize];
        for cz in 0..oh.min(h as usize) {
            for cx in 0..ow.min(w as usize) {
                z[cz * w as usize + cx] = map.zone_grid.get(cz * ow + cx).copied().unwrap_or(0);
            }
        }
        map.zone_grid = z;
        map.grid_w = w;
        map.grid_h = h;
    }
    if zones == Zones::Flat {
        map.zone_grid.iter_mut().for_each(|z| *z = 0);
        map.zones[0].mask = u32::MAX;
    }
}
