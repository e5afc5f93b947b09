//! `levelgeom replace FILE [--strings S.json] [--sound ID=IN.wav ...] [--zones Z.json]
//! [--routes R.json] OUT.wad [--force]`: edited strings, sounds, zones and route positions back
//! into a WAD, everything else byte for byte.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use levelgeom_core::ReplaceOptions;

use crate::report;

/// Arguments of `replace`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The WAD to start from (never overwritten).
    pub input: PathBuf,
    /// Where to write the new WAD.
    pub output: PathBuf,
    /// A strings.json (as `extract` writes it) with the edited texts.
    #[arg(long)]
    pub strings: Option<PathBuf>,
    /// ID=IN.wav: put a WAV in place of SMPC sound ID (a number or `smpc_NNN`); other PCM
    /// layouts than mono 16-bit are converted first (channels mixed down, samples rescaled).
    #[arg(long = "sound", value_name = "ID=IN.wav")]
    pub sounds: Vec<String>,
    /// A zones.json (as `export --zones` writes it) with the edited zone table and grid.
    #[arg(long)]
    pub zones: Option<PathBuf>,
    /// A routes.json (as `export --objects` writes it) with edited MAP route positions, rotations
    /// and next/prev links.
    #[arg(long)]
    pub routes: Option<PathBuf>,
    /// Replace OUTPUT if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Run `replace`.
pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    let mut sounds = Vec::new();
    for s in &args.sounds {
        let (id, file) = s
            .split_once('=')
            .with_context(|| format!("--sound {s}: expected ID=IN.wav"))?;
        let id = levelgeom_core::replace::sound_id(id).with_context(|| {
            format!("--sound {s}: {id} is no SMPC sound number (3 or smpc_003)")
        })?;
        sounds.push((id, PathBuf::from(file)));
    }
    if args.strings.is_none() && sounds.is_empty() && args.zones.is_none() && args.routes.is_none()
    {
        anyhow::bail!(
            "replace needs --strings S.json, --sound ID=IN.wav, --zones Z.json and/or --routes R.json"
        );
    }
    let level = levelgeom_core::open(&args.input)?;
    report::warnings(level.warnings());
    let r = level.replace(&ReplaceOptions {
        strings: args.strings.clone(),
        sounds: sounds.clone(),
        zones: args.zones.clone(),
        routes: args.routes.clone(),
    })?;
    let mut protect: Vec<PathBuf> = vec![level.path().to_path_buf()];
    protect.extend(args.strings.iter().cloned());
    protect.extend(args.zones.iter().cloned());
    protect.extend(args.routes.iter().cloned());
    protect.extend(sounds.iter().map(|(_, p)| p.clone()));
    let protect: Vec<&Path> = protect.iter().map(PathBuf::as_path).collect();
    levelgeom_binary::write_new(&args.output, &r.bytes, &protect, args.force)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    let mut parts = Vec::new();
    if args.strings.is_some() {
        parts.push(format!("{} string(s) changed", r.strings_changed.len()));
    }
    if !sounds.is_empty() {
        parts.push(format!(
            "{} sound(s) re-encoded, {} sound(s) unchanged",
            r.sounds_changed.len(),
            r.sounds_unchanged.len()
        ));
    }
    if args.zones.is_some() {
        let n = r.zones_changed.zones.len();
        parts.push(format!(
            "zones: {n} table entr{} and {} grid cell(s) changed",
            if n == 1 { "y" } else { "ies" },
            r.zones_changed.cells.len()
        ));
    }
    if args.routes.is_some() {
        let c = &r.routes_changed;
        parts.push(format!(
            "{} route node(s) moved, {} turned, {} relinked",
            c.moved.len(),
            c.turned.len(),
            c.relinked.len()
        ));
    }
    writeln!(
        out,
        "wrote {} ({} bytes): {}",
        args.output.display(),
        r.bytes.len(),
        parts.join("; ")
    )?;
    for n in &r.notes {
        writeln!(out, "  {n}")?;
    }
    Ok(0)
}
