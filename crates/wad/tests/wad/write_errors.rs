//! Edited levels whose values do not fit the format: the writer refuses them and names the
//! field instead of truncating with a cast.

use levelgeom_binary::WriteErrorKind;
use levelgeom_wad::generate::{self, LevelSpec};
use levelgeom_wad::level::{Chunk, ChunkData};
use levelgeom_wad::model::Vertex;
use levelgeom_wad::tags::Tag;
use levelgeom_wad::trak::Trak;

#[test]
fn a_model_with_more_than_65535_vertices_names_the_vertex_count() {
    let mut level = generate::generate(&LevelSpec::demo()).unwrap();
    let m = &mut level.trak_mut().unwrap().models[3];
    m.vertices.resize(70_000, Vertex::default());
    m.sync_header(0.0); // saturates the u16 count; the writer still refuses
    let e = level.to_bytes().unwrap_err();
    assert_eq!(e.field, "TRAK/models[3]/vertex count");
    assert_eq!(
        e.kind,
        WriteErrorKind::DoesNotFit {
            value: "70000".into(),
            field_type: "u16"
        }
    );
    assert_eq!(
        e.to_string(),
        "cannot write TRAK/models[3]/vertex count: value 70000 does not fit in its u16 field"
    );
}

#[test]
fn a_face_index_past_the_vertices_names_the_face() {
    // what an importer asks of new geometry before writing it
    let mut level = generate::generate(&LevelSpec::demo()).unwrap();
    let nv = level.trak().unwrap().models[2].vertices.len();
    level.trak_mut().unwrap().models[2].faces[17].indices[1] = nv as u16;
    let e = level.trak().unwrap().models[2]
        .check_writable()
        .unwrap_err()
        .within("TRAK/models[2]");
    assert_eq!(e.field, "TRAK/models[2]/faces[17]/v1");
    assert_eq!(
        e.kind,
        WriteErrorKind::IndexOutOfRange {
            index: nv as u64,
            len: nv as u64
        }
    );
    // a file that holds such a face still writes back as it was read (check reports it)
    let bytes = level.to_bytes().unwrap();
    let (again, _) = levelgeom_wad::Level::read(&bytes).unwrap();
    assert_eq!(again.to_bytes().unwrap(), bytes);
    assert!(levelgeom_wad::check::check(&again)
        .iter()
        .any(|p| p.path.starts_with("TRAK/models[2]/faces[17]")));
}

#[test]
fn too_many_faces_and_chain_points_are_refused() {
    let mut level = generate::generate(&LevelSpec::demo()).unwrap();
    let m = &mut level.trak_mut().unwrap().models[1];
    let f = m.faces[0];
    m.faces.resize(65_536, f);
    assert_eq!(
        level.to_bytes().unwrap_err().field,
        "TRAK/models[1]/face count"
    );
    let mut level = generate::generate(&LevelSpec::demo()).unwrap();
    let map = level.map_mut().unwrap();
    if let Some(levelgeom_wad::map::ChainTable::Parsed(arrays)) = &mut map.chains {
        let p = arrays[0][0].points[0];
        arrays[0][0].points.resize(70_000, p);
    }
    assert_eq!(
        level.to_bytes().unwrap_err().field,
        "MAP/chains/arrays[0]/polygons[0]/point count"
    );
}

#[test]
fn new_chunks_have_no_offset_and_read_chunks_have_theirs() {
    let c = Chunk::new(Tag::TRAK, ChunkData::Trak(Trak::default())).unwrap();
    assert_eq!((c.offset, c.declared_size, c.original_len), (None, 4, 4));
    let bytes = generate::demo_level().unwrap();
    let (level, _) = levelgeom_wad::Level::read(&bytes).unwrap();
    let (raw, _) = levelgeom_wad::RawWad::parse(&bytes).unwrap();
    let offsets: Vec<Option<usize>> = level.chunks.iter().map(|c| c.offset).collect();
    let walked: Vec<Option<usize>> = raw.chunks.iter().map(|c| Some(c.offset)).collect();
    assert_eq!(offsets, walked);
    // an unchanged level writes back, and equality ignores where chunks were read from
    assert_eq!(level.to_bytes().unwrap(), bytes);
    assert_eq!(level, generate::generate(&LevelSpec::demo()).unwrap());
}
