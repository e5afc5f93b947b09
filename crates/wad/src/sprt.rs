//! `SPRT`: the sprite material base and, when `WFPC & 0x100000`, a table of `u32`s.
//!
//! ```text
//! offset | size | meaning
//!      0 |    4 | u32 material_base (base index into the texture entries for sprites)
//!   [WFPC & 0x100000:]
//!      4 |    4 | u32 n
//!      8 |  4·n | u32 table[n]
//! ```
//!
//! The game reads SPRT as a stream (inline in `sub_558880`), so the WFPC bit decides the layout.

use levelgeom_binary::{fit, ReadError, Reader, WriteError, Writer};

use crate::wfpc::SPRT_TABLE;

/// The SPRT chunk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sprt {
    /// The first word (ENG: base index into the texture entries used by sprite rendering).
    pub material_base: u32,
    /// The table, present exactly when `WFPC & 0x100000`.
    pub table: Option<Vec<u32>>,
}

impl Sprt {
    /// Read the payload; `wfpc` is the level's WFPC flags.
    pub fn read(r: &mut Reader<'_>, wfpc: u32) -> Result<Sprt, ReadError> {
        let material_base = r.u32()?;
        let table = if wfpc & SPRT_TABLE != 0 {
            let n = r.u32_count(4)?;
            let mut t = Vec::with_capacity(n);
            for _ in 0..n {
                t.push(r.u32()?);
            }
            Some(t)
        } else {
            None
        };
        Ok(Sprt {
            material_base,
            table,
        })
    }

    /// Write the payload (the table with its count when present).
    pub fn write(&self, w: &mut Writer) -> Result<(), WriteError> {
        w.u32(self.material_base);
        if let Some(t) = &self.table {
            w.u32(fit(t.len(), || "SPRT/table count".into())?);
            for v in t {
                w.u32(*v);
            }
        }
        Ok(())
    }
}
