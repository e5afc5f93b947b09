//! `level.ai` / `level.details` through the binary: `info`, `rebuild --verify`, `check` of the
//! folder, `export --ai --details` (hidden trees, the density map), and `import` copying both
//! files with what the edit left stale in the summary. The files are the generators'
//! (written byte by byte from the engine's structures); the numbers asserted are theirs.

use std::path::{Path, PathBuf};

use levelgeom_testkit::glb::Glb;
use levelgeom_xray::ai::generate::{ai_bytes, sample};
use levelgeom_xray::details::generate::{details_bytes, sample as slots};
use serde_json::Value;

use super::common::{gltf_validator, os, run};

/// A generated XRLC 14 level with a version 8 `level.ai` (4 nodes) and a version 3
/// `level.details` (3 × 2 slots, offset (1, 1)).
fn level(dir: &Path) -> PathBuf {
    let lvl = dir.join("lvl");
    std::fs::create_dir(&lvl).unwrap();
    let (l, g) = levelgeom_xray::generate::level_bytes(levelgeom_xray::generate::Options {
        version: 14,
        compress: false,
    });
    std::fs::write(lvl.join("level"), l).unwrap();
    std::fs::write(lvl.join("level.geom"), g).unwrap();
    let (h, n) = sample(8);
    std::fs::write(lvl.join("level.ai"), ai_bytes(&h, &n)).unwrap();
    std::fs::write(
        lvl.join("level.details"),
        details_bytes(3, [1, 1], 3, &slots()),
    )
    .unwrap();
    lvl
}

#[test]
fn info_rebuild_and_check_of_ai_and_details() {
    let d = tempfile::tempdir().unwrap();
    let lvl = level(d.path());
    let (code, out, err) = run(&[os("info"), os("--json"), lvl.join("level.ai").as_os_str()]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["format"], "xray-ai");
    assert_eq!(v["count"], 4);
    assert_eq!(v["node_size"], 21);
    assert_eq!(v["grid"], serde_json::json!([4, 3]));
    // the header is 40 + 16 (guid) bytes, then 4 × 21 bytes of nodes
    assert_eq!(v["chunks"][1]["path"], "nodes");
    assert_eq!(v["chunks"][1]["offset"], 56);
    assert_eq!(v["chunks"][1]["size"], 84);
    let (code, out, _) = run(&[os("info"), lvl.join("level.details").as_os_str()]);
    assert_eq!(code, 0);
    assert!(out.contains("slot grid 3 × 2 (offset 1, 1)"), "{out}");
    assert!(out.contains("6 slots (5 with detail objects)"), "{out}");
    for f in ["level.ai", "level.details"] {
        let o = d.path().join(f);
        let (code, out, err) = run(&[
            os("rebuild"),
            os("--verify"),
            lvl.join(f).as_os_str(),
            o.as_os_str(),
        ]);
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(
            std::fs::read(&o).unwrap(),
            std::fs::read(lvl.join(f)).unwrap()
        );
    }
    let (code, out, err) = run(&[os("check"), lvl.as_os_str()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("level.ai") && out.contains("level.details"),
        "{out}"
    );
    // a link past the nodes: node 0's link 1 (bits 7… of the u32 at 56 + 2) set to 9
    let mut a = std::fs::read(lvl.join("level.ai")).unwrap();
    let w = u32::from_le_bytes(a[58..62].try_into().unwrap());
    let w = (w & !(0x7f_ffff << 7)) | (9 << 7);
    a[58..62].copy_from_slice(&w.to_le_bytes());
    std::fs::write(lvl.join("level.ai"), &a).unwrap();
    let (code, out, err) = run(&[os("check"), lvl.as_os_str()]);
    assert_ne!(code, 0, "{out}{err}");
    assert!(format!("{out}{err}").contains("node[0]"), "{out}{err}");
}

#[test]
fn export_ai_and_details_writes_hidden_trees_and_a_density_map() {
    let d = tempfile::tempdir().unwrap();
    let lvl = level(d.path());
    let out_dir = d.path().join("out");
    let (code, out, err) = run(&[
        os("export"),
        lvl.as_os_str(),
        out_dir.as_os_str(),
        os("--ai"),
        os("--details"),
        os("--format"),
        os("all"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let g = Glb::read(&out_dir.join("ai.glb"));
    let nodes = g.json["nodes"].as_array().unwrap();
    let node = |name: &str| nodes.iter().find(|n| n["name"] == name).unwrap();
    assert_eq!(node("ai")["extras"]["hidden"], true);
    assert_eq!(node("ai_nodes")["extras"]["hidden"], true);
    assert_eq!(node("ai_nodes")["extras"]["nodes"], "4");
    // 4 quads of 4 corners; the attributes are there
    let prim = &g.json["meshes"][0]["primitives"][0];
    assert!(prim["attributes"]["_AI_LIGHT"].is_number(), "{prim}");
    assert!(prim["attributes"]["_AI_COVER"].is_number(), "{prim}");
    let pos = prim["attributes"]["POSITION"].as_u64().unwrap() as usize;
    assert_eq!(g.json["accessors"][pos]["count"], 16);
    // node 3 at (3, 0, 2), flat, quad half-size 0.45: glTF x 2.55…3.45, z −2.45…−1.55
    let f = |v: &Value| v.as_f64().unwrap();
    assert!((f(&g.json["accessors"][pos]["max"][0]) - 3.45).abs() < 1e-6);
    assert!((f(&g.json["accessors"][pos]["min"][2]) + 2.45).abs() < 1e-6);
    let dg = Glb::read(&out_dir.join("details.glb"));
    let dn = dg.json["nodes"].as_array().unwrap();
    let detail = dn.iter().find(|n| n["name"] == "detail_0").unwrap();
    assert_eq!(detail["extras"]["texture"], "detail\\grass");
    assert_eq!(detail["extras"]["hidden"], true);
    let png = std::fs::read(out_dir.join("details_density.png")).unwrap();
    let img = levelgeom_xray::dds::decode_png(&png, &levelgeom_binary::Limits::DEFAULT).unwrap();
    assert_eq!((img.width, img.height), (3, 2));
    let level = std::fs::read(out_dir.join("level.glb")).unwrap();
    assert!(!level.windows(8).any(|w| w == b"ai_nodes"));
    assert!(out_dir.join("ai.obj").is_file() && out_dir.join("details.obj").is_file());
    // the glTF validator, when there
    let files = ["ai.glb", "details.glb"];
    let Some(reports) = gltf_validator(&files.map(|f| out_dir.join(f))) else {
        return;
    };
    for (f, v) in files.iter().zip(reports) {
        assert!(v.passed, "{f}: {}{}", v.report, v.stderr);
    }
}

#[test]
fn import_copies_ai_and_details_and_says_what_is_stale() {
    let d = tempfile::tempdir().unwrap();
    let lvl = level(d.path());
    let exp = d.path().join("exp");
    let (code, _, err) = run(&[
        os("export"),
        lvl.as_os_str(),
        exp.as_os_str(),
        os("--format"),
        os("gltf"),
    ]);
    assert_eq!(code, 0, "{err}");
    let out = d.path().join("out");
    let (code, text, err) = run(&[
        os("import"),
        lvl.as_os_str(),
        exp.join("level.glb").as_os_str(),
        out.as_os_str(),
        os("--json"),
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["summary"]["stale"]["ai"]["under_changed"], 0);
    assert_eq!(v["summary"]["stale"]["details"]["followed"], false);
    for f in ["level.ai", "level.details"] {
        assert_eq!(
            std::fs::read(out.join(f)).unwrap(),
            std::fs::read(lvl.join(f)).unwrap(),
            "{f}"
        );
    }
    // text: the summary names both files
    let out2 = d.path().join("out2");
    let (code, text, err) = run(&[
        os("import"),
        lvl.as_os_str(),
        exp.join("level.glb").as_os_str(),
        out2.as_os_str(),
        os("--details-follow"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("level.ai: copied unchanged"), "{text}");
    assert!(text.contains("level.details: followed"), "{text}");
}

#[test]
fn a_damaged_details_or_ai_file_is_a_located_error() {
    let d = tempfile::tempdir().unwrap();
    let lvl = level(d.path());
    // level.details cut inside the model: chunk 1's header (at 32) claims more than remains
    let det = std::fs::read(lvl.join("level.details")).unwrap();
    let cut = d.path().join("cut.details");
    std::fs::write(&cut, &det[..60]).unwrap();
    let (code, out, err) = run(&[os("info"), cut.as_os_str()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("FSD_MESHES"), "{err}");
    // a model whose vertex count is too large for its chunk: the count is bounded, not allocated
    let mut big = det.clone();
    // model chunk payload at 32 + 8 + 8; the count after the two names and three words
    let at = 48 + b"details\\set\0detail\\grass\0".len() + 12;
    big[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let bad = d.path().join("big.details");
    std::fs::write(&bad, &big).unwrap();
    let (code, _, err) = run(&[os("info"), bad.as_os_str()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("model[0]"), "{err}");
    // a level.ai whose node is cut: read as 3 nodes and 10 bytes, which check reports
    let ai = std::fs::read(lvl.join("level.ai")).unwrap();
    std::fs::write(lvl.join("level.ai"), &ai[..ai.len() - 11]).unwrap();
    let (code, out, err) = run(&[os("check"), lvl.as_os_str()]);
    assert_ne!(code, 0, "{out}{err}");
    assert!(
        format!("{out}{err}").contains("counts 4 nodes"),
        "{out}{err}"
    );
}
