//! The editing loop through the binary: `sample` → `import` → `check` → `probe`, `render`,
//! `export --preview`, and the refusals a user can run into.

use std::path::Path;

use super::common::{os, run};
use serde_json::Value;

/// Width and height from a PNG's IHDR chunk (bytes 16..24, big-endian).
fn png_size(p: &Path) -> (u32, u32) {
    let b = std::fs::read(p).unwrap();
    assert_eq!(&b[1..4], b"PNG");
    assert_eq!(&b[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    (be(16), be(20))
}

/// The `v x y z …` lines of an OBJ.
fn obj_vertices(p: &Path) -> Vec<[f32; 3]> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let f: Vec<f32> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            [f[0], f[1], f[2]]
        })
        .collect()
}

#[test]
fn sample_import_check_probe_finds_the_new_top() {
    let d = tempfile::tempdir().unwrap();
    let wad = d.path().join("demo.wad");
    assert_eq!(run(&[os("demo"), wad.as_os_str()]).0, 0);
    let obj = d.path().join("edit/sample.obj");
    let (code, text, err) = run(&[os("sample"), wad.as_os_str(), obj.as_os_str()]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(d.path().join("edit/sample.mtl").is_file(), "{text}");
    assert!(d.path().join("edit/page_00.png").is_file(), "{text}");

    let out = d.path().join("edited.wad");
    let (code, text, err) = run(&[
        os("import"),
        wad.as_os_str(),
        obj.as_os_str(),
        out.as_os_str(),
        os("--keep-tiles"),
        os("--json"),
    ]);
    assert_eq!(code, 0, "{text}{err}");
    let summary: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(summary["summary"]["uv_misfits"], 0, "{text}");
    assert!(summary["summary"]["tiles"].as_u64().unwrap() > 0, "{text}");
    assert_eq!(summary["collision"], "derived from the render mesh");
    // the sample names no tile of the base: cut as by --rebuild, and says so
    assert_eq!(
        summary["summary"]["mode"],
        "rebuild (the mesh names no tile of the base level)"
    );
    assert_eq!(summary["summary"]["zones"], "kept");

    let (code, text, _) = run(&[os("check"), out.as_os_str()]);
    assert_eq!(code, 0, "{text}");

    // the highest vertices of the sample are a block's top: probe finds it as the top floor
    let v = obj_vertices(&obj);
    let top = v.iter().map(|p| p[1]).fold(f32::MIN, f32::max);
    let on_top: Vec<&[f32; 3]> = v.iter().filter(|p| p[1] == top).collect();
    let (x, z) = (
        on_top.iter().map(|p| p[0]).sum::<f32>() / on_top.len() as f32,
        on_top.iter().map(|p| p[2]).sum::<f32>() / on_top.len() as f32,
    );
    let (code, text, err) = run(&[
        os("probe"),
        out.as_os_str(),
        os(&x.to_string()),
        os(&z.to_string()),
        os("--json"),
    ]);
    assert_eq!(code, 0, "{err}");
    let hits: Value = serde_json::from_str(&text).unwrap();
    let first = &hits["hits"][0];
    assert!(
        (first["y"].as_f64().unwrap() - f64::from(top)).abs() < 0.005,
        "{text}"
    );
    assert_eq!(first["kind"], "floor");
    // and the base level has nothing that high there
    let (_, text, _) = run(&[
        os("probe"),
        wad.as_os_str(),
        os(&x.to_string()),
        os(&z.to_string()),
        os("--json"),
    ]);
    let before: Value = serde_json::from_str(&text).unwrap();
    assert!(before["hits"]
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["y"].as_f64().unwrap() < f64::from(top) - 0.1));
}

#[test]
fn the_unedited_export_imports_to_the_same_bytes_and_rebuild_recuts() {
    let d = tempfile::tempdir().unwrap();
    let wad = d.path().join("demo.wad");
    assert_eq!(run(&[os("demo"), wad.as_os_str()]).0, 0);
    let ex = d.path().join("ex");
    let (code, text, err) = run(&[
        os("export"),
        wad.as_os_str(),
        ex.as_os_str(),
        os("--collision"),
    ]);
    assert_eq!(code, 0, "{text}{err}");
    let out = d.path().join("same.wad");
    let glb = ex.join("level.glb");
    let (code, text, err) = run(&[
        os("import"),
        wad.as_os_str(),
        glb.as_os_str(),
        out.as_os_str(),
        os("--json"),
    ]);
    assert_eq!(code, 0, "{text}{err}");
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&wad).unwrap());
    let v: Value = serde_json::from_str(&text).unwrap();
    let s = &v["summary"];
    assert_eq!(s["mode"], "edit", "{text}");
    assert_eq!(s["zones"], "kept");
    // the demo level: 90 tiles with a node (island and swap tiles), water tiles without
    let kept = s["edit"]["kept"].as_array().unwrap().len();
    assert!(kept >= 90, "{text}");
    for k in [
        "moved",
        "reshaped",
        "recut",
        "removed",
        "added",
        "swaps_dropped",
    ] {
        assert_eq!(s["edit"][k].as_array().unwrap().len(), 0, "{k}: {text}");
    }
    assert_eq!(
        s["edit"]["swaps_kept"].as_array().unwrap().len(),
        1,
        "{text}"
    );
    assert!(
        v["collision"].as_str().unwrap().contains("not edited"),
        "{text}"
    );
    // --rebuild: every tile cut from the mesh, so the bytes differ
    let cut = d.path().join("cut.wad");
    let (code, text, err) = run(&[
        os("import"),
        wad.as_os_str(),
        glb.as_os_str(),
        cut.as_os_str(),
        os("--rebuild"),
        os("--json"),
    ]);
    assert_eq!(code, 0, "{text}{err}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["summary"]["mode"], "rebuild", "{text}");
    assert!(v["summary"]["edit"].is_null());
    assert_ne!(std::fs::read(&cut).unwrap(), std::fs::read(&wad).unwrap());
    // an X-Ray-only option is refused for a WAD, --rebuild for an X-Ray level
    let x = Path::new(env!("CARGO_MANIFEST_DIR")).join("../xray/tests/data/xray-v14-micro");
    let (code, _, err) = run(&[
        os("import"),
        x.as_os_str(),
        glb.as_os_str(),
        d.path().join("xo").as_os_str(),
        os("--rebuild"),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--rebuild"), "{err}");
}

#[test]
fn import_never_overwrites_its_inputs_or_an_existing_file() {
    let d = tempfile::tempdir().unwrap();
    let wad = d.path().join("demo.wad");
    run(&[os("demo"), wad.as_os_str()]);
    let obj = d.path().join("s.obj");
    run(&[os("sample"), wad.as_os_str(), obj.as_os_str()]);
    let before = std::fs::read(&wad).unwrap();
    let (code, _, err) = run(&[
        os("import"),
        wad.as_os_str(),
        obj.as_os_str(),
        wad.as_os_str(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("refusing to overwrite the input"), "{err}");
    let (code, _, err) = run(&[
        os("import"),
        wad.as_os_str(),
        obj.as_os_str(),
        obj.as_os_str(),
        os("--force"),
    ]);
    assert_eq!(code, 2, "not even with --force");
    assert!(err.contains("refusing to overwrite the input"), "{err}");
    assert_eq!(std::fs::read(&wad).unwrap(), before);
    let other = d.path().join("other.wad");
    std::fs::write(&other, b"keep me").unwrap();
    let (code, _, err) = run(&[
        os("import"),
        wad.as_os_str(),
        obj.as_os_str(),
        other.as_os_str(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--force"), "{err}");
    assert_eq!(std::fs::read(&other).unwrap(), b"keep me");
}

#[test]
fn wad_only_commands_say_so_for_an_xray_level() {
    let x = Path::new(env!("CARGO_MANIFEST_DIR")).join("../xray/tests/data/xray-v14-micro");
    let (code, _, err) = run(&[os("probe"), x.as_os_str(), os("1"), os("2")]);
    assert_eq!(code, 2);
    assert!(
        err.contains("probe reads the collision of Argonaut WADs"),
        "{err}"
    );
    let d = tempfile::tempdir().unwrap();
    let (code, _, err) = run(&[
        os("import"),
        x.as_os_str(),
        os("mesh.obj"),
        d.path().join("o.wad").as_os_str(),
    ]);
    // import goes to the X-Ray importer, which needs the mesh file
    assert_eq!(code, 2);
    assert!(err.contains("mesh.obj"), "{err}");
}

#[test]
fn render_writes_a_png_of_the_asked_size() {
    let d = tempfile::tempdir().unwrap();
    let png = d.path().join("top.png");
    let (code, text, err) = run(&[
        os("render"),
        os("--demo"),
        png.as_os_str(),
        os("--view"),
        os("top"),
        os("--size"),
        os("320x200"),
    ]);
    assert_eq!(code, 0, "{text}{err}");
    assert_eq!(png_size(&png), (320, 200));
    // an existing file needs --force; a bad size or view is an argument error
    let (code, _, err) = run(&[os("render"), os("--demo"), png.as_os_str()]);
    assert_eq!(code, 2);
    assert!(err.contains("--force"), "{err}");
    let (code, _, err) = run(&[
        os("render"),
        os("--demo"),
        png.as_os_str(),
        os("--size"),
        os("0x5"),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("1 to 16384"), "{err}");
    let (code, _, _) = run(&[
        os("render"),
        os("--demo"),
        png.as_os_str(),
        os("--view"),
        os("side"),
    ]);
    assert_eq!(code, 2);
    // the X-Ray fixture renders too (shaded shapes: its textures are not on disk)
    let x = Path::new(env!("CARGO_MANIFEST_DIR")).join("../xray/tests/data/xray-v14-micro");
    let xp = d.path().join("x.png");
    let (code, text, err) = run(&[os("render"), x.as_os_str(), xp.as_os_str()]);
    assert_eq!(code, 0, "{text}{err}");
    assert_eq!(png_size(&xp), (1024, 768));
    // with --collision the X-Ray level's level.cform is drawn too (it lies on the level's own
    // surfaces); without a level.cform beside the level that is a clear error
    let xc = d.path().join("xc.png");
    let (code, _, err) = run(&[
        os("render"),
        x.as_os_str(),
        xc.as_os_str(),
        os("--collision"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(png_size(&xc), (1024, 768));
    let bare = d.path().join("bare");
    std::fs::create_dir(&bare).unwrap();
    for f in ["level", "level.geom"] {
        std::fs::copy(x.join(f), bare.join(f)).unwrap();
    }
    let (code, _, err) = run(&[
        os("render"),
        bare.as_os_str(),
        d.path().join("b.png").as_os_str(),
        os("--collision"),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("no level.cform beside"), "{err}");
}

#[test]
fn export_preview_writes_both_pictures_with_the_export() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let (code, text, err) = run(&[
        os("export"),
        os("--demo"),
        out.as_os_str(),
        os("--preview"),
        os("--format"),
        os("gltf"),
    ]);
    assert_eq!(code, 0, "{text}{err}");
    assert_eq!(png_size(&out.join("preview_top.png")), (1024, 768));
    assert_eq!(png_size(&out.join("preview_persp.png")), (1024, 768));
    assert!(text.contains("preview_persp.png"), "{text}");
    // a second export without --preview replaces the first, pictures included
    let (code, _, _) = run(&[
        os("export"),
        os("--demo"),
        out.as_os_str(),
        os("--format"),
        os("gltf"),
    ]);
    assert_eq!(code, 0);
    assert!(!out.join("preview_top.png").exists());
}
