//! [`IndexData`]: the `u16` indices of an index buffer (`fsL_IB`), either a range of the file
//! they were read from (shared with it, not copied) or indices of their own.
//!
//! The file stores the indices little-endian (`docs/formats/xray-level.md §1.2`). A range is
//! shared only where it can be borrowed as `&[u16]` in place: on a little-endian machine, when
//! its first byte sits at an even address (checked with `bytemuck::try_cast_slice`, no unsafe
//! code). Any other range (an odd address, a big-endian machine) is decoded into owned indices
//! when it is made, so that reading one never decodes.
//!
//! It derefs to `[u16]` (mutably too: the first mutable access copies a shared range into owned
//! indices, as [`crate::vertex_data::VertexData`] does) and is built `From<Vec<u16>>`, so code
//! written for a `Vec<u16>` mostly compiles unchanged; [`IndexData::extend_from_slice`] and
//! [`IndexData::into_vec`] cover the rest.

use std::fmt;
use std::ops::{Deref, DerefMut, Range};
use std::sync::Arc;

use levelgeom_binary::Writer;

/// The indices of one index buffer (see the module docs).
#[derive(Clone, Default)]
pub struct IndexData(Repr);

#[derive(Clone)]
enum Repr {
    Owned(Vec<u16>),
    /// Bytes `range` of the file: an even number, starting at an even address, on a
    /// little-endian machine (checked by [`IndexData::shared`], the only maker).
    Shared(Arc<Vec<u8>>, Range<usize>),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Owned(Vec::new())
    }
}

/// The bytes as indices in place, when they can be (a little-endian machine, an even address
/// and an even length).
fn borrowed(bytes: &[u8]) -> Option<&[u16]> {
    if cfg!(target_endian = "little") {
        bytemuck::try_cast_slice(bytes).ok()
    } else {
        None
    }
}

impl IndexData {
    /// The little-endian indices in bytes `range` of `file`: shared with it when they can be
    /// borrowed in place, decoded into owned indices otherwise (see the module docs); `None`
    /// when the range is not inside the file or is an odd number of bytes.
    pub fn shared(file: &Arc<Vec<u8>>, range: Range<usize>) -> Option<IndexData> {
        let bytes = file.get(range.clone())?;
        if bytes.len() % 2 != 0 {
            return None;
        }
        Some(match borrowed(bytes) {
            Some(_) => IndexData(Repr::Shared(Arc::clone(file), range)),
            None => IndexData::from_le_bytes(bytes),
        })
    }

    /// Owned indices decoded from little-endian bytes (a trailing odd byte is ignored).
    pub fn from_le_bytes(bytes: &[u8]) -> IndexData {
        IndexData(Repr::Owned(
            bytes
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
                .collect(),
        ))
    }

    /// The indices as an owned, growable vector (a shared range is copied first).
    pub fn to_mut(&mut self) -> &mut Vec<u16> {
        if let Repr::Shared(..) = &self.0 {
            self.0 = Repr::Owned(self.to_vec());
        }
        match &mut self.0 {
            Repr::Owned(v) => v,
            Repr::Shared(..) => unreachable!("made owned above"),
        }
    }

    /// Append indices (as [`Vec::extend_from_slice`]; a shared range is copied first).
    pub fn extend_from_slice(&mut self, indices: &[u16]) {
        self.to_mut().extend_from_slice(indices);
    }

    /// The indices as a vector (copied when shared).
    pub fn into_vec(self) -> Vec<u16> {
        match self.0 {
            Repr::Owned(v) => v,
            Repr::Shared(..) => self.to_vec(),
        }
    }

    /// Whether the indices are a shared range of the file read (not a copy).
    pub fn is_shared(&self) -> bool {
        matches!(self.0, Repr::Shared(..))
    }

    /// Write the indices as the file stores them, `len × u16` little-endian: a shared range
    /// (and, on a little-endian machine, owned indices) as its bytes at once.
    pub fn write(&self, w: &mut Writer) {
        match &self.0 {
            Repr::Shared(file, range) => w.bytes(&file[range.clone()]),
            Repr::Owned(v) if cfg!(target_endian = "little") => w.bytes(bytemuck::cast_slice(v)),
            Repr::Owned(v) => v.iter().for_each(|&x| w.u16(x)),
        }
    }
}

impl Deref for IndexData {
    type Target = [u16];

    fn deref(&self) -> &[u16] {
        match &self.0 {
            Repr::Owned(v) => v,
            // made only where `borrowed` succeeds; the bytes behind the `Arc` never move
            Repr::Shared(file, range) => bytemuck::cast_slice(&file[range.clone()]),
        }
    }
}

impl DerefMut for IndexData {
    fn deref_mut(&mut self) -> &mut [u16] {
        self.to_mut()
    }
}

impl From<Vec<u16>> for IndexData {
    fn from(v: Vec<u16>) -> Self {
        IndexData(Repr::Owned(v))
    }
}

impl From<&[u16]> for IndexData {
    fn from(v: &[u16]) -> Self {
        IndexData(Repr::Owned(v.to_vec()))
    }
}

impl FromIterator<u16> for IndexData {
    fn from_iter<I: IntoIterator<Item = u16>>(iter: I) -> Self {
        IndexData(Repr::Owned(iter.into_iter().collect()))
    }
}

impl AsRef<[u16]> for IndexData {
    fn as_ref(&self) -> &[u16] {
        self
    }
}

impl PartialEq for IndexData {
    fn eq(&self, other: &Self) -> bool {
        let (a, b): (&[u16], &[u16]) = (self, other);
        // the same indices of the same buffer (two shares of one range) are equal unread
        std::ptr::eq(a, b) || a == b
    }
}

impl Eq for IndexData {}

impl PartialEq<Vec<u16>> for IndexData {
    fn eq(&self, other: &Vec<u16>) -> bool {
        **self == **other
    }
}

impl PartialEq<IndexData> for Vec<u16> {
    fn eq(&self, other: &IndexData) -> bool {
        **self == **other
    }
}

impl PartialEq<[u16]> for IndexData {
    fn eq(&self, other: &[u16]) -> bool {
        **self == *other
    }
}

impl fmt::Debug for IndexData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bytes` placed in a file at an even address and at an odd one: the two files and the
    /// ranges of `bytes` in them.
    fn placed(bytes: &[u8]) -> [(Arc<Vec<u8>>, Range<usize>); 2] {
        let file = |pad: usize| {
            let mut f = vec![0xEEu8; pad];
            f.extend_from_slice(bytes);
            f.push(0xEE);
            Arc::new(f)
        };
        // a Vec<u8>'s buffer comes from the allocator, which aligns any allocation to at
        // least 2 on every target Rust supports; checked below all the same
        let even = file(2);
        let odd = file(1);
        assert_eq!(even.as_ptr() as usize % 2, 0);
        [(even, 2..2 + bytes.len()), (odd, 1..1 + bytes.len())]
    }

    #[test]
    fn a_shared_range_reads_the_values_an_owned_buffer_holds() {
        // 0x0201, 0xFFFE, 0x0000, 0x8007 written little-endian by hand
        let bytes = [0x01, 0x02, 0xFE, 0xFF, 0x00, 0x00, 0x07, 0x80];
        let values = vec![0x0201u16, 0xFFFE, 0, 0x8007];
        let owned = IndexData::from(values.clone());
        let [(even, er), (odd, or)] = placed(&bytes);
        let at_even = IndexData::shared(&even, er).unwrap();
        let at_odd = IndexData::shared(&odd, or).unwrap();
        assert_eq!(
            at_even.is_shared(),
            cfg!(target_endian = "little"),
            "borrowed in place where it can be"
        );
        assert!(!at_odd.is_shared(), "an odd address is decoded when read");
        for d in [&at_even, &at_odd, &owned] {
            assert_eq!(**d, values[..]);
            assert_eq!(*d, values);
            assert_eq!(d, &owned);
        }
        assert_eq!(IndexData::from_le_bytes(&bytes), values);
        // an odd length, or a range past the end, is not indices
        assert!(IndexData::shared(&even, 2..5).is_none());
        assert!(IndexData::shared(&even, 8..12).is_none());
    }

    #[test]
    fn writing_gives_the_input_bytes() {
        let bytes = [0x34, 0x12, 0x00, 0xA0, 0xFF, 0x00];
        for (file, range) in placed(&bytes) {
            let d = IndexData::shared(&file, range).unwrap();
            let mut w = Writer::new();
            d.write(&mut w);
            assert_eq!(w.into_inner(), bytes);
        }
        let mut w = Writer::new();
        IndexData::from(vec![0x1234u16, 0xA000, 0x00FF]).write(&mut w);
        assert_eq!(w.into_inner(), bytes);
    }

    #[test]
    fn writing_through_it_copies_and_leaves_the_file_alone() {
        let [(file, range), _] = placed(&[5, 0, 6, 0, 7, 0]);
        let mut d = IndexData::shared(&file, range.clone()).unwrap();
        let twin = d.clone();
        assert!(std::ptr::eq(&*d, &*twin), "a clone shares the indices");
        d[1] = 9;
        assert!(!d.is_shared());
        assert_eq!(d, vec![5u16, 9, 7]);
        assert_ne!(d, twin);
        assert_eq!(&file[range], &[5, 0, 6, 0, 7, 0], "the file is untouched");
        d.to_mut().push(1);
        assert_eq!(d.into_vec(), vec![5, 9, 7, 1]);
        assert_eq!(twin.into_vec(), vec![5, 6, 7]);
    }
}
