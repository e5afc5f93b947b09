//! `AMPC`: ambient sound data.
//!
//! In Croc 2 PC this is `u32 n`, n DirectMusic entries and 40-byte records; in TENG the loader
//! (`sub_558D70`) reads a count and hands the stream to the audio library, and the layout is
//! only partly known (docs/formats/argonaut-wad.md §5). An empty AMPC is just `u32 0` (docs/formats/argonaut-wad.md §12.8). The payload is kept
//! verbatim; [`Ampc::count`] reads the leading count when there is one.

use levelgeom_binary::{ReadError, Reader, Writer};

/// The AMPC chunk, kept as raw bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ampc {
    /// The whole payload.
    pub raw: Vec<u8>,
}

impl Ampc {
    /// Read the payload (all of it).
    pub fn read(r: &mut Reader<'_>) -> Result<Ampc, ReadError> {
        Ok(Ampc {
            raw: r.take_rest().to_vec(),
        })
    }

    /// Write the payload.
    pub fn write(&self, w: &mut Writer) {
        w.bytes(&self.raw);
    }

    /// The leading `u32` entry count, if the payload has 4 bytes or more.
    pub fn count(&self) -> Option<u32> {
        let b = self.raw.get(..4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}
