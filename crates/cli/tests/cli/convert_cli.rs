//! `levelgeom convert LEVEL_DIR OUT_DIR --to-version N`: the real v14 fixture written as
//! XRLC 13 and back without an export in between. Facts compared with: the fixture's own bytes
//! (14 → 13 is lossless, so 14 → 13 → 14 must give them back), the header version bytes, the
//! fixture's 16 visuals, and `import --to-version` of the fixture's own export (the same
//! conversion by the other road).

use std::path::Path;

use super::common::{os, run, xray_fixture_dir as fixture_dir, XRAY_FILES as FILES};
use serde_json::Value;

fn convert(base: &Path, out: &Path, to: &str, extra: &[&str]) -> (i32, Value, String) {
    let mut args = vec![
        os("convert"),
        base.as_os_str(),
        out.as_os_str(),
        os("--to-version"),
        os(to),
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

/// The `u16 version` of a chunk file's header chunk (`u32 id 1, u32 size, u16 version`).
fn version(path: &Path) -> u16 {
    let b = std::fs::read(path).unwrap();
    u16::from_le_bytes([b[8], b[9]])
}

#[test]
fn the_fixture_goes_to_13_and_back_to_its_own_bytes() {
    let d = tempfile::tempdir().unwrap();
    let fx = fixture_dir();
    let (c13, c14) = (d.path().join("v13"), d.path().join("v14"));
    let (code, v, err) = convert(&fx, &c13, "13", &[]);
    assert_eq!(code, 0, "{err}");
    let s = &v["summary"];
    assert_eq!(
        (s["build_in"].as_u64(), s["build_out"].as_u64()),
        (Some(14), Some(13))
    );
    assert_eq!(s["kept"].as_u64(), Some(16), "{s}");
    assert_eq!(
        s["conversion"]["lost"].as_array().map(Vec::len),
        Some(0),
        "{s}"
    );
    for f in ["level", "level.geom", "level.geomx"] {
        assert_eq!(version(&c13.join(f)), 13, "{f}");
    }
    let (code, _, err) = run(&[os("check"), c13.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    // 13 → 14 drops the derived level.geomx UVs: refused without --allow-loss, naming it
    let (code, _, err) = convert(&c13, &c14, "14", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--allow-loss") && err.contains("level.geomx"),
        "{err}"
    );
    assert!(!c14.exists(), "a refused conversion writes nothing");
    let (code, _, err) = convert(&c13, &c14, "14", &["--allow-loss"]);
    assert_eq!(code, 0, "{err}");
    for f in FILES {
        // the fixture's header quality (1) has no place in XRLC 13's u32 header: 0 after 13
        let mut want = std::fs::read(fx.join(f)).unwrap();
        if f != "level.cform" {
            want[10..12].copy_from_slice(&[0, 0]);
        }
        assert!(
            want == std::fs::read(c14.join(f)).unwrap(),
            "{f} differs from the fixture's after 14 → 13 → 14 (quality aside)"
        );
    }
}

#[test]
fn convert_gives_the_bytes_import_of_the_own_export_gives() {
    let d = tempfile::tempdir().unwrap();
    let fx = fixture_dir();
    let exp = d.path().join("exp");
    let (code, _, err) = run(&[os("export"), fx.as_os_str(), exp.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    let via_import = d.path().join("via_import");
    let (code, _, err) = run(&[
        os("import"),
        fx.as_os_str(),
        exp.join("level.glb").as_os_str(),
        via_import.as_os_str(),
        os("--to-version"),
        os("13"),
    ]);
    assert_eq!(code, 0, "{err}");
    let direct = d.path().join("direct");
    let (code, _, err) = convert(&fx, &direct, "13", &[]);
    assert_eq!(code, 0, "{err}");
    for f in FILES {
        assert!(
            std::fs::read(via_import.join(f)).unwrap() == std::fs::read(direct.join(f)).unwrap(),
            "{f}: convert and import of the export differ"
        );
    }
}

#[test]
fn an_old_target_writes_level_alone_with_the_collision_inside() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("v5");
    let (code, v, err) = convert(&fixture_dir(), &out, "5", &["--allow-loss"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(version(&out.join("level")), 5);
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["level".to_string()]);
    let c = v["collision"].as_str().unwrap();
    assert!(c.contains("inside `level`") && c.contains("XRLC 5"), "{c}");
    // the 44 collision triangles of the fixture come out of the v5 level's own chunk
    let x = d.path().join("x");
    let (code, _, err) = run(&[
        os("export"),
        out.as_os_str(),
        x.as_os_str(),
        os("--collision"),
        os("--format"),
        os("obj"),
    ]);
    assert_eq!(code, 0, "{err}");
    let obj = std::fs::read_to_string(x.join("collision.obj")).unwrap();
    assert_eq!(obj.lines().filter(|l| l.starts_with("f ")).count(), 44);
}

#[test]
fn wads_unknown_builds_and_the_input_folder_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let wad = d.path().join("demo.wad");
    assert_eq!(run(&[os("demo"), wad.as_os_str()]).0, 0);
    let (code, _, err) = convert(&wad, &d.path().join("w"), "13", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is for X-Ray levels"), "{err}");
    let fx = fixture_dir();
    let (code, _, err) = convert(&fx, &d.path().join("x"), "15", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--to-version 15"), "{err}");
    // the input's own folder is never written into
    let copy = d.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    for f in FILES {
        std::fs::copy(fx.join(f), copy.join(f)).unwrap();
    }
    let (code, _, err) = convert(&copy, &copy, "13", &["--force"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        version(&copy.join("level")),
        14,
        "the input stays as it was"
    );
}
