//! `levelgeom extract FILE OUTDIR [--cvs ENGLISH.CVS] [--force]`: a WAD's sounds, strings, name
//! and font as WAV, JSON/CSV and PNG, with `manifest.json`.

use std::io::Write;
use std::path::PathBuf;

use levelgeom_core::ExtractOptions;

use crate::report;

/// Arguments of `extract`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The WAD to read.
    pub input: PathBuf,
    /// The output folder (created if missing; a previous output of ours in it is replaced).
    pub outdir: PathBuf,
    /// `Music/ENGLISH.CVS`: also decode the SRPC speech entries it holds.
    #[arg(long)]
    pub cvs: Option<PathBuf>,
    /// Write into OUTDIR even when it holds files that are not a previous output of ours.
    #[arg(long)]
    pub force: bool,
}

/// Run `extract`.
pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    let level = levelgeom_core::open(&args.input)?;
    report::warnings(level.warnings());
    let r = level.extract(
        &args.outdir,
        &ExtractOptions {
            force: args.force,
            cvs: args.cvs,
        },
    )?;
    let items = r.manifest["items"].as_array().map_or(0, Vec::len);
    writeln!(
        out,
        "extracted {} items of {} into {}:",
        items,
        level.display_name(),
        args.outdir.display()
    )?;
    for (p, n) in &r.files {
        writeln!(out, "  {} ({n} bytes)", p.display())?;
    }
    for w in &r.warnings {
        eprintln!("levelgeom: warning: {w}");
    }
    Ok(0)
}
