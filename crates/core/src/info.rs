//! What `info` shows: one value per file, rendered as text ([`std::fmt::Display`]) or JSON
//! (serde), so the two never disagree.

use std::fmt;
use std::path::Path;

use serde::Serialize;

use crate::error::Result;

/// The description of one level file, by engine.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Info {
    /// An Argonaut WAD.
    Wad(levelgeom_wad::info::Info),
    /// An X-Ray file.
    Xray(levelgeom_xray::info::Info),
}

impl Info {
    /// The JSON text of `info --json` (pretty-printed).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Info::Wad(i) => i.fmt(f),
            Info::Xray(i) => i.fmt(f),
        }
    }
}

impl Info {
    /// What `levelgeom info PATH` shows: [`crate::open`]`(path)?.info()`, the one way a file
    /// is opened (an X-Ray `level.geom`'s vertex bytes and indices stay ranges of the file it
    /// read: they are not copied for the counts).
    ///
    /// # Errors
    /// As [`crate::open`] and [`crate::LevelFile::info`].
    pub fn open(path: &Path) -> Result<Info> {
        crate::open(path)?.info()
    }
}
