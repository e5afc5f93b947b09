//! Hollow scenes ([`to_hollow_scene`]): each hollow primitive, filled by the scene's source,
//! keeps the promises of its `Hollow` (counts, attributes, bounds), and the filled scene is
//! [`to_scene`]'s, value for value (compared through `Debug`, which tells `-0.0` from `0.0`
//! and shows NaNs) — the positions moved by the pivot, `_LIGHT` moved out of the colours, the
//! warnings in their order. Every primitive is filled into one reused buffer, so a buffer that
//! held another range's attributes (more UV sets, `_LIGHT`, other scalars) must come out right.

use levelgeom_scene::{position_bounds, Primitive, PrimitiveSource, Scene};
use levelgeom_xray::generate::{self, Options};
use levelgeom_xray::{to_hollow_scene, to_scene, Geom, Level, Only, SceneOptions};

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/data/xray-v14-micro/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// The real fixture, the generated level and the benchmark's generator (trees, progressive
/// visuals, two buffers of another declaration).
fn levels() -> Vec<(&'static str, Level, Geom)> {
    let fixture = (
        "fixture",
        Level::read(&read("level")).unwrap().0,
        Geom::read(&read("level.geom")).unwrap().0,
    );
    let (gl, gg) = generate::level(Options::default());
    let large = levelgeom_xray::bench_level::large(60).unwrap();
    vec![
        fixture,
        ("generated", gl, gg),
        (
            "large",
            Level::read(&large.level).unwrap().0,
            Geom::read(&large.geom).unwrap().0,
        ),
    ]
}

fn option_sets() -> Vec<SceneOptions> {
    let base = SceneOptions::default;
    vec![
        base(),
        SceneOptions {
            lods: true,
            portals: true,
            ..base()
        },
        SceneOptions {
            vertex_light: true,
            ..base()
        },
        SceneOptions {
            only: Some(Only::Trees),
            ..base()
        },
        SceneOptions {
            only: Some(Only::Static),
            ..base()
        },
    ]
}

/// Fill every hollow primitive of `scene` from `source` through one buffer, checking its
/// promises; returns how many there were.
fn fill_all(scene: &mut Scene, source: &dyn PrimitiveSource) -> usize {
    let mut buf = Primitive::default();
    let mut filled = 0;
    for p in scene.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
        let Some(h) = p.hollow.take() else { continue };
        source.fill(h.key, &mut buf).unwrap();
        assert_eq!(buf.positions.len(), h.vertices);
        assert_eq!(buf.indices.len(), h.indices);
        assert!(buf.indices.iter().all(|&i| (i as usize) < h.vertices));
        assert_eq!(!buf.normals.is_empty(), h.normals);
        assert_eq!(!buf.tangents.is_empty(), h.tangents);
        assert_eq!(buf.uvs.len(), h.uvs);
        assert_eq!(buf.colors.len(), h.colors);
        let names = |v: &[(String, _)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&buf.scalars), h.scalars);
        let vectors: Vec<String> = buf.vectors.iter().map(|(n, _)| n.clone()).collect();
        assert_eq!(vectors, h.vectors);
        let n = h.vertices;
        assert!(buf.normals.len() == n || buf.normals.is_empty());
        assert!(buf.tangents.len() == n || buf.tangents.is_empty());
        assert!(buf.uvs.iter().all(|s| s.len() == n));
        assert!(buf.colors.iter().all(|s| s.len() == n));
        assert!(buf.scalars.iter().all(|(_, s)| s.len() == n));
        assert!(buf.vectors.iter().all(|(_, s)| s.len() == n));
        let b = position_bounds(buf.positions.iter().copied());
        assert_eq!(format!("{b:?}"), format!("{:?}", h.bounds));
        *p = Primitive {
            material: p.material,
            topology: p.topology,
            hollow: None,
            ..buf.clone()
        };
        filled += 1;
    }
    filled
}

#[test]
fn filled_hollow_scenes_are_the_full_scenes() {
    for (name, level, geom) in levels() {
        for opts in option_sets() {
            let full = to_scene(&level, &geom, &opts).unwrap();
            let (mut hollow, source) = to_hollow_scene(&level, &geom, &opts).unwrap();
            let hollow_meshes = hollow
                .meshes
                .iter()
                .filter(|m| m.primitives.iter().any(|p| p.hollow.is_some()))
                .count();
            // the counts are known before the data: the scene's triangles are the full one's
            assert_eq!(
                hollow.mesh_triangle_count(),
                full.mesh_triangle_count(),
                "{name} {opts:?}"
            );
            assert_eq!(fill_all(&mut hollow, &source), source.len());
            assert_eq!(source.len(), hollow_meshes);
            if opts.only != Some(Only::Trees) || name != "fixture" {
                assert!(!source.is_empty(), "{name} {opts:?}: nothing hollow");
            }
            assert_eq!(
                format!("{hollow:?}"),
                format!("{full:?}"),
                "{name} {opts:?}"
            );
        }
    }
}

#[test]
fn the_shape_fill_gives_the_full_fills_positions_and_triangles_bit_for_bit() {
    let bits =
        |p: &[[f32; 3]]| -> Vec<[u32; 3]> { p.iter().map(|x| x.map(f32::to_bits)).collect() };
    for (name, level, geom) in levels() {
        for opts in [
            SceneOptions {
                lods: true,
                geometry_only: true,
                ..SceneOptions::default()
            },
            SceneOptions::default(),
        ] {
            let (_, source) = to_hollow_scene(&level, &geom, &opts).unwrap();
            assert!(!source.is_empty(), "{name}");
            // one set of buffers for every range, as a thread reuses them (larger and
            // smaller ranges after each other)
            let (mut full, mut positions, mut indices) =
                (Primitive::default(), Vec::new(), Vec::new());
            for key in (0..source.len()).rev().chain(0..source.len()) {
                source.fill(key, &mut full).unwrap();
                source
                    .fill_shape(key, &mut positions, &mut indices)
                    .unwrap();
                assert_eq!(bits(&positions), bits(&full.positions), "{name} {key}");
                assert_eq!(indices, full.indices, "{name} {key}");
                assert!(!positions.is_empty(), "{name} {key}");
            }
            assert!(source
                .fill_shape(source.len(), &mut positions, &mut indices)
                .is_err());
        }
    }
}
