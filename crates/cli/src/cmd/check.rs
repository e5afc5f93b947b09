//! `levelgeom check FILE [--textures DIR]`

use std::io::Write;
use std::path::PathBuf;

use crate::report;

/// Arguments of `check`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The level file to check (an X-Ray `level` is checked with the `level.geom` beside it).
    pub file: PathBuf,
    /// X-Ray: a gamedata/textures folder; every texture the level's shaders name must be a
    /// .dds there or in the level folder.
    #[arg(long)]
    pub textures: Option<PathBuf>,
}

/// Run `check`: one line per problem, exit 1 if there is any.
pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    let level = levelgeom_core::open(&args.file)?;
    report::warnings(level.warnings());
    let r = level.check_with(&levelgeom_core::CheckOptions {
        textures: args.textures.clone(),
    })?;
    for n in &r.notes {
        writeln!(out, "{n}")?;
    }
    for p in &r.problems {
        writeln!(out, "{p}")?;
    }
    let name = level.display_name();
    if r.problems.is_empty() {
        writeln!(out, "{name}: no problems found")?;
        return Ok(0);
    }
    eprintln!(
        "levelgeom: {name}: {} found",
        report::count(r.problems.len(), "problem")
    );
    Ok(1)
}
