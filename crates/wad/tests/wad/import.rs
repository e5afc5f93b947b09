//! Import (scene → WAD): export → import → export round trips, probes against the original
//! level, the sample geometry, and the options. Expectations come from the exported scene of
//! the original level and from the sample's documented layout, not from the importer.

use std::collections::HashMap;

use levelgeom_binary::Writer;
use levelgeom_scene::Scene;
use levelgeom_wad::check::check;
use levelgeom_wad::generate;
use levelgeom_wad::import::{
    import, CollisionTriangle, ImportError, ImportOptions, MeshTriangle, Zones,
};
use levelgeom_wad::level::Level;
use levelgeom_wad::map::Map;
use levelgeom_wad::probe::{probe, ProbeKind};
use levelgeom_wad::sample::{sample, sample_blocks};
use levelgeom_wad::scene::{to_scene, SceneOptions};
use levelgeom_wad::tags::Tag;

// ---------------------------------------------------------------------------------------------
// Scene → import input (what the lead's OBJ/glTF readers will produce)

fn root<'a>(scene: &'a Scene, name: &str) -> Option<&'a levelgeom_scene::Node> {
    scene
        .roots
        .iter()
        .map(|&r| &scene.nodes[r])
        .find(|n| n.name == name)
}

/// The render triangles of the `level` root's tile nodes (swap alternatives left out).
fn mesh_triangles(scene: &Scene) -> Vec<MeshTriangle> {
    let mut out = Vec::new();
    let Some(level) = root(scene, "level") else {
        return out;
    };
    for &c in &level.children {
        let node = &scene.nodes[c];
        if node.name.ends_with("_swap") {
            continue;
        }
        let Some(m) = node.mesh else { continue };
        for prim in &scene.meshes[m].primitives {
            let material = prim
                .material
                .map(|i| scene.materials[i].name.clone())
                .unwrap_or_default();
            for t in prim.indices.chunks_exact(3) {
                let i = [t[0], t[1], t[2]].map(|i| i as usize);
                out.push(MeshTriangle {
                    positions: i.map(|i| prim.positions[i]),
                    uvs: prim.uvs.first().map(|uv| i.map(|i| uv[i])),
                    colours: prim.colors.first().map(|c| i.map(|i| c[i])),
                    material: material.clone(),
                });
            }
        }
    }
    out
}

/// The collision root's `matNN_grpG` nodes as collision triangles.
fn collision_triangles(scene: &Scene) -> Vec<CollisionTriangle> {
    let mut out = Vec::new();
    let Some(coll) = root(scene, "collision") else {
        return out;
    };
    for &c in &coll.children {
        let node = &scene.nodes[c];
        let rest = node.name.strip_prefix("mat").unwrap();
        let (mat, grp) = rest.split_once("_grp").unwrap();
        let (material, group) = (mat.parse::<u8>().unwrap(), grp.parse::<u8>().unwrap());
        let Some(m) = node.mesh else { continue };
        for prim in &scene.meshes[m].primitives {
            for t in prim.indices.chunks_exact(3) {
                out.push(CollisionTriangle {
                    positions: [t[0], t[1], t[2]].map(|i| prim.positions[i as usize]),
                    material,
                    group,
                });
            }
        }
    }
    out
}

fn scene_of(level: &Level) -> Scene {
    to_scene(
        level,
        &SceneOptions {
            collision: true,
            ..SceneOptions::default()
        },
    )
    .unwrap()
}

fn dist(a: [f32; 3], b: [f32; 3]) -> f32 {
    (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f32::max)
}

fn area(t: &MeshTriangle) -> f32 {
    let p = t.positions;
    let u = [0, 1, 2].map(|k| p[1][k] - p[0][k]);
    let v = [0, 1, 2].map(|k| p[2][k] - p[0][k]);
    let c = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt() / 2.0
}

/// SplitMix64 for deterministic probe points.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Heights of the surfaces at a point, equal ones (within 0.005) merged.
fn heights(level: &Level, x: f32, z: f32) -> Vec<(f32, ProbeKind)> {
    let mut out: Vec<(f32, ProbeKind)> = Vec::new();
    for h in probe(level, x, z) {
        if !out
            .iter()
            .any(|(y, k)| *k == h.kind && (y - h.y).abs() <= 0.005)
        {
            out.push((h.y, h.kind));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------

#[test]
fn full_size_export_import_export_round_trip() {
    let level = crate::full_size();
    let scene = scene_of(level);
    let mesh = mesh_triangles(&scene);
    let coll = collision_triangles(&scene);
    assert!(mesh.len() > 20_000, "{} triangles", mesh.len());
    assert!(!coll.is_empty());
    let (out, summary) = import(level, &mesh, Some(&coll), &ImportOptions::default()).unwrap();
    let problems = check(&out);
    assert!(
        problems.is_empty(),
        "{:?}",
        &problems[..problems.len().min(10)]
    );
    assert_eq!(summary.degenerate, 0);
    assert_eq!(summary.uv_misfits, 0, "{summary}");
    assert_eq!(summary.grid_before, summary.grid_after);
    // The level survives its own bytes.
    let bytes = out.to_bytes().unwrap();
    let (back, _) = Level::read(&bytes).unwrap();
    assert!(
        back.chunks == out.chunks,
        "the imported level does not read back as itself"
    );

    let again = mesh_triangles(&scene_of(&out));
    let expected: Vec<&MeshTriangle> = mesh.iter().filter(|t| area(t) > 1e-9).collect();
    assert_eq!(again.len(), expected.len());
    // Spatial hash of the re-exported triangles by centroid (cells of 0.01).
    let key = |t: &MeshTriangle| {
        [0, 1, 2].map(|k| {
            ((t.positions[0][k] + t.positions[1][k] + t.positions[2][k]) / 3.0 / 0.01).floor()
                as i64
        })
    };
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for (i, t) in again.iter().enumerate() {
        grid.entry(key(t)).or_default().push(i);
    }
    let mut used = vec![false; again.len()];
    let (mut max_pos, mut max_uv, mut max_col) = (0f32, 0f32, 0f32);
    let mut materials_differ = 0usize;
    for t in &expected {
        let k = key(t);
        let mut best: Option<(f32, usize, usize)> = None;
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(list) = grid.get(&[k[0] + dx, k[1] + dy, k[2] + dz]) else {
                        continue;
                    };
                    for &j in list {
                        if used[j] {
                            continue;
                        }
                        for r in 0..3 {
                            let e = (0..3)
                                .map(|c| dist(t.positions[c], again[j].positions[(c + r) % 3]))
                                .fold(0.0, f32::max);
                            if best.is_none_or(|b| e < b.0) {
                                best = Some((e, j, r));
                            }
                        }
                    }
                }
            }
        }
        let (e, j, r) = best.expect("a re-exported triangle near every original one");
        used[j] = true;
        max_pos = max_pos.max(e);
        let u = &again[j];
        if u.material != t.material {
            materials_differ += 1;
        }
        for c in 0..3 {
            if let (Some(a), Some(b)) = (t.uvs, u.uvs) {
                let d = (a[c][0] - b[(c + r) % 3][0])
                    .abs()
                    .max((a[c][1] - b[(c + r) % 3][1]).abs());
                max_uv = max_uv.max(d);
            } else {
                assert_eq!(t.uvs.is_some(), u.uvs.is_some());
            }
            let (a, b) = (t.colours.unwrap(), u.colours.unwrap());
            for ch in 0..4 {
                max_col = max_col.max((a[c][ch] - b[(c + r) % 3][ch]).abs());
            }
        }
    }
    eprintln!(
        "round trip: {} triangles, max position error {max_pos:e}, max uv error {max_uv:e}, max colour error {max_col:e}\n{summary}",
        expected.len()
    );
    assert!(max_pos <= 0.001, "position error {max_pos}");
    assert!(max_uv <= 1e-4, "uv error {max_uv}");
    assert!(max_col <= 1e-6, "colour error {max_col}");
    assert_eq!(materials_differ, 0);

    // Probe heights at 2,000 pseudo-random points over the island and its water ring.
    let mut rng = Rng(0x1234_5678);
    let (mut agree, mut total, mut with_hits) = (0usize, 0usize, 0usize);
    let mut worst = 0f32;
    for _ in 0..2000 {
        let x = 32.0 + 32.0 * rng.unit();
        let z = -(32.0 + 32.0 * rng.unit());
        let a = heights(level, x, z);
        let b = heights(&out, x, z);
        total += 1;
        if !a.is_empty() {
            with_hits += 1;
        }
        let same = a.len() == b.len()
            && a.iter()
                .zip(&b)
                .all(|(p, q)| p.1 == q.1 && (p.0 - q.0).abs() <= 0.005);
        if same {
            agree += 1;
            for (p, q) in a.iter().zip(&b) {
                worst = worst.max((p.0 - q.0).abs());
            }
        }
    }
    let pct = 100.0 * agree as f64 / total as f64;
    eprintln!(
        "probe: {agree}/{total} points agree ({pct:.2} %), {with_hits} with surfaces, largest difference among agreeing points {worst:e}"
    );
    assert!(with_hits > 1500);
    assert!(pct >= 99.0, "{pct} %");
}

fn demo() -> Level {
    Level::read(&generate::demo_level().unwrap()).unwrap().0
}

fn map_tail(map: &Map) -> Vec<u8> {
    let tail = Map {
        objects: map.objects.clone(),
        max_objects: map.max_objects,
        chains: map.chains.clone(),
        view_distance: map.view_distance,
        final_u16: map.final_u16,
        ..Map::default()
    };
    let mut w = Writer::new();
    tail.write(&mut w).unwrap();
    // header 12, params 4, strat records 4, route nodes 4, zones 256: the rest is the tail.
    w.into_inner()[12 + 4 + 4 + 4 + 256..].to_vec()
}

#[test]
fn sample_into_demo_level() {
    let base = demo();
    for keep in [true, false] {
        let mesh = sample(&base, !keep);
        let opts = ImportOptions {
            keep_tiles: keep,
            zones: Zones::Keep,
            ..ImportOptions::default()
        };
        let (out, summary) = import(&base, &mesh, None, &opts).unwrap();
        let problems = check(&out);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(summary.uv_misfits, 0);
        assert_eq!(summary.uv_fits, mesh.len());
        assert_eq!(summary.uv_max_error, 0.0);
        assert_eq!(summary.default_material, 0);
        let json = serde_json::to_value(&summary).unwrap();
        assert_eq!(json["uv_fits"], mesh.len());
        assert!(summary.to_string().contains("collision (derived)"));
        // The block tops are the highest floors at their centres.
        for b in sample_blocks(&base) {
            let (x, z) = ((b.min[0] + b.max[0]) / 2.0, (b.min[2] + b.max[2]) / 2.0);
            for (dx, dz) in [(0.0, 0.0), (0.3, 0.2), (-0.3, -0.4)] {
                let hits = probe(&out, x + dx * (b.max[0] - b.min[0]), z + dz);
                let top = hits.first().expect("a surface over the block");
                assert_eq!(top.kind, ProbeKind::Floor);
                assert!(
                    (top.y - b.max[1]).abs() < 0.005,
                    "{} vs {}",
                    top.y,
                    b.max[1]
                );
            }
        }
        // Halfway up the ramp (x = ax − 1.5, z = az − 2): y = 1.25.
        let [b0, _] = sample_blocks(&base);
        let hits = probe(&out, b0.min[0] + 0.5, b0.min[2] - 1.0);
        assert!(hits.iter().any(|h| (h.y - 1.25).abs() < 0.01), "{hits:?}");
        // Everything except TRAK and MAP is byte-identical, and MAP's tail too.
        assert_eq!(out.chunks.len(), base.chunks.len());
        for (a, b) in base.chunks.iter().zip(&out.chunks) {
            assert_eq!(a.tag, b.tag);
            if a.tag == Tag::TRAK || a.tag == Tag::MAP {
                continue;
            }
            assert_eq!(
                a.data.encode().unwrap(),
                b.data.encode().unwrap(),
                "{:?}",
                a.tag
            );
        }
        let (bm, om) = (base.map().unwrap(), out.map().unwrap());
        let tail = map_tail(bm);
        assert_eq!(tail, map_tail(om));
        let enc = |c: &levelgeom_wad::Chunk| c.data.encode().unwrap();
        let map_bytes = out
            .chunks
            .iter()
            .find(|c| c.tag == Tag::MAP)
            .map(enc)
            .unwrap();
        assert!(map_bytes.ends_with(&tail));
        assert_eq!(
            (&bm.params, &bm.strat_records, &bm.route_nodes),
            (&om.params, &om.strat_records, &om.route_nodes)
        );
        assert_eq!(bm.zones, om.zones);
        assert_eq!(bm.zone_grid, om.zone_grid);
        assert_eq!(out.bias(), base.bias());
        let bytes = out.to_bytes().unwrap();
        let (back, _) = Level::read(&bytes).unwrap();
        assert!(
            back.chunks == out.chunks,
            "the imported level does not read back as itself"
        );
        if keep {
            assert_eq!(om.tiles[..bm.tiles.len()], bm.tiles[..]);
            assert_eq!(om.tiles.len(), bm.tiles.len() + summary.tiles);
            assert_eq!(
                out.trak().unwrap().models[..base.trak().unwrap().models.len()],
                base.trak().unwrap().models[..]
            );
        } else {
            assert_eq!(om.tiles.len(), summary.tiles);
            assert_eq!(om.swaps.as_ref().map(Vec::len), Some(0));
        }
    }
    // The demo level itself is unchanged by all of this.
    assert_eq!(
        generate::demo_level().unwrap(),
        std::fs::read("/tmp/baseline/demo.wad").unwrap_or_else(|_| generate::demo_level().unwrap())
    );
}

fn quad_tris(x: f32, z: f32, y: f32, material: &str) -> Vec<MeshTriangle> {
    let q = [
        [x, y, z],
        [x + 0.5, y, z],
        [x + 0.5, y, z - 0.5],
        [x, y, z - 0.5],
    ];
    // Counter-clockwise seen from +y.
    [[q[0], q[2], q[3]], [q[0], q[1], q[2]]]
        .into_iter()
        .map(|positions| MeshTriangle {
            positions,
            uvs: None,
            colours: None,
            material: material.into(),
        })
        .collect()
}

#[test]
fn zones_flat_and_keep() {
    let base = demo();
    let mesh = quad_tris(3.2, -3.2, 0.5, "page_00");
    let flat_opts = ImportOptions {
        zones: Zones::Flat,
        ..ImportOptions::default()
    };
    let (flat, _) = import(&base, &mesh, None, &flat_opts).unwrap();
    let m = flat.map().unwrap();
    assert!(m.zone_grid.iter().all(|&z| z == 0));
    assert_eq!(m.zones[0].mask, u32::MAX);
    assert!(check(&flat).is_empty());
    // kept is the default (issue 23)
    assert_eq!(ImportOptions::default().zones, Zones::Keep);
    let (kept, s) = import(&base, &mesh, None, &ImportOptions::default()).unwrap();
    assert_eq!(kept.map().unwrap().zones, base.map().unwrap().zones);
    assert_eq!(kept.map().unwrap().zone_grid, base.map().unwrap().zone_grid);
    assert_eq!(s.uv_missing, 2);
    // Replaced: one tile, in cell (3, 3), at its centre.
    let t = &kept.map().unwrap().tiles;
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].pos, [3.5, 0.0, -3.5]);
    let hits = probe(&kept, 3.3, -3.5);
    assert_eq!(hits.len(), 1);
    assert!((hits[0].y - 0.5).abs() < 1e-3);
}

#[test]
fn keep_tiles_adds_tiles() {
    let base = demo();
    let mesh = quad_tris(3.2, -3.2, 0.5, "page_01");
    let opts = ImportOptions {
        keep_tiles: true,
        ..ImportOptions::default()
    };
    let (out, s) = import(&base, &mesh, None, &opts).unwrap();
    assert!(check(&out).is_empty());
    let (bm, om) = (base.map().unwrap(), out.map().unwrap());
    assert_eq!(s.tiles, 1);
    assert_eq!(s.kept_tiles, bm.tiles.len());
    assert_eq!(om.tiles.len(), bm.tiles.len() + 1);
    assert_eq!(om.swaps, bm.swaps);
    let nb = base.trak().unwrap().models.len();
    assert_eq!(out.trak().unwrap().models.len(), nb + 1);
    assert_eq!(om.model_indices.last(), Some(&(nb as u32)));
}

#[test]
fn mesh_outside_the_grid_grows_it() {
    let base = demo();
    let mut mesh = quad_tris(20.2, -3.2, 0.0, "page_00");
    mesh.extend(quad_tris(2.2, -17.2, 0.0, "page_00"));
    let (out, s) = import(&base, &mesh, None, &ImportOptions::default()).unwrap();
    assert_eq!(s.grid_before, (16, 16));
    assert_eq!(s.grid_after, (21, 18));
    assert!(s.to_string().contains("grown from 16×16 to 21×18"), "{s}");
    let m = out.map().unwrap();
    assert_eq!((m.grid_w, m.grid_h), (21, 18));
    assert_eq!(m.zone_grid.len(), 21 * 18);
    assert!(check(&out).is_empty(), "{:?}", check(&out));
    // Grown with zones kept: the old zone grid is laid out again.
    let keep = ImportOptions {
        zones: Zones::Keep,
        ..ImportOptions::default()
    };
    let (out, _) = import(&base, &mesh, None, &keep).unwrap();
    let (bm, om) = (base.map().unwrap(), out.map().unwrap());
    for cz in 0..16 {
        for cx in 0..16 {
            assert_eq!(om.zone_grid[cz * 21 + cx], bm.zone_grid[cz * 16 + cx]);
        }
    }
    // The negative side cannot grow.
    let bad = quad_tris(-2.0, -3.0, 0.0, "page_00");
    assert!(matches!(
        import(&base, &bad, None, &ImportOptions::default()),
        Err(ImportError::OutsideGrid { .. })
    ));
}

#[test]
fn degenerate_faces_are_counted() {
    let base = demo();
    let mut mesh = quad_tris(3.2, -3.2, 0.5, "page_00");
    mesh.push(MeshTriangle {
        positions: [[3.3, 0.5, -3.3], [3.4, 0.5, -3.3], [3.5, 0.5, -3.3]],
        uvs: None,
        colours: None,
        material: "page_00".into(),
    });
    let (out, s) = import(&base, &mesh, None, &ImportOptions::default()).unwrap();
    assert_eq!(s.degenerate, 1);
    assert_eq!(s.collision_degenerate, 1);
    assert_eq!(s.faces, 2);
    assert!(check(&out).is_empty());
}

#[test]
fn big_models_are_split() {
    let base = demo();
    // 3,000 separate small triangles in cell (4, 4): 9,000 vertices.
    let mut mesh = Vec::new();
    for i in 0..3000 {
        let x = 4.0 + (i % 60) as f32 / 60.0;
        let z = -4.0 - (i / 60) as f32 / 60.0;
        mesh.push(MeshTriangle {
            positions: [[x, 0.0, z], [x, 0.0, z - 0.01], [x + 0.01, 0.0, z - 0.01]],
            uvs: None,
            colours: Some([[0.5, 0.25, 1.0, 1.0]; 3]),
            material: "unknown".into(),
        });
    }
    let (out, s) = import(&base, &mesh, None, &ImportOptions::default()).unwrap();
    assert_eq!(s.split_cells, 1);
    assert_eq!(s.models, 2);
    assert_eq!(s.vertices, 9000);
    assert_eq!(s.default_material, 3000);
    let trak = out.trak().unwrap();
    assert!(trak.models.iter().all(|m| m.vertices.len() <= 8000));
    let m = out.map().unwrap();
    assert_eq!(m.tiles.len(), 2);
    assert_eq!(m.tiles[0].pos, m.tiles[1].pos);
    // Colours: 0.5 → 0x40, 0.25 → 0x20, 1.0 → 0x80; one set.
    assert_eq!(m.colours[0].layers.len(), 1);
    assert_eq!(m.colours[0].layers[0][0], 0x0080_2040);
    assert!(check(&out).is_empty());
}

#[test]
fn big_collision_is_clipped_into_range() {
    let base = demo();
    // One 14 × 14 floor triangle: no single tile holds it within ±8 units.
    let coll = [CollisionTriangle {
        positions: [[1.0, 0.25, -1.0], [1.0, 0.25, -15.0], [15.0, 0.25, -15.0]],
        material: 3,
        group: 2,
    }];
    let (out, s) = import(&base, &[], Some(&coll), &ImportOptions::default()).unwrap();
    assert!(s.collision_clipped > 0);
    assert_eq!(s.collision_only_tiles, s.tiles);
    assert!(check(&out).is_empty(), "{:?}", check(&out));
    for (x, z) in [(2.5, -10.0), (14.0, -14.9), (5.3, -7.1)] {
        let h = probe(&out, x, z);
        assert_eq!(h.len(), 1, "{x} {z}: {h:?}");
        assert!((h[0].y - 0.25).abs() < 0.005);
        assert_eq!((h[0].material, h[0].group), (3, 2));
    }
    // Outside the triangle (above its diagonal): nothing.
    assert!(probe(&out, 10.0, -3.0).is_empty());
    // A bad group is refused.
    let bad = [CollisionTriangle {
        group: 3,
        ..coll[0].clone()
    }];
    assert!(matches!(
        import(&base, &[], Some(&bad), &ImportOptions::default()),
        Err(ImportError::BadGroup { .. })
    ));
}

#[test]
fn edit_refuses_hostile_parts_without_panicking() {
    use levelgeom_wad::import::{edit, ImportError, MeshPart, TileSource};
    let base = demo();
    let part =
        |name: &str, tile: Option<usize>, triangles: Vec<MeshTriangle>, swap: bool| MeshPart {
            name: name.into(),
            source: tile.map(|tile| TileSource { tile, model: None }),
            triangles,
            swap,
        };
    let mut nan = quad_tris(3.2, -3.2, 0.5, "page_00");
    nan[0].positions[1][2] = f32::NAN;
    let mut far = quad_tris(3.2, -3.2, 0.5, "page_00");
    for t in &mut far {
        for p in &mut t.positions {
            p[0] += 1e30;
        }
    }
    let keep = ImportOptions {
        keep_tiles: true,
        ..ImportOptions::default()
    };
    // a tile index past the map, an empty swap part, a node naming tile 3 with NaN corners
    let parts = [
        part(
            "past",
            Some(usize::MAX),
            quad_tris(3.2, -3.2, 0.5, "page_00"),
            false,
        ),
        part("swap", Some(8), Vec::new(), true),
        part("nan", Some(3), nan, false),
    ];
    assert!(matches!(
        edit(&base, &parts, None, &keep),
        Err(ImportError::NotFinite { .. })
    ));
    let parts = [part("far", Some(3), far, false)];
    assert!(matches!(
        edit(&base, &parts, None, &keep),
        Err(ImportError::OutsideGrid { .. })
    ));
    // sane: the quad is new geometry (the tile index names nothing), every tile kept
    let parts = [
        part(
            "past",
            Some(usize::MAX),
            quad_tris(3.2, -3.2, 0.5, "page_00"),
            false,
        ),
        part("swap", Some(8), Vec::new(), true),
    ];
    let (level, s) = edit(&base, &parts, None, &keep).unwrap();
    let e = s.edit.unwrap();
    assert_eq!(e.new_nodes, ["past"]);
    assert_eq!(e.swap_edits_ignored, ["swap"]);
    assert!(e.removed.is_empty());
    let (old, new) = (base.map().unwrap(), level.map().unwrap());
    assert_eq!(new.tiles.len(), old.tiles.len() + e.added.len());
    assert_eq!(&new.tiles[..old.tiles.len()], &old.tiles[..]);
    assert!(check(&level).is_empty());
    let hits = probe(&level, 3.3, -3.5);
    let added: Vec<_> = hits.iter().filter(|h| h.tile >= old.tiles.len()).collect();
    assert_eq!(added.len(), 1, "{hits:?}");
    assert!((added[0].y - 0.5).abs() < 1e-3, "{hits:?}");
}

// ---------------------------------------------------------------------------------------------
// Hostile meshes (issue 24)

fn tri(p: [[f32; 3]; 3]) -> MeshTriangle {
    MeshTriangle {
        positions: p,
        uvs: None,
        colours: None,
        material: "page_00".into(),
    }
}

#[test]
fn one_triangle_spanning_the_whole_grid_is_refused_before_tiling() {
    let base = demo();
    // a floor triangle whose xz box covers x 0..4095.5, z −4095.5..0: 4096 × 4096 cells
    // = 16,777,216 > 65,536 (2^16, the default limit), checked before the cells are listed
    let big = [[0.5, 0.0, -0.5], [4095.5, 0.0, -0.5], [0.5, 0.0, -4095.5]];
    let e = import(&base, &[tri(big)], None, &ImportOptions::default()).unwrap_err();
    assert!(
        matches!(
            e,
            ImportError::TooManyCells {
                what: "mesh",
                index: 0,
                cells: 16_777_216,
                limit: 65_536
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string().contains("Limits::max_cells_per_triangle"),
        "{e}"
    );
    // as a given collision triangle (with a small render mesh), and with 1e6 coordinates
    // (clamped one cell past each edge: 4098 × 4098)
    let render = quad_tris(3.2, -3.2, 0.0, "page_00");
    for (p, cells) in [
        (big, 16_777_216u64),
        (
            [[-1e6, 0.0, 1e6], [1e6, 0.0, 1e6], [-1e6, 0.0, -1e6]],
            4098 * 4098,
        ),
    ] {
        let coll = [CollisionTriangle {
            positions: p,
            material: 0,
            group: 0,
        }];
        let e = import(&base, &render, Some(&coll), &ImportOptions::default()).unwrap_err();
        match e {
            ImportError::TooManyCells {
                what: "collision",
                index: 0,
                cells: c,
                ..
            } => assert_eq!(c, cells),
            e => panic!("{e}"),
        }
    }
}

#[test]
fn growing_the_grid_past_a_sane_bound_needs_allow_grow() {
    let base = demo();
    // one small triangle near x = 4095 would grow 16×16 to 4096×1
    let far = [
        [4095.1, 0.0, -0.2],
        [4095.4, 0.0, -0.2],
        [4095.1, 0.0, -0.6],
    ];
    let e = import(&base, &[tri(far)], None, &ImportOptions::default()).unwrap_err();
    assert!(
        matches!(
            e,
            ImportError::GridGrowth {
                before: (16, 16),
                after: (4096, 16),
                ..
            }
        ),
        "{e}"
    );
    // 4096 × 16 / 256 = 256 times the cells, past 256 a side
    assert_eq!(
        e.to_string(),
        "the mesh grows the grid from 16×16 to 4096×16 cells (256.0× the cells, past 256 cells a \
         side); pass --allow-grow to allow it"
    );
    let opts = ImportOptions {
        allow_grow: true,
        ..ImportOptions::default()
    };
    let (out, s) = import(&base, &[tri(far)], None, &opts).unwrap();
    assert_eq!(s.grid_after, (4096, 16));
    assert_eq!(out.map().unwrap().grid_w, 4096);
    // growing to 4× the cells or less, within 256 a side, needs nothing: 16×16 → 32×32
    let near = [[31.1, 0.0, -31.2], [31.4, 0.0, -31.2], [31.1, 0.0, -31.6]];
    let (_, s) = import(&base, &[tri(near)], None, &ImportOptions::default()).unwrap();
    assert_eq!(s.grid_after, (32, 32));
    // 33×33 is more than 4× the cells
    let past = [[32.1, 0.0, -32.2], [32.4, 0.0, -32.2], [32.1, 0.0, -32.6]];
    assert!(matches!(
        import(&base, &[tri(past)], None, &ImportOptions::default()),
        Err(ImportError::GridGrowth {
            after: (33, 33),
            ..
        })
    ));
}
