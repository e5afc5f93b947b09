//! An append-only little-endian byte buffer with back-patching.

/// A growing byte buffer; the mirror image of [`crate::Reader`].
#[derive(Clone, Debug, Default)]
pub struct Writer {
    buf: Vec<u8>,
}

macro_rules! le_writer {
    ($($(#[$doc:meta])* $name:ident: $ty:ty;)*) => {
        $(
            $(#[$doc])*
            #[inline]
            pub fn $name(&mut self, v: $ty) {
                self.buf.extend_from_slice(&v.to_le_bytes());
            }
        )*
    };
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty writer with room for `n` bytes.
    pub fn with_capacity(n: usize) -> Self {
        Writer {
            buf: Vec::with_capacity(n),
        }
    }

    /// Bytes written so far (the offset of the next byte).
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    le_writer! {
        /// Append a `u8`.
        u8: u8;
        /// Append an `i8`.
        i8: i8;
        /// Append a `u16`.
        u16: u16;
        /// Append an `i16`.
        i16: i16;
        /// Append a `u32`.
        u32: u32;
        /// Append an `i32`.
        i32: i32;
        /// Append a `u64`.
        u64: u64;
        /// Append an `f32` (bit pattern kept).
        f32: f32;
    }

    /// Append `N` `f32`s.
    pub fn f32s(&mut self, v: &[f32]) {
        for x in v {
            self.f32(*x);
        }
    }

    /// Append raw bytes.
    #[inline]
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Overwrite a `u32` written earlier at `offset` (for size fields written before their body).
    ///
    /// # Panics
    /// If `offset + 4` is past what was written: that is a bug in the calling writer, not bad input.
    pub fn patch_u32(&mut self, offset: usize, v: u32) {
        self.buf[offset..offset + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// The bytes written.
    pub fn as_slice(&self) -> &[u8] {
        &self.buf
    }

    /// Finish and return the bytes.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reader;

    #[test]
    fn writer_mirrors_reader() {
        let mut w = Writer::new();
        w.u32(0);
        w.i16(-2);
        w.f32(1.5);
        w.bytes(b"ab");
        w.patch_u32(0, 0xDEADBEEF);
        let b = w.into_inner();
        assert_eq!(b.len(), 12);
        let mut r = Reader::new(&b);
        assert_eq!(r.u32().unwrap(), 0xDEADBEEF);
        assert_eq!(r.i16().unwrap(), -2);
        assert_eq!(r.f32().unwrap(), 1.5);
        assert_eq!(r.bytes(2).unwrap(), b"ab");
    }
}
