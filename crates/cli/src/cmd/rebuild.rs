//! `levelgeom rebuild IN OUT [--verify]`

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use crate::input::{self, Format};

/// Arguments of `rebuild`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The level file to read.
    pub input: PathBuf,
    /// Where to write the rebuilt file (never the input itself).
    pub output: PathBuf,
    /// Compare the rebuilt bytes with the input; exit 1 naming the first difference.
    #[arg(long)]
    pub verify: bool,
}

/// Run `rebuild`.
pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    let input = input::load(&args.input)?;
    let rebuilt = match input.format {
        Format::Wad => crate::wad::rebuild(&input.path, &input.bytes)?,
        Format::Xray => crate::xray::rebuild(&input.path, &input.bytes)?,
    };
    levelgeom_binary::write_atomic(&args.output, &rebuilt, &[&args.input])
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
    match first_difference(&input.bytes, &rebuilt) {
        None => {
            writeln!(
                out,
                "identical: {} rebuilds byte for byte ({} bytes)",
                args.input.display(),
                rebuilt.len()
            )?;
            Ok(0)
        }
        Some(at) => {
            let place = match input.format {
                Format::Wad => crate::wad::locate(&input.bytes, at),
                Format::Xray => crate::xray::locate(&input.bytes, at),
            };
            writeln!(
                out,
                "different: first difference at 0x{at:08X}{} (input {} bytes, rebuilt {} bytes)",
                place.map(|p| format!(" in {p}")).unwrap_or_default(),
                input.bytes.len(),
                rebuilt.len()
            )?;
            Ok(1)
        }
    }
}

/// The first offset where `a` and `b` differ (a length difference counts at the shorter end).
pub fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => Some(i),
        None if a.len() != b.len() => Some(a.len().min(b.len())),
        None => None,
    }
}
