//! Glue between the CLI and `levelgeom-xray`: info, rebuild, check, export.
//!
//! The kind of file is told from its content ([`levelgeom_xray::kind`]): geom files have
//! chunks 9/10, `level` has 2/3, `level.cform` is a counted header; sibling files (`level.geom`
//! beside `level`) are found by name only to pair them up.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use levelgeom_export::{gltf, obj};
use levelgeom_scene::TextureSource;
use levelgeom_xray::cform::Cform;
use levelgeom_xray::chunk::{self, RawChunk};
use levelgeom_xray::decl::{DeclType, Usage};
use levelgeom_xray::ogf::model_type;
use levelgeom_xray::{check as rules, Geom, Kind, Level, SceneOptions};
use serde_json::{json, Value};

use crate::cmd::export::{Args, ExportFormat};

fn kind_of(path: &Path, bytes: &[u8]) -> anyhow::Result<Kind> {
    levelgeom_xray::kind(bytes)
        .with_context(|| format!("{}: not an X-Ray level file", path.display()))
}

fn raw_tree(chunks: &[RawChunk]) -> Vec<Value> {
    chunks
        .iter()
        .map(|c| {
            let mut o = json!({
                "id": c.id(),
                "compressed": c.stored.is_some(),
                "size": c.stored.as_ref().map_or(c.value.len(), Vec::len),
            });
            if chunk::tiles(&c.value) {
                if let Ok(kids) = chunk::read_raw(&mut levelgeom_binary::Reader::new(&c.value)) {
                    o["children"] = Value::Array(raw_tree(&kids));
                }
            }
            o
        })
        .collect()
}

fn geom_json(g: &Geom) -> Value {
    let h = g.header();
    let vbs: Vec<Value> = g
        .vertex_buffers()
        .unwrap_or(&[])
        .iter()
        .map(|vb| {
            let layout: Vec<Value> = vb
                .decl
                .elements
                .iter()
                .map(|e| {
                    json!({
                        "offset": e.offset,
                        "type": e.ty,
                        "type_name": DeclType::from_code(e.ty).map_or("?", DeclType::name),
                        "usage": e.usage,
                        "usage_name": Usage::from_code(e.usage).map_or("?", Usage::name),
                        "usage_index": e.usage_index,
                    })
                })
                .collect();
            json!({"vertices": vb.count, "stride": vb.stride(), "layout": layout})
        })
        .collect();
    let ibs: Vec<Value> = g
        .index_buffers()
        .unwrap_or(&[])
        .iter()
        .map(|ib| json!({"indices": ib.len()}))
        .collect();
    let swis: Vec<Value> = g
        .swis()
        .iter()
        .map(|s| json!({"windows": s.windows.len()}))
        .collect();
    json!({
        "format": "xray-geom",
        "version": h.map(|h| h.version),
        "quality": h.map(|h| h.quality),
        "chunks": g.chunks.iter().map(|c| json!({"id": c.id(), "compressed": c.stored.is_some()})).collect::<Vec<_>>(),
        "vertex_buffers": vbs,
        "index_buffers": ibs,
        "swis": swis,
    })
}

fn level_json(l: &Level) -> Value {
    let h = l.header();
    let shaders = l.shaders().unwrap_or(&[]);
    let visuals: Vec<Value> = l
        .visuals()
        .iter()
        .map(|v| {
            let hd = v.header();
            let t = hd.map_or(u8::MAX, |h| h.model_type);
            let sid = hd.map_or(0, |h| h.shader_id);
            let mut o = json!({
                "type": model_type::name(t),
                "type_id": t,
                "shader_id": sid,
                "shader": shaders.get(usize::from(sid)).map(|s| s.text()).unwrap_or_default(),
                "chunks": v.chunks.iter().map(|c| c.id()).collect::<Vec<_>>(),
            });
            if let Some(g) = v.gcontainer() {
                o["gcontainer"] = json!([
                    g.vb_index,
                    g.vb_offset,
                    g.vb_count,
                    g.ib_index,
                    g.ib_offset,
                    g.ib_count
                ]);
            }
            if let Some(s) = v.swidata() {
                o["swi_windows"] = json!(s.windows.len());
            }
            if !v.children().is_empty() {
                o["children"] = json!(v.children());
            }
            o
        })
        .collect();
    json!({
        "format": "xray-level",
        "version": h.map(|h| h.version),
        "quality": h.map(|h| h.quality),
        "chunks": l.chunks.iter().map(|c| json!({"id": c.id(), "compressed": c.stored.is_some()})).collect::<Vec<_>>(),
        "shaders": shaders.iter().map(|s| s.text()).collect::<Vec<_>>(),
        "visuals": visuals,
        "portals": l.portals().len(),
        "lights": l.lights().len(),
        "glows": l.glows().len(),
        "sectors": l.sectors().iter().map(|s| json!({"root": s.value.root(), "portals": s.value.portals()})).collect::<Vec<_>>(),
    })
}

fn print_text(v: &Value, path: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    writeln!(
        out,
        "{}: {}",
        path.display(),
        v["format"].as_str().unwrap_or("?")
    )?;
    if let (Some(ver), Some(q)) = (v["version"].as_u64(), v["quality"].as_u64()) {
        writeln!(out, "  XRLC version {ver}, quality {q}")?;
    } else if let Some(ver) = v["version"].as_u64() {
        writeln!(out, "  version {ver}")?;
    }
    if let Some(cs) = v["chunks"].as_array() {
        let ids: Vec<String> = cs
            .iter()
            .map(|c| {
                let star = if c["compressed"].as_bool() == Some(true) {
                    "*"
                } else {
                    ""
                };
                format!("{}{star}", c["id"])
            })
            .collect();
        writeln!(out, "  chunks: {} (* = LZHUF-compressed)", ids.join(", "))?;
    }
    for (i, vb) in v["vertex_buffers"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let layout: Vec<String> = vb["layout"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| {
                format!(
                    "{}:{} {}{}",
                    e["offset"],
                    e["type_name"].as_str().unwrap_or("?"),
                    e["usage_name"].as_str().unwrap_or("?"),
                    e["usage_index"]
                )
            })
            .collect();
        writeln!(
            out,
            "  vertex buffer {i}: {} vertices × {} bytes [{}]",
            vb["vertices"],
            vb["stride"],
            layout.join(", ")
        )?;
    }
    for (i, ib) in v["index_buffers"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        writeln!(out, "  index buffer {i}: {} indices", ib["indices"])?;
    }
    if let Some(s) = v["swis"].as_array() {
        writeln!(out, "  SWI items: {}", s.len())?;
    }
    if let Some(sh) = v["shaders"].as_array() {
        writeln!(out, "  shaders: {}", sh.len())?;
        for (i, s) in sh.iter().enumerate() {
            writeln!(out, "    {i}: {}", s.as_str().unwrap_or(""))?;
        }
    }
    if let Some(vs) = v["visuals"].as_array() {
        writeln!(out, "  visuals: {}", vs.len())?;
        for (i, vi) in vs.iter().enumerate() {
            writeln!(
                out,
                "    {i}: {} shader {}{}",
                vi["type"].as_str().unwrap_or("?"),
                vi["shader_id"],
                vi.get("children")
                    .map(|c| format!(" children {c}"))
                    .unwrap_or_default()
            )?;
        }
        writeln!(
            out,
            "  portals {}, lights {}, glows {}, sectors {}",
            v["portals"],
            v["lights"],
            v["glows"],
            v["sectors"].as_array().map_or(0, Vec::len)
        )?;
    }
    if let Some(n) = v["vertices"].as_u64() {
        writeln!(out, "  {n} vertices, {} faces", v["faces"])?;
    }
    if let Some(t) = v["tree"].as_array() {
        fn walk(t: &[Value], depth: usize, out: &mut dyn Write) -> std::io::Result<()> {
            for c in t {
                writeln!(
                    out,
                    "{:w$}chunk {} ({} bytes{})",
                    "",
                    c["id"],
                    c["size"],
                    if c["compressed"].as_bool() == Some(true) {
                        ", compressed"
                    } else {
                        ""
                    },
                    w = 2 + depth * 2
                )?;
                if let Some(k) = c["children"].as_array() {
                    walk(k, depth + 1, out)?;
                }
            }
            Ok(())
        }
        walk(t, 0, out)?;
    }
    Ok(())
}

/// `info` for an X-Ray file.
pub fn info(path: &Path, bytes: &[u8], json: bool, out: &mut dyn Write) -> anyhow::Result<u8> {
    let v = match kind_of(path, bytes)? {
        Kind::Geom => geom_json(&Geom::read(bytes).with_context(|| path.display().to_string())?),
        Kind::Level => level_json(&Level::read(bytes).with_context(|| path.display().to_string())?),
        Kind::Cform => {
            let c = Cform::read(bytes).with_context(|| path.display().to_string())?;
            json!({"format": "xray-cform", "version": c.version, "vertices": c.vertices.len(), "faces": c.tris.len()})
        }
        Kind::Chunks => {
            let cs = chunk::read_raw(&mut levelgeom_binary::Reader::new(bytes))
                .with_context(|| path.display().to_string())?;
            json!({"format": "xray-chunks", "tree": raw_tree(&cs)})
        }
    };
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        print_text(&v, path, out)?;
    }
    Ok(0)
}

/// `rebuild` for an X-Ray file: the rebuilt bytes.
pub fn rebuild(path: &Path, bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
    let ctx = || path.display().to_string();
    Ok(match kind_of(path, bytes)? {
        Kind::Geom => Geom::read(bytes).with_context(ctx)?.write(),
        Kind::Level => Level::read(bytes).with_context(ctx)?.write(),
        Kind::Cform => Cform::read(bytes).with_context(ctx)?.write(),
        Kind::Chunks => {
            let cs =
                chunk::read_raw(&mut levelgeom_binary::Reader::new(bytes)).with_context(ctx)?;
            let mut w = levelgeom_binary::Writer::new();
            chunk::write_raw(&mut w, &cs);
            w.into_inner()
        }
    })
}

/// Name the chunk path that holds absolute offset `at`.
pub fn locate(bytes: &[u8], at: usize) -> Option<String> {
    levelgeom_xray::locate(bytes, at)
}

/// Read a sibling geom file (`level.geom`/`level.geomx` beside `level`), if it is there.
fn sibling_geom(dir: &Path, name: &str) -> anyhow::Result<Option<(PathBuf, Geom)>> {
    let p = dir.join(name);
    if !p.is_file() {
        return Ok(None);
    }
    let b =
        levelgeom_binary::read_file(&p).with_context(|| format!("cannot read {}", p.display()))?;
    let g = Geom::read(&b).with_context(|| p.display().to_string())?;
    Ok(Some((p, g)))
}

fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `check` for an X-Ray file.
pub fn check(path: &Path, bytes: &[u8], out: &mut dyn Write) -> anyhow::Result<u8> {
    let ctx = || path.display().to_string();
    let problems: Vec<String> = match kind_of(path, bytes)? {
        Kind::Geom => rules::geom(&Geom::read(bytes).with_context(ctx)?)
            .iter()
            .map(ToString::to_string)
            .collect(),
        Kind::Level => {
            let l = Level::read(bytes).with_context(ctx)?;
            let dir = parent(path);
            let g = sibling_geom(&dir, "level.geom")?;
            let gx = sibling_geom(&dir, "level.geomx")?;
            match &g {
                Some((p, _)) => writeln!(out, "with {}", p.display())?,
                None => writeln!(
                    out,
                    "note: no level.geom beside it; geometry ranges not checked"
                )?,
            }
            if let Some((p, _)) = &gx {
                writeln!(out, "with {}", p.display())?;
            }
            let mut v: Vec<String> =
                rules::level(&l, g.as_ref().map(|x| &x.1), gx.as_ref().map(|x| &x.1))
                    .iter()
                    .map(ToString::to_string)
                    .collect();
            if let Some((p, g)) = &g {
                v.extend(
                    rules::geom(g)
                        .iter()
                        .map(|e| format!("{}: {e}", p.display())),
                );
            }
            v
        }
        Kind::Cform => Cform::read(bytes).with_context(ctx)?.problems(),
        Kind::Chunks => {
            chunk::read_raw(&mut levelgeom_binary::Reader::new(bytes)).with_context(ctx)?;
            Vec::new()
        }
    };
    for p in &problems {
        writeln!(out, "{p}")?;
    }
    if problems.is_empty() {
        writeln!(out, "ok: {} passes all checks", path.display())?;
        Ok(0)
    } else {
        writeln!(out, "{} problems", problems.len())?;
        Ok(1)
    }
}

/// Find `name` (a game texture path with `/`) in `dir` with a usual image extension: PNG and
/// JPEG first (the formats glTF viewers read, e.g. converted copies), then the game's DDS/TGA.
/// The name is tried as written and lower-cased (game archives unpack to lower case).
fn find_texture(dir: &Path, name: &str) -> Option<PathBuf> {
    let lower = name.to_lowercase();
    let names: &[&str] = if lower == name {
        &[name]
    } else {
        &[name, &lower]
    };
    names.iter().find_map(|n| {
        ["png", "jpg", "jpeg", "dds", "tga"]
            .iter()
            .map(|ext| dir.join(format!("{n}.{ext}")))
            .find(|p| p.is_file())
    })
}

/// `target` as a path relative to the folder `base` (both made absolute first), with `/`
/// separators, so an export folder and its textures can be moved together; the absolute path
/// when no relative one exists (another drive).
fn relative_path(base: &Path, target: &Path) -> String {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (b, t) = (abs(base), abs(target));
    let bc: Vec<_> = b.components().collect();
    let tc: Vec<_> = t.components().collect();
    let common = bc.iter().zip(&tc).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return t.to_string_lossy().replace('\\', "/");
    }
    let mut parts: Vec<String> = vec!["..".into(); bc.len() - common];
    parts.extend(
        tc[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// Percent-encode a relative path for a glTF `uri` (RFC 3986: everything but unreserved
/// characters and `/`).
fn uri_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `export` for an X-Ray level (`level` file or its folder).
pub fn export(path: &Path, args: &Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    let level_path = if path.is_dir() {
        path.join("level")
    } else {
        path.to_path_buf()
    };
    let bytes = levelgeom_binary::read_file(&level_path)
        .with_context(|| format!("cannot read {}", level_path.display()))?;
    match kind_of(&level_path, &bytes)? {
        Kind::Level => {}
        Kind::Geom => bail!(
            "{} is a level.geom: it holds only vertex and index buffers; export needs the `level` file \
             beside it (visuals, shaders). Give the level folder or its `level` file.",
            level_path.display()
        ),
        _ => bail!("{}: export needs an X-Ray `level` file (or its folder)", level_path.display()),
    }
    let level = Level::read(&bytes).with_context(|| level_path.display().to_string())?;
    // Versions up to 12 keep their (compressed) buffers inside `level` with other chunk ids
    // and OGF v3 visuals (spec §3); exporting them through level.geom would be wrong.
    if let Some(v) = level.header().map(|h| h.version).filter(|v| *v < 13) {
        bail!(
            "{}: XRLC version {v}; export reads versions 13 and 14 (geometry in level.geom), \
             older levels keep it inside `level` in another layout",
            level_path.display()
        );
    }
    let dir = parent(&level_path);
    let (geom_path, geom) = sibling_geom(&dir, "level.geom")?.with_context(|| {
        format!(
            "no level.geom beside {} (the visuals' geometry lives there)",
            level_path.display()
        )
    })?;
    let outdir = args
        .outdir
        .clone()
        .context("export needs an output folder")?;
    std::fs::create_dir_all(&outdir)
        .with_context(|| format!("cannot create {}", outdir.display()))?;

    let opts = SceneOptions {
        name: dir
            .file_name()
            .map_or("level".into(), |n| n.to_string_lossy().into_owned()),
        lods: args.lods,
        ..SceneOptions::default()
    };
    let mut scene = levelgeom_xray::to_scene(&level, &geom, &opts)?;
    let mut warnings = std::mem::take(&mut scene.warnings);

    // Resolve textures: with --textures, point at the game files found there; names that are
    // not found stay names in the OBJ/MTL but are not linked in the GLB (a glTF reader would
    // fail on a missing file).
    // Found files are referenced relative to the output folder.
    let mut obj_scene = scene.clone();
    let mut missing = Vec::new();
    let mut not_gltf = Vec::new();
    for (i, t) in scene.textures.iter_mut().enumerate() {
        let found = args
            .textures
            .as_deref()
            .and_then(|d| find_texture(d, &t.name));
        match found {
            Some(p) => {
                let rel = relative_path(&outdir, &p);
                let ext = p.extension().map(|e| e.to_string_lossy().to_lowercase());
                if !matches!(ext.as_deref(), Some("png" | "jpg" | "jpeg")) {
                    not_gltf.push(t.name.clone());
                }
                t.source = TextureSource::External {
                    uri: uri_encode(&rel),
                };
                obj_scene.textures[i].source = TextureSource::External { uri: rel };
            }
            None => missing.push(i),
        }
    }
    if !not_gltf.is_empty() && matches!(args.format, ExportFormat::Gltf | ExportFormat::All) {
        warnings.push(format!(
            "{} texture(s) found only as DDS/TGA ({}…), which glTF viewers cannot read; \
             put PNG copies beside them to have those linked instead",
            not_gltf.len(),
            not_gltf[0]
        ));
    }
    if args.textures.is_some() {
        for &i in &missing {
            warnings.push(format!(
                "texture {} not found in the --textures folder",
                scene.textures[i].name
            ));
        }
    }
    // drop the unresolved textures from the GLB scene and renumber the rest
    let mut remap = Vec::with_capacity(scene.textures.len());
    let mut kept = Vec::new();
    for (i, t) in scene.textures.drain(..).enumerate() {
        if missing.contains(&i) {
            remap.push(None);
        } else {
            remap.push(Some(kept.len()));
            kept.push(t);
        }
    }
    scene.textures = kept;
    for m in &mut scene.materials {
        m.texture = m.texture.and_then(|t| remap.get(t).copied().flatten());
    }

    let protect: Vec<&Path> = vec![level_path.as_path(), geom_path.as_path()];
    let mut written: Vec<(PathBuf, usize)> = Vec::new();
    if matches!(args.format, ExportFormat::Gltf | ExportFormat::All) {
        let glb = gltf::to_glb_with_warnings(&scene, &gltf::GltfOptions::default())?;
        warnings.extend(glb.warnings.iter().map(|w| format!("glTF: {w}")));
        let p = outdir.join("level.glb");
        levelgeom_binary::write_atomic(&p, &glb.bytes, &protect)
            .with_context(|| format!("cannot write {}", p.display()))?;
        written.push((p, glb.bytes.len()));
    }
    if matches!(args.format, ExportFormat::Obj | ExportFormat::All) {
        let o = obj::to_obj(
            &obj_scene,
            &obj::ObjOptions {
                mtl_file: "level.mtl".into(),
                ..obj::ObjOptions::default()
            },
        );
        warnings.extend(o.warnings.iter().map(|w| format!("level.obj: {w}")));
        for (name, text) in [("level.obj", &o.obj), ("level.mtl", &o.mtl)] {
            let p = outdir.join(name);
            levelgeom_binary::write_atomic(&p, text.as_bytes(), &protect)
                .with_context(|| format!("cannot write {}", p.display()))?;
            written.push((p, text.len()));
        }
    }
    let with_geom = scene.nodes.iter().filter(|n| n.mesh.is_some()).count();
    let tris = scene.mesh_triangle_count();
    writeln!(
        out,
        "exported {} with {}",
        level_path.display(),
        geom_path.display()
    )?;
    writeln!(
        out,
        "  {} visuals, {with_geom} placed meshes ({} distinct, {tris} triangles), {} materials, {} textures ({} found)",
        level.visuals().len(),
        scene.meshes.len(),
        scene.materials.len(),
        obj_scene.textures.len(),
        scene.textures.len()
    )?;
    writeln!(out, "wrote {} files:", written.len())?;
    for (p, n) in &written {
        writeln!(out, "  {} ({n} bytes)", p.display())?;
    }
    for w in warnings.iter().take(50) {
        eprintln!("levelgeom: warning: {w}");
    }
    if !warnings.is_empty() {
        writeln!(out, "{} warnings", warnings.len())?;
    }
    Ok(0)
}
