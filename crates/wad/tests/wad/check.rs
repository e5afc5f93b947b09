//! `check`: generated levels pass; each deliberately broken variant reports exactly the
//! violation for what was broken.

// Tests unwrap on purpose: a panic is a test failure with its location.

use levelgeom_binary::Problem;
use levelgeom_wad::check::{self, Parts};
use levelgeom_wad::generate::{self, LevelSpec};
use levelgeom_wad::level::Level;
use levelgeom_wad::model::{Model, ModelHeader, Vertex};
use levelgeom_wad::tags::Tag;
use levelgeom_wad::trak::Trak;

fn demo() -> Level {
    generate::generate(&LevelSpec::demo()).unwrap()
}

/// The violations of the demo level after `f` broke it.
fn broken(f: impl FnOnce(&mut Level)) -> Vec<String> {
    let mut level = demo();
    f(&mut level);
    check::check(&level).iter().map(|v| v.to_string()).collect()
}

fn trak(level: &mut Level) -> &mut Trak {
    level.trak_mut().unwrap()
}

#[test]
fn generated_levels_pass() {
    let v = check::check(&demo());
    assert!(v.is_empty(), "{:?}", &v[..v.len().min(5)]);
    let v = check::check(crate::full_size());
    assert!(v.is_empty(), "{:?}", &v[..v.len().min(5)]);
}

#[test]
fn problem_display() {
    let v = Problem::new(
        "TRAK/models[3]/faces[17]",
        "texture index 40 is not below the 31 texture entries",
    );
    assert_eq!(
        v.to_string(),
        "TRAK/models[3]/faces[17]: texture index 40 is not below the 31 texture entries"
    );
}

#[test]
fn texture_index_past_the_entries() {
    // The demo has 4 pages × 16 entries + 4 flat colours + 95 font glyphs = 163 texture
    // entries.
    let v = broken(|l| trak(l).models[3].faces[17].texture = 200);
    assert_eq!(
        v,
        ["TRAK/models[3]/faces[17]: texture index 200 is not below the 163 texture entries"]
    );
}

#[test]
fn vertex_index_past_the_vertices() {
    // Island tile 1 (model 3) has a rock: 5×5 terrain vertices + 5 top + 16 side = 46.
    let v = broken(|l| trak(l).models[3].faces[5].indices[1] = 200);
    assert_eq!(
        v,
        ["TRAK/models[3]/faces[5]: vertex index 200 is not below the 46 vertices"]
    );
}

#[test]
fn batch_flags() {
    let v = broken(|l| trak(l).models[3].faces[0].flags &= !0x8);
    assert_eq!(
        v,
        ["TRAK/models[3]/faces[0]: the first face of a model must start a batch (flag 0x8)"]
    );
    // Face 32 is the first rock-top face (after 2·4² terrain faces): a page change.
    let v = broken(|l| trak(l).models[3].faces[32].flags &= !0x8);
    assert_eq!(
        v,
        ["TRAK/models[3]/faces[32]: the texture page or blend mode changes here without the batch flag 0x8"]
    );
    // The bridge (model 1) has 288 faces of one texture: flags at 0 and 256.
    let v = broken(|l| trak(l).models[1].faces[256].flags &= !0x8);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].starts_with(
            "TRAK/models[1]/faces[256]: 256 faces since the last batch flag 0x8 (face 0)"
        ),
        "{v:?}"
    );
}

#[test]
fn face_plane_must_match_vertices() {
    let v = broken(|l| trak(l).models[2].faces[2].d += 0.01);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].starts_with("TRAK/models[2]/faces[2]: stored plane"),
        "{v:?}"
    );
    // Within the tolerance nothing is reported.
    assert!(broken(|l| trak(l).models[2].faces[2].d += 0.0005).is_empty());
}

#[test]
fn degenerate_face() {
    let v = broken(|l| {
        let f = &mut trak(l).models[2].faces[0];
        f.indices[2] = f.indices[1];
    });
    assert_eq!(
        v,
        ["TRAK/models[2]/faces[0]: degenerate triangle: its plane is undefined"]
    );
}

#[test]
fn vertices_outside_the_box() {
    // Model 0 (the water plane) has no faces, so moving a vertex breaks only the box.
    let v = broken(|l| trak(l).models[0].vertices[0].pos[1] += 1.0);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].starts_with(
            "TRAK/models[0]/vertices[0]: vertex (-0.5, -1.75, 0.5) lies outside the bounding box"
        ),
        "{v:?}"
    );
    let v = broken(|l| trak(l).models[0].header.centre[0] += 0.25);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].starts_with("TRAK/models[0]: bounding-box centre"),
        "{v:?}"
    );
}

#[test]
fn header_counts() {
    // Island tile 0 (model 2) has a rock: 32 terrain + 4 top + 8 side faces = 44.
    let v = broken(|l| trak(l).models[2].header.face_count += 1);
    assert_eq!(
        v,
        ["TRAK/models[2]: header face count 45 differs from the 44 faces"]
    );
    let v = broken(|l| trak(l).models[0].header.collision_counts = [0, 0, 2]);
    assert_eq!(
        v,
        ["TRAK/models[0]: header collision counts [0, 0, 2] sum to 2, but there are 1 collision polygons"]
    );
    let v = broken(|l| {
        let m = &mut l.stpc_mut().unwrap().models[1];
        m.bone_vertex_counts[0] += 1;
    });
    assert_eq!(
        v,
        ["STPC/models[1]: per-bone vertex counts sum to 17, not the 16 vertices"]
    );
}

#[test]
fn vertex_limit() {
    let mut m = Model {
        header: ModelHeader::default(),
        vertices: vec![Vertex::default(); 8001],
        ..Model::default()
    };
    m.sync_header(0.0);
    let t = Trak { models: vec![m] };
    let v = check::check_parts(&Parts {
        trak: Some(&t),
        ..Parts::default()
    });
    assert_eq!(
        v.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
        ["TRAK/models[0]: 8001 vertices exceed the engine's limit of 8000"]
    );
}

#[test]
fn collision_planes() {
    // |d| ≤ 8 · 32 · |n_q|: with n_q = (0, 127, 0) the limit is 32512.
    assert!(broken(|l| trak(l).models[0].collision[0].planes[0].d = 32512).is_empty());
    let v = broken(|l| trak(l).models[0].collision[0].planes[0].d = 32767);
    assert_eq!(
        v,
        ["TRAK/models[0]/collision[0]: plane 0 lies 8.06 units from the tile origin; collision must stay within ±8"]
    );
    // A smaller normal shrinks the limit: (0, 64, 0) → 16384.
    let v = broken(|l| {
        let p = &mut trak(l).models[0].collision[0].planes[0];
        p.normal = [0, 64, 0];
        p.d = 16400;
    });
    assert_eq!(v.len(), 1, "{v:?}");
    let v = broken(|l| trak(l).models[0].collision[0].planes[0].normal = [0, 0, 0]);
    assert_eq!(
        v,
        ["TRAK/models[0]/collision[0]: surface plane 0 has a zero normal"]
    );
    // Terrain collision polygons are triangles: their fifth plane must stay zero.
    let v = broken(|l| trak(l).models[2].collision[0].planes[4].d = 5);
    assert_eq!(
        v,
        ["TRAK/models[2]/collision[0]: plane 4 of a triangle (type bit 0 clear) must be zero"]
    );
}

#[test]
fn map_a_and_b_must_agree() {
    let v = broken(|l| l.map_mut().unwrap().transforms[2].pos[2] += 100);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].starts_with("MAP/transforms[2]: B position"), "{v:?}");
    // One fixed-point step of rounding is tolerated.
    assert!(broken(|l| l.map_mut().unwrap().transforms[2].pos[0] += 1).is_empty());
    let v = broken(|l| l.map_mut().unwrap().transforms[2].rot[1] += 1024);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].starts_with("MAP/transforms[2]: B rotation"), "{v:?}");
    let v = broken(|l| l.map_mut().unwrap().tiles[2].model = 3);
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(
        v[0],
        "MAP/tiles[2]: model 3 differs from the model-index entry 4"
    );
}

#[test]
fn tiles_inside_the_grid() {
    let v = broken(|l| {
        let m = l.map_mut().unwrap();
        let last = m.tiles.len() - 1;
        m.tiles[last].pos[0] = 16.5;
        m.transforms[last].pos[0] = 16 * 4096 + 2048;
    });
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].ends_with("lies outside the 16×16 grid"), "{v:?}");
    assert!(v[0].starts_with("MAP/tiles[89]: position (16.5, "), "{v:?}");
}

#[test]
fn model_index_past_the_trak_models() {
    // The demo has 2 fixed models + 30 terrain models.
    let v = broken(|l| {
        let m = l.map_mut().unwrap();
        m.tiles[40].model = 9999;
        m.model_indices[40] = 9999;
    });
    assert_eq!(
        v,
        ["MAP/tiles[40]: model index 9999 is not below the 32 TRAK models"]
    );
}

#[test]
fn colour_blocks_sized_by_the_models() {
    // Tile 0 draws model 2 (46 vertices) with one colour set.
    let v = broken(|l| {
        l.map_mut().unwrap().colours[0].layers[0].pop();
    });
    assert_eq!(
        v,
        ["MAP/colours[0]: colour layer 0 has 45 entries, but the model has 46 vertices"]
    );
    let v = broken(|l| {
        let c = &mut l.map_mut().unwrap().colours[0];
        let extra = c.layers[0].clone();
        c.layers.push(extra);
    });
    assert_eq!(
        v,
        ["MAP/colours[0]: 2 colour layers, but byte 3 of the first layer makes the loader read 1"]
    );
}

#[test]
fn tile_swaps() {
    let v = broken(|l| l.map_mut().unwrap().swaps = Some(Vec::new()));
    assert_eq!(
        v,
        [
            "MAP/colours[8]: an extra (swap) colour block is present, but the tile has no swap record",
            "MAP/swaps: 0 swap records, but 1 tiles have the anim flag",
        ]
    );
    let v = broken(|l| l.map_mut().unwrap().swaps.as_mut().unwrap()[0].model_a = 0);
    assert_eq!(
        v,
        ["MAP/swaps[0]: model A 0 is not the model 10 of its tile 8"]
    );
    let v = broken(|l| l.map_mut().unwrap().swaps.as_mut().unwrap()[0].model_b = 500);
    assert_eq!(
        v,
        ["MAP/swaps[0]: model B 500 is not below the 32 TRAK models"]
    );
}

#[test]
fn optional_parts_follow_wfpc() {
    let v = broken(|l| {
        for c in &mut l.chunks {
            if let levelgeom_wad::level::ChunkData::Wfpc(w) = &mut c.data {
                w.flags &= !0x10;
            }
        }
    });
    assert_eq!(v, ["MAP/view_distance: present but WFPC lacks 0x10"]);
    let v = broken(|l| l.map_mut().unwrap().chains = None);
    assert_eq!(
        v,
        ["MAP/chains: WFPC has 0x200000 but the chain table is missing"]
    );
    let v = broken(|l| l.map_mut().unwrap().zone_grid[0] = 40);
    assert_eq!(v, ["MAP/zone_grid[0]: zone 40 is not below 32"]);
}

#[test]
fn chunk_order() {
    let v = broken(|l| {
        let text = l.chunks.iter().position(|c| c.tag == Tag::TEXT).unwrap();
        let trak = l.chunks.iter().position(|c| c.tag == Tag::TRAK).unwrap();
        let t = l.chunks.remove(trak);
        l.chunks.insert(text, t);
    });
    assert_eq!(v, ["TRAK: TEXT must come before TRAK"]);
    let v = broken(|l| {
        l.chunks.pop();
    });
    assert_eq!(
        v,
        ["END: the level has no END chunk (the game fails to load it)"]
    );
}

#[test]
fn file_header_must_be_the_length_minus_4() {
    // A bias of 0x800 (the PSX convention) on the demo's bytes.
    let bytes = generate::demo_level().unwrap();
    let len = bytes.len();
    let mut b = bytes.clone();
    let h = (len as u32 - 4) + 0x800;
    b[..4].copy_from_slice(&h.to_le_bytes());
    let (level, _) = Level::read(&b).unwrap();
    let v: Vec<String> = check::check(&level).iter().map(|v| v.to_string()).collect();
    assert_eq!(
        v,
        [format!(
            "at 0x00000000 in header: the file header is {h} (0x{h:08X}), but the file length − 4 is {} (bias +2048)",
            len - 4
        )]
    );
}

#[test]
fn removing_a_chunk_keeps_the_header_right() {
    // Removing LNFO (8 + 8 bytes) must give a header of new length − 4, and check stays clean.
    let mut level = demo();
    let at = level
        .chunks
        .iter()
        .position(|c| c.tag == Tag::LNFO)
        .unwrap();
    level.chunks.remove(at);
    let out = level.to_bytes().unwrap();
    assert_eq!(out.len(), generate::demo_level().unwrap().len() - 16);
    assert_eq!(
        u32::from_le_bytes([out[0], out[1], out[2], out[3]]) as usize,
        out.len() - 4
    );
    let (back, _) = Level::read(&out).unwrap();
    assert!(check::check(&back).is_empty());
}

#[test]
fn model_pointer_fields_must_be_zero() {
    let v = broken(|l| {
        let h = &mut trak(l).models[2].header;
        h.vertex_ptr = 0x1234;
        h.collision_ptr = 0xDEAD_BEEF;
    });
    assert_eq!(
        v,
        ["TRAK/models[2]: pointer fields must be 0 in files (the loader sets them), but +0x70 = 0x00001234, +0x80 = 0xDEADBEEF"]
    );
    let v = broken(|l| {
        let h = &mut l.stpc_mut().unwrap().models[1].header;
        if let Some(x) = &mut h.stpc {
            x.bone_ptr = 7;
        }
    });
    assert_eq!(
        v,
        ["STPC/models[1]: pointer fields must be 0 in files (the loader sets them), but +0x88 = 0x00000007"]
    );
}

#[test]
fn texture_entries_name_existing_pages() {
    // The demo has 5 pages (the 4 of its tiles and the font's); entry 5 is a page entry
    // (page 0), entries 64..68 are flat colours whose page byte means nothing.
    // (faces using the entry now change render state, so batch-flag lines come too)
    let v = broken(|l| l.text_mut().unwrap().entries[5].page = 5);
    let text: Vec<&String> = v.iter().filter(|s| s.starts_with("TEXT/")).collect();
    assert_eq!(
        text,
        ["TEXT/entries[5]: page 5 is not below the 5 texture pages"]
    );
    assert!(broken(|l| {
        let e = &mut l.text_mut().unwrap().entries[67];
        assert!(e.is_flat_colour());
        e.page = 200;
    })
    .is_empty());
}

#[test]
fn rle_pages_must_decode_within_the_page() {
    use levelgeom_wad::text::{PageData, TexturePage};
    let words = |w: &[u16]| -> Vec<u8> { w.iter().flat_map(|v| v.to_le_bytes()).collect() };
    // 2×2 page: the game decodes N − 1 = 3 pixels; a literal of 1 leaves it short at byte 4.
    let short = TexturePage {
        flags: 0x81,
        width: 2,
        height: 2,
        data: PageData::Rle(words(&[0x0001, 0x0042])),
    };
    let v = broken(|l| l.text_mut().unwrap().pages[2] = short);
    assert_eq!(
        v,
        ["TEXT/pages[2]: RLE stream ends at byte 4 after 1 of the 3 pixels the game decodes"]
    );
    // a run of 5 (control −5 = 0xFFFB) into 4 pixels
    let over = TexturePage {
        flags: 0x81,
        width: 2,
        height: 2,
        data: PageData::Rle(words(&[0xFFFB, 0x1234])),
    };
    let v = broken(|l| l.text_mut().unwrap().pages[3] = over);
    assert_eq!(
        v,
        ["TEXT/pages[3]: RLE packets run past the 2×2 page (the game would write past its buffer)"]
    );
    // exactly 3 pixels (a run of 3) is what the game reads: fine
    let ok = TexturePage {
        flags: 0x81,
        width: 2,
        height: 2,
        data: PageData::Rle(words(&[0xFFFD, 0x1234])),
    };
    assert!(broken(|l| l.text_mut().unwrap().pages[3] = ok).is_empty());
}

#[test]
fn layouts_an_edit_can_break() {
    use levelgeom_wad::level::ChunkData;
    use levelgeom_wad::text::{PageData, Palette};
    let v = broken(|l| l.sprt_mut().unwrap().table = None);
    assert_eq!(v, ["SPRT: WFPC has 0x100000 but the table is missing"]);
    let v = broken(|l| {
        for c in &mut l.chunks {
            if let ChunkData::Wfpc(w) = &mut c.data {
                w.flags &= !0x100;
            }
        }
    });
    assert_eq!(
        v,
        ["STPC: the cutscene tail is present but WFPC lacks 0x100"]
    );
    let v = broken(|l| {
        let s = l.stpc_mut().unwrap();
        let a = s.animations[0].clone();
        s.animations.push(a);
    });
    assert_eq!(v, ["STPC: 2 animation records, but the stored count is 1"]);
    // page 0 is RLE; flags 0 would make the reader take it for 8-bit
    let v = broken(|l| l.text_mut().unwrap().pages[0].flags = 0);
    assert_eq!(
        v,
        ["TEXT/pages[0]: flags 0x0 do not select the rle storage the page holds"]
    );
    // page 1 is raw 16-bit, 256 × 256
    let v = broken(|l| {
        if let PageData::Raw16(p) = &mut l.text_mut().unwrap().pages[1].data {
            p.pop();
        }
    });
    assert_eq!(
        v,
        ["TEXT/pages[1]: 65535 pixels stored, but 256×256 = 65536"]
    );
    let v = broken(|l| {
        l.text_mut().unwrap().palettes.push(Palette {
            unknown: 0,
            colours: vec![1, 2],
            extra: vec![0],
        })
    });
    assert_eq!(
        v,
        ["TEXT/palettes[0]: 2 colours but 1 extra bytes (the file stores one per colour)"]
    );
    // the demo's LGPC holds 3 strings of 2 rows (rows − 1 = 1, cols = 3): 6 lengths
    let v = broken(|l| l.lgpc_mut().unwrap().cols = 4);
    assert_eq!(v, ["LGPC: 6 lengths, but rows × cols = 2 × 4 = 8"]);
}

#[test]
fn vertex_normals_of_used_vertices_are_unit_length() {
    // model 2 is a terrain tile: every vertex belongs to a face
    let v = broken(|l| trak(l).models[2].vertices[3].normal = [0.0, 2.0, 0.0]);
    assert_eq!(
        v,
        ["TRAK/models[2]/vertices[3]: vertex normal (0, 2, 0) has length 2.0000, not 1"]
    );
    // the water plane (model 0) has no faces: its normals light nothing
    assert!(broken(|l| trak(l).models[0].vertices[0].normal = [0.0; 3]).is_empty());
}

#[test]
fn duplicated_and_misplaced_chunks() {
    // A second TRAK (a copy of the first) after STPC; read back from bytes, so the problem
    // names the offset of the second one.
    let mut level = demo();
    let trak = level.chunk(Tag::TRAK).unwrap().clone();
    let stpc = level
        .chunks
        .iter()
        .position(|c| c.tag == Tag::STPC)
        .unwrap();
    level.chunks.insert(stpc + 1, trak);
    let bytes = level.to_bytes().unwrap();
    let (read, _) = Level::read(&bytes).unwrap();
    let second = read.chunks[stpc + 1].offset.unwrap();
    let v: Vec<String> = check::check(&read).iter().map(|p| p.to_string()).collect();
    assert_eq!(
        v,
        [format!(
            "at 0x{second:08X} in TRAK: 2 TRAK chunks, but a level has one (the typed accessors and the export use only the first)"
        )]
    );
    for tag in [Tag::WFPC, Tag::TEXT, Tag::MAP, Tag::STPC] {
        let v = broken(|l| {
            let c = l.chunk(tag).unwrap().clone();
            let end = l.chunks.len() - 1;
            l.chunks.insert(end, c);
        });
        assert!(
            v.iter().any(|p| p.starts_with(&format!(
                "{}: 2 {} chunks",
                tag.path_name(),
                tag.name().trim_end()
            ))),
            "{tag}: {v:?}"
        );
    }
    // END not the last chunk
    let v = broken(|l| {
        let end = l.chunks.pop().unwrap();
        l.chunks.insert(3, end);
    });
    assert_eq!(
        v,
        ["END: END must be the last chunk (the game stops reading there)"]
    );
}

#[test]
fn empty_texture_pages() {
    let v = broken(|l| {
        let p = &mut l.text_mut().unwrap().pages[1]; // the raw 16-bit page
        p.width = 0;
    });
    assert!(
        v.iter().any(|p| p
            == "TEXT/pages[1]: the page is 0×256: a texture page needs a width and a height above 0 (it cannot be exported)"),
        "{v:?}"
    );
}

/// The zoned level passes and rebuilds byte for byte; a tile cell moved into a zone no zone of
/// the grid sees is a warning (not when that zone's mask is 0: the game takes 0 as all zones,
/// so a player in it sees it); a zone number over 31 is an error.
#[test]
fn zones_no_zone_sees_are_warned_about() {
    let level = generate::zoned_level().unwrap();
    assert!(check::check(&level).is_empty());
    let bytes = level.to_bytes().unwrap();
    let (back, _) = Level::read(&bytes).unwrap();
    assert_eq!(back.to_bytes().unwrap(), bytes);

    let zone9 = |mask: u32, z: u32| {
        let mut l = level.clone();
        let m = l.map_mut().unwrap();
        m.zone_grid[6 + 16 * 9] = z; // cell (6, 9): an island tile, zone 1 in the drawing
        m.zones[9].mask = mask;
        check::check(&l)
    };
    // zone 9 with mask 0 is used by the grid and sees every zone, itself included
    assert!(zone9(0, 9).is_empty());
    let v = zone9(0b10, 9);
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].severity, levelgeom_binary::Severity::Warning);
    assert_eq!(v[0].path, "MAP/zone_grid[150]");
    // zone 3 is seen by zones 2 and 3 only, both in the grid: no warning
    assert!(zone9(0, 3).is_empty());
    // the empty corner (zone 7, no tiles) may be seen by nobody: cells without tiles are fine
    let mut l = level.clone();
    l.map_mut().unwrap().zones[7].mask = 0b1;
    assert!(check::check(&l).is_empty());
    let v: Vec<String> = zone9(0, 40).iter().map(ToString::to_string).collect();
    assert_eq!(v, ["MAP/zone_grid[150]: zone 40 is not below 32"]);
}
