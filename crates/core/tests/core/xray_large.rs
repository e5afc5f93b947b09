//! The generated large X-Ray level (`levelgeom_xray::bench_level::large`, the benchmark's input;
//! 400 visuals: two `r1_lmap` buffers split at 65,536 vertices, progressive and tree visuals,
//! SWI items in `level.geom`) exports to the same bytes as before the export work of round 2 of
//! issue 12 (parallel per-visual decoding, slice reads). The hashes were recorded from main's
//! release binary (`levelgeom export DIR OUT --format all` on the generated folder `x400`, commit 461739b) before
//! the change, on the generator as it is now (trees cut below the apex so that `check` passes) (the folder name is the scene name inside the GLB);
//! the input's own hashes are pinned too, so a change of the generator is told apart from a
//! change of the export.

use levelgeom_core::ExportOptions;
use sha2::{Digest, Sha256};

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn large_generated_level_exports_the_bytes_recorded_before() {
    let l = levelgeom_xray::bench_level::large(400).unwrap();
    assert_eq!(
        hex(&l.level),
        "1749fe3322007f3099f9e105a44af801a4e3b494a4bb030ae998a639e5e81eae",
        "the generator's level changed: re-record the hashes below with main's binary"
    );
    assert_eq!(
        hex(&l.geom),
        "905c63f3e4b115fb0b8c80cc905c7055f04cee48b36ab409aeca91625476a979",
        "the generator's level.geom changed: re-record the hashes below with main's binary"
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("x400");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("level"), &l.level).unwrap();
    std::fs::write(dir.join("level.geom"), &l.geom).unwrap();
    let out = tmp.path().join("out");
    let level = levelgeom_core::open(&dir).unwrap();
    level.export(&out, &ExportOptions::default()).unwrap();
    let want = [
        (
            "level.glb",
            7_728_756,
            "28115add35fa33eb4acb8225c6c1c181650c0f8522676c526a5c5f20b15ed1ac",
        ),
        (
            "level.mtl",
            1_532,
            "ffbff7939bb7d5eb134d8b181128fa0b02159053beb20a1b3ebd503c35c95640",
        ),
        (
            "level.obj",
            18_913_137,
            "b4ad798eb199687637796e7c425bb347ee5d8c1348a70f5e30ba40a91847de5f",
        ),
    ];
    let mut got: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.')) // the export manifest
        .collect();
    got.sort();
    assert_eq!(got, want.map(|w| w.0.to_string()));
    for (name, size, hash) in want {
        let bytes = std::fs::read(out.join(name)).unwrap();
        assert_eq!(bytes.len(), size, "size of {name}");
        assert_eq!(hex(&bytes), hash, "SHA-256 of {name}");
    }
}

#[test]
fn large_generated_geom_rebuilds_byte_for_byte() {
    let l = levelgeom_xray::bench_level::large(400).unwrap();
    let (g, _) = levelgeom_xray::geom::Geom::read(&l.geom).unwrap();
    // 320 static visuals × 256 vertices = 81,920: split below 65,536; plus the tree buffer
    assert_eq!(g.vertex_buffers().unwrap().len(), 3);
    assert!(g.to_bytes().unwrap() == l.geom);
}
