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
