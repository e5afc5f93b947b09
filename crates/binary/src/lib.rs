//! The shared byte layer of levelgeom.
//!
//! Both engines store little-endian data in nested chunks. This crate knows nothing about
//! either game; it gives every format reader the same three tools:
//!
//! * [`Reader`]: a cursor over a byte slice that always knows its **absolute file offset** and
//!   the **chunk path** it is in (`MAP/tiles[17]`), checks every read and every count against
//!   the bytes that remain (so a corrupt count can never make us allocate more than the file
//!   could back), and produces [`ReadError`]s that say where things went wrong;
//! * [`Writer`]: an append-only byte buffer with back-patching for size fields;
//! * [`write_atomic`]: output files are written to a temporary file beside the target and
//!   renamed into place, so a crash never leaves half a file and an input is never clobbered;
//!   [`write_group`] does it for several files, [`folder::Staging`] for a whole output folder.
//!
//! Besides them, [`json_path`] locates an error in a JSON text the user wrote (the JSON path
//! at a byte offset, and the byte offset of a path).
//!
//! # Example
//! ```
//! use levelgeom_binary::Reader;
//! let bytes = [3u8, 0, 0, 0, 0xAA, 0xBB];
//! let mut r = Reader::new(&bytes);
//! r.push("HEAD", None);
//! let n = r.u32().unwrap();
//! let err = r.count(n, 1).unwrap_err(); // 3 bytes wanted, 2 remain
//! assert_eq!(err.to_string(), "at 0x00000004 in HEAD: count 3 × 1 bytes exceeds the 2 bytes that remain");
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod error;
pub mod folder;
mod fs;
pub mod json_path;
mod limits;
mod problem;
mod reader;
mod temp;
mod write_error;
mod write_group;
mod writer;

pub use error::{ChunkPath, PathSegment, ReadError, ReadErrorKind, Warning};
pub use fs::same_file;
pub use fs::{
    read_file, read_regular, write_atomic, write_atomic_with, write_new, write_new_with,
    RegularFile, MAX_INPUT_SIZE, OUTPUT_EXISTS,
};
pub use limits::Limits;
pub use problem::{Problem, Severity};
pub use reader::Reader;
pub use temp::{create_dir_in as create_temp_dir, sweep as sweep_temps};
pub use write_error::{fit, WriteError, WriteErrorKind};
pub use write_group::{write_group, GroupError};
pub use writer::Writer;
