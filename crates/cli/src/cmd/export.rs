//! `levelgeom export FILE|DIR OUTDIR [...]`

use std::io::Write;
use std::path::PathBuf;

use levelgeom_core::{
    EngineOptions, ExportOptions, Format, Formats, WadOptions, XrayOnly, XrayOptions,
};

use crate::report;

/// Which files to write.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// `level.glb` (glTF 2.0 binary, textures embedded).
    Gltf,
    /// `level.obj` + `level.mtl` + PNG textures.
    Obj,
    /// Both.
    All,
}

/// Which one kind of X-Ray visual `--only` exports.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnlyKind {
    /// Static geometry (MT_NORMAL and MT_PROGRESSIVE visuals).
    Static,
    /// Trees (MT_TREE_ST and MT_TREE_PM visuals).
    Trees,
    /// LOD billboards.
    Lods,
    /// Only the collision (level.cform).
    Collision,
}

/// Arguments of `export`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// PATH... OUTDIR: the level (a WAD file, or an X-Ray `level` file or the folder holding
    /// it) and the output folder (created if missing; a previous export in it is replaced).
    /// With two or more PATHs, or a folder that is not one level, every level found under them
    /// goes into OUTDIR/<level name>/ (a batch).
    #[arg(value_name = "PATH", required_unless_present = "demo", num_args = 1..)]
    pub paths: Vec<PathBuf>,
    /// Batch: levels exported at once, 1 or more (default: one per core).
    #[arg(long, short = 'j', value_parser = crate::report::jobs)]
    pub jobs: Option<usize>,
    /// Batch: no progress on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Export the built-in demo level (no game files needed); then only OUTDIR is given.
    #[arg(long)]
    pub demo: bool,
    /// What to write.
    #[arg(long, value_enum, default_value_t = ExportFormat::All)]
    pub format: ExportFormat,
    /// Which vertex-colour set is written: OBJ's colours and glTF's COLOR_0 (0 = first).
    #[arg(long, default_value_t = 0)]
    pub colour_set: usize,
    /// glTF: also write the other colour sets as COLOR_1, COLOR_2, ...
    #[arg(long)]
    pub all_colour_sets: bool,
    /// Write into OUTDIR even when it holds files that are not a previous export.
    #[arg(long)]
    pub force: bool,
    /// Also write preview_top.png and preview_persp.png (1024×768).
    #[arg(long)]
    pub preview: bool,
    /// Also export the collision into collision.glb / collision.obj (WAD: the collision
    /// polygons; X-Ray: the level.cform beside the level).
    #[arg(long)]
    pub collision: bool,
    /// WAD: also export the MAP objects where they stand, with the STPC meshes their
    /// definitions reference (objects.glb / objects.obj).
    #[arg(long)]
    pub objects: bool,
    /// WAD: also export the STPC object models side by side (objects_catalogue.glb / .obj).
    #[arg(long)]
    pub objects_catalogue: bool,
    /// WAD: negate z (and reverse the winding so front faces stay front).
    #[arg(long)]
    pub mirror_z: bool,
    /// WAD: also write the MAP zones: zones.json (which zone sees which, the zone of every
    /// cell) and zones.png (the grid coloured by zone), and give every tile node its zone
    /// (extras zone, zone_colour, anim_flag).
    #[arg(long)]
    pub zones: bool,
    /// X-Ray: folder of game textures (gamedata/textures) to resolve texture names against.
    #[arg(long)]
    pub textures: Option<PathBuf>,
    /// X-Ray: also decode each shader's further textures (lightmaps lmap#N_1/lmap#N_2, a
    /// terrain's _lm map; from the level folder, then --textures) into PNG files named in the
    /// material extras (texture_K_file). Needs --textures.
    #[arg(long, requires = "textures")]
    pub lightmaps: bool,
    /// X-Ray: also export the LOD billboard quads as their own meshes.
    #[arg(long)]
    pub lods: bool,
    /// X-Ray: write the baked vertex light as the vertex colour (COLOR_0, multiplied into the
    /// texture by viewers) instead of the custom attribute _LIGHT.
    #[arg(long)]
    pub vertex_light: bool,
    /// X-Ray: also export the portal polygons into portals.glb / portals.obj (hidden), with
    /// sector_front / sector_back in extras.
    #[arg(long)]
    pub portals: bool,
    /// X-Ray: also export the occluders of the level.hom (renderer) and level.som (sound)
    /// beside the level into occluders.glb / occluders.obj (hidden trees `hom` and `som`), with
    /// the two-sided flags and occlusion factors in extras.
    #[arg(long)]
    pub occluders: bool,
    /// X-Ray: also export the AI nodes of the level.ai beside the level into ai.glb / ai.obj
    /// (a hidden tree `ai`: one small quad per node in its plane, with the attributes
    /// _AI_LIGHT and _AI_COVER).
    #[arg(long)]
    pub ai: bool,
    /// X-Ray: also export the detail models of the level.details beside the level into
    /// details.glb / details.obj (a hidden tree `details`) and the slots' density map
    /// details_density.png.
    #[arg(long)]
    pub details: bool,
    /// X-Ray: export one kind only (hierarchy nodes above it kept as groups; no lights or
    /// glows): static geometry, trees, LOD billboards, or the collision alone.
    #[arg(long, value_enum)]
    pub only: Option<OnlyKind>,
    /// Print what was written as JSON (files with sizes, warnings; a batch: every level) on
    /// stdout instead of text; warnings then go only there.
    #[arg(long)]
    pub json: bool,
}

impl Args {
    /// The X-Ray options given, as written.
    fn xray_given(&self) -> Vec<&'static str> {
        report::given([
            (self.textures.is_some(), "--textures"),
            (self.lightmaps, "--lightmaps"),
            (self.lods, "--lods"),
            (self.vertex_light, "--vertex-light"),
            (self.portals, "--portals"),
            (self.occluders, "--occluders"),
            (self.ai, "--ai"),
            (self.details, "--details"),
            (self.only.is_some(), "--only"),
        ])
    }

    /// The WAD options given, as written.
    fn wad_given(&self) -> Vec<&'static str> {
        report::given([
            (self.objects, "--objects"),
            (self.objects_catalogue, "--objects-catalogue"),
            (self.mirror_z, "--mirror-z"),
            (self.zones, "--zones"),
        ])
    }

    /// Refuse options that do not apply to the opened level, naming them.
    fn check_engine(&self, level: &levelgeom_core::LevelFile) -> anyhow::Result<()> {
        level.refuse_other_engines_options(&self.wad_given(), &self.xray_given())?;
        if level.format() == Format::XrayLevel && (self.all_colour_sets || self.colour_set > 0) {
            let option = if self.colour_set > 0 {
                format!("--colour-set {}", self.colour_set)
            } else {
                "--all-colour-sets".into()
            };
            anyhow::bail!(
                "{option}: {} is an X-Ray level, which has no vertex-colour sets; its baked \
                 vertex light is written as the attribute _LIGHT, or as COLOR_0 with \
                 --vertex-light",
                level.display_name()
            );
        }
        Ok(())
    }

    fn options(&self) -> ExportOptions {
        let wad = (self.objects || self.objects_catalogue || self.mirror_z || self.zones)
            .then_some(WadOptions {
                mirror_z: self.mirror_z,
                collision: false,
                objects: self.objects,
                objects_catalogue: self.objects_catalogue,
                zones: self.zones,
            });
        let xray = (self.textures.is_some()
            || self.lods
            || self.vertex_light
            || self.lightmaps
            || self.portals
            || self.occluders
            || self.ai
            || self.details
            || self.only.is_some())
        .then(|| XrayOptions {
            lods: self.lods,
            vertex_light: self.vertex_light,
            textures: self.textures.clone(),
            lightmaps: self.lightmaps,
            portals: self.portals,
            occluders: self.occluders,
            ai: self.ai,
            details: self.details,
            only: self.only.map(|o| match o {
                OnlyKind::Static => XrayOnly::Static,
                OnlyKind::Trees => XrayOnly::Trees,
                OnlyKind::Lods => XrayOnly::Lods,
                OnlyKind::Collision => XrayOnly::Collision,
            }),
        });
        ExportOptions {
            formats: Formats {
                gltf: matches!(self.format, ExportFormat::Gltf | ExportFormat::All),
                obj: matches!(self.format, ExportFormat::Obj | ExportFormat::All),
            },
            colour_set: self.colour_set,
            all_colour_sets: self.all_colour_sets,
            force: self.force,
            preview: self.preview,
            engine: EngineOptions {
                collision: self.collision,
                wad,
                xray,
            },
        }
    }
}

/// Run `export`.
pub fn run(mut args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    let mut inputs = std::mem::take(&mut args.paths);
    // The last positional is the output folder (with --demo the only one).
    let outdir = inputs.pop();
    if !args.demo && crate::batch::is_batch(&inputs) {
        let Some(outroot) = outdir else {
            anyhow::bail!("export needs an output folder: levelgeom export PATH... OUTDIR");
        };
        let opts = args.options();
        let how = crate::batch::How {
            jobs: args.jobs,
            quiet: args.quiet,
            json: args.json,
        };
        return crate::batch::export(&inputs, &outroot, &opts, &how, out);
    }
    if args.demo && !inputs.is_empty() {
        anyhow::bail!("export --demo takes only OUTDIR");
    }
    let input = inputs.pop();
    let Some(outdir) = outdir else {
        anyhow::bail!(
            "export needs an output folder: levelgeom export INPUT OUTDIR (or --demo OUTDIR)"
        );
    };
    let level = match (&input, args.demo) {
        (_, true) => levelgeom_core::demo(),
        (Some(input), false) => levelgeom_core::open(input)?,
        (None, false) => anyhow::bail!("export needs INPUT and OUTDIR (or --demo OUTDIR)"),
    };
    args.check_engine(&level)?;
    let r = level.export(&outdir, &args.options())?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report_json(&r))?)?;
        return Ok(0);
    }
    let inputs: Vec<String> = r.inputs.iter().map(|p| p.display().to_string()).collect();
    writeln!(out, "exported {}", inputs.join(" with "))?;
    for root in &r.roots {
        writeln!(
            out,
            "  {}: {}, {}, {}",
            root.name,
            report::count(root.meshes, "mesh"),
            report::count(root.vertices, "vertex"),
            report::count(root.triangles, "triangle"),
        )?;
    }
    // Placed meshes count every node that draws a mesh (an instanced mesh once per place, its
    // vertices and triangles each time); distinct meshes are the mesh data written once.
    let placed: usize = r.roots.iter().map(|x| x.meshes).sum();
    writeln!(
        out,
        "  {} ({} distinct, {}), {}, {} ({} found)",
        report::count(placed, "placed mesh"),
        r.distinct_meshes,
        report::count(r.distinct_triangles, "triangle"),
        report::count(r.materials, "material"),
        report::count(r.textures, "texture"),
        r.textures_found
    )?;
    if placed != r.distinct_meshes {
        writeln!(
            out,
            "  (the per-root counts are placed meshes: a mesh placed at several nodes counts \
             each time; the {} distinct ones are written once)",
            r.distinct_meshes
        )?;
    }
    writeln!(out, "wrote {}:", report::count(r.files.len(), "file"))?;
    for (p, n) in &r.files {
        writeln!(out, "  {} ({n} bytes)", p.display())?;
    }
    report::warnings(&r.warnings);
    if !r.warnings.is_empty() {
        writeln!(out, "{}", report::count(r.warnings.len(), "warning"))?;
    }
    Ok(0)
}

/// The JSON `export --json` prints for one level (documented in docs/guide/commands.md).
fn report_json(r: &levelgeom_core::ExportReport) -> serde_json::Value {
    serde_json::json!({
        "inputs": r.inputs,
        "roots": r.roots.iter().map(|x| serde_json::json!({
            "name": x.name,
            "placed_meshes": x.meshes,
            "vertices": x.vertices,
            "triangles": x.triangles,
        })).collect::<Vec<_>>(),
        "placed_meshes": r.roots.iter().map(|x| x.meshes).sum::<usize>(),
        "distinct_meshes": r.distinct_meshes,
        "distinct_triangles": r.distinct_triangles,
        "materials": r.materials,
        "textures": r.textures,
        "textures_found": r.textures_found,
        "files": files_json(&r.files),
        "warnings": r.warnings,
    })
}

/// `[{"path": …, "bytes": …}]`.
pub fn files_json(files: &[(PathBuf, u64)]) -> serde_json::Value {
    files
        .iter()
        .map(|(p, n)| serde_json::json!({"path": p, "bytes": n}))
        .collect()
}
