//! `LevelFile::import_xray` and `write_level_folder`: the library path of the X-Ray import,
//! from the export folder the library writes, and the output folder's rules.

use std::path::Path;

use levelgeom_core::{ExportOptions, Formats, XrayImportOptions};

use crate::fixture;

const FILES: [&str; 4] = ["level", "level.geom", "level.geomx", "level.cform"];

fn export(dir: &Path) {
    let level = levelgeom_core::open(&fixture()).unwrap();
    level
        .export(
            dir,
            &ExportOptions {
                formats: Formats {
                    gltf: true,
                    obj: true,
                },
                ..ExportOptions::default()
            },
        )
        .unwrap();
}

/// `open_for_import` reads an X-Ray level's mesh file while it opens the level; importing what
/// it read is importing the path: the same files (the fixture's bytes for its unedited export),
/// inputs and errors. A WAD base reads nothing ahead.
#[test]
fn a_mesh_file_read_while_the_level_opens_imports_as_its_path_does() {
    let d = tempfile::tempdir().unwrap();
    export(&d.path().join("exp"));
    let opts = XrayImportOptions::default();
    let mesh = d.path().join("exp").join("level.glb");
    let (level, ahead) = levelgeom_core::open_for_import(&fixture(), &mesh).unwrap();
    let ahead = ahead.expect("an X-Ray level's mesh file is read ahead");
    let r = level.import_xray_ahead(ahead, &opts).unwrap();
    let by_path = level.import_xray(&mesh, &opts).unwrap();
    assert_eq!(r.files, by_path.files);
    assert_eq!(r.inputs, by_path.inputs);
    for (name, bytes) in &r.files {
        assert_eq!(
            *bytes,
            std::fs::read(fixture().join(name)).unwrap(),
            "{name}"
        );
    }
    let missing = d.path().join("nowhere.glb");
    let (level, ahead) = levelgeom_core::open_for_import(&fixture(), &missing).unwrap();
    let e = level
        .import_xray_ahead(ahead.unwrap(), &opts)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        level.import_xray(&missing, &opts).unwrap_err().to_string()
    );
    assert!(e.contains("nowhere.glb"), "{e}");
    let (_, ahead) = levelgeom_core::open_for_import(&crate::indep_wad(), &mesh).unwrap();
    assert!(ahead.is_none());
}

#[test]
fn the_library_export_imports_back_to_the_fixture_bytes() {
    let d = tempfile::tempdir().unwrap();
    export(&d.path().join("exp"));
    let level = levelgeom_core::open(&fixture()).unwrap();
    // the GLB, and the OBJ (node names carry the mapping there; positions are baked)
    for mesh in ["level.glb", "level.obj"] {
        let r = level
            .import_xray(
                &d.path().join("exp").join(mesh),
                &XrayImportOptions::default(),
            )
            .unwrap();
        let names: Vec<&str> = r.files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, FILES, "{mesh}");
        for (name, bytes) in &r.files {
            assert_eq!(
                *bytes,
                std::fs::read(fixture().join(name)).unwrap(),
                "{mesh}: {name}"
            );
        }
        assert_eq!(r.summary.kept, 16, "{mesh}");
        let out = d.path().join(format!("out-{mesh}"));
        let written = levelgeom_core::write_level_folder(&out, &r.files, &[], false).unwrap();
        assert_eq!(written.len(), 4);
        for f in FILES {
            assert_eq!(
                std::fs::read(out.join(f)).unwrap(),
                std::fs::read(fixture().join(f)).unwrap()
            );
        }
        // what was written reads as a level that check passes
        let again = levelgeom_core::open(&out).unwrap();
        assert!(again.check().problems.is_empty());
    }
}

#[test]
fn the_output_folder_is_written_all_or_nothing() {
    let d = tempfile::tempdir().unwrap();
    export(&d.path().join("exp"));
    let level = levelgeom_core::open(&fixture()).unwrap();
    let r = level
        .import_xray(
            &d.path().join("exp/level.glb"),
            &XrayImportOptions::default(),
        )
        .unwrap();
    // a folder with something in it: only with force, and the user's file stays
    let out = d.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep.txt"), b"mine").unwrap();
    let e = levelgeom_core::write_level_folder(&out, &r.files, &[], false).unwrap_err();
    assert!(e.to_string().contains("--force"), "{e}");
    assert!(!out.join("level").exists());
    // a folder in the way of one file: nothing is moved in, no temporary folder is left
    std::fs::create_dir(out.join("level.geomx")).unwrap();
    let e = levelgeom_core::write_level_folder(&out, &r.files, &[], true).unwrap_err();
    assert!(e.to_string().contains("in the way"), "{e}");
    assert!(!out.join("level").exists() && !out.join("level.geom").exists());
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::remove_dir(out.join("level.geomx")).unwrap();
    levelgeom_core::write_level_folder(&out, &r.files, &[], true).unwrap();
    assert_eq!(std::fs::read(out.join("keep.txt")).unwrap(), b"mine");
    assert_eq!(
        std::fs::read(out.join("level")).unwrap(),
        std::fs::read(fixture().join("level")).unwrap()
    );
    // never into an input's folder
    let copy = d.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    for f in FILES {
        std::fs::copy(fixture().join(f), copy.join(f)).unwrap();
    }
    let e = levelgeom_core::write_level_folder(&copy, &r.files, &[copy.join("level")], true)
        .unwrap_err();
    assert!(e.to_string().contains("input"), "{e}");
}

#[test]
fn each_import_refuses_the_other_engine() {
    let d = tempfile::tempdir().unwrap();
    let wad = levelgeom_core::demo();
    let e = wad
        .import_xray(&d.path().join("x.glb"), &XrayImportOptions::default())
        .unwrap_err();
    assert!(e.to_string().contains("is for X-Ray levels"), "{e}");
    let x = levelgeom_core::open(&fixture()).unwrap();
    let e = x
        .import(
            &d.path().join("x.glb"),
            &levelgeom_core::ImportOptions::default(),
        )
        .unwrap_err();
    assert!(e.to_string().contains("import_xray"), "{e}");
}

#[test]
fn a_collision_tree_in_the_mesh_file_is_named_not_used() {
    let d = tempfile::tempdir().unwrap();
    let level = levelgeom_core::open(&fixture()).unwrap();
    let scene = level
        .to_scene(&levelgeom_core::EngineOptions {
            collision: true,
            ..Default::default()
        })
        .unwrap();
    let glb = levelgeom_export::gltf::to_glb(&scene, &Default::default()).unwrap();
    let mesh = d.path().join("both.glb");
    std::fs::write(&mesh, glb).unwrap();
    let r = level
        .import_xray(&mesh, &XrayImportOptions::default())
        .unwrap();
    assert!(
        r.warnings.iter().any(|w| w.contains("`collision` tree")),
        "{:?}",
        r.warnings
    );
    // nothing else changes: the collision tree's nodes are not visuals
    for (name, bytes) in &r.files {
        assert_eq!(
            *bytes,
            std::fs::read(fixture().join(name)).unwrap(),
            "{name}"
        );
    }
}

/// 70,000 nodes instancing one 64-triangle mesh (4,480,000 placed > 2^22 = 4,194,304): the
/// X-Ray import refuses it from the count, naming the node where the limit was passed
/// (node 65,536, the 65,537th: 65,537 × 64 = 4,194,368) and the limit; so does the WAD import.
#[test]
fn instancing_one_mesh_from_70000_nodes_is_refused_by_both_imports() {
    let d = tempfile::tempdir().unwrap();
    let pos: Vec<u8> = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, -1.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let idx: Vec<u8> = (0..64)
        .flat_map(|_| [0u16, 1, 2])
        .flat_map(u16::to_le_bytes)
        .collect();
    let mut bin = pos;
    bin.extend_from_slice(&idx);
    std::fs::write(d.path().join("many.bin"), &bin).unwrap();
    let nodes: Vec<String> = (0..70_000).map(|_| r#"{"mesh":0}"#.to_string()).collect();
    let roots: Vec<String> = (0..70_000).map(|i| i.to_string()).collect();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{},"uri":"many.bin"}}],
"bufferViews":[{{"buffer":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":384}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,-1],"max":[1,0,0]}},
{{"bufferView":1,"componentType":5123,"count":192,"type":"SCALAR"}}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1}}]}}],
"nodes":[{}],"scenes":[{{"nodes":[{}]}}]}}"#,
        bin.len(),
        nodes.join(","),
        roots.join(",")
    );
    let mesh = d.path().join("many.gltf");
    std::fs::write(&mesh, json).unwrap();
    let x = levelgeom_core::open(&fixture()).unwrap();
    let e = x
        .import_xray(&mesh, &XrayImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("nodes[65536] (node_65536) brings the triangles placed to 4194368, more than the limit of 4194304"),
        "{e}"
    );
    let wad = levelgeom_core::demo();
    let e = wad
        .import(&mesh, &levelgeom_core::ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("Limits::max_instanced_triangles"), "{e}");
}

/// Issue 24: a node's extra `visual` out of range (99 of 16), or disagreeing with its name
/// (`"15"` on visual 3's node), is an error naming the node and both values — it used to
/// become a new mesh, or claim visual 15, and remove the visual the name names. An extra that
/// is no number is warned about and the name is used (the level comes back unchanged).
#[test]
fn a_visual_extra_must_name_a_visual_and_agree_with_the_name() {
    let d = tempfile::tempdir().unwrap();
    let level = levelgeom_core::open(&fixture()).unwrap();
    let scene = level
        .to_scene(&levelgeom_core::EngineOptions::default())
        .unwrap();
    let with = |node_visual: usize, value: &str| {
        let mut s = scene.clone();
        let n = s
            .nodes
            .iter()
            .position(|n| {
                n.extras
                    .iter()
                    .any(|(k, v)| k == "visual" && *v == node_visual.to_string())
            })
            .unwrap();
        for (k, v) in &mut s.nodes[n].extras {
            if k == "visual" {
                *v = value.to_string();
            }
        }
        let name = s.nodes[n].name.clone();
        let glb = levelgeom_export::gltf::to_glb(&s, &Default::default()).unwrap();
        let mesh = d.path().join(format!("v{node_visual}-{value}.glb"));
        std::fs::write(&mesh, glb).unwrap();
        (
            name,
            level.import_xray(&mesh, &XrayImportOptions::default()),
        )
    };
    let (name, r) = with(3, "15");
    assert!(name.starts_with("visual_0003"), "{name}");
    let e = r.map(|_| ()).unwrap_err().to_string();
    assert!(
        e.contains(&format!("{name:?}"))
            && e.contains("extra \"visual\" is 15, but its name says visual 3"),
        "{e}"
    );
    let (name, r) = with(5, "99");
    let e = r.map(|_| ()).unwrap_err().to_string();
    assert!(
        e.contains(&format!("{name:?}"))
            && e.contains("extra \"visual\" is 99, but the level has 16 visuals (0..15), and its name says visual 5"),
        "{e}"
    );
    let (name, r) = with(2, "two");
    let r = r.unwrap();
    assert!(
        r.warnings.iter().any(|w| w.contains(&format!("{name:?}: its extra \"visual\" \"two\" is no visual index; its name's visual 2 is used"))),
        "{:?}",
        r.warnings
    );
    for (file, bytes) in &r.files {
        assert_eq!(
            *bytes,
            std::fs::read(fixture().join(file)).unwrap(),
            "{file}"
        );
    }
}

/// A library caller tells a conversion refused only for what it would lose (13 → 14 drops the
/// derived level.geomx UVs, as `convert_cli` shows on the command line) from other refusals.
#[test]
fn a_lossy_conversion_is_told_from_other_refusals() {
    let d = tempfile::tempdir().unwrap();
    let v13 = d.path().join("v13");
    let fx = levelgeom_core::open(&fixture()).unwrap();
    let r = fx.convert_xray(13, false).unwrap();
    levelgeom_core::write_level_folder(&v13, &r.files, &[fixture()], false).unwrap();
    let c13 = levelgeom_core::open(&v13).unwrap();
    let e = c13.convert_xray(14, false).unwrap_err();
    assert!(e.needs_allow_loss(), "{e}");
    assert!(e.to_string().contains("--allow-loss"), "{e}");
    assert!(c13.convert_xray(14, true).is_ok());
    // a build no conversion writes is refused, and no loss would help
    let e = c13.convert_xray(99, true).unwrap_err();
    assert!(!e.needs_allow_loss(), "{e}");
    let e = c13.convert_xray(99, false).unwrap_err();
    assert!(!e.needs_allow_loss(), "{e}");
    // nor does it help a WAD
    let e = levelgeom_core::demo().convert_xray(14, false).unwrap_err();
    assert!(!e.needs_allow_loss(), "{e}");
}

/// A generated XRLC 14 level with the generator's `level.hom` and `level.som` in `dir`.
fn level_with_occluders(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    use levelgeom_xray::occluders::generate::{
        hom_bytes_of, som_bytes_of, LEVEL_HOM_POLYS, LEVEL_SOM_POLYS,
    };
    let (l, g) =
        levelgeom_xray::generate::level_bytes(levelgeom_xray::generate::Options::default());
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("level"), l).unwrap();
    std::fs::write(dir.join("level.geom"), g).unwrap();
    let (h, s) = (
        hom_bytes_of(&LEVEL_HOM_POLYS),
        som_bytes_of(&LEVEL_SOM_POLYS),
    );
    std::fs::write(dir.join("level.hom"), &h).unwrap();
    std::fs::write(dir.join("level.som"), &s).unwrap();
    (h, s)
}

#[test]
fn the_output_folder_gets_the_occluders_and_a_conversion_says_what_it_left_out() {
    let d = tempfile::tempdir().unwrap();
    let (h, s) = level_with_occluders(&d.path().join("lvl"));
    let level = levelgeom_core::open(&d.path().join("lvl")).unwrap();
    level
        .export(
            &d.path().join("exp"),
            &ExportOptions {
                engine: levelgeom_core::EngineOptions {
                    xray: Some(levelgeom_core::XrayOptions {
                        occluders: true,
                        ..levelgeom_core::XrayOptions::default()
                    }),
                    ..levelgeom_core::EngineOptions::default()
                },
                ..ExportOptions::default()
            },
        )
        .unwrap();
    // nothing edited: both files come back as they were
    let r = level
        .import_xray(
            &d.path().join("exp").join("level.glb"),
            &XrayImportOptions::default(),
        )
        .unwrap();
    let names: Vec<&str> = r.files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["level", "level.geom", "level.hom", "level.som"]);
    assert_eq!(r.files[2].1, h);
    assert_eq!(r.files[3].1, s);
    assert_eq!(r.summary.hom.mode, "kept");
    let out = d.path().join("out");
    levelgeom_core::write_level_folder(&out, &r.files, &[], false).unwrap();
    assert_eq!(std::fs::read(out.join("level.hom")).unwrap(), h);
    // XRLC 12 reads a level.hom but no level.som: the conversion says so
    let r = level.convert_xray(12, true).unwrap();
    let names: Vec<&str> = r.files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["level", "level.hom"]);
    let text = r.summary.to_string();
    assert!(
        text.contains("level.som not written: the XRLC 12 engine reads no level.som"),
        "{text}"
    );
}

/// Pixels tinted towards the overlay's magenta (red and blue well above green).
fn magenta(i: &levelgeom_core::Image) -> usize {
    i.pixels
        .chunks_exact(4)
        .filter(|p| p[0] as i32 - p[1] as i32 > 60 && p[2] as i32 - p[1] as i32 > 60)
        .count()
}

#[test]
fn render_occluders_draws_them_over_the_level() {
    let d = tempfile::tempdir().unwrap();
    level_with_occluders(&d.path().join("lvl"));
    let level = levelgeom_core::open(&d.path().join("lvl")).unwrap();
    let opts = levelgeom_core::RenderOptions {
        view: levelgeom_core::View::Top,
        width: 200,
        height: 200,
        ..levelgeom_core::RenderOptions::default()
    };
    let plain = level.render(&opts).unwrap();
    let with = level
        .render(&levelgeom_core::RenderOptions {
            occluders: true,
            ..opts
        })
        .unwrap();
    // the flat occluders on the quad and the grid (y = 0, seen from above) are tinted; the
    // plain picture has no magenta
    assert_eq!(magenta(&plain), 0);
    assert!(magenta(&with) > 100, "{}", magenta(&with));
    // a WAD has no occluders: a clear error
    let e = levelgeom_core::demo()
        .render(&levelgeom_core::RenderOptions {
            occluders: true,
            ..opts
        })
        .unwrap_err();
    assert!(e.to_string().contains("--occluders"), "{e}");
}
