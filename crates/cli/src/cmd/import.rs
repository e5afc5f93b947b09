//! `levelgeom import BASE.wad MESH OUT.wad [--collision C] [--keep-tiles] [--zones flat|keep]
//! [--default-tex N] [--json] [--force]`

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use levelgeom_core::{ImportOptions, Zones};

use crate::report;

/// What happens to the zone (visibility) table.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneMode {
    /// Everything visible from everywhere (zone grid 0, zone 0's mask all ones).
    Flat,
    /// Keep the table; new tiles get the zone of their cell.
    Keep,
}

/// Arguments of `import`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The WAD the mesh goes into (never overwritten).
    pub base: PathBuf,
    /// The edited mesh: `.obj`, `.gltf` or `.glb` in export space (what `export` writes).
    pub mesh: PathBuf,
    /// Where to write the new WAD.
    pub output: PathBuf,
    /// A separate collision mesh (objects or groups named `matNN_grpG`, as `export --collision`
    /// writes them); without it, a `collision` tree in MESH is used, else the collision.glb or
    /// collision.obj beside a MESH named level.*, else collision is derived from the render
    /// mesh (floors and walls).
    #[arg(long, visible_alias = "coll-obj")]
    pub collision: Option<PathBuf>,
    /// Keep the base's tiles and add the new ones (otherwise they are replaced).
    #[arg(long)]
    pub keep_tiles: bool,
    /// What happens to the zone table.
    #[arg(long, value_enum, default_value_t = ZoneMode::Flat)]
    pub zones: ZoneMode,
    /// Texture entry for materials that are not this level's `page_NN`/`flat_RRGGBB`.
    #[arg(long)]
    pub default_tex: Option<u16>,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// Replace OUTPUT if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Run `import`.
pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    let base = levelgeom_core::open(&args.base)?;
    report::warnings(base.warnings());
    let r = base.import(
        &args.mesh,
        &ImportOptions {
            collision: args.collision.clone(),
            keep_tiles: args.keep_tiles,
            zones: match args.zones {
                ZoneMode::Flat => Zones::Flat,
                ZoneMode::Keep => Zones::Keep,
            },
            default_tex: args.default_tex,
        },
    )?;
    report::warnings(&r.warnings);
    let mut protect = vec![base.path(), args.mesh.as_path()];
    if let Some(c) = &args.collision {
        protect.push(c.as_path());
    }
    levelgeom_binary::write_new(&args.output, &r.bytes, &protect, args.force)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    if args.json {
        let v = serde_json::json!({
            "output": args.output.display().to_string(),
            "bytes": r.bytes.len(),
            "collision": r.collision_from,
            "summary": r.summary,
            "warnings": r.warnings,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(0);
    }
    writeln!(
        out,
        "imported {} into {}: wrote {} ({} bytes)",
        args.mesh.display(),
        base.display_name(),
        args.output.display(),
        r.bytes.len()
    )?;
    writeln!(out, "collision: {}", r.collision_from)?;
    writeln!(out, "{}", r.summary.to_string().trim_end())?;
    if !r.warnings.is_empty() {
        writeln!(out, "{}", report::count(r.warnings.len(), "warning"))?;
    }
    Ok(0)
}
