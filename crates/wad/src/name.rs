//! `NAME`: the level name. groove.exe skips this chunk by its size.
//!
//! ```text
//! offset | size | meaning
//!      0 |    4 | u32 count (ENG: a count; 1 in the samples)
//!      4 |    … | the name, NUL-padded (kept verbatim, padding included)
//! ```
//! **\[M\]** (ENG `wad_extractor.py`).

use levelgeom_binary::{ReadError, Reader, Writer};

/// Where the name bytes start in the payload (after the u32 count).
pub const TEXT_OFFSET: usize = 4;

/// The NAME chunk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Name {
    /// The leading `u32`.
    pub count: u32,
    /// Everything after it: the NUL-padded name bytes, verbatim.
    pub bytes: Vec<u8>,
}

impl Name {
    /// Read the payload.
    pub fn read(r: &mut Reader<'_>) -> Result<Name, ReadError> {
        let count = r.u32()?;
        Ok(Name {
            count,
            bytes: r.take_rest().to_vec(),
        })
    }

    /// Write the payload.
    pub fn write(&self, w: &mut Writer) {
        w.u32(self.count);
        w.bytes(&self.bytes);
    }

    /// The name bytes up to the first NUL.
    pub fn name_bytes(&self) -> &[u8] {
        let end = self
            .bytes
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.bytes.len());
        &self.bytes[..end]
    }

    /// The name up to its first NUL, with non-UTF-8 bytes replaced.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(self.name_bytes()).into_owned()
    }
}
