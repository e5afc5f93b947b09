//! A bounded little-endian cursor that knows its absolute file offset and chunk path.

use crate::error::{ChunkPath, PathSegment, ReadError, ReadErrorKind, Warning};
use crate::limits::Limits;

/// A cursor over a byte slice, bounded to `[start, end)` of the whole file.
///
/// Every method checks the bound first and returns a [`ReadError`] naming the absolute offset
/// and the current chunk path. Nothing here panics on any input.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    end: usize,
    path: Vec<PathSegment>,
    limits: Limits,
}

macro_rules! le_reader {
    ($($(#[$doc:meta])* $name:ident: $ty:ty = $n:literal;)*) => {
        $(
            $(#[$doc])*
            #[inline]
            pub fn $name(&mut self) -> Result<$ty, ReadError> {
                let b = self.array::<$n>()?;
                Ok(<$ty>::from_le_bytes(b))
            }
        )*
    };
}

impl<'a> Reader<'a> {
    /// A reader over a whole file; offsets are relative to `data[0]`.
    pub fn new(data: &'a [u8]) -> Self {
        Self::with_limits(data, Limits::DEFAULT)
    }

    /// A reader over a whole file whose decoders obey `limits` (sub-readers inherit them).
    pub fn with_limits(data: &'a [u8], limits: Limits) -> Self {
        Reader {
            data,
            pos: 0,
            end: data.len(),
            path: Vec::new(),
            limits,
        }
    }

    /// The allocation limits decoders reading through this reader obey.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The absolute offset of the next byte to read.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The absolute offset where this reader's bound ends.
    pub fn end(&self) -> usize {
        self.end
    }

    /// Bytes left before the bound.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.end - self.pos
    }

    /// True when no bytes remain.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.end
    }

    /// The whole underlying file.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The bytes that remain, without consuming them.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..self.end]
    }

    /// The current chunk path.
    pub fn path(&self) -> ChunkPath {
        ChunkPath(self.path.clone())
    }

    /// Enter a named chunk or field (optionally an element of a list); pair with [`Self::pop`].
    pub fn push(&mut self, name: &'static str, index: Option<usize>) {
        self.path.push(PathSegment { name, index });
    }

    /// Leave the innermost path segment.
    pub fn pop(&mut self) {
        self.path.pop();
    }

    /// Run `f` inside a path segment, leaving it again whether `f` succeeds or not.
    pub fn within<T>(
        &mut self,
        name: &'static str,
        index: Option<usize>,
        f: impl FnOnce(&mut Self) -> Result<T, ReadError>,
    ) -> Result<T, ReadError> {
        self.push(name, index);
        let out = f(self);
        if out.is_ok() {
            self.pop();
        }
        // On error the path stays as it was when the error was built; the reader is abandoned.
        out
    }

    /// An error of `kind` at absolute offset `offset`, in the current path.
    pub fn error_at(&self, offset: usize, kind: ReadErrorKind) -> ReadError {
        ReadError {
            offset: offset as u64,
            path: self.path(),
            kind,
        }
    }

    /// A free-form error at the current position.
    pub fn invalid(&self, msg: impl Into<String>) -> ReadError {
        self.error_at(self.pos, ReadErrorKind::Invalid(msg.into()))
    }

    /// A free-form error at an absolute offset.
    pub fn invalid_at(&self, offset: usize, msg: impl Into<String>) -> ReadError {
        self.error_at(offset, ReadErrorKind::Invalid(msg.into()))
    }

    /// A warning at an absolute offset, in the current path.
    pub fn warning_at(&self, offset: usize, msg: impl Into<String>) -> Warning {
        Warning {
            offset: offset as u64,
            path: self.path(),
            message: msg.into(),
        }
    }

    #[inline]
    fn need(&self, n: usize) -> Result<(), ReadError> {
        if n > self.remaining() {
            Err(self.eof(n))
        } else {
            Ok(())
        }
    }

    /// The error of [`Self::need`], out of the hot path.
    #[cold]
    #[inline(never)]
    fn eof(&self, n: usize) -> ReadError {
        self.error_at(
            self.pos,
            ReadErrorKind::UnexpectedEof {
                needed: n,
                available: self.remaining(),
            },
        )
    }

    /// Take `n` bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], ReadError> {
        self.need(n)?;
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Take a fixed-size array.
    #[inline]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], ReadError> {
        let s = self.bytes(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Ok(out)
    }

    /// Skip `n` bytes.
    pub fn skip(&mut self, n: usize) -> Result<(), ReadError> {
        self.bytes(n).map(|_| ())
    }

    /// Take everything up to the bound.
    pub fn take_rest(&mut self) -> &'a [u8] {
        let s = &self.data[self.pos..self.end];
        self.pos = self.end;
        s
    }

    /// Look at the next `N` bytes without consuming them.
    pub fn peek_array<const N: usize>(&self) -> Option<[u8; N]> {
        let s = self.data.get(self.pos..self.pos.checked_add(N)?)?;
        if self.pos + N > self.end {
            return None;
        }
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Some(out)
    }

    le_reader! {
        /// Read a `u8`.
        u8: u8 = 1;
        /// Read an `i8`.
        i8: i8 = 1;
        /// Read a little-endian `u16`.
        u16: u16 = 2;
        /// Read a little-endian `i16`.
        i16: i16 = 2;
        /// Read a little-endian `u32`.
        u32: u32 = 4;
        /// Read a little-endian `i32`.
        i32: i32 = 4;
        /// Read a little-endian `u64`.
        u64: u64 = 8;
        /// Read a little-endian IEEE-754 `f32` (bit pattern kept, NaNs included).
        f32: f32 = 4;
    }

    /// Read `N` little-endian `f32`s.
    pub fn f32s<const N: usize>(&mut self) -> Result<[f32; N], ReadError> {
        let mut out = [0f32; N];
        for v in &mut out {
            *v = self.f32()?;
        }
        Ok(out)
    }

    /// Check that `count` elements of at least `elem_size` bytes each can be backed by the
    /// remaining bytes, and return the count as `usize`. Call this before allocating.
    pub fn count(&self, count: impl Into<u64>, elem_size: usize) -> Result<usize, ReadError> {
        let count = count.into();
        let fits = count
            .checked_mul(elem_size as u64)
            .is_some_and(|total| total <= self.remaining() as u64);
        if fits {
            Ok(count as usize)
        } else {
            Err(self.error_at(
                self.pos,
                ReadErrorKind::CountTooLarge {
                    count,
                    elem_size,
                    remaining: self.remaining(),
                },
            ))
        }
    }

    /// Read a `u32` count and check it with [`Self::count`]; the error points at the count.
    pub fn u32_count(&mut self, elem_size: usize) -> Result<usize, ReadError> {
        let at = self.pos;
        let n = self.u32()?;
        self.count(n, elem_size).map_err(|mut e| {
            e.offset = at as u64;
            e
        })
    }

    /// A reader bounded to the next `len` bytes (same path); this reader skips past them.
    pub fn sub(&mut self, len: usize) -> Result<Reader<'a>, ReadError> {
        self.need(len)?;
        let r = Reader {
            data: self.data,
            pos: self.pos,
            end: self.pos + len,
            path: self.path.clone(),
            limits: self.limits,
        };
        self.pos += len;
        Ok(r)
    }

    /// Read a NUL-terminated string (the NUL is consumed, not returned).
    pub fn cstr(&mut self) -> Result<&'a [u8], ReadError> {
        let rest = self.rest();
        match rest.iter().position(|&b| b == 0) {
            Some(n) => {
                let s = &rest[..n];
                self.pos += n + 1;
                Ok(s)
            }
            None => Err(self.invalid("string has no terminating NUL before the end of its chunk")),
        }
    }

    /// Fail with [`ReadErrorKind::TrailingBytes`] if bytes remain.
    pub fn finish(&self) -> Result<(), ReadError> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(self.error_at(
                self.pos,
                ReadErrorKind::TrailingBytes {
                    count: self.remaining(),
                },
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_little_endian_and_tracks_offsets() {
        let b = [1, 0, 2, 0, 0, 0, 0, 0, 0x80, 0x3F];
        let mut r = Reader::new(&b);
        assert_eq!(r.u16().unwrap(), 1);
        assert_eq!(r.u32().unwrap(), 2);
        assert_eq!(r.pos(), 6);
        assert_eq!(r.f32().unwrap(), 1.0);
        assert!(r.is_empty());
        let e = r.u8().unwrap_err();
        assert_eq!(e.offset, 10);
        assert!(matches!(
            e.kind,
            ReadErrorKind::UnexpectedEof {
                needed: 1,
                available: 0
            }
        ));
    }

    #[test]
    fn sub_reader_is_bounded_and_keeps_absolute_offsets() {
        let b = [9u8; 16];
        let mut r = Reader::new(&b);
        r.skip(4).unwrap();
        r.push("TRAK", None);
        let mut s = r.sub(8).unwrap();
        assert_eq!(s.pos(), 4);
        s.u32().unwrap();
        s.push("models", Some(3));
        let e = s.u64().unwrap_err();
        assert_eq!(
            e.to_string(),
            "at 0x00000008 in TRAK/models[3]: unexpected end of data: 8 bytes needed, 4 remain"
        );
        assert_eq!(r.pos(), 12);
    }

    #[test]
    fn huge_counts_are_refused_before_allocation() {
        let b = [0xFF, 0xFF, 0xFF, 0xFF, 0, 0];
        let mut r = Reader::new(&b);
        let e = r.u32_count(24).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(matches!(
            e.kind,
            ReadErrorKind::CountTooLarge {
                count: 0xFFFF_FFFF,
                elem_size: 24,
                remaining: 2
            }
        ));
        let mut r = Reader::new(&[]);
        assert!(r.count(u64::MAX, usize::MAX).is_err());
        assert!(r.cstr().is_err());
    }

    #[test]
    fn finish_reports_trailing_bytes() {
        let b = [0u8; 3];
        let mut r = Reader::new(&b);
        r.u8().unwrap();
        assert!(matches!(
            r.finish().unwrap_err().kind,
            ReadErrorKind::TrailingBytes { count: 2 }
        ));
    }
}
