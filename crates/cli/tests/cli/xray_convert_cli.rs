//! `levelgeom import … --to-version N [--allow-loss]` through the binary: the real v14 fixture
//! written as XRLC 13 and back. Facts compared with: the files' header bytes (chunk 1 =
//! `u32 id 1, u32 size 4, u16 version, u16 quality`), the vertex strides the spec gives for
//! each build, the fixture's own bytes and its OBJ export.

use std::path::{Path, PathBuf};

use super::common::{os, run, xray_fixture_dir as fixture_dir, XRAY_FILES as FILES};
use serde_json::{json, Value};

fn export(level: &Path, dir: &Path, format: &str) -> PathBuf {
    let (code, _, err) = run(&[
        os("export"),
        level.as_os_str(),
        dir.as_os_str(),
        os("--format"),
        os(format),
    ]);
    assert_eq!(code, 0, "{err}");
    dir.join(if format == "obj" {
        "level.obj"
    } else {
        "level.glb"
    })
}

fn import(level: &Path, mesh: &Path, out: &Path, extra: &[&str]) -> (i32, Value, String) {
    let mut args = vec![
        os("import"),
        level.as_os_str(),
        mesh.as_os_str(),
        out.as_os_str(),
        os("--json"),
    ];
    args.extend(extra.iter().map(os));
    let (code, text, err) = run(&args);
    (
        code,
        serde_json::from_str(&text).unwrap_or(Value::Null),
        err,
    )
}

/// The XRLC version in a file's header chunk (chunk 1 first): the engine's `hdrLEVEL` is 128
/// bytes (`u32 version; char name[124]`) in a `level` of XRLC 4–10, 4 bytes otherwise
/// (`xr_3da/xrLevel.h`, 2002-01-15 to 2003-06-20, then from 2003-08-29).
fn header_version(path: &Path) -> u16 {
    let b = std::fs::read(path).unwrap();
    let v = u16::from_le_bytes([b[8], b[9]]);
    let size = if v <= 10 && path.ends_with("level") {
        128
    } else {
        4
    };
    assert_eq!(&b[..4], &[1, 0, 0, 0], "{}", path.display());
    assert_eq!(
        u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        size,
        "{}",
        path.display()
    );
    v
}

/// The `v` and `vt` lines of an OBJ export (positions and base UVs as text).
fn obj_geometry(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("v ") || l.starts_with("vt "))
        .map(str::to_string)
        .collect()
}

#[test]
fn fixture_to_13_and_back_to_14() {
    let d = tempfile::tempdir().unwrap();
    let fx = fixture_dir();
    let glb = export(&fx, &d.path().join("exp"), "gltf");
    let v13 = d.path().join("v13");
    let (code, v, err) = import(&fx, &glb, &v13, &["--to-version", "13"]);
    assert_eq!(code, 0, "{err}");
    let c = &v["summary"]["conversion"];
    assert_eq!((&c["from"], &c["to"]), (&json!(14), &json!(13)), "{v}");
    assert_eq!(c["lost"], json!([]));
    assert_eq!(c["max_uv_error"], json!(0.0));
    for f in ["level", "level.geom", "level.geomx"] {
        assert_eq!(header_version(&v13.join(f)), 13, "{f}");
    }
    // v13 static vertices are 4 bytes longer (FLOAT2 base UV) and level.geomx carries a
    // SHORT2 UV (16 bytes a vertex instead of 12): both files grow
    for f in ["level.geom", "level.geomx"] {
        let (a, b) = (
            std::fs::metadata(fx.join(f)).unwrap().len(),
            std::fs::metadata(v13.join(f)).unwrap().len(),
        );
        assert!(b > a, "{f}: {a} → {b}");
    }
    // our check passes and the geometry exports the same (positions and UVs as text)
    let (code, text, err) = run(&[os("check"), v13.as_os_str()]);
    assert_eq!(code, 0, "{text}{err}");
    let a = obj_geometry(&export(&fx, &d.path().join("obj14"), "obj"));
    let b = obj_geometry(&export(&v13, &d.path().join("obj13"), "obj"));
    assert!(!a.is_empty());
    assert_eq!(a, b);

    // back to 14: dropping the v13 level.geomx UVs is a loss, named, refused
    let glb13 = export(&v13, &d.path().join("exp13"), "gltf");
    let back = d.path().join("back");
    let (code, _, err) = import(&v13, &glb13, &back, &["--to-version", "14"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("loses data")
            && err.contains("level.geomx base UVs")
            && err.contains("--allow-loss"),
        "{err}"
    );
    assert!(!back.exists(), "nothing written when refused");
    let (code, v, err) = import(&v13, &glb13, &back, &["--to-version", "14", "--allow-loss"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        v["summary"]["conversion"]["lost"].as_array().unwrap().len(),
        1
    );
    for f in FILES {
        // the fixture's header quality (1) has no place in XRLC 13's u32 header: 0 after 13
        let mut want = std::fs::read(fx.join(f)).unwrap();
        if f != "level.cform" {
            want[10..12].copy_from_slice(&[0, 0]);
        }
        assert!(
            want == std::fs::read(back.join(f)).unwrap(),
            "{f} differs from the fixture's after 14 → 13 → 14 (quality aside)"
        );
    }
}

#[test]
fn other_builds_and_wads_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let fx = fixture_dir();
    let glb = export(&fx, &d.path().join("exp"), "gltf");
    for n in ["7", "15"] {
        let (code, _, err) = import(&fx, &glb, &d.path().join(n), &["--to-version", n]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains(&format!("--to-version {n}")) && err.contains("4, 5 and 8–14"),
            "{err}"
        );
    }
    let (code, v, err) = import(&fx, &glb, &d.path().join("same"), &["--to-version", "14"]);
    assert_eq!(code, 0, "{err}");
    assert!(v["summary"].get("conversion").is_none(), "{v}");
    // a WAD has no builds to convert
    let wad = d.path().join("demo.wad");
    assert_eq!(run(&[os("demo"), wad.as_os_str()]).0, 0);
    let (code, _, err) = import(&wad, &glb, &d.path().join("x.wad"), &["--to-version", "13"]);
    assert_eq!(code, 2);
    assert!(err.contains("--to-version is an X-Ray option"), "{err}");
}

/// An old build (XRLC 9: FVF buffers, OGF 3 visuals, the collision inside `level`) raised to
/// 14: the four files appear with version-14 headers (`level.cform` version 4 in its first
/// word), `check` passes, `info` names XRLC 14, the export has visual 0 where the base's has
/// it; without --allow-loss nothing is written and the error names the lost light fields.
#[test]
fn an_old_build_is_raised_to_14() {
    let d = tempfile::tempdir().unwrap();
    let base = d.path().join("base");
    std::fs::create_dir(&base).unwrap();
    let (lb, _) = levelgeom_xray::generate::level_bytes(levelgeom_xray::generate::Options {
        version: 9,
        compress: false,
    });
    std::fs::write(base.join("level"), &lb).unwrap();
    let glb = export(&base, &d.path().join("exp"), "gltf");
    let out = d.path().join("v14");
    let (code, _, err) = import(&base, &glb, &out, &["--to-version", "14"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("loses data") && err.contains("glows") && err.contains("--allow-loss"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written when refused");
    let (code, v, err) = import(&base, &glb, &out, &["--to-version", "14", "--allow-loss"]);
    assert_eq!(code, 0, "{err}");
    let c = &v["summary"]["conversion"];
    assert_eq!((&c["from"], &c["to"]), (&json!(9), &json!(14)), "{v}");
    assert_eq!(v["summary"]["build_out"], json!(14));
    assert!(!c["lost"].as_array().unwrap().is_empty(), "{v}");
    for f in ["level", "level.geom", "level.geomx"] {
        assert_eq!(header_version(&out.join(f)), 14, "{f}");
    }
    let cf = std::fs::read(out.join("level.cform")).unwrap();
    assert_eq!(&cf[..4], &[4, 0, 0, 0], "level.cform version 4");
    let (code, text, err) = run(&[os("check"), out.as_os_str()]);
    assert_eq!(code, 0, "{text}{err}");
    let (code, text, err) = run(&[os("info"), out.join("level").as_os_str()]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("XRLC version 14"), "{text}");
    // the OBJ exports have the same vertices and UVs (v13/14 UVs of these values are exact)
    let a = obj_geometry(&export(&base, &d.path().join("obj9"), "obj"));
    let b = obj_geometry(&export(&out, &d.path().join("obj14"), "obj"));
    assert!(!a.is_empty());
    let sorted = |mut x: Vec<String>| {
        x.sort();
        x.dedup();
        x
    };
    assert_eq!(sorted(a), sorted(b));
}

/// The file names in a folder, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn fixture_to_12_and_10_writes_level_and_cform_only() {
    let d = tempfile::tempdir().unwrap();
    let fx = fixture_dir();
    let glb = export(&fx, &d.path().join("exp"), "gltf");
    // 12 stores the 13 layouts: nothing is lost, no --allow-loss needed
    let v12 = d.path().join("v12");
    let (code, v, err) = import(&fx, &glb, &v12, &["--to-version", "12"]);
    assert_eq!(code, 0, "{err}");
    let c = &v["summary"]["conversion"];
    assert_eq!((&c["from"], &c["to"]), (&json!(14), &json!(12)), "{v}");
    assert_eq!(c["lost"], json!([]), "{v}");
    assert_eq!(names(&v12), ["level", "level.cform"]);
    assert_eq!(header_version(&v12.join("level")), 12);
    // the collision file is the fixture's (XRLC 10–12 keep level.cform beside level)
    assert!(
        std::fs::read(fx.join("level.cform")).unwrap()
            == std::fs::read(v12.join("level.cform")).unwrap()
    );
    let (code, text, err) = run(&[os("check"), v12.as_os_str()]);
    assert_eq!(code, 0, "{text}{err}");
    let (code, text, err) = run(&[os("info"), v12.join("level").as_os_str()]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("XRLC version 12"), "{text}");
    // the same positions in the OBJ export
    let a = obj_geometry(&export(&fx, &d.path().join("obj14"), "obj"));
    let b = obj_geometry(&export(&v12, &d.path().join("obj12"), "obj"));
    let pos = |x: &[String]| -> Vec<String> {
        x.iter().filter(|l| l.starts_with("v ")).cloned().collect()
    };
    assert!(!a.is_empty());
    assert_eq!(pos(&a), pos(&b));

    // 10 quantises base UVs and has no tangents: refused, named, then written with the flag
    let v10 = d.path().join("v10");
    let (code, _, err) = import(&fx, &glb, &v10, &["--to-version", "10"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("loses data")
            && err.contains("tangents and binormals")
            && err.contains("base UVs of")
            && err.contains("--allow-loss"),
        "{err}"
    );
    assert!(!v10.exists(), "nothing written when refused");
    let (code, v, err) = import(&fx, &glb, &v10, &["--to-version", "10", "--allow-loss"]);
    assert_eq!(code, 0, "{err}");
    assert!(!v["summary"]["conversion"]["lost"]
        .as_array()
        .unwrap()
        .is_empty());
    assert_eq!(names(&v10), ["level", "level.cform"]);
    assert_eq!(header_version(&v10.join("level")), 10);
    // the fixture has no name to keep: the 128-byte header names the level after its folder
    let lb = std::fs::read(v10.join("level")).unwrap();
    assert_eq!(&lb[12..16], b"v10\0");
    let (code, text, err) = run(&[os("check"), v10.as_os_str()]);
    assert_eq!(code, 0, "{text}{err}");
    assert_eq!(
        pos(&a),
        pos(&obj_geometry(&export(&v10, &d.path().join("obj10"), "obj")))
    );
}
