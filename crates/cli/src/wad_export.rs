//! Glue between the CLI and the WAD → scene → exporters path.

use std::io::Write;
use std::path::Path;

use crate::cmd::export::Args;

/// `export` for a WAD.
pub fn export(_path: &Path, _bytes: &[u8], _args: &Args, _out: &mut dyn Write) -> anyhow::Result<u8> {
    anyhow::bail!("WAD export is not implemented yet")
}
