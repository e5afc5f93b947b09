//! Glue between the CLI and `levelgeom-xray`.

use std::io::Write;
use std::path::Path;

use crate::cmd::export::Args;

/// `info` for an X-Ray file.
pub fn info(_path: &Path, _bytes: &[u8], _json: bool, _out: &mut dyn Write) -> anyhow::Result<u8> {
    anyhow::bail!("X-Ray info is not implemented yet")
}

/// `rebuild` for an X-Ray file: the rebuilt bytes.
pub fn rebuild(_path: &Path, _bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
    anyhow::bail!("X-Ray rebuild is not implemented yet")
}

/// Name the chunk path that holds absolute offset `at`.
pub fn locate(_bytes: &[u8], _at: usize) -> Option<String> {
    None
}

/// `check` for an X-Ray file.
pub fn check(_path: &Path, _bytes: &[u8], _out: &mut dyn Write) -> anyhow::Result<u8> {
    anyhow::bail!("X-Ray check is not implemented yet")
}

/// `export` for an X-Ray level (`level` file or its folder).
pub fn export(_path: &Path, _args: &Args, _out: &mut dyn Write) -> anyhow::Result<u8> {
    anyhow::bail!("X-Ray export is not implemented yet")
}
