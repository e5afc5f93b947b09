//! Glue between the CLI and `levelgeom-wad`: info, rebuild, check and the demo level.

use std::io::Write;
use std::path::Path;

/// The built-in demo level (a generated, self-consistent WAD).
pub fn demo_bytes() -> Vec<u8> {
    Vec::new()
}

/// `info` for a WAD.
pub fn info(_path: &Path, _bytes: &[u8], _json: bool, _out: &mut dyn Write) -> anyhow::Result<u8> {
    anyhow::bail!("WAD info is not implemented yet")
}

/// `rebuild` for a WAD: the rebuilt bytes.
pub fn rebuild(_path: &Path, _bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
    anyhow::bail!("WAD rebuild is not implemented yet")
}

/// Name the chunk (and, where known, the part) that holds absolute offset `at`.
pub fn locate(_bytes: &[u8], _at: usize) -> Option<String> {
    None
}

/// `check` for a WAD.
pub fn check(_path: &Path, _bytes: &[u8], _out: &mut dyn Write) -> anyhow::Result<u8> {
    anyhow::bail!("WAD check is not implemented yet")
}
