//! Exports write all or nothing, replace a previous export as a whole, and never write into a
//! folder of other files (or over an input) unless told to.

use std::fs;
use std::path::Path;

use levelgeom_core::{Error, ExportOptions, Formats};

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn gltf_only() -> ExportOptions {
    ExportOptions {
        formats: Formats {
            gltf: true,
            obj: false,
        },
        ..ExportOptions::default()
    }
}

#[test]
fn a_second_export_replaces_the_first_stale_files_included() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let demo = levelgeom_core::demo();
    demo.export(&out, &ExportOptions::default()).unwrap();
    assert!(out.join("level.obj").is_file());
    assert!(out.join("page_00.png").is_file());
    fs::write(out.join("my_notes.txt"), b"mine").unwrap();
    demo.export(&out, &gltf_only()).unwrap();
    assert_eq!(
        names(&out),
        [
            ".levelgeom-export.json",
            "level.glb",
            "lights.json",
            "my_notes.txt",
            "swap.glb"
        ],
        "OBJ, MTL and PNG of the first run are gone (the demo has swap tiles: swap.glb), the user's file is kept"
    );
    // nothing but the output folder itself was left beside it
    assert_eq!(names(tmp.path()), ["out"]);
}

#[test]
fn a_folder_of_other_files_is_refused_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("theirs");
    fs::create_dir(&out).unwrap();
    fs::write(out.join("level.glb"), b"someone else's").unwrap();
    let demo = levelgeom_core::demo();
    let e = demo.export(&out, &ExportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("--force"), "{e}");
    assert_eq!(fs::read(out.join("level.glb")).unwrap(), b"someone else's");
    assert_eq!(names(&out), ["level.glb"]);
    let forced = ExportOptions {
        force: true,
        ..gltf_only()
    };
    demo.export(&out, &forced).unwrap();
    assert_eq!(&fs::read(out.join("level.glb")).unwrap()[..4], b"glTF");
}

#[test]
fn a_failing_export_leaves_nothing_behind() {
    // a WAD whose texture page 0 has no pixels: the PNG cannot be written, after the GLB
    // and OBJ were already made in memory
    let demo = levelgeom_core::demo();
    let mut level = demo.wad().unwrap().clone();
    level.text_mut().unwrap().pages[0].width = 0;
    let bytes = level.to_bytes().unwrap();
    let broken = levelgeom_core::open_bytes("broken.wad", bytes).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    assert!(broken.export(&out, &ExportOptions::default()).is_err());
    assert!(!out.exists(), "no output folder was created");
    assert!(names(tmp.path()).is_empty(), "no temporary folder was left");
    // into an earlier export: that export is untouched
    demo.export(&out, &ExportOptions::default()).unwrap();
    let before = names(&out);
    let glb = fs::read(out.join("level.glb")).unwrap();
    assert!(broken.export(&out, &ExportOptions::default()).is_err());
    assert_eq!(names(&out), before);
    assert_eq!(fs::read(out.join("level.glb")).unwrap(), glb);
    assert_eq!(names(tmp.path()), ["out"]);
}

#[test]
fn an_output_path_that_is_a_file_or_blocked_by_a_folder_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("file");
    fs::write(&file, b"x").unwrap();
    let demo = levelgeom_core::demo();
    let e = demo.export(&file, &ExportOptions::default()).unwrap_err();
    assert!(matches!(e, Error::Folder(_)), "{e}");
    assert!(e.to_string().contains("is not a folder"), "{e}");
    let out = tmp.path().join("out");
    demo.export(&out, &gltf_only()).unwrap();
    fs::create_dir(out.join("level.obj")).unwrap();
    let e = demo.export(&out, &ExportOptions::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("a folder of that name is in the way"),
        "{e}"
    );
    assert!(out.join("level.obj").is_dir());
}

/// A glTF-only export of an X-Ray level streams its vertices from a hollow scene; a tree whose
/// `TREEDEF2` matrix is sheared (no translation·rotation·scale, so glTF cannot hold it as a node
/// matrix) needs its vertices baked up front, and the export then falls back to the full scene:
/// the same GLB as the full scene's export (which a glTF + OBJ export makes), with the shear in
/// it.
#[test]
fn a_sheared_tree_exports_through_the_full_scene() {
    use levelgeom_xray::formats::{level::LevelChunk, ogf::OgfChunk};
    let d = tempfile::tempdir().unwrap();
    let write = |dir: &Path, shear: f32| {
        let (mut level, geom) =
            levelgeom_xray::generate::level(levelgeom_xray::generate::Options::default());
        let mut sheared = 0;
        for c in &mut level.chunks {
            if let LevelChunk::Visuals(vs) = &mut c.value {
                for v in vs {
                    for oc in &mut v.value.chunks {
                        if let OgfChunk::TreeDef(td) = &mut oc.value {
                            // row j's x: a model-space y adds to x
                            td.xform[4] = shear;
                            sheared += 1;
                        }
                    }
                }
            }
        }
        assert!(sheared > 0, "the generated level has trees");
        fs::create_dir_all(dir).unwrap();
        fs::write(dir.join("level"), level.to_bytes().unwrap()).unwrap();
        fs::write(dir.join("level.geom"), geom.to_bytes().unwrap()).unwrap();
    };
    write(&d.path().join("plain"), 0.0);
    write(&d.path().join("sheared"), 0.5);
    let both = ExportOptions {
        formats: Formats {
            gltf: true,
            obj: true,
        },
        ..ExportOptions::default()
    };
    let glb = |lvl: &str, opts: &ExportOptions, out: &str| {
        let level = levelgeom_core::open(&d.path().join(lvl)).unwrap();
        level.export(&d.path().join(out), opts).unwrap();
        fs::read(d.path().join(out).join("level.glb")).unwrap()
    };
    let streamed = glb("sheared", &gltf_only(), "s1");
    assert_eq!(streamed, glb("sheared", &both, "s2"));
    // the shear reached the file: not the unsheared level's GLB
    assert_ne!(streamed, glb("plain", &gltf_only(), "p1"));
    assert_eq!(glb("plain", &gltf_only(), "p1b"), glb("plain", &both, "p2"));
}
