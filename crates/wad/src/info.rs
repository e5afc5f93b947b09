//! What `levelgeom info` says about a WAD, as a typed value: [`info`] builds an [`Info`] from a
//! read [`Level`]; its [`Display`](std::fmt::Display) is the text report and its serde form
//! the `--json` report.
//!
//! ```text
//! demo.wad: Argonaut level WAD (The Emperor's New Groove PC), 365573 bytes
//! header 0x00059401 (file size − 4 + 0)
//! offset      tag     declared        size  contents
//! 0x00000004  INFO           4           4  4 bytes (kept raw)
//! …
//! ```
//!
//! The JSON keys are `chunks` (`[{contents, declared_size, offset, size, tag}]`),
//! `entries` (the TEXT texture entries, [`EntryInfo`]: `[{extra, flags: {blend_mode, mode, names,
//! unknown, value}, index, page, rect}]`), `file`,
//! `format` (`"argonaut-wad"`), `header` (`{bias, value}`), `level` (`{grid: [w, h] | null,
//! stpc_models, texture_entries, texture_pages, tiles, trak_models, wfpc}`), `map` ([`MapInfo`]:
//! `{final_u16, pool_size, swaps, tile_flags}`, `null` without MAP), `size`,
//! `trailing_bytes` and `warnings` (strings); the fields are declared in that (alphabetical)
//! order, so serde_json writes them in the same order with or without `preserve_order`.

use std::fmt;

use levelgeom_binary::Warning;
use serde::Serialize;

use crate::container::header_bias;
use crate::level::Level;
use crate::text::TextureEntry;

/// The `format` value of a WAD.
pub const FORMAT: &str = "argonaut-wad";

/// The report `levelgeom info` prints for a WAD.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Info {
    /// The chunks in file order.
    pub chunks: Vec<ChunkInfo>,
    /// The TEXT texture entries with their flags named (empty without TEXT).
    pub entries: Vec<EntryInfo>,
    /// The file name as given.
    pub file: String,
    /// Always [`FORMAT`].
    pub format: &'static str,
    /// The u32 at offset 0 and its bias.
    pub header: HeaderInfo,
    /// Counts from the typed level.
    pub level: LevelInfo,
    /// The MAP's words a modder may want to see (`None` without MAP).
    pub map: Option<MapInfo>,
    /// The file length in bytes.
    pub size: usize,
    /// Bytes after the END payload.
    pub trailing_bytes: usize,
    /// The read warnings, as text.
    pub warnings: Vec<String>,
}

/// The file header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HeaderInfo {
    /// `value − (size − 4)`: 0 for TENG files.
    pub bias: i64,
    /// The u32 as stored.
    pub value: u32,
}

/// One chunk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChunkInfo {
    /// What it holds ([`crate::ChunkData::summary`]).
    pub contents: String,
    /// The size field as stored.
    pub declared_size: u32,
    /// Absolute offset of the chunk's 8-byte header.
    pub offset: usize,
    /// The payload bytes actually taken (differs from `declared_size` for a MAP declared 4
    /// bytes too large).
    pub size: usize,
    /// The readable tag (`"MAP "`).
    pub tag: String,
}

/// One TEXT texture entry (docs/formats/argonaut-wad.md §5.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EntryInfo {
    /// The second page / palette byte (0xFF = none).
    pub extra: u8,
    /// The flags, named.
    pub flags: EntryFlagsInfo,
    /// The entry's index (what a face's texture number names).
    pub index: usize,
    /// The texture page.
    pub page: u8,
    /// `[u0, u1, v0, v1]` as stored (inclusive texel bounds; R, G, B and a fourth byte for a
    /// flat colour).
    pub rect: [u8; 4],
}

/// A texture entry's flag word, taken apart ([`crate::text`]'s `ENTRY_*` constants).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EntryFlagsInfo {
    /// Bits 12–14.
    pub blend_mode: u8,
    /// Bits 8–10 (the row of the render-state table; meaning unknown).
    pub mode: u8,
    /// The single-bit flags set, by name ([`crate::text::ENTRY_FLAG_NAMES`]).
    pub names: Vec<&'static str>,
    /// The bits set without a known use, as a number (0 when none).
    pub unknown: u16,
    /// The whole word.
    pub value: u16,
}

impl EntryInfo {
    fn of(index: usize, e: &TextureEntry) -> EntryInfo {
        EntryInfo {
            extra: e.extra,
            flags: EntryFlagsInfo {
                blend_mode: e.blend_mode(),
                mode: e.mode(),
                names: e.flag_names(),
                unknown: e.unknown_flags(),
                value: e.flags,
            },
            index,
            page: e.page,
            rect: [e.u0, e.u1, e.v0, e.v1],
        }
    }
}

/// Counts from the typed level (`None` when the chunk is missing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LevelInfo {
    /// MAP's grid `[w, h]`.
    pub grid: Option<[u32; 2]>,
    /// STPC models.
    pub stpc_models: Option<usize>,
    /// TEXT texture entries.
    pub texture_entries: Option<usize>,
    /// TEXT texture pages.
    pub texture_pages: Option<usize>,
    /// MAP tiles.
    pub tiles: Option<usize>,
    /// TRAK models.
    pub trak_models: Option<usize>,
    /// The WFPC flags (0 without WFPC).
    pub wfpc: u32,
}

/// The MAP words `info --json` shows (what the game does with them: [`crate::map::Tile`],
/// [`crate::map::TileSwap`], [`crate::map::Map::view_distance`], [`crate::map::Map::final_u16`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MapInfo {
    /// The final u16 (strat scripts read it: value 0x90 of `sub_550E60`).
    pub final_u16: u16,
    /// The word before it (WFPC & 0x10; called the view distance before, it sizes a pool of
    /// 72-byte records), `None` when absent (the game then takes 200).
    pub pool_size: Option<u32>,
    /// The tile-swap records' five words, in file order (`None` without WFPC & 0x10000).
    pub swaps: Option<Vec<SwapInfo>>,
    /// The tiles whose flag word (`anim_flag`) is not 0, in file order.
    pub tile_flags: Vec<TileFlag>,
}

/// One tile-swap record's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SwapInfo {
    /// Words 0–2: cell column, height (whole units), cell row of the strat that triggers it.
    pub cell: [i32; 3],
    /// Word 3: model A.
    pub model_a: u32,
    /// Word 4: model B.
    pub model_b: u32,
    /// The tile it belongs to (the k-th flagged tile), if there is one.
    pub tile: Option<usize>,
}

/// A tile with a non-zero flag word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TileFlag {
    /// The flag word.
    pub anim_flag: u32,
    /// The tile's index.
    pub tile: usize,
}

/// The [`MapInfo`] of a MAP.
pub fn map_info(m: &crate::map::Map) -> MapInfo {
    let tile_flags: Vec<TileFlag> = m
        .tiles
        .iter()
        .enumerate()
        .filter(|(_, t)| t.anim_flag != 0)
        .map(|(tile, t)| TileFlag {
            anim_flag: t.anim_flag,
            tile,
        })
        .collect();
    MapInfo {
        final_u16: m.final_u16,
        pool_size: m.view_distance,
        swaps: m.swaps.as_ref().map(|s| {
            s.iter()
                .enumerate()
                .map(|(k, r)| SwapInfo {
                    cell: r.pos,
                    model_a: r.model_a,
                    model_b: r.model_b,
                    tile: tile_flags.get(k).map(|f| f.tile),
                })
                .collect()
        }),
        tile_flags,
    }
}

/// Build the report for `level`, read from a file named `file` of `file_len` bytes with
/// `warnings`. Chunk offsets are the level's own ([`crate::Chunk::offset`]); a chunk made in
/// memory (no offset) gets the offset it will have when the level is written unchanged.
pub fn info(level: &Level, file: &str, file_len: usize, warnings: &[Warning]) -> Info {
    let mut at = 4usize;
    let chunks = level
        .chunks
        .iter()
        .map(|c| {
            let offset = c.offset.unwrap_or(at);
            at = offset.saturating_add(8).saturating_add(c.original_len);
            ChunkInfo {
                contents: c.data.summary(),
                declared_size: c.declared_size,
                offset,
                size: c.original_len,
                tag: c.tag.name(),
            }
        })
        .collect();
    let map = level.map();
    let entries = level.text().map_or_else(Vec::new, |t| {
        t.entries
            .iter()
            .enumerate()
            .map(|(i, e)| EntryInfo::of(i, e))
            .collect()
    });
    Info {
        chunks,
        entries,
        file: file.to_string(),
        format: FORMAT,
        header: HeaderInfo {
            bias: header_bias(level.header, file_len),
            value: level.header,
        },
        level: LevelInfo {
            grid: map.map(|m| [m.grid_w, m.grid_h]),
            stpc_models: level.stpc().map(|s| s.models.len()),
            texture_entries: level.text().map(|t| t.entries.len()),
            texture_pages: level.text().map(|t| t.pages.len()),
            tiles: map.map(|m| m.tiles.len()),
            trak_models: level.trak().map(|t| t.models.len()),
            wfpc: level.wfpc(),
        },
        map: map.map(map_info),
        size: file_len,
        trailing_bytes: level.trailing.len(),
        warnings: warnings.iter().map(|w| w.to_string()).collect(),
    }
}

/// The text report, every line ending in a newline: the file line, the header line, the chunk
/// table, `N bytes after END (kept verbatim)` when there are trailing bytes, and one
/// `warning: …` line per warning.
impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: Argonaut level WAD (The Emperor's New Groove PC), {} bytes",
            self.file, self.size
        )?;
        let bias = self.header.bias;
        writeln!(
            f,
            "header 0x{:08X} (file size − 4 {} {})",
            self.header.value,
            if bias < 0 { "−" } else { "+" },
            bias.unsigned_abs()
        )?;
        writeln!(
            f,
            "{:<10}  {:<4}  {:>10}  {:>10}  contents",
            "offset", "tag", "declared", "size"
        )?;
        for c in &self.chunks {
            writeln!(
                f,
                "0x{:08X}  {:<4}  {:>10}  {:>10}  {}",
                c.offset, c.tag, c.declared_size, c.size, c.contents
            )?;
        }
        if self.trailing_bytes != 0 {
            writeln!(f, "{} bytes after END (kept verbatim)", self.trailing_bytes)?;
        }
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        Ok(())
    }
}
