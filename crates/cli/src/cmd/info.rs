//! `levelgeom info FILE [--json]`

use std::io::Write;
use std::path::PathBuf;

/// Arguments of `info`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The level file (format detected from its content), or an X-Ray level folder.
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
    // a file is read no further than its summary needs (no buffer decoded)
    let info = match (&args.file, args.demo) {
        (_, true) => levelgeom_core::demo().info()?,
        (Some(f), false) => levelgeom_core::Info::open(f)?,
        (None, false) => anyhow::bail!("info needs a FILE (or --demo)"),
    };
    // rendered whole first: `out` (stdout) writes each line apart otherwise, one system call
    // per line (9,366 for the 2,000-visual generated level's `level`)
    let text = if args.json {
        info.to_json() + "\n"
    } else {
        info.to_string()
    };
    out.write_all(text.as_bytes())?;
    Ok(0)
}
