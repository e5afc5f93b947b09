//! `levelgeom export` on WADs: runs the real binary on a generated level and on `--demo`,
//! then reads the files back independently (OBJ lines, the GLB header and JSON, PNG magic).
//! Expected numbers come from the typed input level and the seed's placement formula.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output};

use levelgeom_wad::generate::{generate, LevelSpec};
use levelgeom_wad::level::Level;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_levelgeom"))
        .args(args)
        .output()
        .expect("the levelgeom binary runs")
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Write the generated demo level to `dir/demo.wad`; returns the path and the typed level.
fn demo_wad(dir: &Path) -> (std::path::PathBuf, Level) {
    let level = generate(&LevelSpec::demo());
    let p = dir.join("demo.wad");
    std::fs::write(&p, level.to_bytes()).unwrap();
    (p, level)
}

/// `v` lines of an OBJ as number lists.
fn obj_vertices(text: &str) -> Vec<Vec<f32>> {
    text.lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|r| r.split_whitespace().map(|x| x.parse().unwrap()).collect())
        .collect()
}

fn count_prefix(text: &str, prefix: &str) -> usize {
    text.lines().filter(|l| l.starts_with(prefix)).count()
}

/// World position of vertex `v` of tile `t`'s model, per seed §2 (computed here, by hand).
fn world(level: &Level, t: usize, v: usize) -> [f32; 3] {
    let map = level.map().unwrap();
    let trak = level.trak().unwrap();
    let tile = &map.tiles[t];
    let m = &trak.models[map.model_indices[t] as usize];
    let p = m.vertices[v].pos.map(f64::from);
    let a = f64::from(tile.rot) / 4096.0 * std::f64::consts::TAU;
    let (x, y, z) = (
        f64::from(tile.pos[0]),
        f64::from(tile.pos[1]),
        f64::from(tile.pos[2]),
    );
    [
        (x + p[0] * a.cos() - p[2] * a.sin()) as f32,
        (y + p[1]) as f32,
        (z + p[0] * a.sin() + p[2] * a.cos()) as f32,
    ]
}

fn near(v: &[f32], p: [f32; 3], tol: f32) -> bool {
    v.len() >= 3 && (0..3).all(|k| (v[k] - p[k]).abs() <= tol)
}

/// The first tile whose model has faces.
fn first_faced_tile(level: &Level) -> usize {
    let map = level.map().unwrap();
    let trak = level.trak().unwrap();
    (0..map.tiles.len())
        .find(|&t| !trak.models[map.model_indices[t] as usize].faces.is_empty())
        .unwrap()
}

#[test]
fn export_all_writes_every_file_with_the_level_in_it() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, level) = demo_wad(dir.path());
    let out = dir.path().join("out");
    let o = run(&[
        "export",
        path_str(&wad),
        path_str(&out),
        "--collision",
        "--objects",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("level.glb"), "{stdout}");

    let map = level.map().unwrap();
    let trak = level.trak().unwrap();
    let text = level.text().unwrap();
    for p in 0..text.pages.len() {
        let png = std::fs::read(out.join(format!("page_{p:02}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }
    for f in ["level.mtl", "collision.obj", "collision.mtl", "objects.obj"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }

    // level.obj: one triangle per face of every placed tile model, plus the swap alternative.
    let obj = std::fs::read_to_string(out.join("level.obj")).unwrap();
    let mut faces: usize = map
        .model_indices
        .iter()
        .map(|&m| trak.models[m as usize].faces.len())
        .sum();
    let swaps = map.swaps.as_ref().unwrap();
    assert_eq!(swaps.len(), 1);
    faces += trak.models[swaps[0].model_b as usize].faces.len();
    assert_eq!(count_prefix(&obj, "f "), faces);
    assert!(obj
        .lines()
        .any(|l| l.starts_with("o ") && l.ends_with("_swap")));
    assert!(obj.starts_with("# ") || obj.starts_with("mtllib"));
    assert!(obj.contains("mtllib level.mtl"));

    // A known vertex: the first faced tile's vertex 0, placed by hand per seed §2.
    let t = first_faced_tile(&level);
    let want = world(&level, t, 0);
    let verts = obj_vertices(&obj);
    assert!(verts.iter().all(|v| v.len() == 6), "positions + colours");
    assert!(
        verts.iter().any(|v| near(v, want, 1e-4)),
        "no vertex near {want:?}"
    );

    // collision.obj: groups named matNN_grpG, one of them the water plane (material 0x1E = 30).
    let col = std::fs::read_to_string(out.join("collision.obj")).unwrap();
    assert!(
        col.lines().any(|l| l == "g mat30_grp0"),
        "water plane group"
    );
    assert!(col.lines().any(|l| l == "g mat00_grp0"));

    // objects.obj: the STPC models, one triangle per face.
    let objs = std::fs::read_to_string(out.join("objects.obj")).unwrap();
    let stpc_faces: usize = level
        .stpc()
        .unwrap()
        .models
        .iter()
        .map(|m| m.faces.len())
        .sum();
    assert_eq!(count_prefix(&objs, "f "), stpc_faces);

    // level.glb: header, JSON chunk with the three roots and the hidden collision tree.
    let glb = std::fs::read(out.join("level.glb")).unwrap();
    assert_eq!(&glb[..4], b"glTF");
    assert_eq!(u32::from_le_bytes(glb[4..8].try_into().unwrap()), 2);
    assert_eq!(
        u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize,
        glb.len()
    );
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    assert_eq!(&glb[16..20], b"JSON");
    let json: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let nodes = json["nodes"].as_array().unwrap();
    let roots: Vec<&str> = json["scenes"][0]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            nodes[i.as_u64().unwrap() as usize]["name"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(roots, ["level", "collision", "objects"]);
    let collision = nodes.iter().find(|n| n["name"] == "collision").unwrap();
    assert_eq!(collision["extras"]["hidden"], serde_json::Value::Bool(true));
    assert_eq!(json["images"].as_array().unwrap().len(), text.pages.len());
    // One tile node per MAP tile, named tile_TTTT_mMMM.
    let t0 = format!("tile_{t:04}_m{:03}", map.model_indices[t]);
    assert!(nodes.iter().any(|n| n["name"] == t0.as_str()), "{t0}");
    let tiles = nodes
        .iter()
        .filter(|n| {
            n["name"]
                .as_str()
                .is_some_and(|s| s.starts_with("tile_") && !s.ends_with("_swap"))
        })
        .count();
    assert_eq!(tiles, map.tiles.len());
}

#[test]
fn formats_choose_the_files_and_mirror_negates_z() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, level) = demo_wad(dir.path());
    let gltf_only = dir.path().join("g");
    let o = run(&[
        "export",
        path_str(&wad),
        path_str(&gltf_only),
        "--format",
        "gltf",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let names: Vec<String> = std::fs::read_dir(&gltf_only)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["level.glb"]);

    let obj_only = dir.path().join("o");
    let o = run(&[
        "export",
        path_str(&wad),
        path_str(&obj_only),
        "--format",
        "obj",
        "--mirror-z",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!obj_only.join("level.glb").exists());
    assert!(
        !obj_only.join("collision.obj").exists(),
        "only with --collision"
    );
    let obj = std::fs::read_to_string(obj_only.join("level.obj")).unwrap();
    let t = first_faced_tile(&level);
    let w = world(&level, t, 0);
    let mirrored = [w[0], w[1], -w[2]];
    assert!(obj_vertices(&obj).iter().any(|v| near(v, mirrored, 1e-4)));
}

/// `--colour-set 1` writes the second colour set: find a tile with two sets and check its
/// vertex 0 carries `min(1, byte / 128)` of set 1's bytes.
#[test]
fn colour_set_option_picks_the_second_set() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, level) = demo_wad(dir.path());
    let map = level.map().unwrap();
    let trak = level.trak().unwrap();
    let t = (0..map.tiles.len())
        .find(|&t| {
            map.colours[t].layers.len() >= 2
                && !trak.models[map.model_indices[t] as usize].faces.is_empty()
        })
        .expect("the demo has a tile with two colour sets");
    let word = map.colours[t].layers[1][0];
    let [r, g, b, _] = word.to_le_bytes();
    let c = |x: u8| (f32::from(x) / 128.0).min(1.0);
    let want_colour = [c(r), c(g), c(b)];
    let out = dir.path().join("c");
    let o = run(&[
        "export",
        path_str(&wad),
        path_str(&out),
        "--format",
        "obj",
        "--colour-set",
        "1",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let obj = std::fs::read_to_string(out.join("level.obj")).unwrap();
    let p = world(&level, t, 0);
    let hit = obj_vertices(&obj).into_iter().any(|v| {
        near(&v, p, 1e-4)
            && v.len() == 6
            && (0..3).all(|k| (v[3 + k] - want_colour[k]).abs() < 1e-6)
    });
    assert!(hit, "no vertex at {p:?} with colour {want_colour:?}");
}

#[test]
fn demo_exports() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo");
    let o = run(&["export", "--demo", path_str(&out)]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let obj = std::fs::read_to_string(out.join("level.obj")).unwrap();
    assert!(count_prefix(&obj, "f ") > 0);
    assert!(out.join("level.glb").is_file());
    assert!(out.join("page_00.png").is_file());
}

#[test]
fn damaged_wad_fails_with_the_offset() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, _) = demo_wad(dir.path());
    let mut bytes = std::fs::read(&wad).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&wad, &bytes).unwrap();
    let out = dir.path().join("x");
    let o = run(&["export", path_str(&wad), path_str(&out)]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("at 0x"), "{err}");
    assert!(!out.join("level.glb").exists());
}

// ---------------------------------------------------------------------------------------------
// The independent fixture (tools/fixtures/make_indep_wad.py, written from the specs alone):
// its JSON holds, per tile and face, the world positions, UVs and colours computed in Python,
// and per collision polygon the corners the engine's planes meet in.

/// One OBJ triangle: three (v index, vt index) corners, 0-based.
type ObjTriangle = [(usize, Option<usize>); 3];

/// A parsed OBJ: `v` rows (x y z [r g b]), `vt` rows, and per `o`/`g` name its triangles as
/// (v index, vt index) corners, 0-based.
#[derive(Default)]
struct Obj {
    v: Vec<Vec<f32>>,
    vt: Vec<[f32; 2]>,
    objects: Vec<(String, Vec<ObjTriangle>)>,
}

fn parse_obj(text: &str) -> Obj {
    let mut o = Obj::default();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        match it.next() {
            Some("v") => o.v.push(it.map(|x| x.parse().unwrap()).collect()),
            Some("vt") => {
                let u: Vec<f32> = it.map(|x| x.parse().unwrap()).collect();
                o.vt.push([u[0], u[1]]);
            }
            Some("o") | Some("g") => o.objects.push((it.next().unwrap().to_string(), Vec::new())),
            Some("f") => {
                let c: Vec<(usize, Option<usize>)> = it
                    .map(|t| {
                        let mut p = t.split('/');
                        let v: usize = p.next().unwrap().parse().unwrap();
                        let vt = p
                            .next()
                            .filter(|s| !s.is_empty())
                            .map(|s| s.parse::<usize>().unwrap() - 1);
                        (v - 1, vt)
                    })
                    .collect();
                assert_eq!(c.len(), 3, "triangles only: {line}");
                o.objects.last_mut().unwrap().1.push([c[0], c[1], c[2]]);
            }
            _ => {}
        }
    }
    o
}

fn f32s(v: &serde_json::Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

#[test]
fn independent_fixture_matches_its_hand_computed_expectations() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../wad/tests/data/independent");
    let expect: serde_json::Value =
        serde_json::from_slice(&std::fs::read(data.join("indep.expect.json")).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("indep");
    let o = run(&[
        "export",
        path_str(&data.join("indep.wad")),
        path_str(&out),
        "--format",
        "obj",
        "--collision",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let obj = parse_obj(&std::fs::read_to_string(out.join("level.obj")).unwrap());
    let col = parse_obj(&std::fs::read_to_string(out.join("collision.obj")).unwrap());

    let mut checked_faces = 0;
    for tile in expect["tiles"].as_array().unwrap() {
        let name = format!(
            "tile_{:04}_m{:03}",
            tile["index"].as_u64().unwrap(),
            tile["model"].as_u64().unwrap()
        );
        let faces = tile["faces"].as_array().unwrap();
        if faces.is_empty() {
            continue;
        }
        let tris = &obj
            .objects
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("no object {name}"))
            .1;
        for f in faces {
            let pos: Vec<Vec<f32>> = f["positions_world"]
                .as_array()
                .unwrap()
                .iter()
                .map(f32s)
                .collect();
            let uvs: Vec<Vec<f32>> = f["uvs"].as_array().unwrap().iter().map(f32s).collect();
            let cols: Vec<Vec<f32>> = f["colors"].as_array().unwrap().iter().map(f32s).collect();
            // Find the triangle with these corners in this cyclic order (winding kept).
            let found = tris.iter().any(|t| {
                (0..3).any(|shift| {
                    (0..3).all(|k| {
                        let (vi, ti) = t[(k + shift) % 3];
                        let v = &obj.v[vi];
                        let p = [pos[k][0], pos[k][1], pos[k][2]];
                        let uv_ok = ti.is_some_and(|ti| {
                            let vt = obj.vt[ti];
                            (vt[0] - uvs[k][0]).abs() < 1e-6
                                && (vt[1] - (1.0 - uvs[k][1])).abs() < 1e-6
                        });
                        near(v, p, 1e-4)
                            && uv_ok
                            && v.len() == 6
                            && (0..3).all(|c| (v[3 + c] - cols[k][c]).abs() < 1e-5)
                    })
                })
            });
            assert!(
                found,
                "{name} face {}: no triangle with {pos:?} {uvs:?} {cols:?}",
                f["index"]
            );
            checked_faces += 1;
        }
        for c in tile["collision"].as_array().unwrap() {
            let group = format!(
                "mat{:02}_grp{}",
                c["material"].as_u64().unwrap(),
                c["group"].as_u64().unwrap()
            );
            let tris = &col
                .objects
                .iter()
                .find(|(n, _)| *n == group)
                .unwrap_or_else(|| panic!("no collision group {group}"))
                .1;
            let verts: Vec<&Vec<f32>> = tris.iter().flatten().map(|&(vi, _)| &col.v[vi]).collect();
            for (key, tol) in [("corners_world_engine", 1e-4), ("corners_world", 0.03)] {
                for corner in c[key].as_array().unwrap() {
                    let p = f32s(corner);
                    assert!(
                        verts.iter().any(|v| near(v, [p[0], p[1], p[2]], tol)),
                        "{name} {group}: no {key} corner near {p:?}"
                    );
                }
            }
        }
    }
    assert_eq!(
        checked_faces as u64,
        expect["counts"]["placed_triangles"].as_u64().unwrap()
    );
}

/// Two exports of the same level give the same bytes, and the GLB passes the Khronos
/// validator with no errors and no warnings (when node and tools/gltf-validator are installed;
/// otherwise that part is skipped with a note).
#[test]
fn exports_are_deterministic_and_valid_gltf() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, _) = demo_wad(dir.path());
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for out in [&a, &b] {
        let o = run(&[
            "export",
            path_str(&wad),
            path_str(out),
            "--collision",
            "--objects",
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    for f in [
        "level.glb",
        "level.obj",
        "level.mtl",
        "collision.obj",
        "objects.obj",
        "page_00.png",
    ] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f} differs between runs"
        );
    }
    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/gltf-validator");
    let node_ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !node_ok || !tool.join("node_modules").is_dir() {
        eprintln!("skipped: glTF validator not installed");
        return;
    }
    let o = Command::new("node")
        .arg(tool.join("validate.mjs"))
        .arg("--strict")
        .arg(a.join("level.glb"))
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(report.contains("0 errors, 0 warnings"), "{report}");
}
