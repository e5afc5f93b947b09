//! The X-Ray `portals` and `only` options through the engine-neutral interface: what each
//! export writes, and their refusal for a WAD.

use levelgeom_core::{EngineOptions, Error, ExportOptions, XrayOnly, XrayOptions};

use crate::fixture;

fn xray(x: XrayOptions) -> ExportOptions {
    ExportOptions {
        engine: EngineOptions {
            xray: Some(x),
            ..EngineOptions::default()
        },
        ..ExportOptions::default()
    }
}

fn names(r: &levelgeom_core::ExportReport) -> Vec<String> {
    let mut v: Vec<String> = r
        .files
        .iter()
        .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn only_collision_needs_no_collision_flag_and_writes_only_its_files() {
    let level = levelgeom_core::open(&fixture()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let r = level
        .export(
            &tmp.path().join("c"),
            &xray(XrayOptions {
                only: Some(XrayOnly::Collision),
                ..XrayOptions::default()
            }),
        )
        .unwrap();
    assert_eq!(
        names(&r),
        ["collision.glb", "collision.mtl", "collision.obj"]
    );
    assert_eq!(r.roots.len(), 1);
    assert_eq!(
        (r.roots[0].name.as_str(), r.roots[0].triangles),
        ("collision", 44)
    );
}

#[test]
fn portals_add_their_files_and_a_root() {
    let level = levelgeom_core::open(&fixture()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let r = level
        .export(
            &tmp.path().join("p"),
            &xray(XrayOptions {
                portals: true,
                ..XrayOptions::default()
            }),
        )
        .unwrap();
    assert!(names(&r).contains(&"portals.glb".to_string()));
    assert!(names(&r).contains(&"portals.obj".to_string()));
    let roots: Vec<(&str, usize)> = r
        .roots
        .iter()
        .map(|x| (x.name.as_str(), x.triangles))
        .collect();
    // the level: 4 static visuals (44 triangles) + 5 tree instances of 12; the portal quad: 2
    assert_eq!(roots, [("level", 104), ("portals", 2)]);
}

#[test]
fn portals_and_only_are_refused_for_a_wad() {
    let wad = levelgeom_core::demo();
    for x in [
        XrayOptions {
            portals: true,
            ..XrayOptions::default()
        },
        XrayOptions {
            only: Some(XrayOnly::Trees),
            ..XrayOptions::default()
        },
    ] {
        let e = wad.to_scene(&xray(x).engine).unwrap_err();
        assert!(matches!(e, Error::OptionDoesNotApply { .. }), "{e}");
    }
}
