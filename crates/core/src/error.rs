//! The one error type of the library entry point.

use std::path::PathBuf;

use levelgeom_binary::{ReadError, WriteError};

/// Why an operation on a level failed. Every variant names the file; read errors also carry
/// the byte offset and chunk path inside it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An input file could not be read from disk.
    #[error("cannot read {path}: {source}")]
    Input {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A file could not be read from (or written to) disk (where it is not known which;
    /// inputs that cannot be read are [`Error::Input`]).
    #[error("cannot read or write {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The bytes are no level file of any engine.
    #[error("{file}: not a recognised level file ({len} bytes, first bytes {first}): {expected}")]
    NotALevel {
        /// The file, as given.
        file: String,
        /// Its size.
        len: usize,
        /// Its first bytes, in hex.
        first: String,
        /// What the detection looked for.
        expected: &'static str,
    },
    /// The file is malformed: the offset and chunk path say where.
    #[error("{file}: {source}")]
    Read {
        /// The file.
        file: String,
        /// What went wrong, and where.
        #[source]
        source: ReadError,
    },
    /// The level cannot be written back (a value of the model does not fit its field).
    #[error("{file}: {source}")]
    Write {
        /// The file the model came from.
        file: String,
        /// The field and why.
        #[source]
        source: WriteError,
    },
    /// An option given does not apply to the opened level's engine.
    #[error("{file} is {format}; these do not apply to it: {option}")]
    OptionDoesNotApply {
        /// The option(s), as the user wrote them.
        option: &'static str,
        /// The file.
        file: String,
        /// What the file is.
        format: &'static str,
    },
    /// The file reads, but holds no level to convert: what is missing, and the offset of
    /// where it was looked for (e.g. the END chunk of a WAD without MAP, the header chunk of an
    /// X-Ray build that is not read).
    #[error("{file}: at 0x{offset:08X} in {path}: {message}")]
    NotConvertible {
        /// The file.
        file: String,
        /// Where the missing or refused part is (or would be).
        offset: u64,
        /// The chunk path there.
        path: String,
        /// What is missing or refused.
        message: String,
    },
    /// This kind of file cannot do what was asked (e.g. export a `level.geom` alone).
    #[error("{file}: {message}")]
    Unsupported {
        /// The file.
        file: String,
        /// What cannot be done, and what to do instead.
        message: String,
    },
    /// A value given to a command means nothing (a coordinate that is not finite or lies
    /// beyond any level): which argument, and why.
    #[error("{argument}: {message}")]
    BadArgument {
        /// The argument, as the user knows it (e.g. `probe x`).
        argument: String,
        /// What is wrong with its value.
        message: String,
    },
    /// A mesh file (for import) could not be read; the message names the file and, where
    /// the format has them, the line or JSON path.
    #[error(transparent)]
    Mesh(#[from] levelgeom_import::ImportError),
    /// A WAD's sounds, strings or font could not be extracted.
    #[error(transparent)]
    Extract(#[from] levelgeom_wad::extract::ExtractError),
    /// Edited strings or sounds could not be put into a WAD.
    #[error(transparent)]
    Replace(#[from] levelgeom_wad::replace::ReplaceError),
    /// A picture could not be encoded as PNG.
    #[error("{file}: {source}")]
    Png {
        /// The picture's file name.
        file: String,
        /// The encoder's error.
        #[source]
        source: levelgeom_export::ExportError,
    },
    /// Writing the export folder failed; nothing in it was changed.
    #[error(transparent)]
    Folder(#[from] levelgeom_export::folder::FolderError),
}

impl Error {
    /// The file offset the error is about, where it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Read { source, .. } => Some(source.offset),
            Error::NotALevel { .. } => Some(0),
            Error::NotConvertible { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
