//! Glue between the CLI and the WAD → scene → exporters path.
//!
//! `levelgeom export LEVEL.wad OUTDIR [--format gltf|obj|all] [--collision] [--objects]
//! [--mirror-z] [--colour-set N]` writes into OUTDIR:
//!
//! | file | when | contents |
//! |------|------|----------|
//! | `level.glb` | gltf, all | the whole scene (level, hidden collision tree, objects), textures embedded |
//! | `level.obj`, `level.mtl` | obj, all | the `level` root: one object per tile, vertex colours of `--colour-set` |
//! | `page_NN.png` | obj, all | every decoded texture page |
//! | `collision.obj`, `collision.mtl` | obj, all + `--collision` | groups `matNN_grpG` |
//! | `objects.obj`, `objects.mtl` | obj, all + `--objects` | the STPC models side by side |
//!
//! Every file is written with [`levelgeom_binary::write_atomic`] (never over the input).
//!
//! # Colour sets in OBJ
//! OBJ has one colour per `v` line, so `--colour-set N` picks the set written. A tile has one
//! to three sets (MAP, spec §12.1); a tile with fewer than `N + 1` sets writes its first set
//! instead (counted in one warning), so every vertex line of `level.obj` carries a colour: a
//! file mixing `v x y z` and `v x y z r g b` lines is read differently by different importers.
//! Asking for a set that no tile has is an error, reported before anything is written.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use levelgeom_export::{gltf, obj};
use levelgeom_scene::Scene;
use levelgeom_wad::level::Level;
use levelgeom_wad::scene::{to_scene, SceneOptions};

use crate::cmd::export::{Args, ExportFormat};

/// At most this many warnings are printed one by one; the rest are counted.
const MAX_WARNINGS_SHOWN: usize = 20;

/// `export` for a WAD.
pub fn export(path: &Path, bytes: &[u8], args: &Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    let outdir = args
        .outdir
        .as_deref()
        .context("export needs an output folder")?;
    let (level, read_warnings) =
        Level::from_bytes(bytes).with_context(|| format!("{}", path.display()))?;
    let opts = SceneOptions {
        mirror_z: args.mirror_z,
        collision: args.collision,
        objects: args.objects,
    };
    let mut scene = to_scene(&level, &opts).with_context(|| format!("{}", path.display()))?;
    scene.name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "level".into());
    let mut warnings: Vec<String> = read_warnings.iter().map(|w| w.to_string()).collect();
    if args.textures.is_some() || args.lods {
        warnings.push("--textures and --lods are for X-Ray levels; ignored for a WAD".into());
    }
    warnings.append(&mut scene.warnings.clone());

    let want_obj = matches!(args.format, ExportFormat::Obj | ExportFormat::All);
    let sets = max_colour_sets(&scene);
    if want_obj && args.colour_set > 0 && args.colour_set >= sets {
        anyhow::bail!(
            "--colour-set {} asked for, but the tiles of {} have at most {sets} colour set(s) (numbered from 0)",
            args.colour_set,
            path.display()
        );
    }

    std::fs::create_dir_all(outdir)
        .with_context(|| format!("cannot create the output folder {}", outdir.display()))?;
    let protect = [path];
    let mut written: Vec<PathBuf> = Vec::new();
    let write = |name: &str, data: &[u8], written: &mut Vec<PathBuf>| -> anyhow::Result<()> {
        let p = outdir.join(name);
        levelgeom_binary::write_atomic(&p, data, &protect)
            .with_context(|| format!("cannot write {}", p.display()))?;
        written.push(p);
        Ok(())
    };

    if matches!(args.format, ExportFormat::Gltf | ExportFormat::All) {
        let glb = gltf::to_glb_with_warnings(&scene, &gltf::GltfOptions::default())
            .context("glTF export failed")?;
        warnings.extend(glb.warnings.iter().map(|w| format!("glTF: {w}")));
        write("level.glb", &glb.bytes, &mut written)?;
    }
    if want_obj {
        let (obj_scene, fell_back) = with_colour_set(&scene, args.colour_set);
        if fell_back > 0 {
            warnings.push(format!(
                "--colour-set {}: {fell_back} tile mesh(es) have fewer sets; their first set is written",
                args.colour_set
            ));
        }
        let scene = obj_scene.as_ref().unwrap_or(&scene);
        for (root, stem, groups) in [
            ("level", "level", false),
            ("collision", "collision", true),
            ("objects", "objects", false),
        ] {
            let Some(r) = root_index(scene, root) else {
                continue;
            };
            let o = obj::to_obj(
                scene,
                &obj::ObjOptions {
                    roots: Some(vec![r]),
                    mtl_file: format!("{stem}.mtl"),
                    colour_set: args.colour_set,
                    groups,
                },
            );
            warnings.extend(o.warnings.iter().map(|w| format!("{stem}.obj: {w}")));
            write(&format!("{stem}.obj"), o.obj.as_bytes(), &mut written)?;
            write(&format!("{stem}.mtl"), o.mtl.as_bytes(), &mut written)?;
        }
        let pngs = levelgeom_export::write_textures(scene, outdir, None, &protect)
            .context("writing the texture pages failed")?;
        written.extend(pngs);
    }

    summary(out, path, &scene, &written, &warnings)?;
    Ok(0)
}

/// The index of the root node called `name`.
fn root_index(scene: &Scene, name: &str) -> Option<usize> {
    scene
        .roots
        .iter()
        .copied()
        .find(|&r| scene.nodes.get(r).is_some_and(|n| n.name == name))
}

/// For OBJ's `--colour-set n` (n > 0): a copy of the scene in which every primitive that has
/// colours but fewer than `n + 1` sets gets copies of its first set up to set `n` (see the
/// module docs),
/// and how many meshes needed that. `None` (use the scene as it is) when nothing changes.
fn with_colour_set(scene: &Scene, n: usize) -> (Option<Scene>, usize) {
    let short = |p: &levelgeom_scene::Primitive| !p.colors.is_empty() && p.colors.len() <= n;
    let fell_back = scene
        .meshes
        .iter()
        .filter(|m| m.primitives.iter().any(short))
        .count();
    if fell_back == 0 {
        return (None, 0);
    }
    let mut copy = scene.clone();
    for p in copy.meshes.iter_mut().flat_map(|m| m.primitives.iter_mut()) {
        if short(p) {
            if let Some(first) = p.colors.first().cloned() {
                p.colors.resize(n + 1, first);
            }
        }
    }
    (Some(copy), fell_back)
}

/// The largest number of colour sets any primitive has.
fn max_colour_sets(scene: &Scene) -> usize {
    scene
        .meshes
        .iter()
        .flat_map(|m| m.primitives.iter())
        .map(|p| p.colors.len())
        .max()
        .unwrap_or(0)
}

/// Count the nodes with meshes, vertices and triangles under a root.
fn tally(scene: &Scene, root: usize) -> (usize, usize, usize) {
    let (mut nodes, mut verts, mut tris) = (0, 0, 0);
    let mut stack = vec![root];
    let mut seen = vec![false; scene.nodes.len()];
    while let Some(n) = stack.pop() {
        let Some(node) = scene.nodes.get(n) else {
            continue;
        };
        if std::mem::replace(&mut seen[n], true) {
            continue;
        }
        if let Some(m) = node.mesh.and_then(|m| scene.meshes.get(m)) {
            nodes += 1;
            for p in &m.primitives {
                verts += p.vertex_count();
                tris += p.triangle_count();
            }
        }
        stack.extend(node.children.iter().copied());
    }
    (nodes, verts, tris)
}

fn summary(
    out: &mut dyn Write,
    input: &Path,
    scene: &Scene,
    written: &[PathBuf],
    warnings: &[String],
) -> anyhow::Result<()> {
    writeln!(out, "exported {}", input.display())?;
    for &r in &scene.roots {
        let (nodes, verts, tris) = tally(scene, r);
        let name = scene.nodes.get(r).map_or("?", |n| n.name.as_str());
        writeln!(
            out,
            "  {name}: {nodes} meshes, {verts} vertices, {tris} triangles"
        )?;
    }
    writeln!(
        out,
        "  {} materials, {} textures",
        scene.materials.len(),
        scene.textures.len()
    )?;
    writeln!(out, "wrote {} files:", written.len())?;
    for p in written {
        let size = std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        writeln!(out, "  {} ({size} bytes)", p.display())?;
    }
    for w in warnings.iter().take(MAX_WARNINGS_SHOWN) {
        eprintln!("levelgeom: warning: {w}");
    }
    if warnings.len() > MAX_WARNINGS_SHOWN {
        eprintln!(
            "levelgeom: {} more warnings not shown",
            warnings.len() - MAX_WARNINGS_SHOWN
        );
    }
    if !warnings.is_empty() {
        writeln!(out, "{} warnings", warnings.len())?;
    }
    Ok(())
}
