//! `levelgeom sample BASE.wad OUT.obj [--plaza] [--force]`: geometry to try `import` with.

use std::io::Write;
use std::path::PathBuf;

/// Arguments of `sample`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The WAD whose texture entries the sample is built from.
    pub base: PathBuf,
    /// The OBJ to write (its MTL and the texture pages it uses go beside it).
    pub output: PathBuf,
    /// A larger paved square besides the blocks and the ramp.
    #[arg(long)]
    pub plaza: bool,
    /// Replace the output files if they exist.
    #[arg(long)]
    pub force: bool,
}

/// Run `sample`.
pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    let base = levelgeom_core::open(&args.base)?;
    let r = base.write_sample(args.plaza, &args.output, args.force)?;
    writeln!(
        out,
        "wrote {} with {}:",
        crate::report::count(r.triangles, "triangle"),
        crate::report::count(r.materials, "material")
    )?;
    for (p, n) in &r.files {
        writeln!(out, "  {} ({n} bytes)", p.display())?;
    }
    writeln!(
        out,
        "import it: levelgeom import {} {} OUT.wad --keep-tiles",
        base.display_name(),
        args.output.display()
    )?;
    Ok(0)
}
