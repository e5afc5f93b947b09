//! `levelgeom export` of X-Ray objects: `--only` kinds, `--portals`, lights (validated as
//! `KHR_lights_punctual`), and the WAD refusal of these options.

use std::path::Path;
use std::process::Command;

use super::common::s;
use super::common::xray_fixture_dir as fixture_dir;
use serde_json::Value;

fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_levelgeom"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn glb_json(p: &Path) -> Value {
    let g = levelgeom_testkit::glb::Glb::read(p);
    serde_json::from_slice(&g.json_chunk).unwrap()
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    v.sort();
    v
}

/// Validate with the Khronos validator when the project's script and node are present.
fn validate(glb: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script = root.join(".ci/validate-gltf.sh");
    let tool = root.join("tools/gltf-validator/node_modules");
    if !(script.is_file()
        && tool.is_dir()
        && Command::new("node").arg("--version").output().is_ok())
    {
        levelgeom_testkit::tool_missing(
            "the glTF validator (node + tools/gltf-validator/node_modules)",
        );
        return;
    }
    let o = Command::new("bash").arg(&script).arg(glb).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && out.contains(": 0 errors"), "{out}");
}

#[test]
fn only_exports_one_kind() {
    let d = tempfile::tempdir().unwrap();
    for (kind, want, meshes) in [
        ("static", "normal", 4),
        ("trees", "tree_st", 5),
        ("lods", "lod", 5),
    ] {
        let out = d.path().join(kind);
        let (code, text, err) = run(&["export", s(&fixture_dir()), s(&out), "--only", kind]);
        assert_eq!(code, 0, "{text}{err}");
        assert_eq!(
            files(&out),
            ["level.glb", "level.mtl", "level.obj"],
            "{kind}"
        );
        let j = glb_json(&out.join("level.glb"));
        let nodes = j["nodes"].as_array().unwrap();
        let with_mesh: Vec<&Value> = nodes.iter().filter(|n| n.get("mesh").is_some()).collect();
        assert_eq!(with_mesh.len(), meshes, "{kind}");
        for n in &with_mesh {
            assert_eq!(n["extras"]["model_type"], want, "{kind}");
        }
        // nodes without a mesh are only the hierarchy/LOD groups above them and `level`
        for n in nodes.iter().filter(|n| n.get("mesh").is_none()) {
            let name = n["name"].as_str().unwrap();
            assert!(
                name == "level" || n.get("children").is_some(),
                "{kind}: {name}"
            );
        }
        assert!(j.get("extensions").is_none(), "{kind}: no lights");
        let obj = std::fs::read_to_string(out.join("level.obj")).unwrap();
        assert_eq!(obj.lines().filter(|l| l.starts_with("o ")).count(), meshes);
        validate(&out.join("level.glb"));
    }
    // collision alone: its own files only (no empty level.glb), without --collision
    let out = d.path().join("collision");
    let (code, text, err) = run(&["export", s(&fixture_dir()), s(&out), "--only", "collision"]);
    assert_eq!(code, 0, "{text}{err}");
    assert_eq!(
        files(&out),
        ["collision.glb", "collision.mtl", "collision.obj"]
    );
    assert!(
        text.contains("collision: 4 meshes, 132 vertices, 44 triangles"),
        "{text}"
    );
}

#[test]
fn portals_are_their_own_hidden_files() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let (code, text, err) = run(&["export", s(&fixture_dir()), s(&out), "--portals"]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(
        text.contains("portals: 1 mesh, 4 vertices, 2 triangles"),
        "{text}"
    );
    let j = glb_json(&out.join("portals.glb"));
    let nodes = j["nodes"].as_array().unwrap();
    assert_eq!(nodes[0]["name"], "portal_000");
    assert_eq!(nodes[0]["extras"]["sector_front"], "0");
    assert_eq!(nodes[0]["extras"]["sector_back"], "1");
    assert_eq!(nodes[1]["name"], "portals");
    assert_eq!(nodes[1]["extras"]["hidden"], true);
    // the level file has no portal
    let level = glb_json(&out.join("level.glb"));
    assert!(level["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|n| !n["name"].as_str().unwrap().starts_with("portal")));
    // portals.obj: the 4 polygon vertices in world space, the fixture's hand-decoded
    // (±0.8122914, 0.4200720 | 0.8122914, −1) mirrored to z = +1
    let obj = std::fs::read_to_string(out.join("portals.obj")).unwrap();
    let v: Vec<Vec<f32>> = obj
        .lines()
        .filter(|l| l.starts_with("v "))
        .map(|l| l[2..].split(' ').map(|x| x.parse().unwrap()).collect())
        .collect();
    let want = [
        [-0.812_291_4, 0.420_072_02, 1.0],
        [0.812_291_4, 0.420_072_02, 1.0],
        [0.812_291_4, 0.812_291_4, 1.0],
        [-0.812_291_4, 0.812_291_4, 1.0],
    ];
    assert_eq!(v.len(), 4);
    for (a, b) in v.iter().zip(want) {
        for k in 0..3 {
            assert!((a[k] - b[k]).abs() < 1e-6, "{a:?} vs {b:?}");
        }
    }
    assert!(obj.contains("g portal_000"), "{obj}");
    assert_eq!(obj.lines().filter(|l| l.starts_with("f ")).count(), 2);
    validate(&out.join("portals.glb"));
}

#[test]
fn lights_validate_as_khr_lights_punctual() {
    use levelgeom_xray::chunk::Framed;
    use levelgeom_xray::level::{self, D3dLight, LevelChunk, Light};
    let d = tempfile::tempdir().unwrap();
    let (mut l, g) = levelgeom_xray::generate::level(Default::default());
    let rec = |t: u32, theta: f32, phi: f32| Light {
        controller: 0,
        d3d: D3dLight {
            light_type: t,
            diffuse: [1.0, 0.5, 0.25, 1.0],
            specular: [0.0; 4],
            ambient: [0.0; 4],
            position: [1.0, 3.0, 2.0],
            direction: [0.3, -0.9, 0.1],
            range: 6.0,
            falloff: 1.0,
            attenuation: [1.0, 0.0, 0.0],
            theta,
            phi,
        },
    };
    let lights = vec![rec(1, 0.0, 0.0), rec(2, 0.4, 1.2), rec(3, 0.0, 0.0)];
    l.chunks.insert(
        1,
        Framed::plain(level::LIGHT_DYNAMIC, LevelChunk::Lights(lights)),
    );
    std::fs::write(d.path().join("level"), l.to_bytes().unwrap()).unwrap();
    std::fs::write(d.path().join("level.geom"), g.to_bytes().unwrap()).unwrap();
    let out = d.path().join("out");
    let (code, text, err) = run(&["export", s(d.path()), s(&out), "--format", "gltf"]);
    assert_eq!(code, 0, "{text}{err}");
    let j = glb_json(&out.join("level.glb"));
    assert!(j["extensionsUsed"]
        .as_array()
        .unwrap()
        .contains(&Value::from("KHR_lights_punctual")));
    let ls = j["extensions"]["KHR_lights_punctual"]["lights"]
        .as_array()
        .unwrap();
    let types: Vec<&str> = ls.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["point", "spot", "directional"]);
    // D3D's full angles θ = 0.4, φ = 1.2 → glTF's half angles (f32 written shortest)
    let f = |v: &Value| v.as_f64().map(|x| x as f32);
    assert_eq!(f(&ls[1]["spot"]["innerConeAngle"]), Some(0.2));
    assert_eq!(f(&ls[1]["spot"]["outerConeAngle"]), Some(0.6));
    assert!(ls[2].get("range").is_none());
    assert_eq!(ls[0]["range"].as_f64(), Some(6.0));
    validate(&out.join("level.glb"));
}

#[test]
fn portals_and_only_do_not_apply_to_wads() {
    let d = tempfile::tempdir().unwrap();
    for args in [vec!["--portals"], vec!["--only", "static"]] {
        let out = d.path().join("out");
        let mut a = vec!["export", "--demo", s(&out)];
        a.extend(args.iter().copied());
        let (code, _, err) = run(&a);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("not apply"), "{err}");
        assert!(!out.exists());
    }
}
