//! The synthetic level generator: facts chosen by the spec, checked independently.

// Tests unwrap on purpose: a panic is a test failure with its location.

use levelgeom_wad::generate::{self, LevelSpec, WATER_Y};
use levelgeom_wad::level::{ChunkData, Level};
use levelgeom_wad::map::{ChainTable, Map};
use levelgeom_wad::model::{self, Vec3};
use levelgeom_wad::tags::Tag;
use levelgeom_wad::trak::Trak;

fn demo() -> Level {
    generate::generate(&LevelSpec::demo()).unwrap()
}

/// The seed's tile transformation (docs/formats/argonaut-wad.md §15), in f64 with the rotation as an angle.
fn world(tile_pos: Vec3, rot: u32, v: Vec3) -> [f64; 3] {
    let a = f64::from(rot) / 4096.0 * std::f64::consts::TAU;
    let (x, y, z) = (
        f64::from(tile_pos[0]),
        f64::from(tile_pos[1]),
        f64::from(tile_pos[2]),
    );
    let (vx, vy, vz) = (f64::from(v[0]), f64::from(v[1]), f64::from(v[2]));
    [
        x + vx * a.cos() - vz * a.sin(),
        y + vy,
        z + vx * a.sin() + vz * a.cos(),
    ]
}

fn parts(level: &Level) -> (&Trak, &Map) {
    (level.trak().unwrap(), level.map().unwrap())
}

#[test]
fn every_chunk_kind_in_the_engine_order() {
    let level = demo();
    let names: Vec<String> = level.chunks.iter().map(|c| c.tag.name()).collect();
    assert_eq!(
        names,
        [
            "INFO", "VERS", "WFPC", "TEXT", "FONT", "SPRT", "NAME", "SMPC", "AMPC", "SRPC", "TRAK",
            "STPC", "MAP ", "LGHT", "LNFO", "LGPC", "END "
        ]
    );
    // WFPC: swaps, view distance, STPC tail, SPRT table, chains with Y.
    let w = level.wfpc();
    for bit in [0x10, 0x100, 0x1_0000, 0x10_0000, 0x20_0000, 0x400_0000] {
        assert_ne!(w & bit, 0, "bit {bit:#x}");
    }
    // The file header is the length minus 4, and the bytes parse back.
    let bytes = level.to_bytes().unwrap();
    assert_eq!(
        u32::from_le_bytes(bytes[0..4].try_into().unwrap()) as usize,
        bytes.len() - 4
    );
    assert_eq!(&bytes[4..8], b"OFNI");
    assert_eq!(
        generate::demo_level().unwrap(),
        bytes,
        "demo_level().unwrap() is the demo spec's bytes"
    );
}

#[test]
fn demo_counts() {
    let level = demo();
    let (trak, map) = parts(&level);
    // Island 6 × 5 = 30 terrain tiles; two water rings make the region 10 × 9 = 90 cells,
    // so 60 water tiles.
    assert_eq!(map.tiles.len(), 90);
    assert_eq!(map.tiles.iter().filter(|t| t.model == 0).count(), 60);
    assert_eq!((map.grid_w, map.grid_h, map.zone_grid.len()), (16, 16, 256));
    // Water plane + bridge + 30 terrain models.
    assert_eq!(trak.models.len(), 32);
    // Terrain 2·4² = 32 faces; rock tiles (index % 3 != 2) +4 top +8 side, plant tiles +4.
    assert_eq!(trak.models[2].faces.len(), 44);
    assert_eq!(trak.models[4].faces.len(), 36);
    assert_eq!(trak.models[1].faces.len(), 288);
    let rots: std::collections::BTreeSet<u32> = map.tiles.iter().map(|t| t.rot).collect();
    assert_eq!(rots.into_iter().collect::<Vec<_>>(), [0, 1024, 2048, 3072]);
    // TEXT: 4 pages of tiles and the font page (page 1 raw 16-bit, the others RLE), 4 × 16 +
    // 4 entries and 95 font glyphs (printable ASCII, U+0020..U+007E).
    let text = level.text().unwrap();
    assert_eq!(text.pages.len(), 5);
    assert_eq!(text.pages[1].flags & 0x80, 0);
    assert!(text
        .pages
        .iter()
        .enumerate()
        .all(|(i, p)| i == 1 || p.flags & 0x80 != 0));
    assert_eq!(text.entries.len(), 68 + 95);
    assert_eq!(text.entries.iter().filter(|e| e.flags & 1 != 0).count(), 4);
    // FONT: glyph 'A' (0x41) names entry 68 + 0x41 − 0x20 = 101, a 14 × 16 cell of the font
    // page at column 33 % 16 = 1, row 33 / 16 = 2 of its 16-texel grid; a code outside
    // printable ASCII names the space's entry, 68.
    let font = level.font().unwrap();
    assert_eq!(font.glyphs[0x41].texture, 101);
    assert_eq!(font.glyphs[0x07].texture, 68);
    assert_eq!(font.glyphs[0xE9].texture, 68);
    let a = &text.entries[101];
    assert_eq!(
        (a.page, a.u0, a.u1, a.v0, a.v1, a.flags),
        (4, 16, 29, 32, 47, 0)
    );
    // its texels: the 'A' pattern, written here by hand, at twice its size 2 texels in and 1
    // down (white opaque ABGR1555 0xFFFF, else transparent 0)
    let px = text.pages[4].pixels16().unwrap();
    let rows = [
        "01110", "10001", "10001", "10001", "11111", "10001", "10001",
    ];
    for (gy, row) in rows.iter().enumerate() {
        for (gx, bit) in row.bytes().enumerate() {
            let (x, y) = (16 + 2 + 2 * gx, 32 + 1 + 2 * gy);
            let want = if bit == b'1' { 0xFFFF } else { 0 };
            assert_eq!(px[y * 256 + x], want, "'A' at ({gx}, {gy})");
            assert_eq!(px[(y + 1) * 256 + x + 1], want);
        }
    }
    // The plant page has transparent texels (word 0).
    assert!(text.pages[3].pixels16().unwrap().contains(&0));
    assert!(!text.pages[0].pixels16().unwrap().contains(&0));
}

#[test]
fn water_plane_is_model_zero_with_hand_computed_collision() {
    let level = demo();
    let m = &parts(&level).0.models[0];
    assert_eq!(
        (m.vertices.len(), m.faces.len(), m.collision.len()),
        (4, 0, 1)
    );
    assert!(m
        .vertices
        .iter()
        .all(|v| v.pos[1] == -2.75 && WATER_Y == -2.75));
    let c = &m.collision[0];
    assert_eq!(c.material, 0x1E);
    assert_eq!(c.kind & 1, 1, "a quad");
    // Surface: n_q = (0, 127, 0), d = round(32 · 127 · −2.75) = −11176 (docs/formats/argonaut-wad.md §12.4).
    assert_eq!(c.planes[0].normal, [0, 127, 0]);
    assert_eq!(c.planes[0].d, -11176);
    // Edges at ±0.5 with inward normals ±127: d = round(32 · 127 · −0.5) = −2032.
    let mut edges: Vec<[i8; 3]> = c.planes[1..].iter().map(|p| p.normal).collect();
    edges.sort();
    assert_eq!(
        edges,
        [[-127, 0, 0], [0, 0, -127], [0, 0, 127], [127, 0, 0]]
    );
    assert!(c.planes[1..].iter().all(|p| p.d == -2032));
}

#[test]
fn a_vertex_lands_where_the_height_function_says() {
    let level = demo();
    let (trak, map) = parts(&level);
    // Island tile 0 sits at cell (5, 5): centre (5.5, 0, −5.5), rotation (5 + 2·5) mod 4 = 3.
    let t = &map.tiles[0];
    assert_eq!(t.pos, [5.5, 0.0, -5.5]);
    assert_eq!(t.rot, 3072);
    // Its vertex 0 is the cell corner (5, h, −5). The island centre is (8, −7.5), so
    // h = 1.5 − 0.125 · (3 + 2.5) = 0.8125.
    let v = trak.models[t.model as usize].vertices[0].pos;
    let w = world(t.pos, t.rot, v);
    for (got, want) in w.iter().zip([5.0, 0.8125, -5.0]) {
        assert!((got - want).abs() < 1e-6, "{w:?}");
    }
    // The B record is A × 4096 with z negated.
    assert_eq!(map.transforms[0].pos, [22528, 0, 22528]);
    assert_eq!(map.transforms[0].rot, [0, 3072, 0]);
}

#[test]
fn neighbouring_tiles_meet_exactly() {
    // Every terrain vertex on a cell border coincides (in world space) with a vertex of the
    // neighbouring tile, whatever the two rotations (the seed's 93 % test, here 100 %).
    let level = demo();
    let (trak, map) = parts(&level);
    let mut points = std::collections::HashMap::new();
    let key = |p: [f64; 3]| {
        (
            (p[0] * 1e4).round() as i64,
            (p[1] * 1e4).round() as i64,
            (p[2] * 1e4).round() as i64,
        )
    };
    let island: Vec<_> = map.tiles.iter().filter(|t| t.model >= 2).collect();
    for (i, t) in island.iter().enumerate() {
        for v in &trak.models[t.model as usize].vertices[..25] {
            points
                .entry(key(world(t.pos, t.rot, v.pos)))
                .or_insert_with(Vec::new)
                .push(i);
        }
    }
    let mut shared = 0;
    for (i, t) in island.iter().enumerate() {
        for v in &trak.models[t.model as usize].vertices[..25] {
            let w = world(t.pos, t.rot, v.pos);
            let on_border = |c: f64, lo: f64| (c - lo).abs() < 1e-6 || (c - lo - 1.0).abs() < 1e-6;
            let cx = f64::from(t.pos[0]) - 0.5;
            let cz = f64::from(t.pos[2]) - 0.5;
            let inner_x = (5.0..11.0).contains(&w[0]) && w[0] > 5.0 + 1e-6 && w[0] < 11.0 - 1e-6;
            let inner_z = w[2] < -5.0 - 1e-6 && w[2] > -10.0 + 1e-6;
            if (on_border(w[0], cx) && inner_x) || (on_border(w[2], cz) && inner_z) {
                let owners = &points[&key(w)];
                assert!(
                    owners.iter().any(|&o| o != i),
                    "tile {i} vertex {w:?} has no neighbour"
                );
                shared += 1;
            }
        }
    }
    assert!(shared > 100, "{shared}");
}

#[test]
fn faces_point_up_and_uv_flags_follow_the_quad_rule() {
    let level = demo();
    let trak = parts(&level).0;
    for m in &trak.models[2..] {
        for (j, f) in m.faces[..32].iter().enumerate() {
            assert!(f.normal[1] > 0.0, "terrain faces are seen from above");
            let want = if j % 2 == 0 { 0x800 } else { 0x810 };
            assert_eq!(f.flags & 0x810, want);
        }
        assert!(m.faces[0].flags & model::FACE_BATCH != 0);
    }
    // Plants are double-sided (0x400).
    let plant = &trak.models[4];
    assert!(plant.faces[32..]
        .iter()
        .all(|f| f.flags & model::FACE_DOUBLE_SIDED != 0));
    // The bridge: one texture, batch flags exactly at faces 0 and 256.
    let batches: Vec<usize> = trak.models[1]
        .faces
        .iter()
        .enumerate()
        .filter(|(_, f)| f.flags & model::FACE_BATCH != 0)
        .map(|(j, _)| j)
        .collect();
    assert_eq!(batches, [0, 256]);
}

#[test]
fn collision_surfaces_pass_through_the_render_mesh() {
    // The engine tests 32·n_q·p − d (docs/formats/argonaut-wad.md §12.4). For each terrain collision triangle, the
    // game-space corners of its render face are on the surface (|…| small against 32·127)
    // and inside every edge plane.
    let level = demo();
    let trak = parts(&level).0;
    for m in &trak.models[2..] {
        for (f, c) in m.faces[..32].iter().zip(&m.collision) {
            for &ix in &f.indices {
                let p = m.vertices[usize::from(ix)].pos;
                let g = [f64::from(p[0]), f64::from(p[1]), -f64::from(p[2])];
                let eval = |k: usize| {
                    let pl = &c.planes[k];
                    32.0 * (f64::from(pl.normal[0]) * g[0]
                        + f64::from(pl.normal[1]) * g[1]
                        + f64::from(pl.normal[2]) * g[2])
                        - f64::from(pl.d)
                };
                assert!(eval(0).abs() < 40.0, "surface off by {}", eval(0));
                for k in 1..4 {
                    assert!(eval(k) > -40.0, "edge {k}: {}", eval(k));
                }
            }
        }
    }
}

#[test]
fn colour_sets_and_the_swap_block() {
    let level = demo();
    let map = parts(&level).1;
    // Island tile 1: 2 sets, marker (byte 3 = 2) on the LAST entry of the first layer.
    let c = &map.colours[1];
    assert_eq!(c.layers.len(), 2);
    assert_eq!(c.layers[0][0] >> 24, 0);
    assert_eq!(c.layers[0].last().unwrap() >> 24, 2);
    // Island tile 2: 3 sets, marker on entry 0.
    assert_eq!(map.colours[2].layers.len(), 3);
    assert_eq!(map.colours[2].layers[0][0] >> 24, 3);
    // The swap tile is island tile 8 (3 sets); its record names model B = 1 (the bridge,
    // 13² = 169 vertices), whose own byte 3 is 0 everywhere: it still has 3 layers.
    assert_eq!(map.tiles[8].anim_flag, 1);
    let swaps = map.swaps.as_ref().unwrap();
    assert_eq!(swaps.len(), 1);
    assert_eq!((swaps[0].model_a, swaps[0].model_b), (10, 1));
    let extra = map.colours[8].swap_layers.as_ref().unwrap();
    assert_eq!(extra.len(), 3);
    assert!(extra.iter().all(|l| l.len() == 169));
    assert!(extra[0].iter().all(|c| c >> 24 == 0));
    // Reading the bytes back gives the same layers (the loader's rule, not the seed's).
    let (back, _) = Level::read(&level.to_bytes().unwrap()).unwrap();
    assert_eq!(back.map().unwrap().colours, map.colours);
}

#[test]
fn stpc_objects_animation_and_tail() {
    let level = demo();
    let s = level.stpc().unwrap();
    assert_eq!(s.models.len(), 2);
    assert_eq!(s.models[1].bone_vertex_counts, [8, 8]);
    assert_eq!(s.models[1].header.stpc.unwrap().rigid_vertex_count, 0);
    assert_eq!(s.models[0].header.stpc.unwrap().rigid_vertex_count, 8);
    assert_eq!(s.animation_count, 1);
    assert!(s.tail.is_some());
    // Payload: 4 + (0x8C + 8·24 + 12·28 + 32) + (0x8C + 2·2 + 16·24 + 24·28)
    //   + 4 + (32 + 328) animation + tail (4 + 16 + 8 + 32 + 4 + 128) + scripts 32.
    let n = 4 + (0x8C + 192 + 336 + 32) + (0x8C + 4 + 384 + 672) + 4 + 360 + 192 + 32;
    let chunk = level.chunk(Tag::STPC).unwrap();
    assert_eq!(chunk.data.encode().unwrap().len(), n);
    if let ChunkData::Stpc(s2) = &Level::read(&level.to_bytes().unwrap())
        .unwrap()
        .0
        .chunk(Tag::STPC)
        .unwrap()
        .data
    {
        assert_eq!(s2, s);
    } else {
        panic!("STPC did not parse as STPC");
    }
}

#[test]
fn map_extras() {
    let level = demo();
    let map = parts(&level).1;
    assert_eq!(map.view_distance, Some(200));
    let Some(ChainTable::Parsed(c)) = &map.chains else {
        panic!("chains");
    };
    // Island corners (5, −5) … (11, −10) in 20.12 game space (z negated).
    let p = &c[0][0].points;
    assert_eq!((p[0].x, p[0].z), (5 * 4096, 5 * 4096));
    assert_eq!((p[2].x, p[2].z), (11 * 4096, 10 * 4096));
    assert_eq!(map.objects.len(), 3);
    // Zones: the island region is zone 1, visible with zone 0.
    assert_eq!(map.zone_grid[(5 * 16 + 5) as usize], 1);
    assert_eq!(map.zone_grid[0], 0);
    assert_eq!(map.zones[1].mask, 0b11);
}

#[test]
fn full_size_level() {
    let a = crate::full_size();
    let b = generate::full_size_level().unwrap();
    let bytes = a.to_bytes().unwrap();
    assert_eq!(bytes, b.to_bytes().unwrap(), "deterministic");
    let (trak, map) = parts(a);
    assert_eq!((map.grid_w, map.grid_h), (96, 96));
    // 25 × 24 = 600 terrain models + water + bridge.
    assert_eq!(trak.models.len(), 602);
    let tris: usize = trak.models.iter().map(|m| m.faces.len()).sum();
    // 600 · 32 terrain + 400 rocks · 12 + 200 plants · 4 + 288 bridge = 25,088.
    assert_eq!(tris, 600 * 32 + 400 * 12 + 200 * 4 + 288);
    // 30 pages of tiles and the font page
    assert_eq!(a.text().unwrap().pages.len(), 31);
    assert!(levelgeom_wad::check::check(a).is_empty());
}
