//! The generated large X-Ray level (`levelgeom_xray::bench_level::large`, the benchmark's input;
//! 400 visuals: two `r1_lmap` buffers split at 65,536 vertices, progressive and tree visuals,
//! SWI items in `level.geom`) exports to the same bytes as before the export work of round 2 of
//! issue 12 (parallel per-visual decoding, slice reads). The hashes were recorded from main's
//! release binary (`levelgeom export DIR OUT --format all` on the generated folder `x400`, commit 461739b) before
//! the change, on the generator as it is now (trees cut below the apex so that `check` passes) (the folder name is the scene name inside the GLB);
//! the input's own hashes are pinned too, so a change of the generator is told apart from a
//! change of the export. The pins are in `tests/data/before/xray_large.sha256`
//! (`levelgeom_testkit::pins`; re-recorded on purpose with `LEVELGEOM_RECORD_PINS=1`).

use std::path::Path;
use std::sync::OnceLock;

use levelgeom_core::ExportOptions;
use levelgeom_testkit::pins::Pins;
use levelgeom_xray::bench_level::LargeLevel;

/// The 400-visual level, generated once for the tests of this binary that read it.
fn large() -> &'static LargeLevel {
    static LEVEL: OnceLock<LargeLevel> = OnceLock::new();
    LEVEL.get_or_init(|| levelgeom_xray::bench_level::large(400).unwrap())
}

#[test]
fn large_generated_level_exports_the_bytes_recorded_before() {
    let mut pins = Pins::load(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/before/xray_large.sha256"),
    );
    let l = large();
    // the input's pins (keys `x400/...`) tell a change of the generator from one of the export
    pins.check("x400/level", &l.level);
    pins.check("x400/level.geom", &l.geom);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("x400");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("level"), &l.level).unwrap();
    std::fs::write(dir.join("level.geom"), &l.geom).unwrap();
    let out = tmp.path().join("out");
    let level = levelgeom_core::open(&dir).unwrap();
    level.export(&out, &ExportOptions::default()).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.')) // the export manifest
        .collect();
    names.sort();
    for name in names {
        pins.check(
            &format!("out/{name}"),
            &std::fs::read(out.join(&name)).unwrap(),
        );
    }
    assert!(pins.finish() > 0, "no output compared");
}

#[test]
fn large_generated_geom_rebuilds_byte_for_byte() {
    let l = large();
    let (g, _) = levelgeom_xray::geom::Geom::read(&l.geom).unwrap();
    // 320 static visuals × 256 vertices = 81,920: split below 65,536; plus the tree buffer
    assert_eq!(g.vertex_buffers().unwrap().len(), 3);
    assert!(g.to_bytes().unwrap() == l.geom);
}

/// The vertex-buffer bytes of `visual` in a level: `(buffer index, byte range)`.
fn vertex_range(
    level: &[u8],
    geom: &levelgeom_xray::Geom,
    visual: usize,
) -> (usize, std::ops::Range<usize>) {
    let (l, _) = levelgeom_xray::Level::read(level).unwrap();
    let g = l.visuals()[visual].gcontainer().unwrap();
    let vb = &geom.vertex_buffers().unwrap()[g.vb_index as usize];
    let stride = vb.decl.stride();
    let start = g.vb_offset as usize * stride;
    (
        g.vb_index as usize,
        start..start + g.vb_count as usize * stride,
    )
}

#[test]
fn large_generated_level_imports_its_own_export_unchanged_and_reencodes_only_an_edited_visual() {
    let l = large();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("x400");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("level"), &l.level).unwrap();
    std::fs::write(dir.join("level.geom"), &l.geom).unwrap();
    let exp = tmp.path().join("exp");
    let level = levelgeom_core::open(&dir).unwrap();
    level.export(&exp, &ExportOptions::default()).unwrap();

    // unedited: every visual kept, and the files are the input's bytes (pinned by the test
    // above as `x400/level` and `x400/level.geom`)
    let r = level
        .import_xray(
            &exp.join("level.glb"),
            &levelgeom_core::XrayImportOptions::default(),
        )
        .unwrap();
    assert_eq!(r.summary.kept, r.summary.visuals_before);
    assert!(r.summary.moved.is_empty() && r.summary.edited.is_empty());
    let file = |r: &levelgeom_core::XrayImportReport, name: &str| {
        r.files.iter().find(|(n, _)| n == name).unwrap().1.clone()
    };
    assert!(file(&r, "level") == l.level, "level changed");
    assert!(file(&r, "level.geom") == l.geom, "level.geom changed");

    // one vertex of visual 5 moved by 0.5 m in the OBJ (positions are baked there): that
    // visual is re-encoded, its new position in the bytes, and no other vertex byte changes
    let obj = std::fs::read_to_string(exp.join("level.obj")).unwrap();
    let at = obj.find("\no visual_0005_").expect("visual 5 in the OBJ");
    let v = at + obj[at..].find("\nv ").unwrap() + 1;
    let end = v + obj[v..].find('\n').unwrap();
    let xyz: Vec<f64> = obj[v + 2..end]
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    let edited = format!(
        "{}v {} {} {}{}",
        &obj[..v],
        xyz[0] + 0.5,
        xyz[1],
        xyz[2],
        &obj[end..]
    );
    let mesh = exp.join("edited.obj");
    std::fs::write(&mesh, edited).unwrap();
    let r = level
        .import_xray(&mesh, &levelgeom_core::XrayImportOptions::default())
        .unwrap();
    assert_eq!(r.summary.edited, vec![5]);
    assert_eq!(r.summary.kept, r.summary.visuals_before - 1);
    let new_geom = file(&r, "level.geom");
    let (before, _) = levelgeom_xray::Geom::read(&l.geom).unwrap();
    let (after, _) = levelgeom_xray::Geom::read(&new_geom).unwrap();
    let (vb, range) = vertex_range(&l.level, &before, 5);
    for (i, (a, b)) in before
        .vertex_buffers()
        .unwrap()
        .iter()
        .zip(after.vertex_buffers().unwrap())
        .enumerate()
    {
        let (a, b) = (&a.data[..], &b.data[..]);
        assert_eq!(a.len(), b.len(), "buffer {i}: edited in place");
        if i == vb {
            assert!(
                a[range.clone()] != b[range.clone()],
                "visual 5 not re-encoded"
            );
            assert!(
                a[..range.start] == b[..range.start],
                "bytes before visual 5 changed"
            );
            assert!(
                a[range.end..] == b[range.end..],
                "bytes after visual 5 changed"
            );
        } else {
            assert!(a == b, "buffer {i} changed");
        }
    }
    assert!(before.index_buffers() == after.index_buffers());
    // the new position is what the level now holds: visual 5's first vertex, exported again
    let out = tmp.path().join("out");
    let written = levelgeom_core::write_level_folder(&out, &r.files, &[], false).unwrap();
    assert!(!written.is_empty());
    let again = tmp.path().join("again");
    levelgeom_core::open(&out)
        .unwrap()
        .export(&again, &ExportOptions::default())
        .unwrap();
    let obj2 = std::fs::read_to_string(again.join("level.obj")).unwrap();
    let at2 = obj2.find("\no visual_0005_").unwrap();
    let v2 = at2 + obj2[at2..].find("\nv ").unwrap() + 1;
    let xyz2: Vec<f64> = obj2[v2 + 2..v2 + obj2[v2..].find('\n').unwrap()]
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    assert!(
        (xyz2[0] - (xyz[0] + 0.5)).abs() < 1e-3,
        "{xyz2:?} against {xyz:?}"
    );
    assert!((xyz2[1] - xyz[1]).abs() < 1e-3 && (xyz2[2] - xyz[2]).abs() < 1e-3);
}
