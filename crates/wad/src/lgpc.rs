//! `LGPC`: the language string table (ENG Bible; hdc0; Rartrin `LGPCChunk`; docs/formats/argonaut-wad.md §5, §12.8).
//!
//! ```text
//! offset | size          | meaning
//!      0 |             4 | u32 rows − 1   (rows = languages + 1; the last row is a `#nnn` voice id)
//!      4 |             4 | u32 cols       (number of strings)
//!      8 |             4 | u32 unused
//!     12 | 4·rows·cols   | u32 len[rows·cols], column-major: for each string, one per row
//!      … |             … | string data: NUL-terminated strings (kept verbatim)
//! ```
//!
//! An empty table in real files is `(1, 0, 0)`: 12 bytes. Sizes can be odd (no padding). The
//! string data is kept as bytes; [`Lgpc::strings`] splits it at the NULs.

use levelgeom_binary::{ReadError, Reader, Writer};

/// The LGPC chunk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lgpc {
    /// The first word as stored: rows − 1.
    pub rows_minus_one: u32,
    /// The number of columns (strings).
    pub cols: u32,
    /// The third header word (unused by the game).
    pub unused: u32,
    /// The `rows·cols` lengths, column-major.
    pub lengths: Vec<u32>,
    /// The string data after the lengths, verbatim.
    pub data: Vec<u8>,
}

impl Lgpc {
    /// Read the payload.
    pub fn read(r: &mut Reader<'_>) -> Result<Lgpc, ReadError> {
        let rows_minus_one = r.u32()?;
        let cols = r.u32()?;
        let unused = r.u32()?;
        let cells = (u64::from(rows_minus_one) + 1)
            .checked_mul(u64::from(cols))
            .ok_or_else(|| r.invalid("rows × cols overflows"))?;
        let n = r.count(cells, 4)?;
        let mut lengths = Vec::with_capacity(n);
        for _ in 0..n {
            lengths.push(r.u32()?);
        }
        Ok(Lgpc {
            rows_minus_one,
            cols,
            unused,
            lengths,
            data: r.take_rest().to_vec(),
        })
    }

    /// Write the payload (header words as stored).
    pub fn write(&self, w: &mut Writer) {
        w.u32(self.rows_minus_one);
        w.u32(self.cols);
        w.u32(self.unused);
        for l in &self.lengths {
            w.u32(*l);
        }
        w.bytes(&self.data);
    }

    /// Number of rows (`rows_minus_one + 1`).
    pub fn rows(&self) -> u64 {
        u64::from(self.rows_minus_one) + 1
    }

    /// The table: for each column (string) its `rows` entries (one per language, the last the
    /// `#nnn` voice id), taken from the NUL-terminated strings in column-major order. `None`
    /// when the data does not hold exactly `rows · cols` strings. (Whether the stored lengths
    /// count the NUL is not settled, so the split goes by the NULs, not by the lengths.)
    pub fn table(&self) -> Option<Vec<Vec<&[u8]>>> {
        let strings = self.strings();
        let rows = usize::try_from(self.rows()).ok()?;
        let cols = usize::try_from(self.cols).ok()?;
        if rows.checked_mul(cols)? != strings.len() || (cols > 0 && !self.data.ends_with(&[0])) {
            return None;
        }
        if cols == 0 {
            return Some(Vec::new());
        }
        Some(strings.chunks(rows).map(|c| c.to_vec()).collect())
    }

    /// Where the string data starts, counted from the payload's first byte (after the three
    /// header words and the lengths).
    pub fn data_offset(&self) -> usize {
        12 + 4 * self.lengths.len()
    }

    /// The NUL-terminated strings of the data part, in order (bytes after the last NUL are
    /// returned as a final, unterminated piece when not empty).
    pub fn strings(&self) -> Vec<&[u8]> {
        let mut out: Vec<&[u8]> = self.data.split(|&b| b == 0).collect();
        if out.last().is_some_and(|s| s.is_empty()) {
            out.pop();
        }
        out
    }
}
