//! XRLC 4, 5, 8–12: levels whose geometry lives inside `level` (FVF buffers, D3D9 buffers in
//! `level`, OGF 2/3 visuals, LZHUF-compressed buffers in 12). Generated levels of each version
//! rebuild byte for byte, pass the rules, and export the generator's hand-known positions and
//! UVs; a hand-assembled version-8 file checks the reader against bytes written here.

use levelgeom_scene::{transform_point, Scene};
use levelgeom_xray::chunk::COMPRESSED;
use levelgeom_xray::generate::{self, Options, TREE_OFFSETS};
use levelgeom_xray::{check, files, flat, to_scene, Geom, Kind, Level, SceneOptions};

const OLD: [u16; 7] = [4, 5, 8, 9, 10, 11, 12];

fn options() -> Vec<Options> {
    OLD.iter()
        .flat_map(|&version| [false, true].map(|compress| Options { version, compress }))
        .collect()
}

fn scene_of(l: &Level) -> Scene {
    to_scene(l, &Geom { chunks: Vec::new() }, &SceneOptions::default()).unwrap()
}

/// Every triangle of the scene in world space (glTF frame), each corner with its UV0.
pub fn world_triangles(s: &Scene) -> Vec<[([f32; 3], [f32; 2]); 3]> {
    let w = s.world_matrices();
    let mut out = Vec::new();
    for (n, node) in s.nodes.iter().enumerate() {
        let Some(m) = node.mesh else { continue };
        for p in &s.meshes[m].primitives {
            for t in p.indices.chunks_exact(3) {
                let c = |k: u32| {
                    let k = k as usize;
                    let uv = p.uvs.first().map_or([f32::NAN; 2], |u| u[k]);
                    (transform_point(&w[n], p.positions[k]), uv)
                };
                out.push([c(t[0]), c(t[1]), c(t[2])]);
            }
        }
    }
    out
}

fn near(a: [f32; 3], b: [f32; 3]) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() < 1e-5)
}

/// The triangle with these world corners (any rotation of the corner order), if exported.
fn find(
    tris: &[[([f32; 3], [f32; 2]); 3]],
    want: [[f32; 3]; 3],
) -> Option<[([f32; 3], [f32; 2]); 3]> {
    tris.iter()
        .copied()
        .find(|t| (0..3).any(|r| (0..3).all(|k| near(t[(k + r) % 3].0, want[k]))))
}

#[test]
fn every_old_version_rebuilds_byte_for_byte_and_passes_the_rules() {
    for o in options() {
        let (lb, gb) = generate::level_bytes(o);
        assert!(gb.is_empty(), "no level.geom before XRLC 13");
        assert_eq!(levelgeom_xray::kind(&lb), Some(Kind::Level), "{o:?}");
        let l = Level::read(&lb).unwrap().0;
        assert_eq!(l.version(), Some(o.version));
        assert_eq!(l.to_bytes().unwrap(), lb, "{o:?}");
        let f = flat::flatten(&l).unwrap();
        assert_eq!(check::level(&f.level, Some(&f.geom), None), vec![], "{o:?}");
        // the file on its own checks its inside buffers the same way
        let opened = files::Opened::read(&lb).unwrap().unwrap().0;
        assert_eq!(opened.check(), vec![], "{o:?}");
        // a visual range past its buffer is found
        let mut bad = l.clone();
        for c in &mut bad.chunks {
            if let levelgeom_xray::level::LevelChunk::Visuals(vs) = &mut c.value {
                for ch in &mut vs[0].value.chunks {
                    if let levelgeom_xray::ogf::OgfChunk::VContainer(r) = &mut ch.value {
                        r[2] = 400;
                    }
                }
            }
        }
        let probs = files::Opened::Level(bad).check();
        assert!(
            probs
                .iter()
                .any(|p| p.path.starts_with("fsL_VISUALS/visual[0]")),
            "{o:?}: {probs:?}"
        );
        assert!(f.warnings.is_empty(), "{:?}", f.warnings);
        // the chunk list names every chunk by the version's table
        let names: Vec<String> = levelgeom_xray::chunks(&lb)
            .unwrap()
            .into_iter()
            .filter(|c| c.depth == 0)
            .map(|c| c.path)
            .collect();
        assert!(
            names.iter().all(|n| n.starts_with("fsL_")),
            "{o:?}: {names:?}"
        );
        let vb = match o.version {
            9 => "fsL_VB_OLD",
            _ => "fsL_VB",
        };
        assert!(names.iter().any(|n| n == vb), "{o:?}: {names:?}");
        // XRLC 12 stores VB, IB and SWIS compressed (bit 31 of the id), older builds not
        for (id, name) in [(10u32, "VB"), (9, "IB"), (11, "SWIS")] {
            let c = l.chunks.iter().find(|c| c.id() == id);
            if o.version == 12 {
                let c = c.unwrap();
                assert!(c.raw_id & COMPRESSED != 0 && c.stored.is_some(), "{name}");
                assert!(lb.windows(4).any(|w| w == (id | COMPRESSED).to_le_bytes()));
            }
        }
    }
}

#[test]
fn old_versions_export_the_generators_positions_and_uvs() {
    for o in options() {
        let l = generate::old_level(o);
        let s = scene_of(&l);
        assert!(s.warnings.is_empty(), "{o:?}: {:?}", s.warnings);
        let tris = world_triangles(&s);
        let (trees, _) = generate::old_features(o.version);
        // the quads: 2 triangles each; trees 4 each (two instances); LOD quads only with --lods
        assert_eq!(tris.len(), 4 + if trees { 8 } else { 0 }, "{o:?}");
        // lightmapped quad, X-Ray triangle (0, 3, 2) = (-1,0,-1), (-1,0,1), (1,0,1); glTF mirrors
        // z and reverses the winding: (-1,0,1), (1,0,-1), (-1,0,-1) in order 0, 2, 3
        let t = find(
            &tris,
            [[-1.0, 0.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 0.0, -1.0]],
        )
        .unwrap_or_else(|| panic!("{o:?}: quad triangle missing"));
        // UV0 is the texture set (x/4 + 1/2, z/4 + 1/2) also where the lightmap set comes first
        // (XRLC 4/5): corner (-1, 0, -1) → (0.25, 0.25); (1, 0, 1) → (0.75, 0.75)
        let uv_of = |p: [f32; 3]| t.iter().find(|c| near(c.0, p)).unwrap().1;
        assert_eq!(uv_of([-1.0, 0.0, 1.0]), [0.25, 0.25], "{o:?}");
        assert_eq!(uv_of([1.0, 0.0, -1.0]), [0.75, 0.75], "{o:?}");
        // the vertex-lit quad at x 3..5
        assert!(find(&tris, [[3.0, 0.0, 1.0], [5.0, 0.0, -1.0], [3.0, 0.0, -1.0]]).is_some());
        // the lightmap UV of the lightmapped quad: (x/8 + 1/2, z/8 + 1/2) at (1, 0, 1) = 0.625
        let lm = s
            .meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .find(|p| p.uvs.len() == 2)
            .unwrap_or_else(|| panic!("{o:?}: no lightmapped mesh"));
        let k = lm
            .positions
            .iter()
            .position(|p| near(*p, [1.0, 0.0, -1.0]) || near(*p, [0.0, 0.0, 0.0]))
            .unwrap();
        let _ = k;
        let mut lms: Vec<[f32; 2]> = lm.uvs[1].clone();
        lms.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(lms[0], [0.375, 0.375], "{o:?}");
        assert_eq!(lms[3], [0.625, 0.625], "{o:?}");
        if trees {
            // instance 0: translation only; apex (0, 2, 0) → (10, 2, 5) → glTF (10, 2, -5)
            let off = TREE_OFFSETS[0];
            let apex0 = [off[0], off[1] + 2.0, -off[2]];
            // instance 1: rows i = (0,0,-1), j = (0,1,0), k = (1,0,0), t = (-4, 1, -6):
            // base corner (0.5, 0, -0.5) → 0.5·i − 0.5·k + t = (-4.5, 1, -6.5) → glTF z 6.5;
            // corner (0.5, 0, 0.5) → (-3.5, 1, -6.5); apex → (-4, 3, -6)
            let b1 = [-4.5, 1.0, 6.5];
            let b2 = [-3.5, 1.0, 6.5];
            let apex1 = [-4.0, 3.0, 6.0];
            // X-Ray side triangle (1, 4, 2) → glTF (1, 2, 4)
            let side = find(&tris, [b1, b2, apex1])
                .unwrap_or_else(|| panic!("{o:?}: rotated tree side missing"));
            assert!(tris.iter().any(|t| t.iter().any(|c| near(c.0, apex0))));
            // tree UV (x + 1/2, 1 − y/2): apex (0.5, 0), base corner 1 (1, 1); SHORT4 at
            // 1/2048 even where static visuals share the declaration (XRLC 10, 11)
            let uv_of = |p: [f32; 3]| side.iter().find(|c| near(c.0, p)).unwrap().1;
            assert_eq!(uv_of(apex1), [0.5, 0.0], "{o:?}");
            assert_eq!(uv_of(b1), [1.0, 1.0], "{o:?}");
        }
    }
}

#[test]
fn lod_quads_of_old_versions_export_with_lods() {
    for version in [9u16, 10, 11, 12] {
        let l = generate::old_level(Options {
            version,
            compress: false,
        });
        let s = to_scene(
            &l,
            &Geom { chunks: Vec::new() },
            &SceneOptions {
                lods: true,
                ..SceneOptions::default()
            },
        )
        .unwrap();
        let tris = world_triangles(&s);
        // 4 quad + 8 tree + 8 LOD quads × 2 triangles
        assert_eq!(tris.len(), 4 + 8 + 16, "{version}");
        // quad 3 stands at x = 23 .. 23.5, y 0 .. 1
        assert!(tris
            .iter()
            .any(|t| t.iter().any(|c| near(c.0, [23.5, 1.0, 0.0]))));
    }
}

#[test]
fn old_levels_open_check_and_export_through_files() {
    let dir = std::env::temp_dir().join(format!("levelgeom-xold-{}", std::process::id()));
    for version in OLD {
        let d = dir.join(format!("v{version}"));
        std::fs::create_dir_all(&d).unwrap();
        let (lb, _) = generate::level_bytes(Options {
            version,
            compress: false,
        });
        std::fs::write(d.join("level"), &lb).unwrap();
        let f = files::LevelFiles::open(&d).unwrap();
        assert!(f.geom.is_none());
        let r = f.check();
        assert_eq!(r.problems, vec![], "{version}");
        assert!(r.notes[0].contains("geometry inside"), "{:?}", r.notes);
        let s = f.to_scene(&SceneOptions::default()).unwrap();
        assert!(!s.meshes.is_empty());
        // XRLC 4–9 keep the collision inside `level` (fsL_CFORM): the generator's two
        // triangles of the lightmapped quad, found without a level.cform
        if version <= 9 {
            let c = f.cform.as_ref().expect("the embedded collision");
            assert_eq!(c.cform.version, 2);
            assert_eq!(c.cform.tris.len(), 2);
            assert_eq!(c.cform.vertices[2], [1.0, 0.0, 1.0]);
            assert!(
                r.notes.iter().any(|n| n.contains("fsL_CFORM")),
                "{:?}",
                r.notes
            );
            let s = f
                .to_scene(&SceneOptions {
                    collision: true,
                    ..SceneOptions::default()
                })
                .unwrap();
            assert!(s.nodes.iter().any(|n| n.hidden), "a hidden collision tree");
        } else {
            assert!(f.cform.is_none());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn truncated_and_corrupted_old_levels_are_errors_with_offsets() {
    for o in options() {
        let (lb, _) = generate::level_bytes(o);
        for cut in (10..lb.len()).step_by(7) {
            if let Err(e) = Level::read(&lb[..cut]) {
                assert!(e.offset as usize <= cut, "{o:?} cut {cut}: {e}");
            }
        }
        // flip bytes everywhere: never a panic, and whatever parses still converts
        for at in (0..lb.len()).step_by(3) {
            let mut b = lb.clone();
            b[at] ^= 0xA5;
            if let Ok((l, _)) = Level::read(&b) {
                let _ = to_scene(&l, &Geom { chunks: Vec::new() }, &SceneOptions::default());
                let f = flat::flatten(&l).unwrap();
                let _ = check::level(&f.level, Some(&f.geom), None);
            }
        }
    }
}

#[test]
fn old_visuals_name_their_types_and_versions_their_builds() {
    let l = generate::old_level(Options {
        version: 11,
        compress: false,
    });
    let names: Vec<&str> = l.visuals().iter().map(|v| v.type_name()).collect();
    // OGF 3 types 0, 0, 12, 12, 11, 1
    assert_eq!(
        names,
        ["normal", "normal", "tree_st", "tree_st", "lod", "hierarchy"]
    );
    let l = generate::old_level(Options {
        version: 5,
        compress: false,
    });
    let names: Vec<&str> = l.visuals().iter().map(|v| v.type_name()).collect();
    assert_eq!(names, ["normal", "normal", "hierarchy"]);
    assert_eq!(
        levelgeom_xray::level::build_hint(5).as_deref(),
        Some("build 1098")
    );
    assert_eq!(levelgeom_xray::level::build_hint(7), None);
}

/// A container index one past the level's own buffers (a corrupt or hand-edited level) must not
/// reach the view's extra buffers (the SHORT4 split copies of XRLC ≤ 11, the inline index
/// buffer of 4–8): the view warns and leaves the visual without geometry, `check` reports it,
/// and the conversion to another build refuses instead of writing into a buffer that is not
/// there (found by the mutation test: a panic in `import/old.rs`).
#[test]
fn a_container_past_the_levels_buffers_reaches_no_view_buffer() {
    use levelgeom_xray::import::{self, Base, ImportOptions};
    use levelgeom_xray::level::LevelChunk;
    use levelgeom_xray::ogf::OgfChunk;
    for version in [5u16, 9, 10, 11] {
        let (lb, _) = generate::level_bytes(Options {
            version,
            compress: false,
        });
        let mut l = Level::read(&lb).unwrap().0;
        let n_vb = l
            .vertex_buffers()
            .map(<[_]>::len)
            .or(l.fvf_buffers().map(<[_]>::len))
            .unwrap() as u32;
        // visual 0's vertex container names buffer n_vb (one past the last)
        let mut set = false;
        for c in &mut l.chunks {
            if let LevelChunk::Visuals(vs) = &mut c.value {
                for c in &mut vs[0].value.chunks {
                    if let OgfChunk::VContainer(r) = &mut c.value {
                        r[0] = n_vb;
                        set = true;
                    }
                }
            }
        }
        assert!(set, "v{version}: visual 0 has an OGF_VCONTAINER");
        let f = flat::flatten(&l).unwrap();
        assert!(
            f.warnings
                .iter()
                .any(|w| w.contains("visual 0: OGF_VCONTAINER names vertex buffer")),
            "v{version}: {:?}",
            f.warnings
        );
        assert_ne!(
            f.level.visuals()[0].gcontainer().map(|g| g.vb_index),
            Some(n_vb),
            "v{version}: the view must not alias buffer {n_vb}"
        );
        assert!(
            !check::level(&f.level, Some(&f.geom), None).is_empty(),
            "v{version}: check finds the bad index"
        );
        let g = Geom { chunks: Vec::new() };
        let s = to_scene(&l, &g, &SceneOptions::default()).unwrap();
        let r = import::import(
            Base {
                level: &l,
                geom: &g,
                geomx: None,
                cform: None,
            },
            &s,
            None,
            &ImportOptions {
                to_version: Some(12),
                allow_loss: true,
                ..ImportOptions::default()
            },
        );
        // refused or written, but no panic; a written level reads back as 12
        if let Ok(out) = r {
            let back = Level::read(&out.level.to_bytes().unwrap()).unwrap().0;
            assert_eq!(back.version(), Some(12));
        }
    }
}
