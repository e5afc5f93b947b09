//! `levelgeom rebuild IN OUT [--verify] [--force]`

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::report;

/// Arguments of `rebuild`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The level file to read.
    pub input: PathBuf,
    /// Where to write the rebuilt file (never the input itself, nor a file paired with it).
    pub output: PathBuf,
    /// Compare the rebuilt bytes with the input; exit 1 naming the first difference.
    #[arg(long)]
    pub verify: bool,
    /// Replace OUTPUT if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Run `rebuild`.
pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    let level = levelgeom_core::open(&args.input)?;
    report::warnings(level.warnings());
    let rebuilt = level.rebuild()?;
    let mut protect: Vec<PathBuf> = vec![level.path().to_path_buf()];
    protect.extend(level.companions());
    let protect: Vec<&Path> = protect.iter().map(PathBuf::as_path).collect();
    // written in pieces, each compared with the input as it goes out (one pass, no second
    // read of the rebuilt bytes)
    let differs = levelgeom_binary::write_new_with(&args.output, &protect, args.force, |w| {
        level.write_compared(&rebuilt, w)
    })
    .with_context(|| format!("cannot write {}", args.output.display()))?;
    if !args.verify {
        writeln!(
            out,
            "wrote {} ({} bytes)",
            args.output.display(),
            rebuilt.len()
        )?;
        return Ok(0);
    }
    let input = level.bytes();
    match differs {
        None => {
            writeln!(
                out,
                "identical: {} rebuilds byte for byte ({} bytes)",
                level.display_name(),
                rebuilt.len()
            )?;
            Ok(0)
        }
        Some(at) => {
            writeln!(
                out,
                "different: first difference at 0x{at:08X}{} (input {} bytes, rebuilt {} bytes)",
                level
                    .locate(at)
                    .map(|p| format!(" in {p}"))
                    .unwrap_or_default(),
                input.len(),
                rebuilt.len()
            )?;
            Ok(1)
        }
    }
}
