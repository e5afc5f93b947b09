//! [`VertexData`]: the raw bytes of a vertex buffer, either a range of the file they were read
//! from (shared with it, not copied) or bytes of their own.
//!
//! It derefs to `[u8]` (mutably too: the first mutable access copies a shared range into owned
//! bytes) and is built `From<Vec<u8>>`, so code written for a `Vec<u8>` mostly compiles
//! unchanged; [`VertexData::extend_from_slice`] and [`VertexData::into_vec`] cover the rest.

use std::fmt;
use std::ops::{Deref, DerefMut, Range};
use std::sync::Arc;

/// Raw vertex bytes (see the module docs).
#[derive(Clone, Default)]
pub struct VertexData(Repr);

#[derive(Clone)]
enum Repr {
    Owned(Vec<u8>),
    Shared(Arc<Vec<u8>>, Range<usize>),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Owned(Vec::new())
    }
}

impl VertexData {
    /// The bytes `range` of `file`, shared with it; `None` when the range is not inside it.
    pub fn shared(file: &Arc<Vec<u8>>, range: Range<usize>) -> Option<VertexData> {
        file.get(range.clone())?;
        Some(VertexData(Repr::Shared(Arc::clone(file), range)))
    }

    /// The bytes as an owned, growable vector (a shared range is copied first).
    pub fn to_mut(&mut self) -> &mut Vec<u8> {
        if let Repr::Shared(file, range) = &self.0 {
            self.0 = Repr::Owned(file[range.clone()].to_vec());
        }
        match &mut self.0 {
            Repr::Owned(v) => v,
            Repr::Shared(..) => unreachable!("made owned above"),
        }
    }

    /// Append bytes (as [`Vec::extend_from_slice`]).
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.to_mut().extend_from_slice(bytes);
    }

    /// The bytes as a vector (copied when shared).
    pub fn into_vec(self) -> Vec<u8> {
        match self.0 {
            Repr::Owned(v) => v,
            Repr::Shared(file, range) => file[range].to_vec(),
        }
    }

    /// The same bytes made shareable: owned bytes are moved behind an [`Arc`] (not copied),
    /// so that clones share them instead of copying them.
    pub fn into_shared(self) -> VertexData {
        match self.0 {
            Repr::Owned(v) => {
                let range = 0..v.len();
                VertexData(Repr::Shared(Arc::new(v), range))
            }
            shared @ Repr::Shared(..) => VertexData(shared),
        }
    }

    /// Whether the bytes are a shared range of the file read (not a copy).
    pub fn is_shared(&self) -> bool {
        matches!(self.0, Repr::Shared(..))
    }
}

impl Deref for VertexData {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.0 {
            Repr::Owned(v) => v,
            Repr::Shared(file, range) => &file[range.clone()],
        }
    }
}

impl DerefMut for VertexData {
    fn deref_mut(&mut self) -> &mut [u8] {
        self.to_mut()
    }
}

impl From<Vec<u8>> for VertexData {
    fn from(v: Vec<u8>) -> Self {
        VertexData(Repr::Owned(v))
    }
}

impl AsRef<[u8]> for VertexData {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl PartialEq for VertexData {
    fn eq(&self, other: &Self) -> bool {
        let (a, b): (&[u8], &[u8]) = (self, other);
        // the same bytes of the same buffer (two shares of one range) are equal unread
        std::ptr::eq(a, b) || a == b
    }
}

impl Eq for VertexData {}

impl PartialEq<Vec<u8>> for VertexData {
    fn eq(&self, other: &Vec<u8>) -> bool {
        **self == **other
    }
}

impl PartialEq<VertexData> for Vec<u8> {
    fn eq(&self, other: &VertexData) -> bool {
        **self == **other
    }
}

impl PartialEq<[u8]> for VertexData {
    fn eq(&self, other: &[u8]) -> bool {
        **self == *other
    }
}

impl fmt::Debug for VertexData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_range_reads_the_file_and_copies_on_write() {
        let file = Arc::new(vec![1u8, 2, 3, 4, 5]);
        let mut d = VertexData::shared(&file, 1..4).unwrap();
        assert!(d.is_shared());
        assert_eq!(&*d, &[2, 3, 4]);
        d[0] = 9;
        assert!(!d.is_shared());
        assert_eq!(d, vec![9u8, 3, 4]);
        assert_eq!(*file, vec![1, 2, 3, 4, 5], "the file is untouched");
        d.extend_from_slice(&[7]);
        assert_eq!(d.into_vec(), vec![9, 3, 4, 7]);
        assert!(VertexData::shared(&file, 3..6).is_none());
        let own = VertexData::from(vec![4u8, 5]).into_shared();
        let twin = own.clone();
        assert!(twin.is_shared());
        assert!(std::ptr::eq(&*own, &*twin), "a clone shares the bytes");
        assert_eq!(own, VertexData::from(vec![4u8, 5]));
        assert_ne!(own, VertexData::from(vec![4u8, 6]));
    }
}
