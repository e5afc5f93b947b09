//! Import checked by tools written from the format notes alone (tools/fixtures): the
//! independent WAD (`make_indep_wad.py`) plus an independently written edit
//! (`make_indep_obj.py`: a platform and a ramp, with hand-computed probe heights) imported, then
//! parsed by the independent checker `check_wad.py` (every docs/formats/argonaut-wad.md §21 rule, and with `--base` every
//! untouched byte), and probed at the points the edit's expectations list.
//!
//! Needs `python3` (the CI machine has it); without it the test says so and passes.

use std::path::Path;
use std::process::Command;

use levelgeom_core::ImportOptions;
use serde_json::Value;

use crate::workspace;

fn python() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn import(keep_tiles: bool, out: &Path) {
    let base = levelgeom_core::open(&crate::indep_wad()).unwrap();
    let r = base
        .import(
            &workspace("crates/wad/tests/data/independent/indep_edit.obj"),
            &ImportOptions {
                keep_tiles,
                ..ImportOptions::default()
            },
        )
        .unwrap();
    assert_eq!(r.summary.uv_misfits, 0, "{}", r.summary);
    std::fs::write(out, &r.bytes).unwrap();
}

#[test]
fn an_independent_checker_finds_the_import_of_an_independent_edit_consistent() {
    if !python() {
        levelgeom_testkit::tool_missing(
            "python3 (the independent checker tools/fixtures/check_wad.py)",
        );
        return;
    }
    let expect: Value = serde_json::from_str(
        &std::fs::read_to_string(workspace(
            "crates/wad/tests/data/independent/indep_edit.expect.json",
        ))
        .unwrap(),
    )
    .unwrap();
    let tol = expect["probe_tolerance"].as_f64().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    for (keep, key) in [(true, "hits_keep_tiles"), (false, "hits_replace")] {
        let out = tmp.path().join(format!("edit_{keep}.wad"));
        import(keep, &out);
        let o = Command::new("python3")
            .arg(workspace("tools/fixtures/check_wad.py"))
            .arg(&out)
            .arg("--base")
            .arg(crate::indep_wad())
            .arg("--json")
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
        assert_eq!(
            o.status.code(),
            Some(0),
            "keep_tiles {keep}: {report}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(
            report["problems"].as_array().map(Vec::len),
            Some(0),
            "{report}"
        );
        let level = levelgeom_core::open(&out).unwrap();
        for p in expect["probes"].as_array().unwrap() {
            let (x, z) = (
                p["x"].as_f64().unwrap() as f32,
                p["z"].as_f64().unwrap() as f32,
            );
            let want: Vec<f64> = p[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            let got: Vec<f64> = level
                .probe(x, z)
                .unwrap()
                .iter()
                .map(|h| f64::from(h.y))
                .collect();
            assert_eq!(
                got.len(),
                want.len(),
                "keep {keep} at {x} {z}: {got:?} vs {want:?}"
            );
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    (g - w).abs() <= tol,
                    "keep {keep} at {x} {z}: {got:?} vs {want:?}"
                );
            }
        }
    }
}

/// OBJ objects (`o NAME`) with their world-space vertices.
fn obj_objects(text: &str) -> Vec<(String, Vec<[f64; 3]>)> {
    let mut out: Vec<(String, Vec<[f64; 3]>)> = Vec::new();
    for l in text.lines() {
        let mut it = l.split_whitespace();
        match it.next() {
            Some("o") => out.push((it.next().unwrap().to_string(), Vec::new())),
            Some("v") => {
                let v: Vec<f64> = it.take(3).map(|x| x.parse().unwrap()).collect();
                out.last_mut().unwrap().1.push([v[0], v[1], v[2]]);
            }
            _ => {}
        }
    }
    out
}

/// MAP objects land where the independent reader (`check_wad.py --objects`, written from the
/// notes and the ENG-RE rebuild's description before our object code was read) puts them:
/// for the independent WAD (its two objects reference no mesh: markers centred on the
/// position), for `indep_objects.wad` (made by `make_indep_wad.py`: a mesh named by an
/// unaligned operand, one through a shared block, one marker; also against the generator's
/// own construction values) and for the generated modder level (meshes referenced directly and
/// through a shared block); every vertex where the reader's transform puts it.
#[test]
fn objects_land_where_an_independent_reading_of_the_map_puts_them() {
    if !python() {
        levelgeom_testkit::tool_missing(
            "python3 (the independent object reader tools/fixtures/check_wad.py)",
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let modder = tmp.path().join("modder.wad");
    let (level, _) = levelgeom_wad::generate::modder_level().unwrap();
    std::fs::write(&modder, level.to_bytes().unwrap()).unwrap();
    let mut meshes_seen = 0;
    let indep_objects = workspace("crates/wad/tests/data/independent/indep_objects.wad");
    for (name, wad) in [
        ("indep", crate::indep_wad()),
        ("indep_objects", indep_objects),
        ("modder", modder),
    ] {
        let o = Command::new("python3")
            .arg(workspace("tools/fixtures/check_wad.py"))
            .arg(&wad)
            .arg("--objects")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let indep: Value = serde_json::from_slice(&o.stdout).unwrap();
        let out = tmp.path().join(name);
        let opts = levelgeom_core::ExportOptions {
            formats: levelgeom_core::Formats {
                gltf: false,
                obj: true,
            },
            engine: levelgeom_core::EngineOptions {
                wad: Some(levelgeom_core::WadOptions {
                    objects: true,
                    ..Default::default()
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        levelgeom_core::open(&wad)
            .unwrap()
            .export(&out, &opts)
            .unwrap();
        let objs = obj_objects(&std::fs::read_to_string(out.join("objects.obj")).unwrap());
        let list = indep["objects"].as_array().unwrap();
        assert!(!list.is_empty(), "{name}");
        for ob in list {
            let i = ob["index"].as_u64().unwrap();
            let pos: Vec<f64> = ob["position"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            let meshes = ob["meshes"].as_array().unwrap();
            if meshes.is_empty() {
                let (_, vs) = objs
                    .iter()
                    .find(|(n, _)| *n == format!("map_object_{i:03}_marker"))
                    .unwrap_or_else(|| panic!("{name}: no marker for object {i}"));
                for k in 0..3 {
                    let c = vs.iter().map(|v| v[k]).sum::<f64>() / vs.len() as f64;
                    assert!(
                        (c - pos[k]).abs() < 1e-5,
                        "{name} object {i}: {c} vs {pos:?}"
                    );
                }
                continue;
            }
            for m in meshes {
                let model = m["mesh"].as_u64().unwrap();
                let (_, vs) = objs
                    .iter()
                    .find(|(n, _)| *n == format!("map_object_{i:03}_stpc_{model:03}"))
                    .unwrap_or_else(|| panic!("{name}: object {i} lacks STPC mesh {model}"));
                for w in m["vertices_world"].as_array().unwrap() {
                    let w: Vec<f64> = w
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_f64().unwrap())
                        .collect();
                    assert!(
                        vs.iter()
                            .any(|v| (0..3).all(|k| (v[k] - w[k]).abs() < 1e-5)),
                        "{name} object {i} mesh {model}: no vertex at {w:?}"
                    );
                }
                meshes_seen += 1;
            }
        }
        let placed = objs
            .iter()
            .filter(|(n, _)| n.starts_with("map_object_"))
            .count();
        let expected: usize = list
            .iter()
            .map(|o| o["meshes"].as_array().unwrap().len().max(1))
            .sum();
        assert_eq!(
            placed, expected,
            "{name}: one OBJ object per mesh or marker"
        );
    }
    assert_eq!(
        meshes_seen, 5,
        "indep_objects: rigid direct and skinned delegated; modder: crate twice and the totem"
    );

    // indep_objects.wad against its generator's own construction values (Python, from the notes)
    let expect: Value = serde_json::from_str(
        &std::fs::read_to_string(workspace(
            "crates/wad/tests/data/independent/indep_objects.expect.json",
        ))
        .unwrap(),
    )
    .unwrap();
    let objs = obj_objects(
        &std::fs::read_to_string(tmp.path().join("indep_objects").join("objects.obj")).unwrap(),
    );
    for ob in expect["objects"].as_array().unwrap() {
        let i = ob["index"].as_u64().unwrap();
        for m in ob["meshes"].as_array().unwrap() {
            let model = m["model"].as_u64().unwrap();
            let (_, vs) = objs
                .iter()
                .find(|(n, _)| *n == format!("map_object_{i:03}_stpc_{model:03}"))
                .unwrap();
            let want = m["vertices_world"].as_array().unwrap();
            for w in want {
                let w: Vec<f64> = w
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_f64().unwrap())
                    .collect();
                assert!(
                    vs.iter()
                        .any(|v| (0..3).all(|k| (v[k] - w[k]).abs() < 1e-5)),
                    "{w:?}"
                );
            }
        }
        if ob["marker"] == Value::Bool(true) {
            assert!(objs
                .iter()
                .any(|(n, _)| *n == format!("map_object_{i:03}_marker")));
        }
    }
}
