//! `WFPC`: the level's feature flags (one `u32`, copied by groove.exe into `dword_6DA330`).
//!
//! ```text
//! offset | size | meaning
//!      0 |    4 | u32 flags (bits below)
//! ```
//!
//! Several later chunks change their layout with these bits, so WFPC must come before SPRT,
//! STPC and MAP (docs/formats/argonaut-wad.md §2.7). Sampled values: t1l1m001 `0x18410690`, t0i0m000 `0x08000490`.

use levelgeom_binary::{ReadError, Reader, Writer};

/// MAP has an extra `u32` (view distance / max particles, default 200) before its final `u16`.
pub const MAP_VIEW_DISTANCE: u32 = 0x10;
/// Set in real levels; no known consumer. Kept verbatim.
pub const UNKNOWN_0X80: u32 = 0x80;
/// STPC has an extra tail of 16-byte records with 8-byte sub-records (Croc 2: cutscenes).
pub const STPC_CUTSCENES: u32 = 0x100;
/// MAP has the tile-swap block (`u32 n` + 20-byte records) and extra colour blocks.
pub const MAP_TILE_SWAPS: u32 = 0x1_0000;
/// SPRT has a `u32 n; u32[n]` table after its first word.
pub const SPRT_TABLE: u32 = 0x10_0000;
/// MAP has a chain (camera point) table.
pub const MAP_CHAIN: u32 = 0x20_0000;
/// With [`MAP_CHAIN`]: one more `u32` (Y) per chain point.
pub const MAP_CHAIN_Y: u32 = 0x400_0000;
/// Set in real levels; no known consumer in groove.exe (docs/formats/argonaut-wad.md §12.5).
pub const UNKNOWN_0X08000000: u32 = 0x800_0000;
/// Runtime only: the per-tile colour-pointer table is twice as large.
pub const RUNTIME_WIDE_COLOURS: u32 = 0x1000_0000;

/// The WFPC chunk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wfpc {
    /// The feature flags (see the constants of this module).
    pub flags: u32,
}

impl Wfpc {
    /// Read the payload (exactly 4 bytes in every known file).
    pub fn read(r: &mut Reader<'_>) -> Result<Wfpc, ReadError> {
        Ok(Wfpc { flags: r.u32()? })
    }

    /// Write the payload.
    pub fn write(&self, w: &mut Writer) {
        w.u32(self.flags);
    }

    /// True when every bit of `bit` is set.
    pub fn has(&self, bit: u32) -> bool {
        self.flags & bit == bit
    }
}
