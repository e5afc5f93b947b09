//! `levelgeom convert LEVEL_DIR OUT_DIR --to-version N [--allow-loss] [--json] [--force]`:
//! an X-Ray level written in another XRLC build with nothing edited — what
//! `levelgeom import LEVEL_DIR <its own export> OUT_DIR --to-version N` does, without the
//! export in between.

use std::io::Write;
use std::path::PathBuf;

/// Arguments of `convert`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The X-Ray level: its folder, or its `level` file.
    pub base: PathBuf,
    /// The folder to write `level` (and `level.geom`, `level.geomx`, `level.cform` as the
    /// target build has them) into; not the input's folder.
    pub output: PathBuf,
    /// The XRLC build to write: 4, 5, 8–14.
    #[arg(long, value_name = "N")]
    pub to_version: u16,
    /// Convert even when the target build cannot hold everything (what is lost is listed in
    /// the summary); without it such a conversion is refused, naming each loss.
    #[arg(long)]
    pub allow_loss: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// Write into an OUT_DIR that is not empty (its other files stay).
    #[arg(long)]
    pub force: bool,
}

/// Run `convert`.
pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    let base = levelgeom_core::open(&args.base)?;
    crate::report::warnings(base.warnings());
    let r = base.convert_xray(args.to_version, args.allow_loss)?;
    let mut protect = vec![base.path().to_path_buf()];
    protect.extend(base.companions());
    let headline = format!(
        "converted {} from XRLC {} to {}",
        base.display_name(),
        r.summary.build_in,
        r.summary.build_out
    );
    super::import::write_xray(
        &args.output,
        &r,
        &protect,
        args.force,
        args.json,
        &headline,
        out,
    )
}
