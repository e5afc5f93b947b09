//! `replace`: edited strings, sounds and zones back into a WAD, everything else byte for byte
//! ([`levelgeom_wad::replace`] says how).

use crate::error::{Error, Result};
use crate::level::{Content, LevelFile};

pub use levelgeom_wad::replace::{sound_id, ReplaceError, ReplaceOptions, ReplaceReport};

impl LevelFile {
    /// Put edited strings, sounds and zones into the WAD (see [`levelgeom_wad::replace`]); the file
    /// itself is not changed, the new bytes are returned.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for X-Ray files; [`Error::Replace`] for a WAD without the chunk
    /// asked for, a bad JSON or WAV (naming the file and the entry), an SMPC index past the
    /// sounds, a file that cannot be read, or a new level that does not fit the format.
    pub fn replace(&self, opts: &ReplaceOptions) -> Result<ReplaceReport> {
        let Content::Wad(level) = &self.content else {
            return Err(Error::Unsupported {
                file: self.display_name(),
                message: "replace writes into Argonaut WADs only".into(),
            });
        };
        Ok(levelgeom_wad::replace::replace(
            level,
            &self.display_name(),
            opts,
        )?)
    }
}
