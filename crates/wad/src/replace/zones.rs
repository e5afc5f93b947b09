//! `replace --zones`: a `zones.json` ([`crate::map::zones::ZonesDoc`], as `export --zones`
//! writes it) read, every error located by byte offset and JSON path
//! ([`levelgeom_binary::json_path`]), and its zone table and grid put into the MAP. Only
//! `width`, `height`, `zones[].zone`, `zones[].sees`, `zones[].height` and `grid` are read.

use std::path::Path;

use super::json::{self, place, JsonSyntax};
use serde_json::Value;

use super::{LevelProblem, ReplaceError};
use crate::level::Level;
use crate::map::zones::mask_of;
use crate::map::{Zone, ZONE_COUNT};

/// The largest `zones.json` `replace --zones` reads: 32 MiB (a 96 × 96 grid as `export` writes
/// it takes about 100 KB).
pub const MAX_ZONES_SIZE: u64 = 32 << 20;

/// What is wrong in a zones JSON; `place` is `at byte 0x… ($.path)`.
#[derive(Debug, thiserror::Error)]
pub enum ZonesError {
    /// Not a JSON document.
    #[error(transparent)]
    Syntax(#[from] JsonSyntax),
    /// A member missing or of the wrong kind.
    #[error("{place}: {what}")]
    Field {
        /// Where.
        place: String,
        /// What it should be.
        what: &'static str,
    },
    /// The JSON's grid size is not the MAP's.
    #[error("{place}: the grid is {json_w}×{json_h}, but the WAD's MAP grid is {w}×{h} (zones.json cannot resize it)")]
    GridSize {
        /// Where `width` is.
        place: String,
        /// The JSON's width.
        json_w: u64,
        /// The JSON's height.
        json_h: u64,
        /// The MAP's width.
        w: u32,
        /// The MAP's height.
        h: u32,
    },
    /// A list of the wrong length.
    #[error("{place}: {len} entries, but it needs {want}")]
    Length {
        /// Where the list is.
        place: String,
        /// Its length.
        len: usize,
        /// The length it needs.
        want: u64,
    },
    /// A zone number of 32 or more.
    #[error("{place}: zone {zone} is over {}", ZONE_COUNT - 1)]
    ZoneNumber {
        /// Where.
        place: String,
        /// The number given.
        zone: u64,
    },
    /// An entry's `zone` that is not its index.
    #[error(
        "{place}: zone {zone} listed at index {index} (the entries are zone 0 to 31 in order)"
    )]
    Order {
        /// Where.
        place: String,
        /// The number given.
        zone: u64,
        /// Its index.
        index: usize,
    },
    /// A height outside the i32 range.
    #[error("{place}: height is not a whole number in the i32 range")]
    Height {
        /// Where.
        place: String,
    },
}

/// What `replace --zones` changed ([`super::replace`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ZonesChange {
    /// Table entries whose mask or height changed.
    pub zones: Vec<u32>,
    /// Grid cells (`x + z·W`) whose zone changed.
    pub cells: Vec<usize>,
}

/// Parse a zones JSON; an error names its byte offset and the JSON path there.
///
/// # Errors
/// [`ZonesError::Syntax`].
pub fn zones_json(bytes: &[u8]) -> Result<Value, ZonesError> {
    Ok(json::parse(bytes, "zones")?)
}

/// A zone number at `path`: a whole number below 32.
fn zone_number(text: &[u8], v: &Value, path: &str) -> Result<u32, ZonesError> {
    let z = v.as_u64().ok_or_else(|| ZonesError::Field {
        place: place(text, path),
        what: "a zone number (a whole number 0 to 31)",
    })?;
    u32::try_from(z)
        .ok()
        .filter(|&z| (z as usize) < ZONE_COUNT)
        .ok_or_else(|| ZonesError::ZoneNumber {
            place: place(text, path),
            zone: z,
        })
}

fn array<'a>(
    text: &[u8],
    doc: &'a Value,
    key: &str,
    want: u64,
) -> Result<&'a Vec<Value>, ZonesError> {
    let path = format!("$.{key}");
    let list = doc[key].as_array().ok_or_else(|| ZonesError::Field {
        place: place(text, &path),
        what: "a list (write the file with levelgeom export --zones)",
    })?;
    if list.len() as u64 != want {
        return Err(ZonesError::Length {
            place: place(text, &path),
            len: list.len(),
            want,
        });
    }
    Ok(list)
}

/// The zone table and grid of a parsed zones JSON for a `w × h` grid.
///
/// # Errors
/// [`ZonesError`] naming the place: a missing member, another grid size, lists of the wrong
/// length, a zone number over 31, entries out of order, a height outside i32.
pub fn table_and_grid(
    text: &[u8],
    doc: &Value,
    w: u32,
    h: u32,
) -> Result<([Zone; ZONE_COUNT], Vec<u32>), ZonesError> {
    let (Some(json_w), Some(json_h)) = (doc["width"].as_u64(), doc["height"].as_u64()) else {
        return Err(ZonesError::Field {
            place: place(text, "$"),
            what: "needs \"width\" and \"height\" (whole numbers)",
        });
    };
    if json_w != u64::from(w) || json_h != u64::from(h) {
        return Err(ZonesError::GridSize {
            place: place(text, "$.width"),
            json_w,
            json_h,
            w,
            h,
        });
    }
    let mut zones = [Zone::default(); ZONE_COUNT];
    for (k, e) in array(text, doc, "zones", ZONE_COUNT as u64)?
        .iter()
        .enumerate()
    {
        let at = format!("$.zones[{k}]");
        if !e["zone"].is_null() {
            let z = zone_number(text, &e["zone"], &format!("{at}.zone"))?;
            if z as usize != k {
                return Err(ZonesError::Order {
                    place: place(text, &format!("{at}.zone")),
                    zone: u64::from(z),
                    index: k,
                });
            }
        }
        let sees = e["sees"].as_array().ok_or_else(|| ZonesError::Field {
            place: place(text, &at),
            what: "needs \"sees\", a list of zone numbers",
        })?;
        let list = sees
            .iter()
            .enumerate()
            .map(|(i, v)| zone_number(text, v, &format!("{at}.sees[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        let height = e["height"]
            .as_i64()
            .and_then(|v| i32::try_from(v).ok())
            .ok_or_else(|| ZonesError::Height {
                place: place(text, &format!("{at}.height")),
            })?;
        zones[k] = Zone {
            mask: mask_of(&list),
            height,
        };
    }
    let cells = u64::from(w) * u64::from(h);
    let grid = array(text, doc, "grid", cells)?
        .iter()
        .enumerate()
        .map(|(c, v)| zone_number(text, v, &format!("$.grid[{c}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((zones, grid))
}

/// Put the zone table and grid of the JSON file `path` into the level's MAP; what changed.
pub(super) fn replace(
    level: &mut Level,
    path: &Path,
    lacks: impl Fn(LevelProblem) -> ReplaceError,
) -> Result<ZonesChange, ReplaceError> {
    let bytes = levelgeom_binary::read_regular(path, MAX_ZONES_SIZE).map_err(|source| {
        ReplaceError::Io {
            path: path.to_path_buf(),
            source,
        }
    })?;
    let bad = |source| ReplaceError::Zones {
        file: path.to_path_buf(),
        source,
    };
    let doc = zones_json(&bytes).map_err(bad)?;
    let map = level.map_mut().ok_or_else(|| lacks(LevelProblem::NoMap))?;
    let (zones, grid) = table_and_grid(&bytes, &doc, map.grid_w, map.grid_h).map_err(bad)?;
    let change = ZonesChange {
        zones: (0..ZONE_COUNT as u32)
            .filter(|&k| map.zones[k as usize] != zones[k as usize])
            .collect(),
        cells: (0..grid.len())
            .filter(|&c| map.zone_grid.get(c) != grid.get(c))
            .collect(),
    };
    map.zones = zones;
    map.zone_grid = grid;
    Ok(change)
}
