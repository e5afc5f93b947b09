//! `levelgeom import BASE.wad MESH OUT.wad [--collision C] [--rebuild] [--keep-tiles] [--zones keep|flat]
//! [--default-tex N] [--json] [--force]`
//!
//! `levelgeom import LEVEL_DIR MESH.glb|.gltf|.obj OUT_DIR [--collision C] [--delete-missing]
//! [--to-version N [--allow-loss]] [--json] [--force]` for an X-Ray level: OUT_DIR gets
//! `level`, `level.geom`, `level.geomx`, `level.cform`, all or nothing (XRLC 4–12: `level`, and
//! `level.cform` from 10), in the level's own build or build N (4, 5, 8–14).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use levelgeom_core::{Engine, ImportOptions, MeshAhead, XrayImportOptions, Zones};

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
    /// The WAD, or the X-Ray level folder (or its `level` file), the mesh goes into (never
    /// overwritten).
    pub base: PathBuf,
    /// The edited mesh: `.obj`, `.gltf` or `.glb` in export space (what `export` writes).
    pub mesh: PathBuf,
    /// Where to write the new WAD; for an X-Ray level the folder for its new files.
    pub output: PathBuf,
    /// A separate collision mesh (objects or groups named `matNN_grpG`, as `export --collision`
    /// writes them); without it, a `collision` tree in MESH is used, else the collision.glb or
    /// collision.obj beside a MESH named level.*, else collision is derived from the render
    /// mesh (floors and walls).
    #[arg(long, visible_alias = "coll-obj")]
    pub collision: Option<PathBuf>,
    /// Cut every tile from the whole mesh, as for a level built from scratch (without it, an
    /// edited export is mapped back onto the base's tiles and what was not edited is kept).
    /// WAD only.
    #[arg(long)]
    pub rebuild: bool,
    /// With --rebuild: keep the base's tiles and add the new ones (otherwise they are
    /// replaced). For an edit: keep the tiles the mesh does not hold (otherwise removed).
    /// WAD only.
    #[arg(long)]
    pub keep_tiles: bool,
    /// What happens to the zone table (default keep). WAD only.
    #[arg(long, value_enum)]
    pub zones: Option<ZoneMode>,
    /// Texture entry for materials that are not this level's `page_NN`/`flat_RRGGBB`. WAD only.
    #[arg(long)]
    pub default_tex: Option<u16>,
    /// Let the mesh grow the grid past 256 cells a side or to more than 4× its cells
    /// (otherwise refused, saying by how much). WAD only.
    #[arg(long)]
    pub allow_grow: bool,
    /// X-Ray: remove every visual the mesh file does not hold, even when it looks like a
    /// partial export (`--only`, no `--lods`), whose missing visuals are otherwise kept.
    #[arg(long)]
    pub delete_missing: bool,
    /// X-Ray: write this XRLC build (any of 4, 5, 8–14, as `convert` does) instead of the base
    /// level's. A conversion the target build cannot hold everything of (13 → 14 quantises
    /// base UVs; the older builds lack some fields) names what would be lost and is refused
    /// without --allow-loss.
    #[arg(long, value_name = "N")]
    pub to_version: Option<u16>,
    /// X-Ray: convert with --to-version even when the target build cannot hold everything
    /// (what is lost is listed in the summary).
    #[arg(long)]
    pub allow_loss: bool,
    /// X-Ray: write a level.details that follows the edit: its slots over removed geometry
    /// emptied, those over moved geometry raised or lowered with it. Without it the
    /// level.details is copied unchanged and the summary names its stale slots.
    #[arg(long)]
    pub details_follow: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// Replace OUTPUT if it exists (for an X-Ray level: write into a folder that is not empty).
    #[arg(long)]
    pub force: bool,
}

/// Run `import`.
pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    // an X-Ray level's mesh file is read while the level is opened
    let (base, ahead) = levelgeom_core::open_for_import(&args.base, &args.mesh)?;
    report::warnings(base.warnings());
    let wad = report::given([
        (args.rebuild, "--rebuild"),
        (args.keep_tiles, "--keep-tiles"),
        (args.zones.is_some(), "--zones"),
        (args.default_tex.is_some(), "--default-tex"),
        (args.allow_grow, "--allow-grow"),
    ]);
    let xray = report::given([
        (args.delete_missing, "--delete-missing"),
        (args.to_version.is_some(), "--to-version"),
        (args.allow_loss, "--allow-loss"),
        (args.details_follow, "--details-follow"),
    ]);
    base.refuse_other_engines_options(&wad, &xray)?;
    match base.engine() {
        Engine::Wad => run_wad(&args, &base, out),
        Engine::Xray => run_xray(&args, &base, ahead, out),
    }
}

/// `import` into a WAD: the new WAD written to the output path.
fn run_wad(
    args: &Args,
    base: &levelgeom_core::LevelFile,
    out: &mut dyn Write,
) -> anyhow::Result<u8> {
    let r = base.import(
        &args.mesh,
        &ImportOptions {
            collision: args.collision.clone(),
            rebuild: args.rebuild,
            keep_tiles: args.keep_tiles,
            zones: match args.zones.unwrap_or(ZoneMode::Keep) {
                ZoneMode::Flat => Zones::Flat,
                ZoneMode::Keep => Zones::Keep,
            },
            default_tex: args.default_tex,
            allow_grow: args.allow_grow,
        },
    )?;
    report::warnings(&r.warnings);
    // every file read: the base, the mesh and the companions it named, the collision file
    // (given or found beside the mesh); compared by real path and (device, inode)
    let mut protect = vec![base.path(), args.mesh.as_path()];
    protect.extend(r.inputs.iter().map(PathBuf::as_path));
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

/// `import` into an X-Ray level: the new files into the output folder.
fn run_xray(
    args: &Args,
    base: &levelgeom_core::LevelFile,
    ahead: Option<MeshAhead>,
    out: &mut dyn Write,
) -> anyhow::Result<u8> {
    let opts = XrayImportOptions {
        collision: args.collision.clone(),
        delete_missing: args.delete_missing,
        to_version: args.to_version,
        allow_loss: args.allow_loss,
        details_follow: args.details_follow,
    };
    let r = match ahead {
        Some(ahead) => base.import_xray_ahead(ahead, &opts)?,
        None => base.import_xray(&args.mesh, &opts)?,
    };
    let mut protect = vec![base.path().to_path_buf(), args.mesh.clone()];
    protect.extend(base.companions());
    protect.extend(r.inputs.iter().cloned());
    if let Some(c) = &args.collision {
        protect.push(c.clone());
    }
    let headline = format!(
        "imported {} into {}",
        args.mesh.display(),
        base.display_name()
    );
    write_xray(
        &args.output,
        &r,
        &protect,
        args.force,
        args.json,
        &headline,
        out,
    )
}

/// Write an X-Ray import's (or conversion's) files into `output` (all or nothing, never over
/// a file of `protect`) and report them: `headline: wrote OUTPUT`, the files, the collision
/// source and the summary, or all of it as JSON.
pub(crate) fn write_xray(
    output: &std::path::Path,
    r: &levelgeom_core::XrayImportReport,
    protect: &[PathBuf],
    force: bool,
    json: bool,
    headline: &str,
    out: &mut dyn Write,
) -> anyhow::Result<u8> {
    report::warnings(&r.warnings);
    // an XRLC 4–10 header without a name from the source gets the output folder's
    let named = levelgeom_core::named_xray_level(&r.files, output);
    let files = named.as_deref().unwrap_or(&r.files);
    let written = levelgeom_core::write_level_folder(output, files, protect, force)?;
    if json {
        let v = serde_json::json!({
            "output": output.display().to_string(),
            "files": written
                .iter()
                .map(|(p, n)| serde_json::json!({"path": p.display().to_string(), "bytes": n}))
                .collect::<Vec<_>>(),
            "collision": r.collision_from,
            "summary": r.summary,
            "warnings": r.warnings,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(0);
    }
    writeln!(out, "{headline}: wrote {}", output.display())?;
    for (p, n) in &written {
        writeln!(out, "  {} ({n} bytes)", p.display())?;
    }
    writeln!(out, "collision: {}", r.collision_from)?;
    writeln!(out, "{}", r.summary.to_string().trim_end())?;
    if !r.warnings.is_empty() {
        writeln!(out, "{}", report::count(r.warnings.len(), "warning"))?;
    }
    Ok(0)
}
