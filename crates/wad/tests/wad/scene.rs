//! WAD → scene conversion, checked against values computed by hand from the format notes (docs/formats/argonaut-wad.md §15, §16, §18)
//! and the format notes (docs/formats/argonaut-wad.md §12.1, §12.4, §12.9). The levels are built directly as typed models here, so
//! every expected number follows from the construction, not from the code under test.

use levelgeom_scene::{AlphaMode, Primitive, Scene};
use levelgeom_wad::map::{Map, Tile, TileColours, TileSwap};
use levelgeom_wad::model::{CollisionPlane, CollisionPoly, Face, Model, Vertex};
use levelgeom_wad::scene::{build, EntryView, PageView, SceneOptions, TextView};
use levelgeom_wad::stpc::Stpc;
use levelgeom_wad::trak::Trak;

// ---------------------------------------------------------------------------------------------
// Construction helpers

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn normalize(a: [f32; 3]) -> [f32; 3] {
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    [a[0] / l, a[1] / l, a[2] / l]
}

/// A face whose stored plane follows the format's rule `n = normalize((v1−v0)×(v2−v0))`.
fn face(verts: &[[f32; 3]], flags: u16, idx: [u16; 3], texture: u16) -> Face {
    let p = idx.map(|i| verts[i as usize]);
    let n = normalize(cross(sub(p[1], p[0]), sub(p[2], p[0])));
    Face {
        flags,
        indices: idx,
        texture,
        normal: n,
        d: n[0] * p[0][0] + n[1] * p[0][1] + n[2] * p[0][2],
        ..Face::default()
    }
}

fn model(verts: &[[f32; 3]], faces: Vec<Face>) -> Model {
    let mut m = Model {
        vertices: verts
            .iter()
            .map(|&pos| Vertex {
                pos,
                normal: [0.0, 1.0, 0.0],
            })
            .collect(),
        faces,
        ..Model::default()
    };
    m.header.vertex_count = m.vertices.len() as u16;
    m.header.face_count = m.faces.len() as u16;
    m
}

fn tile(pos: [f32; 3], rot: u32, model: u32) -> Tile {
    Tile {
        pos,
        rot,
        model,
        anim_flag: 0,
    }
}

/// A map of the given tiles with one white-ish colour set per tile (`0x80` everywhere).
fn map(tiles: Vec<Tile>, trak: &Trak) -> Map {
    let colours = tiles
        .iter()
        .map(|t| TileColours {
            layers: vec![vec![
                0x0080_8080;
                trak.models[t.model as usize].vertices.len()
            ]],
            swap_layers: None,
        })
        .collect();
    Map {
        grid_w: 8,
        grid_h: 8,
        model_indices: tiles.iter().map(|t| t.model).collect(),
        tiles,
        colours,
        ..Map::default()
    }
}

/// A TEXT view with one opaque 256×256 page and the given entries.
fn text(entries: Vec<EntryView>) -> TextView {
    TextView {
        entries,
        pages: vec![PageView {
            width: 256,
            height: 256,
            rgba: Ok(vec![255; 256 * 256 * 4]),
        }],
        warnings: Vec::new(),
    }
}

fn entry(rect: [u8; 4]) -> EntryView {
    EntryView {
        flags: 0,
        page: 0,
        rect,
    }
}

fn node_prims<'a>(scene: &'a Scene, name: &str) -> &'a [Primitive] {
    let n = scene
        .nodes
        .iter()
        .find(|n| n.name == name)
        .unwrap_or_else(|| panic!("no node {name}"));
    &scene.meshes[n.mesh.expect("node has a mesh")].primitives
}

fn close(a: [f32; 3], b: [f32; 3], tol: f32) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() <= tol)
}

/// Geometric normal of emitted triangle `t` of a primitive (in output order).
fn tri_normal(p: &Primitive, t: usize) -> [f32; 3] {
    let v = |k: usize| p.positions[p.indices[3 * t + k] as usize];
    cross(sub(v(1), v(0)), sub(v(2), v(0)))
}

// ---------------------------------------------------------------------------------------------
// Winding (docs/formats/argonaut-wad.md §12.9)

/// A floor triangle whose stored plane normal points up (+y): the game draws it to a camera
/// above it. Its vertices run v0 (−.5,0,−.5) → v1 (−.5,0,.5) → v2 (.5,0,.5):
/// (v1−v0) × (v2−v0) = (0,0,1) × (1,0,1) = (0,1,0). Seen from above with x to the right and
/// −z up the screen (right-handed, viewer on +y), the screen points are (−.5,.5), (−.5,−.5),
/// (.5,−.5): signed area ½[(0)(−1) − (−1)(1)] = +½ > 0, counter-clockwise = glTF front face.
/// So the export must keep the order (v0, v1, v2).
#[test]
fn floor_with_upward_normal_is_front_from_above() {
    let verts = [[-0.5, 0.0, -0.5], [-0.5, 0.0, 0.5], [0.5, 0.0, 0.5]];
    let f = face(&verts, 0, [0, 1, 2], 0);
    assert_eq!(f.normal, [0.0, 1.0, 0.0]);
    let trak = Trak {
        models: vec![model(&verts, vec![f])],
    };
    let m = map(vec![tile([0.5, 0.0, -0.5], 0, 0)], &trak);
    let s = build(
        &trak,
        &m,
        None,
        &text(vec![entry([0, 255, 0, 255])]),
        &SceneOptions::default(),
    );
    let p = &node_prims(&s, "tile_0000_m000")[0];
    // Screen coordinates seen from above: (x, −z).
    let scr = |k: usize| {
        let v = p.positions[p.indices[k] as usize];
        (v[0], -v[2])
    };
    let (a, b, c) = (scr(0), scr(1), scr(2));
    let area = (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0);
    assert!(
        area > 0.0,
        "counter-clockwise from above, got signed area {area}"
    );
    assert!(tri_normal(p, 0)[1] > 0.0);
    // Not double-sided: the game culls it from below.
    assert!(!s.materials[p.material.unwrap()].double_sided);
}

/// The game culls by the stored plane, not by the vertex order: a face whose stored normal
/// points down although its vertices run counter-clockwise about +y is seen from below only,
/// so the export reverses it. With `mirror_z` (a reflection) the upward floor stays upward.
#[test]
fn stored_plane_decides_front_and_mirror_keeps_it() {
    let verts = [[-0.5, 0.0, -0.5], [-0.5, 0.0, 0.5], [0.5, 0.0, 0.5]];
    let mut down = face(&verts, 0, [0, 1, 2], 0);
    down.normal = [0.0, -1.0, 0.0];
    let up = face(&verts, 0, [0, 1, 2], 0);
    let trak = Trak {
        models: vec![model(&verts, vec![down]), model(&verts, vec![up])],
    };
    let m = map(
        vec![tile([0.5, 0.0, -0.5], 0, 0), tile([1.5, 0.0, -0.5], 0, 1)],
        &trak,
    );
    let t = text(vec![entry([0, 255, 0, 255])]);
    let s = build(&trak, &m, None, &t, &SceneOptions::default());
    assert!(tri_normal(&node_prims(&s, "tile_0000_m000")[0], 0)[1] < 0.0);
    let mirrored = SceneOptions {
        mirror_z: true,
        ..SceneOptions::default()
    };
    let s = build(&trak, &m, None, &t, &mirrored);
    let p = &node_prims(&s, "tile_0001_m001")[0];
    assert!(tri_normal(p, 0)[1] > 0.0);
    // v0 (−.5, 0, −.5) on tile (1.5, 0, −.5): world (1, 0, −1), mirrored z → (1, 0, 1).
    assert_eq!(p.positions[p.indices[0] as usize], [1.0, 0.0, 1.0]);
}

// ---------------------------------------------------------------------------------------------
// Placement (docs/formats/argonaut-wad.md §15)

/// One model placed four times, rotated 0/1024/2048/3072. Vertex v0 = (0.25, 0.5, −0.125):
/// X = x + vx·cos a − vz·sin a, Z = z + vx·sin a + vz·cos a:
/// * a = 0°:   (x + 0.25,  y + 0.5, z − 0.125)
/// * a = 90°:  (x + 0.125, y + 0.5, z + 0.25)
/// * a = 180°: (x − 0.25,  y + 0.5, z + 0.125)
/// * a = 270°: (x − 0.125, y + 0.5, z − 0.25)
/// * a = 45° (rot 512), cos = sin = √½: (x + 0.375·√½, y + 0.5, z + 0.125·√½)
#[test]
fn rotated_tiles_place_vertices_per_seed() {
    let verts = [[0.25, 0.5, -0.125], [0.25, 0.5, 0.375], [-0.25, 0.5, 0.375]];
    let trak = Trak {
        models: vec![model(&verts, vec![face(&verts, 0, [0, 1, 2], 0)])],
    };
    let tiles = vec![
        tile([1.5, 2.0, -1.5], 0, 0),
        tile([2.5, 1.0, -3.5], 1024, 0),
        tile([4.5, 0.0, -0.5], 2048, 0),
        tile([6.5, -1.0, -7.5], 3072, 0),
        tile([0.5, 0.0, -0.5], 512, 0),
    ];
    let expect = [
        [1.75, 2.5, -1.625],
        [2.625, 1.5, -3.25],
        [4.25, 0.5, -0.375],
        [6.375, -0.5, -7.75],
        [
            0.5 + 0.375 * std::f32::consts::FRAC_1_SQRT_2,
            0.5,
            -0.5 + 0.125 * std::f32::consts::FRAC_1_SQRT_2,
        ],
    ];
    let m = map(tiles, &trak);
    let s = build(
        &trak,
        &m,
        None,
        &text(vec![entry([0; 4])]),
        &SceneOptions::default(),
    );
    for (i, e) in expect.iter().enumerate() {
        let p = &node_prims(&s, &format!("tile_{i:04}_m000"))[0];
        let got = p.positions[p.indices[0] as usize];
        assert!(close(got, *e, 1e-4), "tile {i}: {got:?} vs {e:?}");
    }
    // Tile nodes hang under the `level` root, identity matrices (positions are baked).
    let level = &s.nodes[s.roots[0]];
    assert_eq!(level.name, "level");
    assert_eq!(level.children.len(), 5);
    assert!(level
        .children
        .iter()
        .all(|&c| s.nodes[c].matrix == levelgeom_scene::IDENTITY));
}

// ---------------------------------------------------------------------------------------------
// UVs (docs/formats/argonaut-wad.md §16)

/// Entry (u0, u1, v0, v1) = (16, 47, 64, 127) on a 256² page: U0 = 0.0625, U1 = 48/256 =
/// 0.1875, V0 = 0.25, V1 = 128/256 = 0.5. Not mirrored: a = U1, b = U0; mirrored (0x20):
/// a = U0, b = U1.
#[test]
fn uv_corners_for_every_flag_case() {
    let (u0, u1, v0, v1) = (0.0625f32, 0.1875f32, 0.25f32, 0.5f32);
    let verts = [
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 0.5],
        [0.5, 0.0, 0.5],
        [0.5, 0.0, 0.0],
    ];
    let cases: [(u16, [[f32; 2]; 3]); 5] = [
        // plain triangle: (a,V1) (b,V1) (a,V0)
        (0x0000, [[u1, v1], [u0, v1], [u1, v0]]),
        // first half of a quad: (a,V1) (b,V1) (b,V0)
        (0x0800, [[u1, v1], [u0, v1], [u0, v0]]),
        // second half: (b,V0) (a,V0) (a,V1)
        (0x0810, [[u0, v0], [u1, v0], [u1, v1]]),
        // mirrored first half: a = U0, b = U1
        (0x0820, [[u0, v1], [u1, v1], [u1, v0]]),
        // mirrored second half
        (0x0830, [[u1, v0], [u0, v0], [u0, v1]]),
    ];
    let faces = cases
        .iter()
        .map(|&(fl, _)| face(&verts, fl, [0, 1, 2], 0))
        .collect();
    let trak = Trak {
        models: vec![model(&verts, faces)],
    };
    let m = map(vec![tile([0.5, 0.0, -0.5], 0, 0)], &trak);
    let s = build(
        &trak,
        &m,
        None,
        &text(vec![entry([16, 47, 64, 127])]),
        &SceneOptions::default(),
    );
    let prims = node_prims(&s, "tile_0000_m000");
    assert_eq!(prims.len(), 1, "one page, one render state");
    let p = &prims[0];
    assert_eq!(p.triangle_count(), cases.len());
    for (f, (fl, want)) in cases.iter().enumerate() {
        for (k, w) in want.iter().enumerate() {
            let got = p.uvs[0][p.indices[3 * f + k] as usize];
            assert_eq!(got, *w, "flags {fl:#06x} corner {k}");
        }
    }
    // Corners are split where UVs differ and shared where (vertex, UV) repeat: exactly one
    // glTF vertex per distinct (position, UV) pair among the 15 corners.
    let distinct: std::collections::BTreeSet<_> = (0..15)
        .map(|i| {
            let v = p.indices[i] as usize;
            (
                p.positions[v].map(f32::to_bits),
                p.uvs[0][v].map(f32::to_bits),
            )
        })
        .collect();
    assert_eq!(p.vertex_count(), distinct.len());
}

// ---------------------------------------------------------------------------------------------
// Materials, flat colours, textures

#[test]
fn flat_colour_double_sided_blend_and_bad_index() {
    let verts = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.5], [0.5, 0.0, 0.5]];
    let faces = vec![
        face(&verts, 0, [0, 1, 2], 0),     // flat colour entry
        face(&verts, 0x400, [0, 1, 2], 1), // page entry, double-sided
        face(&verts, 0, [0, 1, 2], 2),     // page entry with blend mode 2
        face(&verts, 0, [0, 1, 2], 9),     // no such entry
    ];
    let trak = Trak {
        models: vec![model(&verts, faces)],
    };
    let m = map(vec![tile([0.5, 0.0, -0.5], 0, 0)], &trak);
    let mut t = text(vec![
        EntryView {
            flags: 0x0001,
            page: 0,
            rect: [200, 100, 50, 7],
        },
        entry([0, 31, 0, 31]),
        EntryView {
            flags: 0x2000,
            page: 0,
            rect: [0, 31, 0, 31],
        },
    ]);
    // One transparent texel on the page → alpha MASK for blend mode 0.
    if let Ok(px) = &mut t.pages[0].rgba {
        px[3] = 0;
    }
    let s = build(&trak, &m, None, &t, &SceneOptions::default());
    let prims = node_prims(&s, "tile_0000_m000");
    assert_eq!(prims.len(), 4);
    let mat = |i: usize| prims[i].material.map(|m| &s.materials[m]);
    let flat = mat(0).unwrap();
    assert_eq!(
        flat.base_color,
        [200.0 / 255.0, 100.0 / 255.0, 50.0 / 255.0, 1.0]
    );
    assert_eq!(flat.texture, None);
    assert!(prims[0].uvs.is_empty(), "flat colours have no UVs");
    let ds = mat(1).unwrap();
    assert!(ds.double_sided && ds.unlit);
    assert_eq!(ds.alpha, AlphaMode::Mask(0.5));
    assert_eq!(ds.texture, Some(0));
    assert_eq!(s.textures[0].name, "page_00");
    let blend = mat(2).unwrap();
    assert_eq!(blend.alpha, AlphaMode::Blend);
    assert!(!blend.double_sided);
    assert!(blend.extras.contains(&("blend_mode".into(), "2".into())));
    assert_eq!(prims[3].material, None, "default material for a bad index");
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("TRAK/models[0]") && w.contains('9')),
        "{:?}",
        s.warnings
    );
}

// ---------------------------------------------------------------------------------------------
// Vertex colours (docs/formats/argonaut-wad.md §18.11, §12.1)

/// Two colour sets; vertex 0 has bytes (0x80, 0x40, 0x20, 0x02) in set 0 → (1, .5, .25) alpha
/// 1, and (0x10, 0xFF, 0x00, 0x00) in set 1 → (0.125, 1 (clamped), 0). A 0x4000 face is white.
#[test]
fn two_colour_sets_and_white_faces() {
    let verts = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.5], [0.5, 0.0, 0.5]];
    let faces = vec![
        face(&verts, 0, [0, 1, 2], 0),
        face(&verts, 0x4000, [0, 1, 2], 0),
    ];
    let trak = Trak {
        models: vec![model(&verts, faces)],
    };
    let mut m = map(vec![tile([0.5, 0.0, -0.5], 0, 0)], &trak);
    m.colours[0].layers = vec![
        vec![0x0220_4080, 0x0200_0000, 0x0200_0000],
        vec![0x0000_FF10, 0, 0],
    ];
    let s = build(
        &trak,
        &m,
        None,
        &text(vec![entry([0; 4])]),
        &SceneOptions::default(),
    );
    let p = &node_prims(&s, "tile_0000_m000")[0];
    assert_eq!(p.colors.len(), 2, "COLOR_0 and COLOR_1");
    let first = p.indices[0] as usize;
    assert_eq!(p.colors[0][first], [1.0, 0.5, 0.25, 1.0]);
    assert_eq!(p.colors[1][first], [0.125, 1.0, 0.0, 1.0]);
    let white = p.indices[3] as usize;
    assert_ne!(first, white, "same vertex, different colour: split");
    assert_eq!(p.colors[0][white], [1.0; 4]);
    assert_eq!(p.colors[1][white], [1.0; 4]);
    assert_eq!(p.positions[first], p.positions[white]);
}

// ---------------------------------------------------------------------------------------------
// Swap tiles (WFPC 0x10000)

#[test]
fn swap_tile_gets_its_own_node() {
    let verts = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.5], [0.5, 0.0, 0.5]];
    let high = [[0.0, 1.0, 0.0], [0.0, 1.0, 0.5], [0.5, 1.0, 0.5]];
    let trak = Trak {
        models: vec![
            model(&verts, vec![face(&verts, 0, [0, 1, 2], 0)]),
            model(&high, vec![face(&high, 0, [0, 1, 2], 0)]),
        ],
    };
    let mut t0 = tile([3.5, 0.0, -2.5], 2048, 0);
    t0.anim_flag = 1;
    let mut m = map(vec![t0], &trak);
    m.swaps = Some(vec![TileSwap {
        pos: [3, 0, 2],
        model_a: 0,
        model_b: 1,
    }]);
    m.colours[0].swap_layers = Some(vec![vec![0x0000_0040; 3]]);
    let s = build(
        &trak,
        &m,
        None,
        &text(vec![entry([0; 4])]),
        &SceneOptions::default(),
    );
    let main = s.nodes.iter().find(|n| n.name == "tile_0000_m000").unwrap();
    let alt = s
        .nodes
        .iter()
        .find(|n| n.name == "tile_0000_m001_swap")
        .unwrap();
    assert!(main
        .extras
        .contains(&("swap_state".into(), "primary".into())));
    assert!(alt
        .extras
        .contains(&("swap_state".into(), "alternative".into())));
    // the alternative lives under its own hidden root `swap`, not under `level`
    let names: Vec<&str> = s.roots.iter().map(|&r| s.nodes[r].name.as_str()).collect();
    assert_eq!(names, ["level", "swap"]);
    let (level, swap) = (&s.nodes[s.roots[0]], &s.nodes[s.roots[1]]);
    assert!(swap.hidden && !level.hidden);
    assert!(level
        .children
        .iter()
        .all(|&c| !s.nodes[c].name.ends_with("_swap")));
    assert_eq!(swap.children.len(), 1);
    assert_eq!(s.nodes[swap.children[0]].name, "tile_0000_m001_swap");
    let p = &s.meshes[alt.mesh.unwrap()].primitives[0];
    // v1 of model 1 = (0, 1, 0.5), turned 180°: X = 3.5 − 0 = 3.5, Z = −2.5 − 0.5 = −3.
    let v1 = p.positions[p.indices[1] as usize];
    assert!(close(v1, [3.5, 1.0, -3.0], 1e-6), "{v1:?}");
    // Its colours come from the swap block: R byte 0x40 → 0.5.
    assert_eq!(p.colors[0][p.indices[1] as usize], [0.5, 0.0, 0.0, 1.0]);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);

    // A record whose normal model is not the tile's, and a record no tile is flagged for,
    // are reported (the first still exports its alternative).
    m.swaps = Some(vec![
        TileSwap {
            pos: [3, 0, 2],
            model_a: 1,
            model_b: 1,
        },
        TileSwap {
            pos: [0, 0, 0],
            model_a: 0,
            model_b: 1,
        },
    ]);
    let s = build(
        &trak,
        &m,
        None,
        &text(vec![entry([0; 4])]),
        &SceneOptions::default(),
    );
    assert!(s.nodes.iter().any(|n| n.name == "tile_0000_m001_swap"));
    let w = s.warnings.join("\n");
    assert!(
        w.contains(
            "MAP/swaps[0]: names model 1 as the normal state of tile 0, which draws model 0"
        ),
        "{w}"
    );
    assert!(w.contains("2 swap records but only 1 tiles"), "{w}");
}

// ---------------------------------------------------------------------------------------------
// Collision (docs/formats/argonaut-wad.md §12.4)

/// Encode a convex polygon (export-space corners, counter-clockwise about its up-facing
/// normal) as the engine stores it: game space (z negated), `n_q = round(127·n̂)`,
/// `d = round(32·n_q·P)`, edge planes through the edges with inward normals.
fn encode_poly(corners: &[[f64; 3]], material: u8) -> CollisionPoly {
    let g: Vec<[f64; 3]> = corners.iter().map(|c| [c[0], c[1], -c[2]]).collect();
    let c64 = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let s64 = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let unit = |a: [f64; 3]| {
        let l = dot(a, a).sqrt();
        [a[0] / l, a[1] / l, a[2] / l]
    };
    let mut n = unit(c64(s64(g[1], g[0]), s64(g[2], g[0])));
    if n[1] < 0.0 {
        n = n.map(|v| -v);
    }
    let centroid = {
        let k = g.len() as f64;
        let mut c = [0.0; 3];
        for p in &g {
            for i in 0..3 {
                c[i] += p[i] / k;
            }
        }
        c
    };
    let plane = |dir: [f64; 3], through: [f64; 3]| {
        let q = dir.map(|v| (127.0 * v).round() as i8);
        let qf = q.map(f64::from);
        CollisionPlane {
            normal: q,
            pad: 0,
            d: (32.0 * dot(qf, through)).round() as i16,
        }
    };
    let mut planes = [CollisionPlane::default(); 5];
    planes[0] = plane(n, g[0]);
    for k in 0..g.len() {
        let a = g[k];
        let b = g[(k + 1) % g.len()];
        let mut e = unit(c64(n, s64(b, a)));
        if dot(e, s64(centroid, a)) < 0.0 {
            e = e.map(|v| -v);
        }
        planes[1 + k] = plane(e, a);
    }
    CollisionPoly {
        kind: if g.len() == 4 { 1 } else { 0 },
        material,
        planes,
    }
}

#[test]
fn collision_corners_match_the_polygons_they_were_built_from() {
    // A sloped quad and a triangle in model export space.
    let quad = [
        [-0.5, 0.25, -0.5],
        [-0.5, 0.5, 0.5],
        [0.5, 0.5, 0.5],
        [0.5, 0.25, -0.5],
    ];
    let tri = [[-1.0, 1.0, 1.0], [0.0, 1.25, 2.0], [1.5, 1.0, 0.5]];
    let mut model = model(&[[0.0; 3]; 4], Vec::new());
    model.collision = vec![encode_poly(&quad, 0), encode_poly(&tri, 0x1E)];
    model.header.collision_counts = [1, 1, 0];
    let trak = Trak {
        models: vec![model],
    };
    // Tile at (2.5, 1, −3.5) turned 90°: X = 2.5 − z, Y = 1 + y, Z = −3.5 + x.
    let m = map(vec![tile([2.5, 1.0, -3.5], 1024, 0)], &trak);
    let world = |p: [f64; 3]| {
        [
            (2.5 - p[2]) as f32,
            (1.0 + p[1]) as f32,
            (-3.5 + p[0]) as f32,
        ]
    };
    let opts = SceneOptions {
        collision: true,
        ..SceneOptions::default()
    };
    let s = build(&trak, &m, None, &text(vec![]), &opts);
    let root = &s.nodes[s.roots[1]];
    assert_eq!(root.name, "collision");
    assert!(root.hidden);
    let names: Vec<&str> = root
        .children
        .iter()
        .map(|&c| s.nodes[c].name.as_str())
        .collect();
    assert_eq!(names, ["mat00_grp0", "mat30_grp1"]);
    for (name, src) in [("mat00_grp0", &quad[..]), ("mat30_grp1", &tri[..])] {
        let p = &node_prims(&s, name)[0];
        assert_eq!(p.vertex_count(), src.len());
        for c in src {
            let want = world(*c);
            assert!(
                p.positions.iter().any(|&got| close(got, want, 0.03)),
                "{name}: no corner near {want:?} in {:?}",
                p.positions
            );
        }
        // Front faces up (the surface normal points up in both polygons).
        for t in 0..p.triangle_count() {
            assert!(tri_normal(p, t)[1] > 0.0, "{name} triangle {t}");
        }
    }
    // Mirrored: the same corners with z negated, still facing up.
    let mirrored = SceneOptions {
        collision: true,
        mirror_z: true,
        ..SceneOptions::default()
    };
    let sm = build(&trak, &m, None, &text(vec![]), &mirrored);
    let p = &node_prims(&sm, "mat00_grp0")[0];
    for c in &quad {
        let w = world(*c);
        let want = [w[0], w[1], -w[2]];
        assert!(p.positions.iter().any(|&got| close(got, want, 0.03)));
    }
    assert!((0..p.triangle_count()).all(|t| tri_normal(p, t)[1] > 0.0));
    // The collision tree is not part of the tile node, and a tile whose model has no faces
    // (a collision-only tile) gets no node in the level tree at all: no empty node that
    // viewers would pile up at the origin.
    assert!(!s.nodes.iter().any(|n| n.name == "tile_0000_m000"));
    assert!(s.nodes[s.roots[0]].children.is_empty());
}

// ---------------------------------------------------------------------------------------------
// Objects (STPC)

#[test]
fn objects_are_laid_out_side_by_side() {
    let a = [[-1.0, 0.0, -1.0], [-1.0, 0.0, 1.0], [1.0, 2.0, 1.0]];
    let b = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.5], [3.0, 1.0, 0.5]];
    let stpc = Stpc {
        models: vec![
            model(&a, vec![face(&a, 0, [0, 1, 2], 0)]),
            model(&b, vec![face(&b, 0, [0, 1, 2], 0)]),
        ],
        ..Stpc::default()
    };
    let trak = Trak::default();
    let m = Map::default();
    let opts = SceneOptions {
        objects_catalogue: true,
        ..SceneOptions::default()
    };
    let s = build(&trak, &m, Some(&stpc), &text(vec![entry([0; 4])]), &opts);
    let root = &s.nodes[*s.roots.last().unwrap()];
    assert_eq!(root.name, "objects_catalogue");
    let w = s.world_matrices();
    let bounds = |name: &str| {
        let i = s.nodes.iter().position(|n| n.name == name).unwrap();
        let p = &s.meshes[s.nodes[i].mesh.unwrap()].primitives[0];
        let pts: Vec<[f32; 3]> = p
            .positions
            .iter()
            .map(|&v| levelgeom_scene::transform_point(&w[i], v))
            .collect();
        Primitive {
            positions: pts,
            ..Primitive::default()
        }
        .bounds()
        .unwrap()
    };
    let (lo0, hi0) = bounds("object_000");
    let (lo1, hi1) = bounds("object_001");
    // Same shape as stored (bind pose): extents 2 × 2 × 2 and 3 × 1 × 0.5.
    assert!(close(sub(hi0, lo0), [2.0, 2.0, 2.0], 1e-6));
    assert!(close(sub(hi1, lo1), [3.0, 1.0, 0.5], 1e-6));
    // Side by side, no overlap, outside the grid (z > 0).
    assert!(lo1[0] > hi0[0]);
    assert!(lo0[2] > 0.0 && lo1[2] > 0.0);
    // No vertex colours on objects (MAP colours belong to tiles).
    assert!(s
        .meshes
        .iter()
        .all(|m| m.primitives.iter().all(|p| p.colors.is_empty())));
}

// ---------------------------------------------------------------------------------------------
// Robustness and determinism

#[test]
fn bad_references_become_warnings() {
    let verts = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.5], [0.5, 0.0, 0.5]];
    let mut bad_face = face(&verts, 0, [0, 1, 2], 0);
    bad_face.indices = [0, 1, 7];
    let trak = Trak {
        models: vec![model(&verts, vec![bad_face, face(&verts, 0, [0, 1, 2], 0)])],
    };
    let mut m = map(vec![tile([0.5, 0.0, -0.5], 0, 0)], &trak);
    m.tiles.push(tile([1.5, 0.0, -0.5], 0, 5));
    m.model_indices.push(5);
    let s = build(
        &trak,
        &m,
        None,
        &text(vec![entry([0; 4])]),
        &SceneOptions::default(),
    );
    let p = &node_prims(&s, "tile_0000_m000")[0];
    assert_eq!(p.triangle_count(), 1);
    assert!(s
        .warnings
        .iter()
        .any(|w| w.contains("face 0 uses vertex 7")));
    assert!(s
        .warnings
        .iter()
        .any(|w| w.contains("model 5 is not below the 1")));
    assert!(!s.nodes.iter().any(|n| n.name.starts_with("tile_0001")));
}

#[test]
fn conversion_is_deterministic() {
    let verts = [
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 0.5],
        [0.5, 0.0, 0.5],
        [0.5, 0.0, 0.0],
    ];
    let faces = vec![
        face(&verts, 0x0808, [0, 1, 2], 0),
        face(&verts, 0x0810, [2, 3, 0], 1),
    ];
    let trak = Trak {
        models: vec![model(&verts, faces)],
    };
    let m = map(vec![tile([0.5, 0.0, -0.5], 1024, 0)], &trak);
    let t = text(vec![entry([0, 15, 0, 15]), entry([16, 31, 0, 15])]);
    let opts = SceneOptions {
        collision: true,
        objects: true,
        objects_catalogue: true,
        mirror_z: true,
        zones: false,
    };
    assert_eq!(
        build(&trak, &m, None, &t, &opts),
        build(&trak, &m, None, &t, &opts)
    );
}

// ---------------------------------------------------------------------------------------------
// Through the file: typed level → bytes → Level::read → to_scene

#[test]
fn wad_bytes_to_scene() {
    use levelgeom_wad::level::{Chunk, ChunkData, Level};
    use levelgeom_wad::map::TileTransform;
    use levelgeom_wad::tags::Tag;
    use levelgeom_wad::text::{Effects, Text, TextureEntry, TexturePage};
    use levelgeom_wad::wfpc::Wfpc;

    // A quad over the cell, split 0x800 / 0x800+0x10 (both halves, with the batch flag).
    let verts = [
        [-0.5, 0.0, -0.5],
        [-0.5, 0.0, 0.5],
        [0.5, 0.0, 0.5],
        [0.5, 0.0, -0.5],
    ];
    let trak = Trak {
        models: vec![model(
            &verts,
            vec![
                face(&verts, 0x0808, [0, 1, 2], 0),
                face(&verts, 0x0810, [2, 3, 0], 0),
            ],
        )],
    };
    let mut m = map(vec![tile([0.5, 0.0, -0.5], 1024, 0)], &trak);
    m.transforms = vec![TileTransform {
        rot: [0, 1024, 0],
        pos: [2048, 0, 2048],
    }];
    m.zone_grid = vec![0; 64];
    // ABGR1555 words: red, green, blue, transparent (word 0).
    let page = TexturePage::raw16(2, 2, 1, vec![0x801F, 0x83E0, 0xFC00, 0x0000]);
    let text = Text {
        palettes: Vec::new(),
        pages: vec![page],
        entries: vec![TextureEntry {
            flags: 0,
            page: 0,
            extra: 0xFF,
            u0: 0,
            u1: 1,
            v0: 0,
            v1: 0,
        }],
        effects: Effects::Absent,
    };
    let level = Level::new(vec![
        Chunk::new(Tag::WFPC, ChunkData::Wfpc(Wfpc { flags: 0 })).unwrap(),
        Chunk::new(Tag::TEXT, ChunkData::Text(text)).unwrap(),
        Chunk::new(Tag::TRAK, ChunkData::Trak(trak)).unwrap(),
        Chunk::new(Tag::MAP, ChunkData::Map(m)).unwrap(),
        Chunk::new(Tag::END, ChunkData::End(Vec::new())).unwrap(),
    ]);
    let bytes = level.to_bytes().unwrap();
    let (parsed, _warnings) = Level::read(&bytes).unwrap();
    let s = levelgeom_wad::scene::to_scene(&parsed, &SceneOptions::default()).unwrap();

    // Texture page_00, decoded: R bits 0–4 = 31 → 255.
    assert_eq!(s.textures.len(), 1);
    assert_eq!(s.textures[0].name, "page_00");
    let levelgeom_scene::TextureSource::Rgba8 { pixels, .. } = &s.textures[0].source else {
        panic!("decoded texture expected");
    };
    assert_eq!(&pixels[..8], &[255, 0, 0, 255, 0, 255, 0, 255]);
    assert_eq!(&pixels[12..16], &[0, 0, 0, 0]);

    let p = &node_prims(&s, "tile_0000_m000")[0];
    let mat = &s.materials[p.material.unwrap()];
    assert_eq!(
        mat.alpha,
        AlphaMode::Mask(0.5),
        "page has a transparent texel"
    );
    assert_eq!(p.triangle_count(), 2);
    // Vertex 1 (−0.5, 0, 0.5), turned 90° on tile (0.5, 0, −0.5): X = 0.5 − 0.5 = 0,
    // Z = −0.5 + (−0.5) = −1.
    assert!(close(
        p.positions[p.indices[1] as usize],
        [0.0, 0.0, -1.0],
        1e-6
    ));
    // UVs on the 2×2 page: U0 = 0, U1 = 2/2 = 1, V0 = 0, V1 = 1/2. First half (0x800):
    // (a,V1) (b,V1) (b,V0) with a = U1, b = U0; second half (0x810): (b,V0) (a,V0) (a,V1).
    let uv = |k: usize| p.uvs[0][p.indices[k] as usize];
    assert_eq!([uv(0), uv(1), uv(2)], [[1.0, 0.5], [0.0, 0.5], [0.0, 0.0]]);
    assert_eq!([uv(3), uv(4), uv(5)], [[0.0, 0.0], [1.0, 0.0], [1.0, 0.5]]);
    // Colour 0x00808080 → (1, 1, 1).
    assert_eq!(p.colors[0][0], [1.0; 4]);
}

#[test]
fn level_without_map_is_an_error() {
    use levelgeom_wad::level::Level;
    let level = Level::new(Vec::new());
    let err = levelgeom_wad::scene::to_scene(&level, &SceneOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the level has no TRAK chunk, which holds its geometry"
    );
}

// ---------------------------------------------------------------------------------------------
// B's generator: facts of its construction (terrain heights, the water plane), not its code

/// The generator builds terrain vertices on `terrain_height` in world space and rotates them
/// into each tile's frame; placing them back per docs/formats/argonaut-wad.md §15 must land every terrain grid point on
/// that surface. Its collision polygons trace the same terrain (group 0, material 0) and the
/// water plane at y = −2.75 (material 0x1E).
#[test]
fn generated_demo_lands_on_its_terrain() {
    use levelgeom_wad::generate::{generate, terrain_height, LevelSpec};
    let spec = LevelSpec::demo();
    let level = generate(&spec).unwrap();
    let opts = SceneOptions {
        collision: true,
        ..SceneOptions::default()
    };
    let s = levelgeom_wad::scene::to_scene(&level, &opts).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let h = |p: [f32; 3]| terrain_height(&spec, p[0], p[2]);

    let grid_points = ((spec.subdivisions + 1) * (spec.subdivisions + 1)) as usize;
    let mut island_tiles = 0;
    for n in &s.nodes {
        let Some(model) = n
            .name
            .strip_prefix("tile_")
            .and_then(|r| r.split_once("_m"))
            .and_then(|(_, m)| m.parse::<u32>().ok())
        else {
            continue; // not a plain tile node (or a _swap node)
        };
        if model < 2 {
            continue; // water plane (no faces) and the swap alternative
        }
        island_tiles += 1;
        let prims = &s.meshes[n.mesh.unwrap()].primitives;
        let mut on: Vec<[u32; 2]> = prims
            .iter()
            .flat_map(|p| p.positions.iter())
            .filter(|&&p| (p[1] - h(p)).abs() < 1e-4)
            .map(|p| [p[0].to_bits(), p[2].to_bits()])
            .collect();
        on.sort_unstable();
        on.dedup();
        assert!(
            on.len() >= grid_points,
            "{}: only {} distinct terrain points",
            n.name,
            on.len()
        );
    }
    assert_eq!(island_tiles, (spec.island_w * spec.island_h) as usize);
    assert_eq!(
        s.nodes.iter().filter(|n| n.name.ends_with("_swap")).count(),
        1
    );

    for p in node_prims(&s, "mat00_grp0") {
        for &c in &p.positions {
            assert!(
                (c[1] - h(c)).abs() < 0.03,
                "collision corner {c:?} off the terrain"
            );
        }
    }
    for p in node_prims(&s, "mat30_grp0") {
        assert!(p.positions.iter().all(|c| (c[1] + 2.75).abs() < 0.03));
    }
}

/// Damaged levels that still parse (flipped bytes all over the demo WAD) convert without a
/// panic, and every tile whose model exists still gets its node.
#[test]
fn damaged_but_parsable_levels_convert() {
    use levelgeom_wad::level::Level;
    let bytes = levelgeom_wad::generate::demo_level().unwrap();
    let opts = SceneOptions {
        mirror_z: false,
        collision: true,
        objects: true,
        objects_catalogue: true,
        zones: false,
    };
    let mut parsed = 0;
    let step = bytes.len() / 257;
    for i in (8..bytes.len()).step_by(step.max(1)) {
        let mut b = bytes.clone();
        b[i] ^= 0xA5;
        let Ok((level, _)) = Level::read(&b) else {
            continue;
        };
        let Ok(s) = levelgeom_wad::scene::to_scene(&level, &opts) else {
            continue; // no TRAK/MAP left
        };
        parsed += 1;
        let (map, trak) = (level.map().unwrap(), level.trak().unwrap());
        let valid = map
            .model_indices
            .iter()
            .filter(|&&m| {
                trak.models
                    .get(m as usize)
                    .is_some_and(|m| !m.faces.is_empty())
            })
            .count();
        let nodes = s
            .nodes
            .iter()
            .filter(|n| n.name.starts_with("tile_") && !n.name.ends_with("_swap"))
            .count();
        assert_eq!(nodes, valid, "flip at {i}");
    }
    assert!(parsed > 100, "only {parsed} damaged files parsed");
}

// ---------------------------------------------------------------------------------------------
// 8-bit pages go through the palette their entries name (docs/formats/argonaut-wad.md §6.1)

/// Page 0 is 8-bit, 2×1, indices [1, 0]. Palette 0 maps 1 → 0x801F (ABGR1555 red, alpha bit
/// set), palette 1 maps 1 → 0x83E0 (green); index 0 is word 0 (transparent) in both. The
/// page's first textured entry names palette 1, so texel 0 is green (0, 255, 0, 255), not the
/// first palette's red; a later entry naming palette 0 is reported, not used.
#[test]
fn indexed_page_uses_the_palette_its_entries_name() {
    use levelgeom_wad::text::{Effects, Palette, Text, TextureEntry, TexturePage};
    let pal = |c: u16| Palette {
        unknown: 0,
        colours: vec![0x0000, c],
        extra: vec![0, 0],
    };
    let entry = |flags: u16, extra: u8| TextureEntry {
        flags,
        page: 0,
        extra,
        u0: 0,
        u1: 1,
        v0: 0,
        v1: 0,
    };
    let mut text = Text {
        palettes: vec![pal(0x801F), pal(0x83E0)],
        pages: vec![TexturePage::indexed(2, 1, vec![1, 0])],
        // A flat-colour entry first: its second byte is no palette reference.
        entries: vec![entry(0x0001, 0), entry(0, 1), entry(0, 0)],
        effects: Effects::Absent,
    };
    let v = TextView::from_text(&text);
    assert_eq!(v.pages[0].rgba, Ok(vec![0, 255, 0, 255, 0, 0, 0, 0]));
    assert_eq!(v.warnings.len(), 1, "{:?}", v.warnings);
    assert!(
        v.warnings[0].contains("palette 1 (entry 1)") && v.warnings[0].contains("palette(s) 0")
    );
    // The warning reaches the scene.
    let trak = Trak::default();
    let s = build(&trak, &Map::default(), None, &v, &SceneOptions::default());
    assert!(s.warnings.iter().any(|w| w.starts_with("TEXT/pages[0]")));

    // No entry names an existing palette (0xFF = none): the first palette, red.
    text.entries = vec![entry(0, 0xFF)];
    let v = TextView::from_text(&text);
    assert_eq!(v.pages[0].rgba, Ok(vec![255, 0, 0, 255, 0, 0, 0, 0]));
    assert!(v.warnings.is_empty());
}
