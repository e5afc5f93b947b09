//! `levelgeom probe FILE X Z [--json]`

use std::io::Write;
use std::path::PathBuf;

/// Arguments of `probe`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The level (an Argonaut WAD).
    pub file: PathBuf,
    /// x in export space (grid cells; cells at x ∈ [0, W)).
    #[arg(allow_negative_numbers = true)]
    pub x: f32,
    /// z in export space (cells at z ∈ (−H, 0]).
    #[arg(allow_negative_numbers = true)]
    pub z: f32,
    /// Print `{"hits": [...]}` instead of text.
    #[arg(long)]
    pub json: bool,
}

/// True when (x, z) of export space lies on a `w`×`h` grid: x ∈ [0, w), z ∈ (−h, 0].
fn inside(x: f32, z: f32, w: u32, h: u32) -> bool {
    (0.0..w as f32).contains(&x) && z <= 0.0 && z > -(h as f32)
}

/// Run `probe`: the collision surfaces over and under the point, highest first.
pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    let level = levelgeom_core::open(&args.file)?;
    let hits = level.probe(args.x, args.z)?;
    if args.json {
        /// The JSON document (serialised directly, so f32 values print as written).
        #[derive(serde::Serialize)]
        struct Probe<'a> {
            x: f32,
            z: f32,
            hits: &'a [levelgeom_core::ProbeHit],
        }
        let v = Probe {
            x: args.x,
            z: args.z,
            hits: &hits,
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(0);
    }
    if hits.is_empty() {
        let grid = level
            .wad()
            .and_then(|l| l.map())
            .map(|m| (m.grid_w, m.grid_h));
        match grid {
            Some((w, h)) if !inside(args.x, args.z, w, h) => writeln!(
                out,
                "no collision surface at x {} z {}: the point is outside the {w}×{h} grid \
                 (cells at x in [0, {w}), z in (-{h}, 0]: z is negative in export space)",
                args.x, args.z
            )?,
            _ => writeln!(out, "no collision surface at x {} z {}", args.x, args.z)?,
        }
    }
    for h in &hits {
        writeln!(
            out,
            "y {:>10.4}  {:<7}  material {:>3}  group {}  tile {:>5}  model {:>4}  polygon {}",
            h.y,
            match h.kind {
                levelgeom_core::ProbeKind::Floor => "floor",
                levelgeom_core::ProbeKind::Ceiling => "ceiling",
            },
            h.material,
            h.group,
            h.tile,
            h.model,
            h.polygon
        )?;
    }
    Ok(0)
}
