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

    // one vertex of visual 5 moved by 0.5 m along its mesh's x in the GLB (found by its
    // bytes: the scene's positions are written verbatim): that visual is edited in place of
    // its old geometry (same vertices and triangles), its new position in the bytes, and no
    // other vertex byte changes
    let first = |level: &[u8], geom: &[u8]| -> [f32; 3] {
        let (lv, _) = levelgeom_xray::Level::read(level).unwrap();
        let (g, _) = levelgeom_xray::Geom::read(geom).unwrap();
        let scene =
            levelgeom_xray::to_scene(&lv, &g, &levelgeom_xray::SceneOptions::default()).unwrap();
        let node = scene
            .nodes
            .iter()
            .find(|n| n.name.starts_with("visual_0005_"))
            .expect("visual 5 in the scene");
        scene.meshes[node.mesh.unwrap()].primitives[0].positions[0]
    };
    let p0 = first(&l.level, &l.geom);
    let pattern: Vec<u8> = p0.iter().flat_map(|c| c.to_le_bytes()).collect();
    let mut glb = std::fs::read(exp.join("level.glb")).unwrap();
    let hits: Vec<usize> = (0..glb.len() - 12)
        .filter(|&i| glb[i..i + 12] == pattern[..])
        .collect();
    assert_eq!(
        hits.len(),
        1,
        "visual 5's first position found once in the GLB"
    );
    glb[hits[0]..hits[0] + 4].copy_from_slice(&(p0[0] + 0.5).to_le_bytes());
    let mesh = exp.join("edited.glb");
    std::fs::write(&mesh, glb).unwrap();
    let r = level
        .import_xray(&mesh, &levelgeom_core::XrayImportOptions::default())
        .unwrap();
    assert_eq!(r.summary.edited, vec![5]);
    assert_eq!(r.summary.kept, r.summary.visuals_before - 1);
    let new_geom = file(&r, "level.geom");
    let (before, _) = levelgeom_xray::Geom::read(&l.geom).unwrap();
    let (after, _) = levelgeom_xray::Geom::read(&new_geom).unwrap();
    // visual 5's vertices are rewritten where they are or, when another visual uses them
    // too, as a range of their own appended to a buffer: either way every byte outside
    // visual 5's new range is the byte that was there
    let (vb0, old) = vertex_range(&l.level, &before, 5);
    let (vb1, new) = vertex_range(&file(&r, "level"), &after, 5);
    let (old_vbs, new_vbs) = (
        before.vertex_buffers().unwrap(),
        after.vertex_buffers().unwrap(),
    );
    assert_eq!(old_vbs.len(), new_vbs.len());
    for (i, (a, b)) in old_vbs.iter().zip(new_vbs).enumerate() {
        let (a, b) = (&a.data[..], &b.data[..]);
        let (skip, grown) = if i == vb1 {
            (new.clone(), new.end.saturating_sub(a.len()))
        } else {
            (0..0, 0)
        };
        assert_eq!(b.len(), a.len() + grown, "buffer {i}: size");
        let outside = |x: &[u8]| {
            let end = x.len().min(a.len());
            (0..end)
                .filter(|k| !skip.contains(k))
                .map(|k| x[k])
                .collect::<Vec<u8>>()
        };
        assert!(
            outside(a) == outside(b),
            "buffer {i}: a byte of another visual changed"
        );
    }
    let (a, b) = (
        &old_vbs[vb0].data[old.clone()],
        &new_vbs[vb1].data[new.clone()],
    );
    assert_eq!(a.len(), b.len());
    let stride = old_vbs[vb0].decl.stride();
    let changed = (0..a.len() / stride)
        .filter(|&k| a[k * stride..(k + 1) * stride] != b[k * stride..(k + 1) * stride])
        .count();
    // the moved vertex (and the normals of the triangles around it) re-encoded, the rest of
    // the visual's vertices copied as they were
    assert!(changed >= 1, "visual 5 not re-encoded");
    assert!(
        changed < a.len() / stride / 2,
        "{changed} vertices re-encoded"
    );
    for (i, (a, b)) in before
        .index_buffers()
        .unwrap()
        .iter()
        .zip(after.index_buffers().unwrap())
        .enumerate()
    {
        assert!(b.starts_with(a), "index buffer {i} changed");
    }
    // the new position is what the level now holds
    let p1 = first(&file(&r, "level"), &new_geom);
    assert!(
        (p1[0] - (p0[0] + 0.5)).abs() < 1e-3,
        "{p1:?} against {p0:?}"
    );
    assert!((p1[1] - p0[1]).abs() < 1e-3 && (p1[2] - p0[2]).abs() < 1e-3);
}

/// A glTF-only export of an X-Ray level writes from a hollow scene (each visual's vertices
/// decoded as the GLB's BIN chunk reaches them): the `level.glb` is the one pinned for the full
/// export (the 400-visual level's, recorded before any streaming existed, and the fixture's in
/// `exports.sha256`), and the report is the full export's — the same counts, and the same
/// warnings but for the OBJ writer's.
#[test]
fn gltf_only_exports_stream_the_pinned_glb_with_the_full_report() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/before");
    let large_pins = Pins::load(dir.join("xray_large.sha256"));
    let fixture_pins = Pins::load(dir.join("exports.sha256"));
    let tmp = tempfile::tempdir().unwrap();
    let x400 = tmp.path().join("x400");
    std::fs::create_dir(&x400).unwrap();
    std::fs::write(x400.join("level"), &large().level).unwrap();
    std::fs::write(x400.join("level.geom"), &large().geom).unwrap();
    let gltf_only = ExportOptions {
        formats: levelgeom_core::Formats {
            gltf: true,
            obj: false,
        },
        ..ExportOptions::default()
    };
    for (input, pin) in [
        (x400, large_pins.get("out/level.glb")),
        (crate::fixture(), fixture_pins.get("xray/level.glb")),
    ] {
        let (sha, size) = pin.unwrap();
        let level = levelgeom_core::open(&input).unwrap();
        let out = tmp.path().join("gltf");
        let streamed = level.export(&out, &gltf_only).unwrap();
        let glb = std::fs::read(out.join("level.glb")).unwrap();
        assert_eq!(glb.len().to_string(), size);
        assert_eq!(levelgeom_testkit::pins::sha256_hex(&glb), sha);
        let all = tmp.path().join("all");
        let full = level.export(&all, &ExportOptions::default()).unwrap();
        assert_eq!(streamed.roots, full.roots);
        assert!(streamed.roots.iter().any(|r| r.vertices > 0));
        assert_eq!(streamed.distinct_meshes, full.distinct_meshes);
        assert_eq!(streamed.distinct_triangles, full.distinct_triangles);
        assert_eq!(streamed.materials, full.materials);
        let not_obj: Vec<&String> = full
            .warnings
            .iter()
            .filter(|w| !w.starts_with("level.obj") && !w.starts_with("level.mtl"))
            .collect();
        assert_eq!(streamed.warnings.iter().collect::<Vec<_>>(), not_obj);
        std::fs::remove_dir_all(&out).unwrap();
        std::fs::remove_dir_all(&all).unwrap();
    }
}
