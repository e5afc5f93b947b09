//! Errors and warnings that carry an absolute file offset and a chunk path.

use std::fmt;

/// One step of a [`ChunkPath`]: a static name (a chunk tag or a field) and an optional index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathSegment {
    /// The chunk tag or field name, e.g. `"MAP"` or `"tiles"`.
    pub name: &'static str,
    /// The element index within a list, e.g. `17` in `tiles[17]`.
    pub index: Option<usize>,
}

/// Where inside a file's chunk tree a byte was read, e.g. `MAP/tiles[17]`.
///
/// Built by [`crate::Reader::push`]/[`crate::Reader::pop`] without allocating strings; it is only
/// formatted when an error or warning is reported.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkPath(pub Vec<PathSegment>);

impl fmt::Display for ChunkPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("file");
        }
        for (i, seg) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            f.write_str(seg.name.trim_end())?;
            if let Some(ix) = seg.index {
                write!(f, "[{ix}]")?;
            }
        }
        Ok(())
    }
}

/// What went wrong while reading.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// A read needed more bytes than the current bound holds.
    UnexpectedEof {
        /// Bytes the read needed.
        needed: usize,
        /// Bytes that were left.
        available: usize,
    },
    /// A stored count times its element size is more than the bytes that remain.
    CountTooLarge {
        /// The stored count.
        count: u64,
        /// Bytes per element (the minimum, for variable-sized elements).
        elem_size: usize,
        /// Bytes that remain in the current bound.
        remaining: usize,
    },
    /// A structure ended before its bound did.
    TrailingBytes {
        /// How many bytes were left unread.
        count: usize,
    },
    /// Any other violation of the format, described in words.
    Invalid(String),
}

impl fmt::Display for ReadErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadErrorKind::UnexpectedEof { needed, available } => write!(
                f,
                "unexpected end of data: {needed} bytes needed, {available} remain"
            ),
            ReadErrorKind::CountTooLarge {
                count,
                elem_size,
                remaining,
            } => write!(
                f,
                "count {count} × {elem_size} bytes exceeds the {remaining} bytes that remain"
            ),
            ReadErrorKind::TrailingBytes { count } => {
                write!(f, "{count} unread bytes at the end of the structure")
            }
            ReadErrorKind::Invalid(msg) => f.write_str(msg),
        }
    }
}

/// A read failure: the absolute file offset, the chunk path and what went wrong.
///
/// Displays as `at 0x0001A2F0 in MAP/tiles[17]: unexpected end of data: 24 bytes needed, 3 remain`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at 0x{offset:08X} in {path}: {kind}")]
pub struct ReadError {
    /// Absolute byte offset in the file where the failing read started.
    pub offset: u64,
    /// The chunk path the reader was in.
    pub path: ChunkPath,
    /// What went wrong.
    pub kind: ReadErrorKind,
}

impl ReadError {
    /// A free-form error at an offset and path.
    pub fn invalid(offset: u64, path: ChunkPath, msg: impl Into<String>) -> Self {
        ReadError {
            offset,
            path,
            kind: ReadErrorKind::Invalid(msg.into()),
        }
    }
}

/// A problem that does not stop reading (e.g. a MAP chunk whose declared size is 4 bytes off).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// Absolute byte offset the warning is about.
    pub offset: u64,
    /// The chunk path.
    pub path: ChunkPath,
    /// What was noticed.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at 0x{:08X} in {}: {}",
            self.offset, self.path, self.message
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_send_sync() {
        fn assert<T: Send + Sync + std::error::Error>() {}
        assert::<ReadError>();
    }

    #[test]
    fn path_formats_with_indices() {
        let p = ChunkPath(vec![
            PathSegment {
                name: "MAP ",
                index: None,
            },
            PathSegment {
                name: "tiles",
                index: Some(17),
            },
        ]);
        let e = ReadError::invalid(0x1A2F0, p, "bad");
        assert_eq!(e.to_string(), "at 0x0001A2F0 in MAP/tiles[17]: bad");
    }
}
