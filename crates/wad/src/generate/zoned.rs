//! The zoned level: the demo with a hand-chosen zone table and a hand-drawn zone grid, so that
//! `export --zones`, `render --zones` and `replace --zones` can be tested against known zones.

use levelgeom_binary::WriteError;

use super::{generate, LevelSpec};
use crate::level::Level;
use crate::map::{Zone, ZONE_COUNT};

/// The zone grid of [`zoned_level`], one string per cell row z (row 0 first, `x` left to
/// right), one character per cell: `.` is zone 0, a digit its zone. The demo's island tiles
/// stand in x 5..=10, z 5..=9, its water tiles (no faces) in the rings around them out to
/// x 3..=12, z 3..=11.
pub const ZONED_GRID: [&str; 16] = [
    "7777............",
    "7777............",
    "................",
    "................",
    "................",
    ".....11122255...",
    ".....11122255...",
    ".....11122255...",
    ".....11133355...",
    ".....11133355...",
    "................",
    "................",
    "................",
    "................",
    "................",
    "................",
];

/// The zone table entries of [`zoned_level`] that are not 0: `(zone, zones it sees, height)`.
/// Every other entry has mask 0 and height 0.
pub const ZONED_TABLE: [(u32, &[u32], i32); 7] = [
    (0, &[0, 1, 2], 0),
    (1, &[0, 1, 2], -11264),
    (2, &[1, 2, 3], 4096),
    (3, &[2, 3], 2048),
    (5, &[5], 0),
    (7, &[7], 0),
    (31, &[31], -1),
];

/// The demo level ([`LevelSpec::demo`]) with the zone table [`ZONED_TABLE`] and the grid
/// [`ZONED_GRID`]; nothing else differs. Every zone with tiles is seen by a zone the grid uses,
/// so `check` passes. The demo itself ([`super::demo_level`]) is not changed.
pub fn zoned_level() -> Result<Level, WriteError> {
    let mut level = generate(&LevelSpec::demo())?;
    let map = level.map_mut().expect("the demo has MAP");
    let mut zones = [Zone::default(); ZONE_COUNT];
    for (z, sees, height) in ZONED_TABLE {
        zones[z as usize] = Zone {
            mask: sees.iter().fold(0, |m, &s| m | (1u32 << s)),
            height,
        };
    }
    map.zones = zones;
    map.zone_grid = ZONED_GRID
        .iter()
        .flat_map(|row| row.chars())
        .map(|c| c.to_digit(10).unwrap_or(0))
        .collect();
    Ok(level)
}
