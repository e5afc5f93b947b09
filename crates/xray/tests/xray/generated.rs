//! Generated levels cover what the real fixture lacks: progressive visuals (static and tree)
//! with SWI windows, compressed chunks, version-13 float UVs.

use levelgeom_scene::transform_point;
use levelgeom_xray::chunk::COMPRESSED;
use levelgeom_xray::generate::{self, Options, TREE_OFFSETS};
use levelgeom_xray::level::LevelChunk;
use levelgeom_xray::ogf::OgfChunk;
use levelgeom_xray::{check, to_scene, Geom, Level, SceneOptions};

fn all_options() -> Vec<Options> {
    let mut v = Vec::new();
    for version in [13, 14] {
        for compress in [false, true] {
            v.push(Options { version, compress });
        }
    }
    v
}

#[test]
fn generated_levels_parse_check_and_rebuild() {
    for o in all_options() {
        let (lb, gb) = generate::level_bytes(o);
        assert!(levelgeom_xray::sniff(&lb) && levelgeom_xray::sniff(&gb));
        let l = Level::read(&lb).unwrap().0;
        let g = Geom::read(&gb).unwrap().0;
        assert_eq!(l.to_bytes().unwrap(), lb, "{o:?}");
        assert_eq!(g.to_bytes().unwrap(), gb, "{o:?}");
        assert_eq!(check::level(&l, Some(&g), None), vec![], "{o:?}");
        assert_eq!(check::geom(&g), vec![]);
        assert_eq!(l.header().unwrap().version, o.version);
        // compression flags survive and the stored bytes are kept
        let shaders = l.chunks.iter().find(|c| c.id() == 2).unwrap();
        let swis = g.chunks.iter().find(|c| c.id() == 11).unwrap();
        assert_eq!(shaders.raw_id & COMPRESSED != 0, o.compress);
        assert_eq!(swis.stored.is_some(), o.compress);
        assert_eq!(g.swis()[0].windows.len(), 2);
        assert_eq!(
            l.visuals()[1].swidata().unwrap().reserved,
            [0xDEAD_BEEF, 0, 0, 7]
        );
        // the raw compressed bytes are really in the file: the id word has bit 31 set
        if o.compress {
            assert!(gb
                .windows(4)
                .any(|w| w == (11u32 | COMPRESSED).to_le_bytes()));
        }
    }
}

#[test]
fn progressive_visuals_export_their_full_detail_window() {
    for o in all_options() {
        let (l, g) = generate::level(o);
        let s = to_scene(&l, &g, &SceneOptions::default()).unwrap();
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        // quad (2) + progressive sw[0] (8 of the 10 stored) + one shared tree (sw[0]: 4 of 6)
        let tris: Vec<usize> = s
            .meshes
            .iter()
            .map(|m| m.primitives[0].triangle_count())
            .collect();
        assert_eq!(tris, vec![2, 8, 4]);
        // the progressive mesh uses sw[0].num_verts = 9 vertices, the tree 5
        assert_eq!(s.meshes[1].primitives[0].positions.len(), 9);
        assert_eq!(s.meshes[2].primitives[0].positions.len(), 5);
        // two tree nodes share the mesh; their apex (model (0,2,0)) lands at offset + (0,2,0)
        let w = s.world_matrices();
        for (k, off) in TREE_OFFSETS.iter().enumerate() {
            let n = 2 + k;
            assert_eq!(s.nodes[n].mesh, Some(2));
            let apex = transform_point(&w[n], s.meshes[2].primitives[0].positions[4]);
            assert_eq!(apex, [off[0], off[1] + 2.0, -off[2]]);
        }
        // hierarchy visual 4 is the only visual under the root `level`
        assert_eq!(s.nodes[s.roots[0]].name, "level");
        assert_eq!(s.nodes[s.roots[0]].children, vec![4]);
        assert_eq!(s.nodes[4].children, vec![0, 1, 2, 3]);
    }
}

#[test]
fn version_13_keeps_float_uvs_exactly_and_14_quantises() {
    let (_, g13) = generate::level(Options {
        version: 13,
        compress: false,
    });
    let (_, g14) = generate::level(Options {
        version: 14,
        compress: false,
    });
    let d13 = g13.vertex_buffers().unwrap()[0].decode();
    let d14 = g14.vertex_buffers().unwrap()[0].decode();
    assert_eq!(g13.vertex_buffers().unwrap()[0].stride(), 36);
    // quad vertex 0 at (-1, 0, -1): uv = (-1·0.25 + 0.5, …) = (0.25, 0.25); v13 adds 1/3 to u
    assert_eq!(d13.uv[0], [0.25 + 1.0 / 3.0, 0.25]);
    assert_eq!(d14.uv[0], [0.25, 0.25]);
    // v14 stores (0.25 + 1/3) only to 1/(1024·255.5): the 24-bit fixed point
    let (s, f) = levelgeom_xray::vertex::encode_base(0.25 + 1.0 / 3.0);
    assert_eq!(s, 597); // ⌊0.58333·1024⌋ = ⌊597.33⌋
    assert_eq!(f, 85); // ⌊255.5·0.3333⌋
}

fn visual_chunks(l: &mut Level, v: usize) -> &mut Vec<levelgeom_xray::chunk::Framed<OgfChunk>> {
    let vis = l
        .chunks
        .iter_mut()
        .find_map(|c| match &mut c.value {
            LevelChunk::Visuals(v) => Some(v),
            _ => None,
        })
        .unwrap();
    &mut vis[v].value.chunks
}

#[test]
fn tree_pm_with_inline_swidata_draws_its_full_window() {
    // xray_re lists an observed TREE_PM chunk order 21,1,12,6: the windows inline, no
    // SWICONTAINER. The generated pyramid: sw[0] = 4 triangles over 5 vertices, sw[1] = 2.
    let (mut l, g) = generate::level(Options::default());
    let item = g.swis()[0].clone();
    assert_eq!((item.windows[0].num_tris, item.windows[1].num_tris), (4, 2));
    for v in [2, 3] {
        let cs = visual_chunks(&mut l, v);
        cs.retain(|c| c.id() != levelgeom_xray::ogf::SWICONTAINER);
        cs.push(levelgeom_xray::chunk::Framed::plain(
            levelgeom_xray::ogf::SWIDATA,
            OgfChunk::SwiData(item.clone()),
        ));
    }
    let s = to_scene(&l, &g, &SceneOptions::default()).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let tris: Vec<usize> = s
        .meshes
        .iter()
        .map(|m| m.primitives[0].triangle_count())
        .collect();
    // still one shared tree mesh of 4 triangles (not the 6 stored indices' triangles)
    assert_eq!(tris, vec![2, 8, 4]);
    assert_eq!(s.nodes[2].mesh, s.nodes[3].mesh);

    // without any window source the progressive tree is drawn whole (6 triangles), with a warning
    for v in [2, 3] {
        visual_chunks(&mut l, v).retain(|c| c.id() != levelgeom_xray::ogf::SWIDATA);
    }
    let s = to_scene(&l, &g, &SceneOptions::default()).unwrap();
    assert_eq!(s.meshes[2].primitives[0].triangle_count(), 6);
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("visual 2: progressive visual without sliding windows")),
        "{:?}",
        s.warnings
    );
}

#[test]
fn instances_with_different_shaders_get_their_own_mesh() {
    let (mut l, g) = generate::level(Options::default());
    for c in visual_chunks(&mut l, 3) {
        if let OgfChunk::Header(h) = &mut c.value {
            h.shader_id = 1;
        }
    }
    let s = to_scene(&l, &g, &SceneOptions::default()).unwrap();
    assert_ne!(s.nodes[2].mesh, s.nodes[3].mesh);
    let (a, b) = (s.nodes[2].mesh.unwrap(), s.nodes[3].mesh.unwrap());
    assert_ne!(
        s.meshes[a].primitives[0].material,
        s.meshes[b].primitives[0].material
    );
}
