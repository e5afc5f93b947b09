//! `levelgeom demo OUT.wad [--full-size]`: write the built-in generated level to a file, so that
//! `info`, `check`, `rebuild` and `export` can be tried without game files.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

/// Arguments of `demo`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Where to write the WAD.
    pub output: PathBuf,
    /// Write a level of real game size (96×96 grid, ~600 models, ~25,000 triangles, 30 pages)
    /// instead of the small demo island.
    #[arg(long)]
    pub full_size: bool,
    /// Replace OUTPUT if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Run `demo`.
pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    let bytes = levelgeom_core::demo_bytes(args.full_size)?;
    levelgeom_binary::write_new(&args.output, &bytes, &[], args.force)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    writeln!(
        out,
        "wrote {} ({} bytes, generated {} level)",
        args.output.display(),
        bytes.len(),
        if args.full_size { "full-size" } else { "demo" }
    )?;
    Ok(0)
}
