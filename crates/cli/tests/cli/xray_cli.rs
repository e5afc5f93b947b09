//! The `levelgeom` binary on the real X-Ray fixture and on damaged copies.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::common::xray_fixture_dir as fixture_dir;
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    fixture_dir().join(name)
}

fn run(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
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

fn os<S: AsRef<std::ffi::OsStr> + ?Sized>(s: &S) -> &std::ffi::OsStr {
    s.as_ref()
}

fn info_json(p: &Path) -> Value {
    let (code, out, err) = run(&[os("info"), os("--json"), p.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn info_json_for_geom() {
    let v = info_json(&fixture("level.geom"));
    assert_eq!(v["format"], "xray-geom");
    assert_eq!(v["version"], 14);
    let vbs = v["vertex_buffers"].as_array().unwrap();
    let counts: Vec<u64> = vbs
        .iter()
        .map(|b| b["vertices"].as_u64().unwrap())
        .collect();
    assert_eq!(counts, vec![24, 53, 20]);
    assert!(vbs.iter().all(|b| b["stride"] == 32));
    // mu_model_decl: SHORT4 (7) TEXCOORD (5) index 0 at offset 24
    let last = &vbs[0]["layout"][4];
    assert_eq!(
        (
            last["offset"].as_u64(),
            last["type"].as_u64(),
            last["usage"].as_u64(),
            last["usage_index"].as_u64()
        ),
        (Some(24), Some(7), Some(5), Some(0))
    );
    assert_eq!(v["index_buffers"][0]["indices"], 168);
    assert_eq!(v["swis"].as_array().unwrap().len(), 0);
    let vx = info_json(&fixture("level.geomx"));
    assert_eq!(vx["vertex_buffers"][0]["vertices"], 37);
    assert_eq!(vx["vertex_buffers"][0]["stride"], 12);
}

#[test]
fn info_json_for_level_and_cform() {
    let v = info_json(&fixture("level"));
    assert_eq!(v["format"], "xray-level");
    assert_eq!(v["version"], 14);
    let vis = v["visuals"].as_array().unwrap();
    assert_eq!(vis.len(), 16);
    assert_eq!(vis.iter().filter(|x| x["type"] == "tree_st").count(), 5);
    assert_eq!(vis.iter().filter(|x| x["type"] == "lod").count(), 5);
    assert_eq!(vis.iter().filter(|x| x["type"] == "hierarchy").count(), 2);
    assert_eq!(vis.iter().filter(|x| x["type"] == "normal").count(), 4);
    let sh = v["shaders"].as_array().unwrap();
    assert_eq!(sh.len(), 8);
    assert_eq!(sh[6], "flora\\leaf_wave/trees\\trees_elka");
    // every tree visual names the tree shader
    assert!(vis
        .iter()
        .filter(|x| x["type"] == "tree_st")
        .all(|x| x["shader"] == sh[6]));
    let c = info_json(&fixture("level.cform"));
    assert_eq!(c["format"], "xray-cform");
    assert_eq!(
        (c["vertices"].as_u64(), c["faces"].as_u64()),
        (Some(33), Some(44))
    );
}

#[test]
fn formats_are_detected_from_content_not_name() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("level");
    std::fs::copy(fixture("level.geom"), &p).unwrap();
    assert_eq!(info_json(&p)["format"], "xray-geom");
    // an unknown X-Ray chunk file: chunk 1 (4 bytes) + chunk 5 holding a nested chunk 7
    let mut b = vec![1, 0, 0, 0, 4, 0, 0, 0, 14, 0, 0, 0, 5, 0, 0, 0, 10, 0, 0, 0];
    b.extend_from_slice(&[7, 0, 0, 0, 2, 0, 0, 0, 0xAB, 0xCD]);
    let q = d.path().join("x.bin");
    std::fs::write(&q, &b).unwrap();
    let v = info_json(&q);
    assert_eq!(v["format"], "xray-chunks");
    assert_eq!(v["chunks"][1]["id"], 5);
    assert_eq!(v["chunks"][1]["offset"], 12);
    assert_eq!(v["chunks"][2]["path"], "chunk[5]/chunk[7]");
    assert_eq!(v["chunks"][2]["offset"], 20);
    let out = d.path().join("x.out");
    let (code, text, _) = run(&[
        os("rebuild"),
        os("--verify"),
        q.as_os_str(),
        out.as_os_str(),
    ]);
    assert_eq!(code, 0, "{text}");
}

#[test]
fn rebuild_verify_is_identical_for_all_four_files() {
    let d = tempfile::tempdir().unwrap();
    for f in ["level", "level.geom", "level.geomx", "level.cform"] {
        let out = d.path().join(f);
        let (code, text, err) = run(&[
            os("rebuild"),
            os("--verify"),
            fixture(f).as_os_str(),
            out.as_os_str(),
        ]);
        assert_eq!(code, 0, "{f}: {text}{err}");
        assert!(text.starts_with("identical"), "{text}");
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(fixture(f)).unwrap()
        );
    }
}

#[test]
fn check_passes_the_fixture_and_flags_damage() {
    let (code, text, _) = run(&[os("check"), fixture("level").as_os_str()]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("with ") && text.contains("level.geom"),
        "{text}"
    );
    // a copy whose tree instance 4 points at vertex buffer 7
    let d = tempfile::tempdir().unwrap();
    let mut l = std::fs::read(fixture("level")).unwrap();
    // visual 4's GCONTAINER header is at 0x312 (hex dump), its vb_index at 0x31A
    assert_eq!(&l[0x312..0x31A], &[21, 0, 0, 0, 24, 0, 0, 0]);
    l[0x31A] = 7;
    std::fs::write(d.path().join("level"), &l).unwrap();
    std::fs::copy(fixture("level.geom"), d.path().join("level.geom")).unwrap();
    let (code, text, _) = run(&[os("check"), d.path().join("level").as_os_str()]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(
            "fsL_VISUALS/visual[4]/OGF_GCONTAINER: vb_index 7 but level.geom has 3 vertex buffers"
        ),
        "{text}"
    );
}

#[test]
fn truncated_files_fail_with_offset_and_chunk_path() {
    let d = tempfile::tempdir().unwrap();
    let l = std::fs::read(fixture("level")).unwrap();
    let p = d.path().join("level");
    std::fs::write(&p, &l[..0x200]).unwrap();
    let (code, _, err) = run(&[os("info"), p.as_os_str()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("at 0x000000F2 in fsL_VISUALS: chunk 3 claims 6628 bytes"),
        "{err}"
    );
    let g = std::fs::read(fixture("level.geom")).unwrap();
    let q = d.path().join("level.geom");
    std::fs::write(&q, &g[..g.len() - 1]).unwrap();
    let (code, _, err) = run(&[os("check"), q.as_os_str()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("in fsL_SWIS") || err.contains("at 0x0000000C"),
        "{err}"
    );
}

#[test]
fn export_writes_glb_obj_mtl_and_validates() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let (code, text, err) = run(&[os("export"), fixture_dir().as_os_str(), out.as_os_str()]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(
        text.contains("9 placed meshes (5 distinct, 56 triangles)"),
        "{text}"
    );
    let glb = std::fs::read(out.join("level.glb")).unwrap();
    assert_eq!(&glb[..4], b"glTF");
    let obj = std::fs::read_to_string(out.join("level.obj")).unwrap();
    assert_eq!(obj.lines().filter(|l| l.starts_with("o ")).count(), 9);
    let mtl = std::fs::read_to_string(out.join("level.mtl")).unwrap();
    assert!(mtl.contains("map_Kd trees/trees_elka.dds"), "{mtl}");
    // the Khronos validator, when the project's script and node are available
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/validate-gltf.sh");
    let tool =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/gltf-validator/node_modules");
    let node = Command::new("node").arg("--version").output().is_ok();
    if script.is_file() && tool.is_dir() && node {
        let o = Command::new("bash")
            .arg(&script)
            .arg(out.join("level.glb"))
            .output()
            .unwrap();
        let s = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{s}");
        assert!(s.contains(": 0 errors"), "{s}");
    } else {
        levelgeom_testkit::tool_missing(
            "the glTF validator (node + tools/gltf-validator/node_modules)",
        );
    }
    // --lods adds the 5 LOD billboard meshes; --format obj writes only OBJ/MTL
    let out2 = d.path().join("out2");
    let (code, text, _) = run(&[
        os("export"),
        fixture("level").as_os_str(),
        out2.as_os_str(),
        os("--lods"),
        os("--format"),
        os("obj"),
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("(10 distinct"), "{text}");
    assert!(!out2.join("level.glb").exists());
    assert!(out2.join("level.obj").exists());
}

#[test]
fn export_of_geom_alone_explains_it_needs_level() {
    let d = tempfile::tempdir().unwrap();
    let (code, _, err) = run(&[
        os("export"),
        fixture("level.geom").as_os_str(),
        d.path().as_os_str(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("export needs the `level` file"), "{err}");
}

#[test]
fn textures_folder_resolves_names_and_warns_about_missing_ones() {
    let d = tempfile::tempdir().unwrap();
    let tex = d.path().join("textures");
    std::fs::create_dir_all(tex.join("trees")).unwrap();
    std::fs::write(tex.join("trees/trees_elka.dds"), b"DDS ").unwrap();
    let out = d.path().join("out");
    let (code, text, err) = run(&[
        os("export"),
        fixture_dir().as_os_str(),
        out.as_os_str(),
        os("--textures"),
        tex.as_os_str(),
    ]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("(1 found)"), "{text}");
    // one warning lists the missing ones; the 4-byte DDS cannot be decoded and is linked
    assert!(
        err.contains("4 textures not found in the level folder or the --textures folder: ")
            && err.contains("crete/crete_roof1"),
        "{err}"
    );
    assert!(err.contains("trees_elka.dds cannot be decoded"), "{err}");
    assert!(err.contains("1 texture found only as DDS/TGA"), "{err}");
    // referenced relative to the output folder, so both can move together
    let mtl = std::fs::read_to_string(out.join("level.mtl")).unwrap();
    assert!(
        mtl.contains("map_Kd ../textures/trees/trees_elka.dds"),
        "{mtl}"
    );
    assert!(
        glb_json(&out.join("level.glb")).contains("\"uri\":\"../textures/trees/trees_elka.dds\"")
    );
}

#[test]
fn lightmaps_need_textures_and_check_takes_a_textures_folder() {
    let d = tempfile::tempdir().unwrap();
    let (code, _, err) = run(&[
        os("export"),
        fixture_dir().as_os_str(),
        d.path().join("out").as_os_str(),
        os("--lightmaps"),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--textures"), "{err}");
    // an empty textures folder: every shader entry's texture is missing (7 entries)
    let (code, text, _) = run(&[
        os("check"),
        fixture_dir().as_os_str(),
        os("--textures"),
        d.path().as_os_str(),
    ]);
    assert_eq!(code, 1);
    assert_eq!(text.matches("not found as .dds").count(), 7, "{text}");
    assert!(
        text.contains("at 0x00001AEB in fsL_SHADERS/shader[1]: "),
        "{text}"
    );
}

/// The JSON chunk of a GLB as text.
/// The JSON chunk of a GLB, as text (the shared reader checks the container on the way).
fn glb_json(p: &Path) -> String {
    let g = levelgeom_testkit::glb::Glb::read(p);
    String::from_utf8_lossy(&g.json_chunk)
        .trim_end()
        .to_string()
}

#[test]
fn png_copies_win_and_uris_are_percent_encoded() {
    let d = tempfile::tempdir().unwrap();
    // a folder whose name has a space; one texture has a PNG copy beside its DDS
    let tex = d.path().join("game tex");
    std::fs::create_dir_all(tex.join("trees")).unwrap();
    std::fs::create_dir_all(tex.join("crete")).unwrap();
    std::fs::write(tex.join("trees/trees_elka.dds"), b"DDS ").unwrap();
    std::fs::write(tex.join("trees/trees_elka.png"), b"\x89PNG").unwrap();
    std::fs::write(tex.join("crete/crete_roof1.jpg"), b"\xFF\xD8").unwrap();
    let out = d.path().join("out");
    let (code, text, err) = run(&[
        os("export"),
        fixture_dir().as_os_str(),
        out.as_os_str(),
        os("--textures"),
        tex.as_os_str(),
    ]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("(2 found)"), "{text}");
    assert!(!err.contains("DDS/TGA"), "{err}");
    let json = glb_json(&out.join("level.glb"));
    assert!(
        json.contains("\"uri\":\"../game%20tex/trees/trees_elka.png\""),
        "{json}"
    );
    assert!(json.contains("\"uri\":\"../game%20tex/crete/crete_roof1.jpg\""));
    let mtl = std::fs::read_to_string(out.join("level.mtl")).unwrap();
    assert!(mtl.contains("../game tex/trees/trees_elka.png"), "{mtl}");
}

fn validate(glb: &Path) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/validate-gltf.sh");
    let tool =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/gltf-validator/node_modules");
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
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && s.contains(": 0 errors"), "{s}");
}

#[test]
fn generated_progressive_and_compressed_levels_export_and_validate() {
    use levelgeom_xray::generate::{level_bytes, Options};
    for (version, compress) in [(14, true), (13, false)] {
        let d = tempfile::tempdir().unwrap();
        let (l, g) = level_bytes(Options { version, compress });
        std::fs::write(d.path().join("level"), l).unwrap();
        std::fs::write(d.path().join("level.geom"), g).unwrap();
        let v = info_json(&d.path().join("level.geom"));
        assert_eq!(v["version"], version);
        assert_eq!(v["swis"][0]["windows"], 2);
        assert_eq!(v["chunks"][3]["compressed"], compress);
        let (code, text, _) = run(&[os("check"), d.path().join("level").as_os_str()]);
        assert_eq!(code, 0, "{text}");
        let out = d.path().join("out");
        let (code, text, err) = run(&[os("export"), d.path().as_os_str(), out.as_os_str()]);
        assert_eq!(code, 0, "{text}{err}");
        // quad 2 + progressive sw[0] 8 + shared tree sw[0] 4 triangles
        assert!(
            text.contains("4 placed meshes (3 distinct, 14 triangles)"),
            "{text}"
        );
        validate(&out.join("level.glb"));
        let out2 = d.path().join("re.geom");
        let (code, text, _) = run(&[
            os("rebuild"),
            os("--verify"),
            d.path().join("level.geom").as_os_str(),
            out2.as_os_str(),
        ]);
        assert_eq!(code, 0, "{text}");
    }
}

#[test]
fn independent_progressive_files_report_their_windows() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../xray/tests/data/independent/v14_lzhuf");
    assert!(
        dir.is_dir(),
        "committed fixture {} is missing",
        dir.display()
    );
    let v = info_json(&dir.join("level.geom"));
    // expectations: VB chunk compressed; one SWI item with 3 windows
    assert_eq!(v["chunks"][1]["compressed"], true);
    assert_eq!(v["swis"][0]["windows"], 3);
    let l = info_json(&dir.join("level"));
    assert_eq!(l["visuals"][1]["type"], "progressive");
    assert_eq!(l["visuals"][1]["swi_windows"], 3);
    let out = tempfile::tempdir().unwrap();
    let (code, text, err) = run(&[os("export"), dir.as_os_str(), out.path().as_os_str()]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("12 triangles"), "{text}");
    validate(&out.path().join("level.glb"));
}

#[test]
fn export_refuses_unknown_xrlc_versions_with_a_reason() {
    let d = tempfile::tempdir().unwrap();
    let mut l = std::fs::read(fixture("level")).unwrap();
    // chunk 1 payload at offset 8: u16 version 14 → 7 (a build with no known levels)
    assert_eq!(&l[8..10], &[14, 0]);
    l[8] = 7;
    std::fs::write(d.path().join("level"), &l).unwrap();
    std::fs::copy(fixture("level.geom"), d.path().join("level.geom")).unwrap();
    let out = d.path().join("out");
    let (code, _, err) = run(&[os("export"), d.path().as_os_str(), out.as_os_str()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("XRLC version 7; export reads versions 4, 5 and 8–14"),
        "{err}"
    );
    // the error names where the version is: the header chunk's payload
    assert!(
        err.contains("at 0x00000008 in fsL_HEADER: XRLC version 7"),
        "{err}"
    );
    assert!(!out.exists(), "nothing was written");
}

#[test]
fn export_collision_writes_the_cform_as_its_own_files() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let (code, text, err) = run(&[
        os("export"),
        fixture_dir().as_os_str(),
        out.as_os_str(),
        os("--collision"),
    ]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(
        text.contains("level.cform"),
        "the cform is named as an input: {text}"
    );
    // 44 triangles of level.cform, one `f` line each, in groups named by material and sector
    let obj = std::fs::read_to_string(out.join("collision.obj")).unwrap();
    assert_eq!(obj.lines().filter(|l| l.starts_with("f ")).count(), 44);
    assert!(obj.lines().any(|l| l.starts_with("g mat")), "{obj}");
    let g = levelgeom_testkit::glb::Glb::read(&out.join("collision.glb"));
    assert!(g.array("nodes").iter().any(|n| n["name"] == "collision"));
    // level.glb holds the level only
    let l = levelgeom_testkit::glb::Glb::read(&out.join("level.glb"));
    assert!(l.array("nodes").iter().all(|n| n["name"] != "collision"));
}
