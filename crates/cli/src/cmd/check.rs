//! `levelgeom check FILE`

use std::io::Write;
use std::path::PathBuf;

use crate::input::{self, Format};

/// Arguments of `check`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The level file to check.
    pub file: PathBuf,
}

/// Run `check`: one line per violation, exit 1 if there is any.
pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    let input = input::load(&args.file)?;
    match input.format {
        Format::Wad => crate::wad::check(&input.path, &input.bytes, out),
        Format::Xray => crate::xray::check(&input.path, &input.bytes, out),
    }
}
