//! `levelgeom info FILE [--json]`

use std::io::Write;
use std::path::PathBuf;

use crate::input::{self, Format};

/// Arguments of `info`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The level file (format detected from its content).
    #[arg(required_unless_present = "demo")]
    pub file: Option<PathBuf>,
    /// Describe the built-in demo level instead of a file.
    #[arg(long, conflicts_with = "file")]
    pub demo: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Run `info`.
pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    if args.demo {
        let bytes = crate::wad::demo_bytes();
        return crate::wad::info(std::path::Path::new("<demo>"), &bytes, args.json, out);
    }
    let path = args
        .file
        .ok_or_else(|| anyhow::anyhow!("info needs a FILE (or --demo)"))?;
    let input = input::load(&path)?;
    match input.format {
        Format::Wad => crate::wad::info(&input.path, &input.bytes, args.json, out),
        Format::Xray => crate::xray::info(&input.path, &input.bytes, args.json, out),
    }
}
