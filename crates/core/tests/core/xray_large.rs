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
