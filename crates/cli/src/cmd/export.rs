//! `levelgeom export FILE|DIR OUTDIR [...]`

use std::io::Write;
use std::path::PathBuf;

use crate::input::{self, Format};

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

/// Arguments of `export`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The level: a WAD file, or an X-Ray `level` file or the folder holding it.
    #[arg(required_unless_present = "demo")]
    pub input: Option<PathBuf>,
    /// The output folder (created if missing).
    pub outdir: Option<PathBuf>,
    /// Export the built-in demo level (no game files needed); then only OUTDIR is given.
    #[arg(long)]
    pub demo: bool,
    /// What to write.
    #[arg(long, value_enum, default_value_t = ExportFormat::All)]
    pub format: ExportFormat,
    /// WAD: also export collision polygons (collision.obj, hidden node tree in the GLB).
    #[arg(long)]
    pub collision: bool,
    /// WAD: also export the STPC object models (objects.obj, node tree in the GLB).
    #[arg(long)]
    pub objects: bool,
    /// WAD: negate z (and reverse the winding so front faces stay front).
    #[arg(long)]
    pub mirror_z: bool,
    /// WAD: which vertex-colour set OBJ writes (0 = first; glTF always has all).
    #[arg(long, default_value_t = 0)]
    pub colour_set: usize,
    /// X-Ray: folder of game textures (gamedata/textures) to resolve texture names against.
    #[arg(long)]
    pub textures: Option<PathBuf>,
    /// X-Ray: also export the LOD billboard quads as their own meshes.
    #[arg(long)]
    pub lods: bool,
}

/// Run `export`.
pub fn run(mut args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    if args.demo {
        // With --demo the single positional is the output folder.
        if args.outdir.is_none() {
            args.outdir = args.input.take();
        }
        if args.outdir.is_none() {
            anyhow::bail!("export --demo needs an output folder: levelgeom export --demo OUTDIR");
        }
        let bytes = crate::wad::demo_bytes();
        return crate::wad_export::export(std::path::Path::new("demo.wad"), &bytes, &args, out);
    }
    let path = args
        .input
        .clone()
        .ok_or_else(|| anyhow::anyhow!("export needs INPUT and OUTDIR (or --demo OUTDIR)"))?;
    if args.outdir.is_none() {
        anyhow::bail!("export needs an output folder: levelgeom export INPUT OUTDIR");
    }
    if path.is_dir() {
        return crate::xray::export(&path, &args, out);
    }
    let input = input::load(&path)?;
    match input.format {
        Format::Wad => crate::wad_export::export(&input.path, &input.bytes, &args, out),
        Format::Xray => crate::xray::export(&input.path, &args, out),
    }
}
