//! Loading an input file and telling which engine it belongs to, from its content.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

/// The engine family of an input, detected from its bytes (never from its name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// An Argonaut level WAD.
    Wad,
    /// An X-Ray chunked level file (`level`, `level.geom`, `level.geomx`, `level.cform`).
    Xray,
}

/// A loaded input file.
pub struct Input {
    /// Where it came from.
    pub path: PathBuf,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Its detected format.
    pub format: Format,
}

/// Read `path` and detect its format.
pub fn load(path: &Path) -> anyhow::Result<Input> {
    let bytes = levelgeom_binary::read_file(path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let format = detect(&bytes).with_context(|| format!("{}", path.display()))?;
    Ok(Input {
        path: path.to_path_buf(),
        bytes,
        format,
    })
}

/// Detect the format of `bytes`.
pub fn detect(bytes: &[u8]) -> anyhow::Result<Format> {
    if levelgeom_xray::sniff(bytes) {
        Ok(Format::Xray)
    } else if levelgeom_wad::sniff(bytes) {
        Ok(Format::Wad)
    } else {
        bail!(
            "not a recognised level file ({} bytes): neither an Argonaut WAD (u32 length, then a chunk tag such as CPFW) nor an X-Ray chunk file (chunk 1 of 4 bytes first)",
            bytes.len()
        )
    }
}
