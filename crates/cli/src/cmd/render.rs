//! `levelgeom render FILE OUT.png [--view top|persp|iso] [--size WxH] [--collision] [--occluders]
//! [--zones] [--force]`

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use levelgeom_core::{RenderOptions, View};

/// Arguments of `render`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The level file, or an X-Ray level folder.
    #[arg(required_unless_present = "demo")]
    pub file: Option<PathBuf>,
    /// Where to write the PNG (with --demo the only positional).
    pub output: Option<PathBuf>,
    /// Render the built-in demo level.
    #[arg(long)]
    pub demo: bool,
    /// The camera: `top` (orthographic, straight down, +x right, −z up), `persp` (from above
    /// one corner at 35°), `iso` (orthographic from that corner).
    #[arg(long, default_value = "persp", value_parser = parse_view)]
    pub view: View,
    /// Image size.
    #[arg(long, default_value = "1024x768", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Also draw the collision.
    #[arg(long)]
    pub collision: bool,
    /// Also draw an X-Ray level's occluders (level.hom, level.som) over it.
    #[arg(long)]
    pub occluders: bool,
    /// WAD: draw each tile in its zone's colour (the palette of export --zones' zones.png).
    #[arg(long)]
    pub zones: bool,
    /// Replace OUTPUT if it exists.
    #[arg(long)]
    pub force: bool,
}

fn parse_view(s: &str) -> Result<View, String> {
    s.parse::<View>().map_err(|e| e.to_string())
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X', '×'])
        .ok_or_else(|| format!("size {s:?}: expected WxH, e.g. 1024x768"))?;
    let n = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=16384).contains(n))
            .ok_or_else(|| format!("size {s:?}: width and height are 1 to 16384 pixels"))
    };
    Ok((n(w)?, n(h)?))
}

/// Run `render`.
pub fn run(mut args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    if args.demo {
        // `--demo OUT.png`: the one positional is the output; a level file as well would be
        // ignored, so it is refused (as `export --demo` does)
        if args.output.is_some() {
            anyhow::bail!("render --demo takes only OUT.png (the demo level is built in)");
        }
        args.output = args.file.take();
    }
    let Some(output) = args.output.clone() else {
        anyhow::bail!("render needs an output file: levelgeom render FILE OUT.png");
    };
    let level = match (&args.file, args.demo) {
        (_, true) => levelgeom_core::demo(),
        (Some(f), false) => levelgeom_core::open(f)?,
        (None, false) => anyhow::bail!("render needs FILE and OUT.png (or --demo OUT.png)"),
    };
    let image = level.render(&RenderOptions {
        view: args.view,
        width: args.size.0,
        height: args.size.1,
        collision: args.collision,
        occluders: args.occluders,
        zones: args.zones,
    })?;
    let png = image.to_png()?;
    let mut protect = vec![level.path().to_path_buf()];
    protect.extend(level.companions());
    let protect: Vec<&std::path::Path> = protect.iter().map(PathBuf::as_path).collect();
    levelgeom_binary::write_new(&output, &png, &protect, args.force)
        .with_context(|| format!("cannot write {}", output.display()))?;
    writeln!(
        out,
        "wrote {} ({}×{}, {} view, {} bytes)",
        output.display(),
        image.width,
        image.height,
        args.view.name(),
        png.len()
    )?;
    Ok(0)
}
