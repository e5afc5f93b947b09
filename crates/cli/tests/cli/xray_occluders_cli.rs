//! `level.hom` / `level.som` through the binary: `info`, `rebuild --verify`, `check` of the
//! folder, `export --occluders`. The files are the generator's (written byte by byte in the
//! LevelEditor's layout); positions and values asserted are the generator's listed facts,
//! mirrored by hand (z negated).

use std::path::Path;

use levelgeom_xray::occluders::generate::{hom_bytes, som_bytes};
use serde_json::Value;

use super::common::{os, run, xray_fixture_dir};

fn level_with_occluders(dir: &Path) {
    for f in ["level", "level.geom", "level.geomx", "level.cform"] {
        std::fs::copy(xray_fixture_dir().join(f), dir.join(f)).unwrap();
    }
    std::fs::write(dir.join("level.hom"), hom_bytes()).unwrap();
    std::fs::write(dir.join("level.som"), som_bytes()).unwrap();
}

#[test]
fn info_rebuild_and_check_of_occluder_files() {
    let d = tempfile::tempdir().unwrap();
    let lvl = d.path().join("lvl");
    std::fs::create_dir(&lvl).unwrap();
    level_with_occluders(&lvl);

    let (code, out, err) = run(&[os("info"), os("--json"), lvl.join("level.som").as_os_str()]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["format"], "xray-som");
    assert_eq!(v["polygons"], 3);
    assert_eq!(v["two_sided"], 1);
    assert_eq!(v["occlusion"][1]["factor"], 0.75);
    assert_eq!(v["chunks"][1]["path"], "SOM_CHUNK_POLYGONS");
    assert_eq!(v["chunks"][1]["offset"], 12);
    assert_eq!(v["chunks"][1]["size"], 132);
    let (code, out, _) = run(&[os("info"), lvl.join("level.hom").as_os_str()]);
    assert_eq!(code, 0);
    assert!(out.contains("4 polygons (2 two-sided)"), "{out}");

    for f in ["level.hom", "level.som"] {
        let out_file = d.path().join(f);
        let (code, out, err) = run(&[
            os("rebuild"),
            os("--verify"),
            lvl.join(f).as_os_str(),
            out_file.as_os_str(),
        ]);
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(
            std::fs::read(&out_file).unwrap(),
            std::fs::read(lvl.join(f)).unwrap()
        );
    }

    let (code, out, err) = run(&[os("check"), lvl.as_os_str()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("level.hom") && out.contains("level.som"),
        "{out}"
    );
    // a SOM factor of 2 (polygon 0's at 20 + 40) is reported with the file, path and offset
    let mut s = som_bytes();
    s[60..64].copy_from_slice(&2.0f32.to_le_bytes());
    std::fs::write(lvl.join("level.som"), &s).unwrap();
    let (code, out, err) = run(&[os("check"), lvl.as_os_str()]);
    assert_ne!(code, 0, "{out}{err}");
    let all = format!("{out}{err}");
    assert!(
        all.contains("at 0x0000003C in") && all.contains("SOM_CHUNK_POLYGONS/poly[0]"),
        "{all}"
    );
}

#[test]
fn export_occluders_writes_hidden_trees_with_extras() {
    let d = tempfile::tempdir().unwrap();
    let lvl = d.path().join("lvl");
    std::fs::create_dir(&lvl).unwrap();
    level_with_occluders(&lvl);
    let out_dir = d.path().join("out");
    let (code, out, err) = run(&[
        os("export"),
        lvl.as_os_str(),
        out_dir.as_os_str(),
        os("--occluders"),
        os("--format"),
        os("all"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let glb = std::fs::read(out_dir.join("occluders.glb")).unwrap();
    // GLB: 12-byte header, then the JSON chunk (u32 length, "JSON", text)
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    assert_eq!(&glb[16..20], b"JSON");
    let json: Value = serde_json::from_slice(&glb[20..20 + len]).unwrap();
    let nodes = json["nodes"].as_array().unwrap();
    let node = |name: &str| {
        nodes
            .iter()
            .find(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("no node {name}"))
    };
    assert_eq!(node("occluders")["extras"]["hidden"], true);
    assert_eq!(node("hom")["extras"]["hidden"], true);
    assert_eq!(node("hom_flags1")["extras"]["two_sided"], "true");
    assert_eq!(node("som_occ0.75_2s")["extras"]["occlusion"], "0.75");
    // level.glb does not carry them
    let level = std::fs::read(out_dir.join("level.glb")).unwrap();
    assert!(!level.windows(9).any(|w| w == b"occluders"));
    // OBJ: HOM polygon 2 (0,1.5,0) (2,1.5,0) (2,1.5,2) mirrored and reversed
    let obj = std::fs::read_to_string(out_dir.join("occluders.obj")).unwrap();
    let g = obj.find("g hom_flags1").unwrap();
    assert!(
        obj[g..].starts_with("g hom_flags1\nv 0 1.5 0\nv 2 1.5 -2\nv 2 1.5 0\n"),
        "{}",
        &obj[g..]
    );
    // without --occluders, no occluder files
    let plain = d.path().join("plain");
    let (code, _, err) = run(&[os("export"), lvl.as_os_str(), plain.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    assert!(!plain.join("occluders.glb").exists());
}

#[test]
fn import_convert_and_render_take_the_occluders_along() {
    let d = tempfile::tempdir().unwrap();
    let lvl = d.path().join("lvl");
    std::fs::create_dir(&lvl).unwrap();
    level_with_occluders(&lvl);
    let exp = d.path().join("exp");
    let (code, out, err) = run(&[os("export"), lvl.as_os_str(), exp.as_os_str()]);
    assert_eq!(code, 0, "{out}{err}");
    // nothing edited: both files go into the output folder as they were, and the summary says so
    let out_dir = d.path().join("out");
    let (code, out, err) = run(&[
        os("import"),
        lvl.as_os_str(),
        exp.join("level.glb").as_os_str(),
        out_dir.as_os_str(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        std::fs::read(out_dir.join("level.hom")).unwrap(),
        hom_bytes()
    );
    assert_eq!(
        std::fs::read(out_dir.join("level.som")).unwrap(),
        som_bytes()
    );
    assert!(
        out.contains("level.hom: kept, 4 polygons before, 4 after"),
        "{out}"
    );
    assert!(
        out.contains("level.som: kept, 3 polygons before, 3 after"),
        "{out}"
    );
    // XRLC 12 has no level.som: left out, and the JSON summary says why
    let conv = d.path().join("v12");
    let (code, out, err) = run(&[
        os("convert"),
        lvl.as_os_str(),
        conv.as_os_str(),
        os("--to-version"),
        os("12"),
        os("--allow-loss"),
        os("--json"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["hom"]["mode"], "kept");
    assert!(v["summary"]["som"]["note"]
        .as_str()
        .unwrap()
        .contains("reads no level.som"));
    assert!(conv.join("level.hom").is_file() && !conv.join("level.som").exists());
    // render --occluders writes its picture
    let png = d.path().join("occ.png");
    let (code, out, err) = run(&[
        os("render"),
        lvl.as_os_str(),
        png.as_os_str(),
        os("--occluders"),
        os("--size"),
        os("64x48"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
}
