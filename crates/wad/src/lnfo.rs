//! `LNFO`: two `u32`s (`sub_42AB10` keeps the previous values in two other globals). Meaning
//! unknown; kept as read.
//!
//! ```text
//! offset | size | meaning
//!      0 |    4 | u32 first value
//!      4 |    4 | u32 second value
//! ```

use levelgeom_binary::{ReadError, Reader, Writer};

/// The LNFO chunk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lnfo {
    /// The two words, in file order.
    pub values: [u32; 2],
}

impl Lnfo {
    /// Read the 8-byte payload.
    pub fn read(r: &mut Reader<'_>) -> Result<Lnfo, ReadError> {
        Ok(Lnfo {
            values: [r.u32()?, r.u32()?],
        })
    }

    /// Write the payload.
    pub fn write(&self, w: &mut Writer) {
        w.u32(self.values[0]);
        w.u32(self.values[1]);
    }
}
