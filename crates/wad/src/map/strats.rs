//! MAP section 3: the 90-byte strat records (docs/formats/argonaut-wad.md §18.4).
//!
//! Layout from the game's MAP loader, ENG-RE `REVERSED/decompiled/sub_42AC50.c` (the second
//! loop after the tile records: `n × 0x5c` bytes allocated, each record read field by field
//! with `sub_415AB0` (u32) and `sub_415AF0` (u16), so the 90 bytes on disk become 92 in memory;
//! the runtime offsets are given beside the file offsets). What the loader does with a field
//! names it; the others are named by their file offset.
//!
//! | file | runtime | type | field |
//! |---|---|---|---|
//! | 0x00–0x1c | 0x00–0x1c | 8 × u32 | `unknown_0x00` … `unknown_0x1c` |
//! | 0x20 | 0x20 | u32 | `flags`: bit 3 (0x8) makes the loader keep a pointer to this record (`DAT_00584644`) |
//! | 0x24 | 0x24 | u32 | `unknown_0x24` |
//! | 0x28 | 0x28 | u32 | `script_offset`: 0 = none, else STPC-relative (`DAT_006d9dbc + offset`, the base objects' definition offsets use) |
//! | 0x2c–0x34 | 0x2c–0x34 | 3 × u32 | `unknown_0x2c`, `unknown_0x30`, `unknown_0x34` |
//! | 0x38 | 0x38 | u16 | `unknown_0x38` |
//! | 0x3a, 0x3e | 0x3c, 0x40 | 2 × i32 | `range_min`: the first range pair |
//! | 0x42, 0x46 | 0x44, 0x48 | 2 × i32 | `range_max`: when `range_max[0] ≤ range_min[0]` the loader sets `range_max = range_min · 3/2` (`x + (x >> 1)`), in memory only |
//! | 0x4a, 0x4e | 0x4c, 0x50 | 2 × u32 | `unknown_0x4a`, `unknown_0x4e` |
//! | 0x52, 0x54 | 0x54, 0x56 | 2 × u16 | `unknown_0x52`, `unknown_0x54` |
//! | 0x56 | 0x58 | u32 | `unknown_0x56` |

use levelgeom_binary::{ReadError, Reader, Writer};

/// Size of a strat record in the file.
pub const STRAT_RECORD_SIZE: usize = 90;

/// Flag bit (in [`StratRecord::flags`]) that makes the loader keep a pointer to the record.
pub const STRAT_FLAG_MARKED: u32 = 0x8;

/// One 90-byte MAP section-3 record (see the module docs for the layout and its source).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StratRecord {
    /// File offset 0x00, meaning unknown.
    pub unknown_0x00: u32,
    /// File offset 0x04, meaning unknown.
    pub unknown_0x04: u32,
    /// File offset 0x08, meaning unknown.
    pub unknown_0x08: u32,
    /// File offset 0x0c, meaning unknown.
    pub unknown_0x0c: u32,
    /// File offset 0x10, meaning unknown.
    pub unknown_0x10: u32,
    /// File offset 0x14, meaning unknown.
    pub unknown_0x14: u32,
    /// File offset 0x18, meaning unknown.
    pub unknown_0x18: u32,
    /// File offset 0x1c, meaning unknown.
    pub unknown_0x1c: u32,
    /// File offset 0x20: flags; bit [`STRAT_FLAG_MARKED`] is the only one the loader tests.
    pub flags: u32,
    /// File offset 0x24, meaning unknown.
    pub unknown_0x24: u32,
    /// File offset 0x28: a script offset in the STPC payload, 0 for none.
    pub script_offset: u32,
    /// File offset 0x2c, meaning unknown.
    pub unknown_0x2c: u32,
    /// File offset 0x30, meaning unknown.
    pub unknown_0x30: u32,
    /// File offset 0x34, meaning unknown.
    pub unknown_0x34: u32,
    /// File offset 0x38 (u16), meaning unknown.
    pub unknown_0x38: u16,
    /// File offsets 0x3a and 0x3e: the first range pair.
    pub range_min: [i32; 2],
    /// File offsets 0x42 and 0x46: the second range pair (defaulted by the loader to
    /// `range_min · 3/2` when `range_max[0] ≤ range_min[0]`; the file keeps what it has).
    pub range_max: [i32; 2],
    /// File offset 0x4a, meaning unknown.
    pub unknown_0x4a: u32,
    /// File offset 0x4e, meaning unknown.
    pub unknown_0x4e: u32,
    /// File offset 0x52 (u16), meaning unknown.
    pub unknown_0x52: u16,
    /// File offset 0x54 (u16), meaning unknown.
    pub unknown_0x54: u16,
    /// File offset 0x56, meaning unknown.
    pub unknown_0x56: u32,
}

impl StratRecord {
    /// Read one 90-byte record.
    pub fn read(r: &mut Reader<'_>) -> Result<StratRecord, ReadError> {
        Ok(StratRecord {
            unknown_0x00: r.u32()?,
            unknown_0x04: r.u32()?,
            unknown_0x08: r.u32()?,
            unknown_0x0c: r.u32()?,
            unknown_0x10: r.u32()?,
            unknown_0x14: r.u32()?,
            unknown_0x18: r.u32()?,
            unknown_0x1c: r.u32()?,
            flags: r.u32()?,
            unknown_0x24: r.u32()?,
            script_offset: r.u32()?,
            unknown_0x2c: r.u32()?,
            unknown_0x30: r.u32()?,
            unknown_0x34: r.u32()?,
            unknown_0x38: r.u16()?,
            range_min: [r.i32()?, r.i32()?],
            range_max: [r.i32()?, r.i32()?],
            unknown_0x4a: r.u32()?,
            unknown_0x4e: r.u32()?,
            unknown_0x52: r.u16()?,
            unknown_0x54: r.u16()?,
            unknown_0x56: r.u32()?,
        })
    }

    /// Write the 90 bytes in file order.
    pub fn write(&self, w: &mut Writer) {
        for v in [
            self.unknown_0x00,
            self.unknown_0x04,
            self.unknown_0x08,
            self.unknown_0x0c,
            self.unknown_0x10,
            self.unknown_0x14,
            self.unknown_0x18,
            self.unknown_0x1c,
            self.flags,
            self.unknown_0x24,
            self.script_offset,
            self.unknown_0x2c,
            self.unknown_0x30,
            self.unknown_0x34,
        ] {
            w.u32(v);
        }
        w.u16(self.unknown_0x38);
        for v in self.range_min.into_iter().chain(self.range_max) {
            w.i32(v);
        }
        w.u32(self.unknown_0x4a);
        w.u32(self.unknown_0x4e);
        w.u16(self.unknown_0x52);
        w.u16(self.unknown_0x54);
        w.u32(self.unknown_0x56);
    }

    /// The second range pair as the loader leaves it in memory: `range_max`, or
    /// `range_min + (range_min >> 1)` per component when `range_max[0] ≤ range_min[0]`.
    pub fn effective_range_max(&self) -> [i32; 2] {
        if self.range_max[0] <= self.range_min[0] {
            self.range_min.map(|x| x.wrapping_add(x >> 1))
        } else {
            self.range_max
        }
    }

    /// The record's fields as `(name, value)` pairs, named as in the module docs (for export
    /// extras).
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("unknown_0x00", self.unknown_0x00.to_string()),
            ("unknown_0x04", self.unknown_0x04.to_string()),
            ("unknown_0x08", self.unknown_0x08.to_string()),
            ("unknown_0x0c", self.unknown_0x0c.to_string()),
            ("unknown_0x10", self.unknown_0x10.to_string()),
            ("unknown_0x14", self.unknown_0x14.to_string()),
            ("unknown_0x18", self.unknown_0x18.to_string()),
            ("unknown_0x1c", self.unknown_0x1c.to_string()),
            ("flags", self.flags.to_string()),
            ("unknown_0x24", self.unknown_0x24.to_string()),
            ("script_offset", self.script_offset.to_string()),
            ("unknown_0x2c", self.unknown_0x2c.to_string()),
            ("unknown_0x30", self.unknown_0x30.to_string()),
            ("unknown_0x34", self.unknown_0x34.to_string()),
            ("unknown_0x38", self.unknown_0x38.to_string()),
            (
                "range_min",
                format!("{},{}", self.range_min[0], self.range_min[1]),
            ),
            (
                "range_max",
                format!("{},{}", self.range_max[0], self.range_max[1]),
            ),
            ("unknown_0x4a", self.unknown_0x4a.to_string()),
            ("unknown_0x4e", self.unknown_0x4e.to_string()),
            ("unknown_0x52", self.unknown_0x52.to_string()),
            ("unknown_0x54", self.unknown_0x54.to_string()),
            ("unknown_0x56", self.unknown_0x56.to_string()),
        ]
    }
}
