//! `levelgeom import` of an X-Ray level through the binary: export → edit the GLB (node
//! transforms, nodes removed, copied, a new box appended to the BIN chunk) → import → `check`
//! → export again, compared with the first export and hand-chosen offsets.

use std::path::{Path, PathBuf};

use super::common::{os, run, xray_fixture_dir as fixture_dir, XRAY_FILES as FILES};
use levelgeom_testkit::glb::Glb;
use serde_json::{json, Value};

/// Export `level` into `dir` (GLB, with collision when it has a cform) and return the level
/// GLB's path.
fn export(level: &Path, dir: &Path) -> PathBuf {
    let mut args = vec![
        os("export"),
        level.as_os_str(),
        dir.as_os_str(),
        os("--format"),
        os("gltf"),
    ];
    if level.join("level.cform").is_file() {
        args.push(os("--collision"));
    }
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    dir.join("level.glb")
}

/// `import --json`: exit code and the parsed report (or the error text).
fn import(level: &Path, glb: &Path, out: &Path, extra: &[&str]) -> (i32, Value, String) {
    let mut args = vec![
        os("import"),
        level.as_os_str(),
        glb.as_os_str(),
        out.as_os_str(),
        os("--json"),
    ];
    args.extend(extra.iter().map(os));
    let (code, text, err) = run(&args);
    let v = serde_json::from_str(&text).unwrap_or(Value::Null);
    (code, v, err)
}

/// Rewrite a GLB: `edit` changes its JSON and may append to its BIN chunk.
fn edit_glb(path: &Path, out: &Path, edit: impl FnOnce(&mut Value, &mut Vec<u8>)) {
    let g = Glb::read(path);
    let (mut json, mut bin) = (g.json, g.bin);
    edit(&mut json, &mut bin);
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    json["buffers"][0]["byteLength"] = json!(bin.len());
    let mut j = serde_json::to_vec(&json).unwrap();
    while j.len() % 4 != 0 {
        j.push(b' ');
    }
    let mut b = Vec::new();
    b.extend_from_slice(b"glTF");
    b.extend_from_slice(&2u32.to_le_bytes());
    b.extend_from_slice(&((12 + 8 + j.len() + 8 + bin.len()) as u32).to_le_bytes());
    b.extend_from_slice(&(j.len() as u32).to_le_bytes());
    b.extend_from_slice(b"JSON");
    b.extend_from_slice(&j);
    b.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    b.extend_from_slice(b"BIN\0");
    b.extend_from_slice(&bin);
    std::fs::write(out, b).unwrap();
}

fn node_index(json: &Value, prefix: &str) -> usize {
    json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["name"].as_str().unwrap_or("").starts_with(prefix))
        .unwrap_or_else(|| panic!("no node {prefix}"))
}

/// Move a node by `t` in its parent's frame (its `matrix` column 3, or `translation`, which
/// glTF applies after rotation and scale).
fn translate(node: &mut Value, t: [f64; 3]) {
    if let Some(m) = node.get_mut("matrix") {
        for k in 0..3 {
            let x = m[12 + k].as_f64().unwrap();
            m[12 + k] = json!(x + t[k]);
        }
    } else {
        let old = node
            .get("translation")
            .cloned()
            .unwrap_or(json!([0.0, 0.0, 0.0]));
        node["translation"] = json!([
            old[0].as_f64().unwrap() + t[0],
            old[1].as_f64().unwrap() + t[1],
            old[2].as_f64().unwrap() + t[2]
        ]);
    }
}

/// Column-major local matrix of a glTF node: `matrix`, or `T · R · S` from
/// `translation`, `rotation` (quaternion x, y, z, w) and `scale`.
fn local(node: &Value) -> [f64; 16] {
    if let Some(a) = node["matrix"].as_array() {
        let mut m = [0.0; 16];
        for (k, x) in a.iter().enumerate() {
            m[k] = x.as_f64().unwrap();
        }
        return m;
    }
    let get = |key: &str, default: &[f64]| -> Vec<f64> {
        node[key].as_array().map_or(default.to_vec(), |a| {
            a.iter().map(|x| x.as_f64().unwrap()).collect()
        })
    };
    let t = get("translation", &[0.0, 0.0, 0.0]);
    let q = get("rotation", &[0.0, 0.0, 0.0, 1.0]);
    let sc = get("scale", &[1.0, 1.0, 1.0]);
    let (x, y, z, w) = (q[0], q[1], q[2], q[3]);
    // rotation columns
    let r = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y + z * w),
            2.0 * (x * z - y * w),
        ],
        [
            2.0 * (x * y - z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z + x * w),
        ],
        [
            2.0 * (x * z + y * w),
            2.0 * (y * z - x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    let mut m = [0.0; 16];
    for c in 0..3 {
        for k in 0..3 {
            m[c * 4 + k] = r[c][k] * sc[c];
        }
    }
    m[12..15].copy_from_slice(&t);
    m[15] = 1.0;
    m
}

fn mul(a: &[f64; 16], b: &[f64; 16]) -> [f64; 16] {
    let mut o = [0.0; 16];
    for c in 0..4 {
        for r in 0..4 {
            o[c * 4 + r] = (0..4).map(|k| a[k * 4 + r] * b[c * 4 + k]).sum();
        }
    }
    o
}

/// World positions of the vertices of the node named `prefix…` (parents' matrices applied).
fn world_positions(g: &Glb, prefix: &str) -> Vec<[f64; 3]> {
    let nodes = g.array("nodes");
    let mut n = node_index(&g.json, prefix);
    let mesh = nodes[n]["mesh"].as_u64().unwrap() as usize;
    let mut m = local(&nodes[n]);
    while let Some(p) = nodes.iter().position(|x| {
        x["children"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c.as_u64() == Some(n as u64)))
    }) {
        m = mul(&local(&nodes[p]), &m);
        n = p;
    }
    let a = g.attr(mesh, 0, "POSITION").unwrap();
    g.rows(a)
        .iter()
        .map(|p| {
            let [x, y, z] = [p[0], p[1], p[2]].map(f64::from);
            [0, 1, 2].map(|r| m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r])
        })
        .collect()
}

fn assert_close(a: &[[f64; 3]], b: &[[f64; 3]], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (p, q) in a.iter().zip(b) {
        for k in 0..3 {
            assert!((p[k] - q[k]).abs() <= tol, "{what}: {p:?} vs {q:?}");
        }
    }
}

fn check_passes(dir: &Path) {
    let (code, text, err) = run(&[os("check"), dir.as_os_str()]);
    assert_eq!(code, 0, "{text}{err}");
}

/// Write a generated level (`level` + `level.geom`) into `dir`.
fn generated(dir: &Path, version: u16) {
    std::fs::create_dir_all(dir).unwrap();
    let (l, g) = levelgeom_xray::generate::level_bytes(levelgeom_xray::generate::Options {
        version,
        compress: false,
    });
    std::fs::write(dir.join("level"), l).unwrap();
    std::fs::write(dir.join("level.geom"), g).unwrap();
}

#[test]
fn unedited_export_imports_to_the_same_bytes() {
    let d = tempfile::tempdir().unwrap();
    let mut levels = vec![fixture_dir()];
    for v in [13, 14] {
        let p = d.path().join(format!("gen{v}"));
        generated(&p, v);
        levels.push(p);
    }
    for (k, level) in levels.iter().enumerate() {
        let exp = d.path().join(format!("exp{k}"));
        let glb = export(level, &exp);
        let out = d.path().join(format!("out{k}"));
        let (code, v, err) = import(level, &glb, &out, &[]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(v["summary"]["moved"], json!([]));
        for f in FILES {
            let a = level.join(f);
            if a.is_file() {
                assert_eq!(
                    std::fs::read(&a).unwrap(),
                    std::fs::read(out.join(f)).unwrap(),
                    "{f}"
                );
            } else {
                assert!(!out.join(f).exists(), "{f}");
            }
        }
        // an existing output is replaced only with --force; the input folder never
        let (code, _, err) = import(level, &glb, &out, &[]);
        assert_eq!(code, 2);
        assert!(err.contains("--force"), "{err}");
        assert_eq!(import(level, &glb, &out, &["--force"]).0, 0);
        let (code, _, err) = import(level, &glb, level, &["--force"]);
        assert_eq!(code, 2);
        assert!(err.contains("input"), "{err}");
    }
}

#[test]
fn moved_deleted_copied_and_new_visuals_of_the_fixture() {
    let d = tempfile::tempdir().unwrap();
    let level = fixture_dir();
    let glb = export(&level, &d.path().join("exp"));
    let base = Glb::read(&glb);
    let offset = [1.25, 0.5, -2.0];
    let edited = d.path().join("edited.glb");
    edit_glb(&glb, &edited, |j, bin| {
        // move visual 3 (a normal visual under hierarchy 14)
        let n = node_index(j, "visual_0003");
        translate(&mut j["nodes"][n], offset);
        // delete visual 0
        let n0 = node_index(j, "visual_0000") as u64;
        for node in j["nodes"].as_array_mut().unwrap() {
            if let Some(c) = node.get_mut("children").and_then(Value::as_array_mut) {
                c.retain(|x| x.as_u64() != Some(n0));
            }
        }
        // copy tree 12 next to itself, as Blender names a copy
        let t = node_index(j, "visual_0012");
        let mut copy = j["nodes"][t].clone();
        copy["name"] = json!("visual_0012_tree_st.001");
        translate(&mut copy, [0.0, 0.0, 5.0]);
        let nodes = j["nodes"].as_array_mut().unwrap();
        nodes.push(copy);
        let c = nodes.len() - 1;
        let lod = node_index(j, "visual_0013");
        j["nodes"][lod]["children"]
            .as_array_mut()
            .unwrap()
            .push(json!(c));
        // a new box, material named after a texture the level uses
        add_box(j, bin, [0.0, 3.0, 0.0], "ston\\ston_beton04");
    });
    let out = d.path().join("out");
    let (code, v, err) = import(&level, &edited, &out, &[]);
    assert_eq!(code, 0, "{err}");
    let s = &v["summary"];
    assert_eq!(s["moved"], json!([3]), "{s}");
    assert_eq!(s["removed"], json!([0]), "{s}");
    assert_eq!(s["added"].as_array().unwrap().len(), 2, "{s}");
    assert_eq!(s["visuals_after"], json!(17));
    // the box matched the shader of visual 0 (def_vertex, a vertex-lit layout without
    // lightmap UVs): what it lacked is listed
    assert_eq!(
        s["defaulted"],
        json!([{"visual": 16, "node": "Cube", "attributes": ["normal", "uv", "light", "hemi", "sun"]}]),
        "{s}"
    );
    assert_eq!(s["shaders_added"], json!([]));
    check_passes(&out);
    // export the result: positions as edited
    let again = Glb::read(&export(&out, &d.path().join("exp2")));
    // visual 3 is now visual 2 (visual 0 went)
    let moved: Vec<[f64; 3]> = world_positions(&base, "visual_0003")
        .iter()
        .map(|p| [p[0] + offset[0], p[1] + offset[1], p[2] + offset[2]])
        .collect();
    assert_close(
        &world_positions(&again, "visual_0002_normal"),
        &moved,
        1e-4,
        "moved",
    );
    // the others where they were (renumbered by one)
    for (old, new) in [(1, 0), (2, 1), (12, 11)] {
        assert_close(
            &world_positions(&again, &format!("visual_{new:04}_")),
            &world_positions(&base, &format!("visual_{old:04}_")),
            1e-6,
            "kept",
        );
    }
    // the copied tree (visual 15 of 15 kept + 1) and the box (16)
    let tree: Vec<[f64; 3]> = world_positions(&base, "visual_0012")
        .iter()
        .map(|p| [p[0], p[1], p[2] + 5.0])
        .collect();
    assert_close(
        &world_positions(&again, "visual_0015_tree_st"),
        &tree,
        1e-4,
        "copy",
    );
    let mut corners = world_positions(&again, "visual_0016_normal");
    corners.sort_by(|a, b| a.partial_cmp(b).unwrap());
    corners.dedup();
    let mut expect: Vec<[f64; 3]> = box_corners([0.0, 3.0, 0.0]).to_vec();
    expect.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_close(&corners, &expect, 1e-6, "box");
}

fn box_corners(c: [f64; 3]) -> [[f64; 3]; 8] {
    let mut out = [[0.0; 3]; 8];
    for (k, p) in out.iter_mut().enumerate() {
        let s = |b: usize| if k >> b & 1 == 1 { 0.5 } else { -0.5 };
        *p = [c[0] + s(0), c[1] + s(1), c[2] + s(2)];
    }
    out
}

/// Append a 1 m box (8 vertices, 12 triangles, no normals or UVs) as a new node and mesh.
fn add_box(j: &mut Value, bin: &mut Vec<u8>, c: [f64; 3], material: &str) {
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let corners = box_corners(c);
    let pos_at = bin.len();
    for p in corners {
        for x in p {
            bin.extend_from_slice(&(x as f32).to_le_bytes());
        }
    }
    let idx: [u16; 36] = [
        0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2,
        1, 3, 7, 1, 7, 5,
    ];
    let idx_at = bin.len();
    for i in idx {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    let views = j["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": pos_at, "byteLength": 96}));
    views.push(json!({"buffer": 0, "byteOffset": idx_at, "byteLength": 72}));
    let nv = views.len();
    let lo: Vec<f64> = (0..3).map(|k| c[k] - 0.5).collect();
    let hi: Vec<f64> = (0..3).map(|k| c[k] + 0.5).collect();
    let acc = j["accessors"].as_array_mut().unwrap();
    acc.push(json!({"bufferView": nv - 2, "componentType": 5126, "count": 8, "type": "VEC3", "min": lo, "max": hi}));
    acc.push(json!({"bufferView": nv - 1, "componentType": 5123, "count": 36, "type": "SCALAR"}));
    let na = acc.len();
    let mats = j["materials"].as_array_mut().unwrap();
    mats.push(json!({"name": material}));
    let nm = mats.len() - 1;
    let meshes = j["meshes"].as_array_mut().unwrap();
    meshes.push(json!({"name": "Cube", "primitives": [{"attributes": {"POSITION": na - 2}, "indices": na - 1, "material": nm}]}));
    let mesh = meshes.len() - 1;
    let nodes = j["nodes"].as_array_mut().unwrap();
    nodes.push(json!({"name": "Cube", "mesh": mesh}));
    let n = nodes.len() - 1;
    j["scenes"][0]["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!(n));
}

#[test]
fn a_glb_without_the_mapping_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let level = fixture_dir();
    let glb = export(&level, &d.path().join("exp"));
    let edited = d.path().join("edited.glb");
    edit_glb(&glb, &edited, |j, _| {
        for (k, n) in j["nodes"].as_array_mut().unwrap().iter_mut().enumerate() {
            n["name"] = json!(format!("Object.{k:03}"));
            n.as_object_mut().unwrap().remove("extras");
        }
    });
    let out = d.path().join("out");
    let (code, _, err) = import(&level, &edited, &out, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("Include › Custom Properties"), "{err}");
    assert!(!out.exists());
}

#[test]
fn collision_follows_a_moved_visual_and_can_be_replaced() {
    let d = tempfile::tempdir().unwrap();
    let level = fixture_dir();
    let glb = export(&level, &d.path().join("exp"));
    // the collision export imported back as the cform: the same 44 triangles
    let out = d.path().join("out");
    let coll = d.path().join("exp/collision.glb");
    let (code, v, err) = import(&level, &glb, &out, &["--collision", coll.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["summary"]["collision"]["mode"], "replaced");
    assert_eq!(v["summary"]["collision"]["faces_after"], json!(44));
    check_passes(&out);
    let base = levelgeom_xray::Cform::read(&std::fs::read(level.join("level.cform")).unwrap())
        .unwrap()
        .0;
    let new = levelgeom_xray::Cform::read(&std::fs::read(out.join("level.cform")).unwrap())
        .unwrap()
        .0;
    let corners = |c: &levelgeom_xray::Cform| {
        type Corners = ([u32; 3], [u32; 3], [u32; 3], u32);
        let mut v: Vec<Corners> = c
            .tris
            .iter()
            .map(|t| {
                let p = |i: usize| c.vertices[t.verts[i] as usize].map(f32::to_bits);
                (p(0), p(1), p(2), t.dummy)
            })
            .collect();
        v.sort();
        v
    };
    // same corners (in the same order per triangle), material and sector words
    assert_eq!(corners(&new), corners(&base));
    // moving every visual alike moves every collision triangle that lies on one
    let moved_glb = d.path().join("moved.glb");
    edit_glb(&glb, &moved_glb, |j, _| {
        let roots: Vec<usize> = j["scenes"][0]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as usize)
            .collect();
        for r in roots {
            translate(&mut j["nodes"][r], [0.0, 10.0, 0.0]);
        }
    });
    let out2 = d.path().join("out2");
    let (code, v, err) = import(&level, &moved_glb, &out2, &[]);
    assert_eq!(code, 0, "{err}");
    let c = &v["summary"]["collision"];
    assert_eq!(c["mode"], "followed", "{c}");
    let moved = c["moved"].as_u64().unwrap();
    // xrLC builds the collision from the visuals' faces: every triangle lies on one
    assert_eq!(moved, 44, "{c}");
    assert_eq!(c["ambiguous"], json!(0));
    check_passes(&out2);
    let new = levelgeom_xray::Cform::read(&std::fs::read(out2.join("level.cform")).unwrap())
        .unwrap()
        .0;
    for (a, b) in base.tris.iter().zip(&new.tris) {
        assert_eq!(a.dummy, b.dummy);
        for k in 0..3 {
            let (p, q) = (
                base.vertices[a.verts[k] as usize],
                new.vertices[b.verts[k] as usize],
            );
            assert!((q[0] - p[0]).abs() < 1e-5 && (q[1] - p[1] - 10.0).abs() < 1e-4);
            assert!((q[2] - p[2]).abs() < 1e-5);
        }
    }
    assert!(new.bbox_min[1] >= base.bbox_min[1] + 10.0 - 1e-4);
}

/// XRLC 4–12 through the binary: the output folder holds `level` only (the geometry is inside
/// it), unchanged bytes when nothing was edited, the moved visual at its offset in the next
/// export; `--to-version` to another build is refused when it loses data.
#[test]
fn an_old_build_is_written_back_in_its_own_build() {
    for version in [5u16, 9, 12] {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("base");
        std::fs::create_dir(&base).unwrap();
        let (lb, _) = levelgeom_xray::generate::level_bytes(levelgeom_xray::generate::Options {
            version,
            compress: false,
        });
        std::fs::write(base.join("level"), &lb).unwrap();
        let ex = tmp.path().join("ex");
        std::fs::create_dir(&ex).unwrap();
        let glb = export(&base, &ex);
        let same = tmp.path().join("same");
        let (code, v, err) = import(&base, &glb, &same, &[]);
        assert_eq!(code, 0, "v{version}: {err}");
        assert_eq!(v["summary"]["build_in"], json!(version));
        assert_eq!(v["summary"]["build_out"], json!(version));
        assert_eq!(std::fs::read(same.join("level")).unwrap(), lb, "v{version}");
        assert!(
            !same.join("level.geom").exists(),
            "v{version}: no level.geom"
        );
        // move visual 0 by a hand-chosen offset
        let moved = tmp.path().join("moved.glb");
        edit_glb(&glb, &moved, |j, _| {
            let n = node_index(j, "visual_0000_");
            translate(&mut j["nodes"][n], [0.0, 2.0, 0.0]);
        });
        let out = tmp.path().join("out");
        let (code, v, err) = import(&base, &moved, &out, &[]);
        assert_eq!(code, 0, "v{version}: {err}");
        assert_eq!(v["summary"]["moved"], json!([0]), "v{version}");
        let (code, text, err) = run(&[os("check"), out.join("level").as_os_str()]);
        assert_eq!(code, 0, "v{version}: {text} {err}");
        let nb = std::fs::read(out.join("level")).unwrap();
        assert_ne!(nb, lb);
        let l = levelgeom_xray::Level::read(&nb).unwrap().0;
        assert_eq!(l.version(), Some(version));
        let b0 = levelgeom_xray::Level::read(&lb).unwrap().0;
        let g = levelgeom_xray::Geom { chunks: Vec::new() };
        let s0 = levelgeom_xray::to_scene(&b0, &g, &Default::default()).unwrap();
        let s1 = levelgeom_xray::to_scene(&l, &g, &Default::default()).unwrap();
        let corners = |s: &levelgeom_scene::Scene| -> Vec<[f32; 3]> {
            let n = s
                .nodes
                .iter()
                .position(|n| n.name.starts_with("visual_0000_"))
                .unwrap();
            let w = s.world_matrices();
            let p = &s.meshes[s.nodes[n].mesh.unwrap()].primitives[0];
            p.positions
                .iter()
                .map(|&q| levelgeom_scene::transform_point(&w[n], q))
                .collect()
        };
        for (a, b) in corners(&s0).iter().zip(corners(&s1)) {
            assert!((b[1] - a[1] - 2.0).abs() < 1e-4 && (b[0] - a[0]).abs() < 1e-4);
        }
        // another build: XRLC 5 and 9 lose data on the way to 14 (refused without
        // --allow-loss), 12 loses nothing (xray_convert_cli.rs tests the conversion)
        let (code, _, err) = import(&base, &glb, &tmp.path().join("x"), &["--to-version", "14"]);
        if version < 12 {
            assert_ne!(code, 0);
            assert!(err.contains("--allow-loss"), "{err}");
        } else {
            assert_eq!(code, 0, "{err}");
        }
    }
}

/// A `--collision` mesh with a corner that is no number (`nan`), or absurdly far (1e30), is
/// refused with exit 2, the error naming the collision file (not the level mesh), the node and
/// the triangle; nothing is written. Before, the NaN corner went into `level.cform`.
#[test]
fn a_collision_corner_that_is_no_point_is_refused_naming_the_collision_file() {
    let d = tempfile::tempdir().unwrap();
    let glb = export(&fixture_dir(), &d.path().join("ex"));
    for (name, corner) in [("nan.obj", "1 0 nan"), ("far.obj", "1 0 1e30")] {
        let coll = d.path().join(name);
        std::fs::write(
            &coll,
            format!("o mat0_sec0\nv 0 0 0\nv {corner}\nv 0 0 1\nf 1 2 3\n"),
        )
        .unwrap();
        let out = d.path().join(format!("out-{name}"));
        let (code, _, err) = import(
            &fixture_dir(),
            &glb,
            &out,
            &["--collision", coll.to_str().unwrap()],
        );
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains(&format!(
                "{name}: collision mesh: node \"mat0_sec0\", triangle 0"
            )),
            "{err}"
        );
        assert!(err.contains("is not a point of a level"), "{err}");
        assert!(!out.exists(), "{name}: nothing may be written");
    }
}
