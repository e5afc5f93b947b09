//! TRAK, STPC and MAP on hand-written bytes (every field commented), truncated and corrupted
//! input, and typed edits of generated levels.

// Tests unwrap on purpose: a panic is a test failure with its location.

use levelgeom_binary::{Reader, Writer};
use levelgeom_wad::generate::{self, LevelSpec};
use levelgeom_wad::level::{ChunkData, Level};
use levelgeom_wad::map::{self, ChainTable, Map};
use levelgeom_wad::model::{self, Model};
use levelgeom_wad::stpc::Stpc;
use levelgeom_wad::tags::Tag;
use levelgeom_wad::trak::Trak;

/// Little-endian byte assembly, independent of the crate's `Writer`.
#[derive(Default)]
struct B(Vec<u8>);

impl B {
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i16(&mut self, v: i16) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn f32(&mut self, v: f32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn f32s(&mut self, v: &[f32]) -> &mut Self {
        for &x in v {
            self.f32(x);
        }
        self
    }
    fn raw(&mut self, v: &[u8]) -> &mut Self {
        self.0.extend_from_slice(v);
        self
    }
}

/// A model header: the 0x84 common part (and, with `stpc`, the 8 STPC bytes).
fn header(b: &mut B, nv: u16, nf: u16, coll: [u16; 3], pad7e: u16, stpc: Option<(u16, u16)>) {
    b.f32s(&[0.0, 0.5, 0.0]); // +0x00 centre
    for (x, y, z) in [
        (-1.0, 0.0, 1.0),  // +0x0C corner −x−y+z
        (1.0, 0.0, 1.0),   //       corner +x−y+z
        (-1.0, 1.0, 1.0),  //       corner −x+y+z
        (1.0, 1.0, 1.0),   //       corner +x+y+z
        (-1.0, 0.0, -1.0), //       corner −x−y−z
        (1.0, 0.0, -1.0),  //       corner +x−y−z
        (-1.0, 1.0, -1.0), //       corner −x+y−z
        (1.0, 1.0, -1.0),  //       corner +x+y−z
    ] {
        b.f32s(&[x, y, z]);
    }
    b.u16(nv); // +0x6C vertex count
    b.u16(nf); // +0x6E face count
    b.u32(0); // +0x70 vertex pointer
    b.u32(0); // +0x74 face pointer
    b.u16(coll[0]).u16(coll[1]).u16(coll[2]); // +0x78 collision groups
    b.u16(pad7e); // +0x7E unknown
    b.u32(0); // +0x80 collision pointer
    if let Some((rigid, bones)) = stpc {
        b.u16(rigid); // +0x84 rigid vertex count
        b.u16(bones); // +0x86 bone count
        b.u32(0); // +0x88 bone pointer
    }
}

fn vertex(b: &mut B, p: [f32; 3]) {
    b.f32s(&p); // position
    b.f32s(&[0.0, 1.0, 0.0]); // normal
}

fn face(b: &mut B, flags: u16, ix: [u16; 3], tex: u16) {
    b.u16(flags); // flags
    b.u16(ix[0]).u16(ix[1]).u16(ix[2]); // v0 v1 v2
    b.u16(tex); // texture entry
    b.u16(0); // +0x0A
    b.f32s(&[0.0, 1.0, 0.0]).f32(0.0); // plane n, d
}

fn collision_quad(b: &mut B) {
    b.u8(1); // type: quad
    b.u8(0x1E); // material: water
    for (n, d) in [
        ([0i8, 127, 0], -11176i16), // surface y = −2.75
        ([127, 0, 0], -2032),       // edge x ≥ −0.5
        ([-127, 0, 0], -2032),      // edge x ≤ 0.5
        ([0, 0, 127], -2032),       // edge z ≥ −0.5
        ([0, 0, -127], -2032),      // edge z ≤ 0.5
    ] {
        b.u8(n[0] as u8).u8(n[1] as u8).u8(n[2] as u8).u8(0).i16(d);
    }
}

/// TRAK with two models: headers first, then model 0's collision, then model 1's arrays.
fn trak_bytes() -> Vec<u8> {
    let mut b = B::default();
    b.u32(2); // model count
    header(&mut b, 0, 0, [1, 0, 0], 0, None); // model 0: collision only
    header(&mut b, 3, 1, [0, 0, 0], 11, None); // model 1: one triangle, +0x7E = 11
    collision_quad(&mut b); // model 0 data
    vertex(&mut b, [0.0, 0.0, 0.0]); // model 1 vertices
    vertex(&mut b, [1.0, 0.0, 0.0]);
    vertex(&mut b, [0.0, 0.0, -1.0]);
    face(&mut b, 0x0808, [0, 1, 2], 7); // model 1 face
    b.0
}

#[test]
fn trak_reads_headers_first_then_data_and_writes_back_identically() {
    let bytes = trak_bytes();
    assert_eq!(bytes.len(), 4 + 2 * 0x84 + 32 + 3 * 24 + 28);
    let mut r = Reader::new(&bytes);
    let t = Trak::read(&mut r).unwrap();
    assert!(r.is_empty());
    assert_eq!(t.models.len(), 2);
    let (m0, m1) = (&t.models[0], &t.models[1]);
    assert_eq!(m0.collision.len(), 1);
    assert_eq!(m0.collision[0].material, 0x1E);
    assert_eq!(m0.collision[0].planes[0].normal, [0, 127, 0]);
    assert_eq!(m0.collision[0].planes[0].d, -11176);
    assert_eq!(m0.collision[0].planes[4].normal, [0, 0, -127]);
    assert_eq!(m1.header.unknown_7e, 11);
    assert_eq!(m1.header.corners[3], [1.0, 1.0, 1.0]);
    assert_eq!(m1.vertices[2].pos, [0.0, 0.0, -1.0]);
    assert_eq!(m1.faces[0].flags, 0x0808);
    assert_eq!(m1.faces[0].texture, 7);
    assert_eq!(t.vertex_counts(), vec![0, 3]);
    let mut w = Writer::new();
    t.write(&mut w).unwrap();
    assert_eq!(w.into_inner(), bytes);
}

#[test]
fn trak_errors_name_offset_and_model() {
    let mut bytes = trak_bytes();
    bytes.truncate(bytes.len() - 10); // cut into model 1's face
    let mut r = Reader::new(&bytes);
    r.push("TRAK", None);
    let e = Trak::read(&mut r).unwrap_err();
    // model 1's data starts after the count, two headers and model 0's 32-byte polygon.
    let faces_at = 4 + 2 * 0x84 + 32 + 72;
    assert_eq!(
        e.to_string(),
        format!("at 0x{faces_at:08X} in TRAK/models[1]: count 1 × 28 bytes exceeds the 18 bytes that remain")
    );
    // A count no file could back is refused before allocating.
    let mut b = B::default();
    b.u32(0xFFFF_FFFF);
    let e = Trak::read(&mut Reader::new(&b.0)).unwrap_err();
    assert_eq!(e.offset, 0);
    // Every truncation fails cleanly.
    let full = trak_bytes();
    for n in 0..full.len() {
        assert!(Trak::read(&mut Reader::new(&full[..n])).is_err(), "len {n}");
    }
}

/// STPC: a rigid model, a skinned model (2 bones), one animation, the 0x100 tail, scripts.
fn stpc_bytes(tail: bool) -> Vec<u8> {
    let mut b = B::default();
    b.u32(2); // model count N (N records)
    header(&mut b, 1, 0, [0, 0, 0], 0, Some((1, 0))); // rigid: +0x84 = nVerts
    vertex(&mut b, [0.5, 0.5, 0.5]);
    header(&mut b, 3, 0, [0, 0, 0], 0, Some((0, 2))); // skinned: 2 bones
    b.u16(2).u16(1); // per-bone vertex counts (sum 3)
    vertex(&mut b, [0.0, 0.0, 0.0]);
    vertex(&mut b, [0.0, 1.0, 0.0]);
    vertex(&mut b, [0.0, 2.0, 0.0]);
    b.u32(1); // animation count
              // header: nA 1, ptr, nFrames 2, 0 → frame table, nDelta 1, ptr, nBones 1, ptr
    b.u32(1).u32(0).u32(2).u32(0).u32(1).u32(0).u32(1).u32(0);
    b.u32(0xA0A0_A0A0); // nA × 4
    b.raw(&[1; 16]); // frame table 2 × 8
    b.raw(&[0; 8]); // delta pointers 2 × 4
    b.raw(&[0; 8]); // matrix pointers 2 × 4
    b.raw(&[2; 8]); // frame 0 deltas: 1 × 8
    b.f32s(&[1.0; 16]); // frame 0 matrix
    b.raw(&[3, 3, 0, 0]); // frame 1 deltas: 1 × 2 + 2 (odd)
    b.f32s(&[2.0; 16]); // frame 1 matrix
    if tail {
        b.u32(1); // cutscene count
        b.raw(b"cut\0").u32(1).u32(0).u32(0); // head: tag, count 1, pointers
        b.u32(0).u32(1); // info: morphs, bones
        b.u32(0).u32(0).u32(1).u32(1).u32(0).u32(0).u32(1).u32(0); // anim header, no frame table
        b.raw(&[0; 4]); // matrix pointers 1 × 4
        b.f32s(&[3.0; 16]); // frame 0 matrix
    }
    b.u32(1).u32(1).u32(0x0001_0002); // scripts (kept raw)
    b.0
}

#[test]
fn stpc_models_animations_tail_and_scripts_round_trip() {
    let bytes = stpc_bytes(true);
    let mut r = Reader::new(&bytes);
    let s = Stpc::read(&mut r, 0x100).unwrap();
    assert!(r.is_empty());
    assert_eq!(s.models.len(), 2, "the stored count is N records");
    assert_eq!(s.models[1].bone_vertex_counts, vec![2, 1]);
    assert_eq!(s.models[1].vertices[2].pos, [0.0, 2.0, 0.0]);
    assert_eq!(s.models[1].header.stpc.unwrap().bone_count, 2);
    assert!(s.animations_complete());
    let a = &s.animations[0];
    assert_eq!(a.frames.len(), 2);
    assert_eq!(a.frames[1].deltas, vec![3, 3, 0, 0]);
    assert_eq!(a.frames[1].matrices[0][15], 2.0);
    let tail = s.tail.as_ref().unwrap();
    assert_eq!(
        tail.cutscenes[0].animations[0].frames[0].matrices[0][0],
        3.0
    );
    assert_eq!(s.rest.len(), 12);
    let mut w = Writer::new();
    s.write(&mut w).unwrap();
    assert_eq!(w.into_inner(), bytes);

    // Without WFPC 0x100 the tail bytes are not a tail: they stay in `rest`.
    let s = Stpc::read(&mut Reader::new(&bytes), 0).unwrap();
    assert!(s.tail.is_none());
    assert_eq!(s.rest.len(), 12 + 4 + 16 + 8 + 32 + 4 + 64);
    let mut w = Writer::new();
    s.write(&mut w).unwrap();
    assert_eq!(w.into_inner(), bytes);
}

#[test]
fn stpc_keeps_an_animation_that_does_not_fit_verbatim() {
    let mut bytes = stpc_bytes(false);
    // The animation header starts after the models and the count; make nFrames absurd.
    let anim_at = 4 + (0x8C + 24) + (0x8C + 4 + 72) + 4;
    bytes[anim_at + 8..anim_at + 12].copy_from_slice(&0x4000_0000u32.to_le_bytes());
    let s = Stpc::read(&mut Reader::new(&bytes), 0).unwrap();
    assert_eq!(s.animation_count, 1);
    assert!(s.animations.is_empty());
    assert!(!s.animations_complete());
    assert_eq!(s.rest, bytes[anim_at..].to_vec());
    let mut w = Writer::new();
    s.write(&mut w).unwrap();
    assert_eq!(w.into_inner(), bytes);
    // A model count that cannot be backed names the model.
    let mut bad = stpc_bytes(false);
    bad[4 + 0x6C..4 + 0x6E].copy_from_slice(&500u16.to_le_bytes());
    let e = Stpc::read(&mut Reader::new(&bad), 0).unwrap_err();
    assert!(
        e.to_string().contains("in models[0]: count 500 × 24 bytes"),
        "{e}"
    );
}

/// MAP of 2 tiles on a 2×1 grid with a swap, colour layers, objects, chain table.
/// `verts` = vertex counts of TRAK models 0, 1, 2.
fn map_bytes() -> (Vec<u8>, u32) {
    let wfpc = 0x10 | 0x1_0000 | 0x20_0000 | 0x400_0000;
    let mut b = B::default();
    b.u32(2).u32(2).u32(1); // N, W, H
    b.f32s(&[0.5, 0.0, -0.5]).u32(0).u32(1).u32(0); // tile 0: pos, rot, model 1, no swap
    b.f32s(&[1.5, 0.25, -0.5]).u32(1024).u32(2).u32(1); // tile 1: model 2, swap
    b.u32(1).u32(77); // params: 1 × u32
    b.u32(0); // strat records
    b.u32(1).raw(&[9; 34]); // route nodes: 1 × 34 bytes
    for z in 0..32 {
        b.u32(if z == 0 { 0xFFFF_FFFF } else { 0 }).i32(-z); // zone table
    }
    b.u32(0).u32(0); // zone grid 2 × 1
    b.i32(0).i32(0).i32(0).i32(2048).i32(0).i32(2048); // B tile 0
    b.i32(0).i32(1024).i32(0).i32(6144).i32(1024).i32(2048); // B tile 1
    b.u32(1).u32(2); // model indices
    b.u32(1); // swaps: 1 record
    b.i32(1).i32(1024).i32(0).u32(2).u32(0); // cellX, y, cellZ, model A 2, model B 0
                                             // colours, tile 0 (model 1: 2 vertices): byte 3 max over the layer = 2 (on entry 1) → 2 layers
    b.u32(0x0080_8080).u32(0x0280_8080);
    b.u32(0x0040_4040).u32(0x0040_4040);
    // tile 1 (model 2: 1 vertex): byte 3 = 0 → 1 layer
    b.u32(0x0011_2233);
    // tile 1's swap block (model 0: 1 vertex): own max 0, running max 0 → 1 layer
    b.u32(0x0044_5566);
    b.u32(1).u32(16); // object count, max objects
    b.u16(0).u16(1024).u16(0); // object rot
    b.i32(2048).i32(0).i32(2048); // object pos
    b.u32(8); // script offset
    for f in 0..8 {
        b.u32(f); // eight u32 fields
    }
    b.u16(2).u16(0); // flags, extra
    b.u32(1); // chain table: 1 array
    b.u32(1); // 1 polygon
    b.u16(2).u16(0x40); // 2 points, flags
    b.i32(1).i32(2).i32(3).u16(4).i16(-5); // x, z, y, kind, value
    b.i32(6).i32(7).i32(8).u16(9).i16(-10);
    b.u32(200); // view distance
    b.u16(0xBEEF); // final
    (b.0, wfpc)
}

#[test]
fn map_reads_every_part_in_order_and_writes_back_identically() {
    let (bytes, wfpc) = map_bytes();
    let verts = [1usize, 2, 1];
    let mut r = Reader::new(&bytes);
    let m = Map::read(&mut r, wfpc, &verts).unwrap();
    assert!(r.is_empty());
    assert_eq!((m.grid_w, m.grid_h, m.tiles.len()), (2, 1, 2));
    assert_eq!(m.tiles[1].rot, 1024);
    assert_eq!(m.params, vec![77]);
    assert_eq!(m.route_nodes.len(), 1);
    assert_eq!(m.zones[0].mask, 0xFFFF_FFFF);
    assert_eq!(m.zones[31].height, -31);
    assert_eq!(m.transforms[1].pos, [6144, 1024, 2048]);
    assert_eq!(
        m.colours[0].layers.len(),
        2,
        "max of byte 3 over the first layer"
    );
    assert_eq!(m.colours[0].layers[1], vec![0x0040_4040, 0x0040_4040]);
    assert_eq!(m.colours[1].layers.len(), 1);
    assert_eq!(m.colours[1].swap_layers, Some(vec![vec![0x0044_5566]]));
    assert_eq!(m.objects[0].script_offset, 8);
    assert_eq!(m.objects[0].fields[7], 7);
    assert_eq!(m.objects[0].flags, 2);
    let Some(ChainTable::Parsed(c)) = &m.chains else {
        panic!("chain table not parsed: {:?}", m.chains);
    };
    assert_eq!(c[0][0].points[1].y, Some(8));
    assert_eq!(c[0][0].points[1].value, -10);
    assert_eq!(m.view_distance, Some(200));
    assert_eq!(m.final_u16, 0xBEEF);
    assert_eq!(m.cell_of(m.tiles[1].pos), Some(1));
    let mut w = Writer::new();
    m.write(&mut w).unwrap();
    assert_eq!(w.into_inner(), bytes);
}

#[test]
fn swap_block_inherits_the_running_maximum() {
    // Same MAP, but tile 1's main block says 3 sets (byte 3 = 3): then its swap block of
    // model 0 is 3 layers too, though the swap block's own byte 3 is 0.
    let (bytes, wfpc) = map_bytes();
    let at = bytes
        .windows(4)
        .position(|w| w == 0x0011_2233u32.to_le_bytes())
        .unwrap();
    let mut b = bytes[..at].to_vec();
    b.extend_from_slice(&0x0311_2233u32.to_le_bytes()); // main layer 0, count 3
    b.extend_from_slice(&1u32.to_le_bytes()); // main layer 1
    b.extend_from_slice(&2u32.to_le_bytes()); // main layer 2
    b.extend_from_slice(&0x0044_5566u32.to_le_bytes()); // swap layer 0 (byte 3 = 0)
    b.extend_from_slice(&5u32.to_le_bytes()); // swap layer 1
    b.extend_from_slice(&6u32.to_le_bytes()); // swap layer 2
    b.extend_from_slice(&bytes[at + 8..]);
    let m = Map::read(&mut Reader::new(&b), wfpc, &[1, 2, 1]).unwrap();
    assert_eq!(
        m.colours[1].layers,
        vec![vec![0x0311_2233], vec![1], vec![2]]
    );
    assert_eq!(
        m.colours[1].swap_layers,
        Some(vec![vec![0x0044_5566], vec![5], vec![6]])
    );
    let mut w = Writer::new();
    m.write(&mut w).unwrap();
    assert_eq!(w.into_inner(), b);
}

#[test]
fn colour_set_count_rule_vectors() {
    // (first layer, running max in) → (layers, running max out), docs/formats/argonaut-wad.md §12.1.
    assert_eq!(map::colour_layer_count(&[0, 0, 0], 0), (1, 0));
    assert_eq!(map::colour_layer_count(&[0x0100_0000, 0], 0), (1, 1));
    assert_eq!(map::colour_layer_count(&[0x0200_0000, 0], 0), (2, 2));
    // The maximum over all entries counts, not entry 0 alone (the seed's reading).
    assert_eq!(
        map::colour_layer_count(&[0x0100_0000, 0x0400_0000], 0),
        (4, 4)
    );
    assert_eq!(map::colour_layer_count(&[0, 0xFF00_0000], 0), (255, 255));
    // A swap block continues the running maximum.
    assert_eq!(map::colour_layer_count(&[0], 3), (3, 3));
    assert_eq!(map::colour_layer_count(&[0x0500_0000], 3), (5, 5));
    assert_eq!(map::colour_layer_count(&[], 0), (1, 0));
}

#[test]
fn map_errors_and_fallbacks() {
    let (bytes, wfpc) = map_bytes();
    // A model index past the TRAK models is an error at that tile's colour block.
    let mut r = Reader::new(&bytes);
    r.push("MAP", None);
    let e = Map::read(&mut r, wfpc, &[1, 2]).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("in MAP/colours[1]: model index 2 is not below the 2 TRAK models"),
        "{e}"
    );
    // Chain bytes that are not the known layout stay raw (the fixed fields after it still parse).
    let (mut bad, _) = map_bytes();
    let chain_at = bad.len() - 6 - (4 + 4 + 4 + 2 * 16);
    bad[chain_at..chain_at + 4].copy_from_slice(&7u32.to_le_bytes()); // 7 arrays: does not fit
    let m = Map::read(&mut Reader::new(&bad), wfpc, &[1, 2, 1]).unwrap();
    assert_eq!(
        m.chains,
        Some(ChainTable::Raw(bad[chain_at..bad.len() - 6].to_vec()))
    );
    assert_eq!(m.final_u16, 0xBEEF);
    let mut w = Writer::new();
    m.write(&mut w).unwrap();
    assert_eq!(w.into_inner(), bad);
    // Every truncation before the chain table is an error, never a panic. (The chain table's
    // extent is "what the fixed fields after it leave", so a shorter chunk there reads as a
    // raw, shorter chain table: the reader cannot tell, and stays byte-exact.)
    for n in 0..chain_at + 6 {
        assert!(
            Map::read(&mut Reader::new(&bytes[..n]), wfpc, &[1, 2, 1]).is_err(),
            "len {n}"
        );
    }
    for n in chain_at + 6..bytes.len() {
        if let Ok(m) = Map::read(&mut Reader::new(&bytes[..n]), wfpc, &[1, 2, 1]) {
            assert!(matches!(m.chains, Some(ChainTable::Raw(_))), "len {n}");
            let mut w = Writer::new();
            m.write(&mut w).unwrap();
            assert_eq!(w.into_inner(), bytes[..n].to_vec());
        }
    }
    // A grid whose zone count is absurd is refused before allocating.
    let mut huge = bytes.clone();
    huge[4..12].copy_from_slice(&[0xFF; 8]);
    assert!(Map::read(&mut Reader::new(&huge), wfpc, &[1, 2, 1]).is_err());
}

fn chunk_payloads(level: &Level) -> Vec<(Tag, Vec<u8>)> {
    level
        .chunks
        .iter()
        .map(|c| (c.tag, c.data.encode().unwrap()))
        .collect()
}

#[test]
fn generated_levels_round_trip_byte_for_byte() {
    let demo = generate::generate(&LevelSpec::demo()).unwrap();
    for level in [&demo, crate::full_size()] {
        let bytes = level.to_bytes().unwrap();
        let (back, warnings) = Level::read(&bytes).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(back.to_bytes().unwrap(), bytes);
        assert_eq!(&back, level);
    }
}

#[test]
fn editing_one_tile_rotation_changes_only_those_four_bytes() {
    let level = generate::generate(&LevelSpec::demo()).unwrap();
    let before = level.to_bytes().unwrap();
    let mut edited = level.clone();
    edited.map_mut().unwrap().tiles[3].rot = 2048 + 1;
    let after = edited.to_bytes().unwrap();
    assert_eq!(before.len(), after.len());
    let diff: Vec<usize> = (0..before.len())
        .filter(|&i| before[i] != after[i])
        .collect();
    // MAP payload offset: 4 (file header) + every earlier chunk (8 + payload) + 8.
    let mut at = 4;
    for c in &level.chunks {
        if c.tag == Tag::MAP {
            break;
        }
        at += 8 + c.data.encode().unwrap().len();
    }
    let rot_at = at + 8 + 12 + 3 * 24 + 12; // header, 3 tiles, pos of tile 3
    assert!(!diff.is_empty());
    assert!(
        diff.iter().all(|&i| (rot_at..rot_at + 4).contains(&i)),
        "{diff:?}"
    );
    let (back, _) = Level::read(&after).unwrap();
    assert_eq!(back.map().unwrap().tiles[3].rot, 2049);
    // Every other chunk is unchanged.
    let (a, b) = (chunk_payloads(&level), chunk_payloads(&back));
    for (x, y) in a.iter().zip(&b) {
        if x.0 != Tag::MAP {
            assert_eq!(x, y);
        }
    }
}

#[test]
fn editing_a_vertex_rebuilds_only_that_model() {
    let level = generate::generate(&LevelSpec::demo()).unwrap();
    let mut edited = level.clone();
    let trak = edited.trak_mut().unwrap();
    trak.models[5].vertices[0].pos[1] += 0.5;
    let bytes = edited.to_bytes().unwrap();
    let (back, _) = Level::read(&bytes).unwrap();
    let (t0, t1) = (level.trak().unwrap(), back.trak().unwrap());
    for (i, (a, b)) in t0.models.iter().zip(&t1.models).enumerate() {
        if i == 5 {
            assert_eq!(b.vertices[0].pos[1], a.vertices[0].pos[1] + 0.5);
            assert_eq!(a.faces, b.faces);
            assert_eq!(&a.vertices[1..], &b.vertices[1..]);
        } else {
            assert_eq!(a, b);
        }
    }
    assert_eq!(level.map(), back.map());
    assert_eq!(level.stpc(), back.stpc());
}

#[test]
fn adding_a_vertex_and_syncing_the_header_keeps_the_level_readable() {
    // A typed edit that changes a count: the header is synced, the MAP colour block of the
    // tile grows, and the whole level still parses.
    let mut level = generate::generate(&LevelSpec::demo()).unwrap();
    let map = level.map().unwrap().clone();
    let tile = map.tiles.iter().position(|t| t.model == 4).unwrap();
    let trak = level.trak_mut().unwrap();
    let m: &mut Model = &mut trak.models[4];
    let v = m.vertices[0];
    m.vertices.push(v);
    m.sync_header(1.0 / 128.0);
    assert_eq!(m.header.vertex_count as usize, m.vertices.len());
    let map = level.map_mut().unwrap();
    for l in &mut map.colours[tile].layers {
        l.push(0x0080_8080);
    }
    let bytes = level.to_bytes().unwrap();
    let (back, _) = Level::read(&bytes).unwrap();
    assert_eq!(
        back.trak().unwrap().models[4].vertices.len(),
        v_len(&level, 4)
    );
    assert_eq!(back.trak(), level.trak());
    assert_eq!(back.map(), level.map());
    if let Some(ChunkData::Map(m)) = back.chunk(Tag::MAP).map(|c| &c.data) {
        assert_eq!(m.colours[tile].layers[0].len(), v_len(&level, 4));
    } else {
        panic!("no MAP");
    }
    let _ = model::FACE_BATCH;
}

fn v_len(level: &Level, m: usize) -> usize {
    level.trak().unwrap().models[m].vertices.len()
}

/// Overwrite a 4-byte word every `stride` bytes with each of a few hostile values and read the
/// payload again: an error, or a value that writes back exactly the bytes it consumed; `check`
/// runs on whatever parsed.
#[test]
fn corrupted_geometry_payloads_read_or_fail_cleanly() {
    use levelgeom_wad::check::{check_parts, Parts};
    let level = generate::generate(&LevelSpec::demo()).unwrap();
    let wfpc = level.wfpc();
    let trak = level.trak().unwrap();
    let counts = trak.vertex_counts();
    let mut parsed = 0;
    for tag in [Tag::TRAK, Tag::STPC, Tag::MAP] {
        let payload = level.chunk(tag).unwrap().data.encode().unwrap();
        let stride = (payload.len() / 150).max(7) | 1;
        for at in (0..payload.len().saturating_sub(4)).step_by(stride) {
            for v in [0xFFFF_FFFFu32, 0x8000_0000, 0x0001_0001, 0] {
                let mut p = payload.clone();
                p[at..at + 4].copy_from_slice(&v.to_le_bytes());
                let mut r = Reader::new(&p);
                let mut w = Writer::new();
                let mut written = false;
                let ok = match tag {
                    // A damaged face index is refused by the writer (then there is nothing to
                    // compare); no panic either way.
                    Tag::TRAK => Trak::read(&mut r).map(|t| {
                        written = t.write(&mut w).is_ok();
                        check_parts(&Parts {
                            trak: Some(&t),
                            ..Parts::default()
                        });
                    }),
                    Tag::STPC => Stpc::read(&mut r, wfpc).map(|s| {
                        written = s.write(&mut w).is_ok();
                    }),
                    _ => Map::read(&mut r, wfpc, &counts).map(|m| {
                        written = m.write(&mut w).is_ok();
                        check_parts(&Parts {
                            wfpc: Some(wfpc),
                            trak: Some(trak),
                            map: Some(&m),
                            ..Parts::default()
                        });
                    }),
                };
                if ok.is_ok() && written {
                    parsed += 1;
                    assert_eq!(w.as_slice(), &p[..r.pos()], "{tag} word {at} = {v:#x}");
                }
            }
        }
    }
    assert!(parsed > 100, "{parsed}");
}

#[test]
fn plane_and_box_helpers_follow_the_seed() {
    // (v1 − v0) × (v2 − v0) for a floor triangle wound towards −z points up.
    let (n, d) = model::face_plane([0.0, 2.0, 0.0], [1.0, 2.0, 0.0], [0.0, 2.0, -1.0]).unwrap();
    assert_eq!((n, d), ([0.0, 1.0, 0.0], 2.0));
    assert!(model::face_plane([0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]).is_none());
    // Corner order (−x−y+z)(+x−y+z)(−x+y+z)(+x+y+z)(−x−y−z)(+x−y−z)(−x+y−z)(+x+y−z).
    let c = model::box_corners([-1.0, -2.0, -3.0], [1.0, 2.0, 3.0]);
    assert_eq!(c[0], [-1.0, -2.0, 3.0]);
    assert_eq!(c[1], [1.0, -2.0, 3.0]);
    assert_eq!(c[2], [-1.0, 2.0, 3.0]);
    assert_eq!(c[4], [-1.0, -2.0, -3.0]);
    assert_eq!(c[7], [1.0, 2.0, -3.0]);
    // sync_header: counts, box grown by the margin, centre in the middle.
    let mut m = Model {
        vertices: vec![
            model::Vertex {
                pos: [0.0, 0.0, 0.0],
                normal: [0.0, 1.0, 0.0],
            },
            model::Vertex {
                pos: [1.0, 0.5, -1.0],
                normal: [0.0, 1.0, 0.0],
            },
        ],
        ..Model::default()
    };
    m.sync_header(0.25);
    assert_eq!(m.header.vertex_count, 2);
    assert_eq!(m.header.centre, [0.5, 0.25, -0.5]);
    assert_eq!(m.header.corners[0], [-0.25, -0.25, 0.25]);
    assert_eq!(m.header.corners[7], [1.25, 0.75, -1.25]);
}

/// The typed models of the independently written `indep.wad` hold the values its script put
/// there (copied from `indep.expect.json`, computed by tools/fixtures/make_indep_wad.py).
#[test]
fn independent_file_typed_values() {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/independent/indep.wad"
    );
    let bytes = std::fs::read(p).unwrap();
    let (level, warnings) = Level::read(&bytes).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(level.wfpc(), 0x0011_0010);

    // STPC: a rigid and a skinned model, one animation, 36 bytes of script area.
    let stpc = level.stpc().unwrap();
    assert_eq!(stpc.models.len(), 2);
    let (rigid, skinned) = (&stpc.models[0], &stpc.models[1]);
    assert_eq!((rigid.vertices.len(), rigid.faces.len()), (4, 2));
    let x = rigid.header.stpc.unwrap();
    assert_eq!((x.rigid_vertex_count, x.bone_count), (4, 0));
    assert_eq!(
        rigid.faces.iter().map(|f| f.flags).collect::<Vec<_>>(),
        [2056, 2072]
    );
    assert_eq!((skinned.vertices.len(), skinned.faces.len()), (6, 3));
    let x = skinned.header.stpc.unwrap();
    assert_eq!((x.rigid_vertex_count, x.bone_count), (0, 2));
    assert_eq!(skinned.bone_vertex_counts, [4, 2]);
    assert_eq!(skinned.header.unknown_7e, 11);
    assert_eq!(
        skinned.faces.iter().map(|f| f.flags).collect::<Vec<_>>(),
        [8, 0, 1024]
    );
    assert_eq!(stpc.animation_count, 1);
    let a = &stpc.animations[0];
    assert_eq!(
        (
            a.header.a_count(),
            a.header.frame_count(),
            a.header.delta_count(),
            a.header.bone_count()
        ),
        (1, 2, 3, 2)
    );
    assert!(a.header.has_frame_table());
    assert_eq!(a.frames.len(), 2);
    // frame 0: 3 × 8 delta bytes; frame 1: 3 × 2 + 2 (odd count); 2 matrices each
    assert_eq!(a.frames[0].deltas.len(), 24);
    assert_eq!(a.frames[1].deltas.len(), 8);
    assert!(a.frames.iter().all(|f| f.matrices.len() == 2));
    // record size 356 = 32 + 4 + 16 + 8 + 8 + (24 + 128) + (8 + 128)
    let mut w = Writer::new();
    a.write(&mut w);
    assert_eq!(w.len(), 356);
    assert!(stpc.tail.is_none());
    assert_eq!(stpc.rest.len(), 36);

    // MAP: the swap record, zones, objects and the fixed tail.
    let m = level.map().unwrap();
    assert_eq!((m.grid_w, m.grid_h, m.tiles.len()), (8, 8, 5));
    let swaps = m.swaps.as_ref().unwrap();
    assert_eq!(swaps.len(), 1);
    assert_eq!(swaps[0].pos, [3, 2048, 2]);
    assert_eq!((swaps[0].model_a, swaps[0].model_b), (1, 3));
    assert_eq!((m.zones[0].mask, m.zones[0].height), (0xFFFF_FFFF, 0));
    assert_eq!((m.zones[1].mask, m.zones[1].height), (3, -11264));
    assert_eq!(m.max_objects, 16);
    assert_eq!(m.objects.len(), 2);
    // object 1 ends "…ffffffff 00000000 0200 0000": flags 2 (don't spawn), extra 0
    assert_eq!((m.objects[1].flags, m.objects[1].extra), (2, 0));
    assert_eq!(m.objects[0].fields[4], 0x8000);
    assert_eq!(m.view_distance, Some(200));
    assert_eq!(m.final_u16, 1);
    assert!(m.chains.is_none());
    // colour layers per tile (tile 3: the marker 2 sits on entry 1, the max rule of docs/formats/argonaut-wad.md §12.1;
    // its swap block for model 3 inherits 2 layers)
    let layers: Vec<(usize, Option<usize>)> = m
        .colours
        .iter()
        .map(|c| (c.layers.len(), c.swap_layers.as_ref().map(|l| l.len())))
        .collect();
    assert_eq!(
        layers,
        [(1, None), (1, None), (1, None), (2, Some(2)), (1, None)]
    );
    let rgba = |b: [u32; 4]| b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24);
    assert_eq!(
        m.colours[0].layers[0][..2],
        [rgba([32, 128, 64, 1]), rgba([80, 147, 71, 0])]
    );
    assert_eq!(
        m.colours[3].layers[0][..2],
        [rgba([83, 101, 175, 0]), rgba([131, 120, 182, 2])]
    );
    assert_eq!(
        m.tiles.iter().map(|t| t.rot).collect::<Vec<_>>(),
        [0, 1024, 2048, 3072, 0]
    );
    let cells: Vec<Option<usize>> = m.tiles.iter().map(|t| m.cell_of(t.pos)).collect();
    assert_eq!(cells, [Some(0), Some(1), Some(10), Some(19), Some(36)]);
    assert_eq!(m.transforms[0].pos, [2048, 0, 2048]);

    // The small chunks.
    let sprt = level.sprt().unwrap();
    assert_eq!(
        (sprt.material_base, sprt.table.as_deref()),
        (7, Some(&[0u32, 4][..]))
    );
    let lnfo = level.chunks.iter().find_map(|c| match &c.data {
        ChunkData::Lnfo(l) => Some(l.values),
        _ => None,
    });
    assert_eq!(lnfo, Some([3, 7]));
    let lights = &level.lght().unwrap().lights;
    assert_eq!(lights.len(), 2);
    assert_eq!((lights[0].kind, lights[0].rgb), (1, [255, 240, 200]));
    assert_eq!(
        lights[1].body,
        levelgeom_wad::lght::LightBody::Five {
            values: [1.5, 2.0, -3.5, 4.0, 8.0],
            extra: 1
        }
    );
    let trak = level.trak().unwrap();
    assert_eq!(trak.vertex_counts(), [4, 4, 8, 5]);
    assert_eq!(trak.models[0].collision[0].material, model::MATERIAL_WATER);
}
