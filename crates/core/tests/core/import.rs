//! Import through files, as a modder runs it: export → (edit) → import → export again.
//!
//! * The generator's full-size level through `level.obj` + `--collision collision.obj`,
//!   through `level.glb` alone (level.glb holds no collision tree: the `collision.glb` beside
//!   it is found and used) and through `level.glb` + `--collision collision.glb`: every
//!   triangle keeps its position within 0.001 units, every vertex colour byte survives (the
//!   GLB's linear colours converted back), `probe` heights at 2,000 points agree within 0.005
//!   for at least 99 % of them, `check` passes, and every chunk but TRAK and MAP is
//!   byte-identical to the base.
//! * A glTF as Blender writes one (a node transform, its own `.001` material names, no
//!   collision tree): the surface lands where the transform puts it.

use std::path::Path;

use levelgeom_core::{EngineOptions, ExportOptions, ImportOptions, LevelFile, WadOptions};
use levelgeom_scene::Scene;

type Tri = [[f32; 3]; 3];

/// Every triangle under the `level` root but swap alternatives, world positions (baked into the vertices),
/// rotated so the smallest corner comes first, sorted.
fn level_triangles(scene: &Scene) -> Vec<Tri> {
    let level = scene
        .roots
        .iter()
        .copied()
        .find(|&r| scene.nodes[r].name == "level")
        .unwrap();
    let mut out = Vec::new();
    let mut stack = vec![level];
    while let Some(n) = stack.pop() {
        let node = &scene.nodes[n];
        stack.extend(node.children.iter().copied());
        // a swap tile's alternative state is not imported (import writes one state per tile)
        if node.name.ends_with("_swap") {
            continue;
        }
        let Some(m) = node.mesh else { continue };
        for p in &scene.meshes[m].primitives {
            for t in p.indices.chunks_exact(3) {
                let mut tri = [0, 1, 2].map(|k| p.positions[t[k] as usize]);
                let first = (0..3)
                    .min_by(|&a, &b| tri[a].partial_cmp(&tri[b]).unwrap())
                    .unwrap();
                tri.rotate_left(first);
                out.push(tri);
            }
        }
    }
    out.sort_by(|a, b| a.partial_cmp(b).unwrap());
    out
}

fn max_distance(a: &[Tri], b: &[Tri]) -> f32 {
    assert_eq!(a.len(), b.len(), "triangle counts");
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| x.iter().zip(y))
        .map(|(p, q)| (0..3).map(|i| (p[i] - q[i]).abs()).fold(0.0f32, f32::max))
        .fold(0.0, f32::max)
}

/// Share of `points` where both levels' probe finds the same surfaces (within 0.005).
fn probe_agreement(a: &LevelFile, b: &LevelFile, points: &[(f32, f32)]) -> f64 {
    let same = points
        .iter()
        .filter(|&&(x, z)| {
            let ha = a.probe(x, z).unwrap();
            let hb = b.probe(x, z).unwrap();
            ha.len() == hb.len() && ha.iter().zip(&hb).all(|(p, q)| (p.y - q.y).abs() <= 0.005)
        })
        .count();
    same as f64 / points.len() as f64
}

/// 2,000 deterministic points inside a w × h grid (export space: x ∈ [0, w), z ∈ (−h, 0]).
fn points(w: f32, h: f32) -> Vec<(f32, f32)> {
    let mut s = 0x2545_F491u64;
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 40) as f32) / (1u64 << 24) as f32
    };
    (0..2000).map(|_| (next() * w, -next() * h)).collect()
}

/// Payloads of every chunk but TRAK and MAP, in file order.
fn untouched(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let (raw, _) = levelgeom_wad::RawWad::parse(bytes).unwrap();
    raw.chunks
        .iter()
        .filter(|c| c.tag != levelgeom_wad::Tag::TRAK && c.tag != levelgeom_wad::Tag::MAP)
        .map(|c| (c.tag.name().to_string(), c.payload.clone()))
        .collect()
}

fn round_trip(
    base: &LevelFile,
    mesh: &Path,
    collision: Option<&Path>,
    what: &str,
) -> levelgeom_core::ImportReport {
    let report = base
        .import(
            mesh,
            &ImportOptions {
                collision: collision.map(Path::to_path_buf),
                // this test is about the whole-mesh cut; the edit import gives the input's
                // bytes back (tests/core/wad_edit.rs)
                rebuild: true,
                ..ImportOptions::default()
            },
        )
        .unwrap();
    assert_eq!(report.summary.degenerate, 0, "{what}");
    assert_eq!(report.summary.uv_misfits, 0, "{what}");
    let new = levelgeom_core::open_bytes("imported.wad", report.bytes.clone()).unwrap();
    assert!(
        new.check().problems.is_empty(),
        "{what}: {:?}",
        &new.check().problems[..3.min(new.check().problems.len())]
    );
    assert_eq!(
        untouched(&report.bytes),
        untouched(base.bytes()),
        "{what}: untouched chunks"
    );
    let before = level_triangles(&base.to_scene(&EngineOptions::default()).unwrap());
    let after = level_triangles(&new.to_scene(&EngineOptions::default()).unwrap());
    let d = max_distance(&before, &after);
    assert!(d <= 0.001, "{what}: a vertex moved by {d}");
    let (w, h) = {
        let m = base.wad().unwrap().map().unwrap();
        (m.grid_w as f32, m.grid_h as f32)
    };
    let agree = probe_agreement(base, &new, &points(w, h));
    assert!(
        agree >= 0.99,
        "{what}: probe agrees at {:.1} % of the points",
        agree * 100.0
    );
    // colours: the MAP colour blocks of the tiles come back byte for byte (the import writes
    // one set; the full-size level's tiles are rebuilt per cell, so compare the sets of
    // (position, colour) pairs of the first set)
    let colours = |l: &LevelFile| -> Vec<([u32; 3], [u32; 3])> {
        let s = l.to_scene(&EngineOptions::default()).unwrap();
        let mut v: Vec<([u32; 3], [u32; 3])> = s
            .meshes
            .iter()
            .filter(|m| !m.name.ends_with("_swap"))
            .flat_map(|m| &m.primitives)
            .flat_map(|p| {
                p.positions
                    .iter()
                    .zip(p.colors.first().into_iter().flatten())
                    .map(|(q, c)| {
                        (
                            q.map(|x| (x * 1000.0).round() as i64 as u32),
                            [c[0], c[1], c[2]].map(|x| (x * 128.0).round() as u32),
                        )
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let want = colours(base);
    assert!(want
        .iter()
        .any(|(_, c)| c.iter().any(|&b| b > 0 && b < 128)));
    assert_eq!(colours(&new), want, "{what}: colour bytes");
    report
}

#[test]
fn the_full_size_level_survives_export_and_import_through_obj_and_glb() {
    let base = levelgeom_core::open_bytes("full.wad", crate::full_size_wad().to_vec()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    base.export(
        &out,
        &ExportOptions {
            engine: EngineOptions {
                wad: Some(WadOptions {
                    collision: true,
                    ..WadOptions::default()
                }),
                ..EngineOptions::default()
            },
            ..ExportOptions::default()
        },
    )
    .unwrap();
    round_trip(
        &base,
        &out.join("level.obj"),
        Some(&out.join("collision.obj")),
        "OBJ",
    );
    let report = round_trip(&base, &out.join("level.glb"), None, "GLB");
    assert_eq!(
        report.collision_from,
        format!(
            "{} (found beside the mesh file)",
            out.join("collision.glb").display()
        )
    );
    round_trip(
        &base,
        &out.join("level.glb"),
        Some(&out.join("collision.glb")),
        "GLB with --collision collision.glb",
    );
    // level.glb holds only the level: no collision tree, no swap alternatives
    let glb = levelgeom_import::read_mesh(&out.join("level.glb"))
        .unwrap()
        .scene;
    let roots: Vec<&str> = glb
        .roots
        .iter()
        .map(|&r| glb.nodes[r].name.as_str())
        .collect();
    assert_eq!(roots, ["level"]);
}

/// Standard base64 (for a glTF data URI).
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                s.push(char::from(A[(n >> (18 - 6 * k)) as usize & 63]));
            } else {
                s.push('=');
            }
        }
    }
    s
}

#[test]
fn a_gltf_as_blender_writes_it_lands_where_its_node_transform_puts_it() {
    let demo = levelgeom_core::demo();
    // the UV rectangle of one texture entry on page 0: the UV box of one exported triangle
    let scene = demo.to_scene(&EngineOptions::default()).unwrap();
    let page0 = scene
        .materials
        .iter()
        .position(|m| m.name == "page_00")
        .unwrap();
    let p = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .find(|p| p.material == Some(page0))
        .unwrap();
    let uv: Vec<[f32; 2]> = p.indices[..3]
        .iter()
        .map(|&i| p.uvs[0][i as usize])
        .collect();
    let (u0, u1) = (
        uv.iter().map(|c| c[0]).fold(f32::MAX, f32::min),
        uv.iter().map(|c| c[0]).fold(f32::MIN, f32::max),
    );
    let (v0, v1) = (
        uv.iter().map(|c| c[1]).fold(f32::MAX, f32::min),
        uv.iter().map(|c| c[1]).fold(f32::MIN, f32::max),
    );

    // a unit square at local y = 0 (up = +Y), two counter-clockwise triangles seen from above
    let pos: [[f32; 3]; 4] = [
        [-0.5, 0.0, -0.5],
        [-0.5, 0.0, 0.5],
        [0.5, 0.0, 0.5],
        [0.5, 0.0, -0.5],
    ];
    let uvs: [[f32; 2]; 4] = [[u0, v0], [u0, v1], [u1, v1], [u1, v0]];
    // split along the 01–10 diagonal: both halves then show rectangle corners the engine's
    // corner flags can express (docs/formats/argonaut-wad.md §16: three of the four corners, in one orientation)
    let idx: [u16; 6] = [0, 1, 3, 1, 2, 3];
    let mut bin = Vec::new();
    pos.iter()
        .flatten()
        .for_each(|f| bin.extend_from_slice(&f.to_le_bytes()));
    uvs.iter()
        .flatten()
        .for_each(|f| bin.extend_from_slice(&f.to_le_bytes()));
    idx.iter()
        .for_each(|i| bin.extend_from_slice(&i.to_le_bytes()));
    // Blender's nesting: a parent empty moved up by 1, the plane moved to (5.5, 2, −5.5) below
    // it and turned 90° about +Y: the square's centre lands at (5.5, 3, −5.5)
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let gltf = serde_json::json!({
        "asset": {"version": "2.0", "generator": "Khronos glTF Blender I/O v3.4.50"},
        "scene": 0,
        "scenes": [{"name": "Scene", "nodes": [0]}],
        "nodes": [
            {"name": "Empty", "translation": [0.0, 1.0, 0.0], "children": [1]},
            {"name": "Plane", "mesh": 0, "translation": [5.5, 2.0, -5.5], "rotation": [0.0, s, 0.0, s]}
        ],
        "materials": [{"name": "page_00.001", "pbrMetallicRoughness": {"baseColorFactor": [1, 1, 1, 1]}}],
        "meshes": [{"name": "Plane", "primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2, "material": 0}]}],
        "buffers": [{"byteLength": bin.len(), "uri": format!("data:application/octet-stream;base64,{}", base64(&bin))}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 32},
            {"buffer": 0, "byteOffset": 80, "byteLength": 12}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-0.5, 0.0, -0.5], "max": [0.5, 0.0, 0.5]},
            {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"},
            {"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}
        ]
    });
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("blender.gltf");
    std::fs::write(&file, serde_json::to_vec(&gltf).unwrap()).unwrap();
    let report = demo
        .import(
            &file,
            &ImportOptions {
                keep_tiles: true,
                ..ImportOptions::default()
            },
        )
        .unwrap();
    assert_eq!(report.summary.uv_fits, 2, "{}", report.summary);
    assert_eq!(report.summary.uv_misfits, 0);
    assert_eq!(report.summary.default_material, 0, "page_00.001 is page 0");
    let new = levelgeom_core::open_bytes("new.wad", report.bytes).unwrap();
    assert!(
        new.check().problems.is_empty(),
        "{:?}",
        new.check().problems
    );
    // derived collision: the square's top is the highest floor at its centre and corners
    for (x, z) in [(5.5, -5.5), (5.1, -5.1), (5.9, -5.9), (5.1, -5.9)] {
        let hits = new.probe(x, z).unwrap();
        let top = hits.first().unwrap_or_else(|| panic!("nothing at {x} {z}"));
        assert!((top.y - 3.0).abs() < 0.005, "at {x} {z}: {:?}", hits);
    }
    // its render triangles are where the transform put them: world y 3, x and z in the cell
    let tris = level_triangles(&new.to_scene(&EngineOptions::default()).unwrap());
    let placed = tris
        .iter()
        .filter(|t| t.iter().all(|p| (p[1] - 3.0).abs() < 1e-5))
        .count();
    assert_eq!(placed, 2);
}
