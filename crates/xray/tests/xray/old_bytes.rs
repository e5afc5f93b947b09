//! Old-build levels assembled byte by byte here (not by the crate's writer or generator), from
//! the layouts in the format notes (docs/formats/xray-level.md §3) and blender-xray's reader: the reader must find the hand-put
//! values, rebuild the bytes exactly, and the export must put them where the engine would.

use levelgeom_scene::Scene;
use levelgeom_xray::{check, flat, to_scene, Geom, Level, SceneOptions};

fn u16s(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn chunk(id: u32, body: &[u8]) -> Vec<u8> {
    let mut out = u32s(&[id, body.len() as u32]);
    out.extend_from_slice(body);
    out
}
fn strings(v: &[&str]) -> Vec<u8> {
    let mut out = u32s(&[v.len() as u32]);
    for s in v {
        out.extend_from_slice(s.as_bytes());
        out.push(0);
    }
    out
}
fn cat(parts: &[Vec<u8>]) -> Vec<u8> {
    parts.concat()
}

/// World positions of mesh `m`'s first primitive, placed by the first node that draws it
/// (each visual's node sits at its own pivot, so the stored positions are relative to it).
fn world_positions(s: &Scene, m: usize) -> Vec<[f32; 3]> {
    let w = s.world_matrices();
    let n = s.nodes.iter().position(|n| n.mesh == Some(m)).unwrap();
    s.meshes[m].primitives[0]
        .positions
        .iter()
        .map(|&p| levelgeom_scene::transform_point(&w[n], p))
        .collect()
}

/// A material's name (the texture name) and its `shader` extra (the whole entry).
fn material_names(s: &Scene, m: usize) -> (&str, &str) {
    let m = &s.materials[m];
    let shader = m.extras.iter().find(|(k, _)| k == "shader").unwrap();
    (m.name.as_str(), shader.1.as_str())
}

fn scene(bytes: &[u8]) -> (Level, Scene) {
    let (l, _) = Level::read(bytes).unwrap();
    assert_eq!(l.to_bytes().unwrap(), bytes, "byte-exact rebuild");
    let f = flat::flatten(&l).unwrap();
    assert_eq!(check::level(&f.level, Some(&f.geom), None), vec![]);
    let s = to_scene(&l, &Geom { chunks: Vec::new() }, &SceneOptions::default()).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    (l, s)
}

/// XRLC 5: textures chunk 2, shaders 3, visuals 4, FVF VB 5, sectors 11; an OGF 2 visual with
/// `OGF_TEXTURE_L` (3), `OGF_VCONTAINER` (11) and inline `OGF_INDICES` (8); the FVF
/// `XYZ | NORMAL | TEX2` (0x212) with the lightmap set stored first.
#[test]
fn xrlc_5_fvf_level_with_the_lightmap_set_first() {
    let mut vb = u32s(&[1, 0x212, 3]);
    for (p, lm, tex) in [
        ([0.0f32, 0.0, 0.0], [0.1f32, 0.2], [0.5f32, 0.625]),
        ([1.0, 0.0, 0.0], [0.3, 0.4], [0.75, 0.875]),
        ([0.0, 0.0, 1.0], [0.9, 1.0], [0.25, 0.125]),
    ] {
        vb.extend(f32s(&p));
        vb.extend(f32s(&[0.0, 1.0, 0.0]));
        vb.extend(f32s(&lm));
        vb.extend(f32s(&tex));
    }
    let visual = cat(&[
        chunk(1, &[2, 0, 0, 0]),
        chunk(3, &u32s(&[0, 0])),
        chunk(11, &u32s(&[0, 0, 3])),
        chunk(8, &cat(&[u32s(&[3]), u16s(&[0, 1, 2])])),
    ]);
    let file = cat(&[
        chunk(1, &u16s(&[5, 1])),
        chunk(2, &strings(&["lmap#1,ston\\wall"])),
        chunk(3, &strings(&["default"])),
        chunk(5, &vb),
        chunk(4, &chunk(0, &visual)),
        chunk(11, &chunk(0, &chunk(2, &u32s(&[0])))),
    ]);
    let (l, s) = scene(&file);
    assert_eq!(l.version(), Some(5));
    assert_eq!(l.fvf_buffers().unwrap()[0].fvf, 0x212);
    let p = &s.meshes[0].primitives[0];
    // z mirrored, winding (0, 1, 2) reversed to (0, 2, 1)
    assert_eq!(
        world_positions(&s, 0),
        vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]]
    );
    assert_eq!(p.indices, vec![0, 2, 1]);
    // UV0 is the second stored set (the texture), UV1 the first (the lightmap)
    assert_eq!(p.uvs[0], vec![[0.5, 0.625], [0.75, 0.875], [0.25, 0.125]]);
    assert_eq!(p.uvs[1], vec![[0.1, 0.2], [0.3, 0.4], [0.9, 1.0]]);
    // material: shader "default" + texture entry turned round to texture first
    let mi = p.material.unwrap();
    assert_eq!(
        material_names(&s, mi),
        ("ston/wall", "default/ston\\wall,lmap#1")
    );
    assert_eq!(
        s.textures[s.materials[mi].texture.unwrap()].name,
        "ston/wall"
    );
}

/// XRLC 11: shaders 2, visuals 3, IB 9, VB 10 (D3D9). One buffer `FLOAT3, D3DCOLOR NORMAL,
/// SHORT4 TEXCOORD0` holds a static visual's vertices (`u·1024, v·1024, lu·32768, lv·32768`)
/// and a tree's (`u·2048, v·2048, wind, 0`); OGF 3 visuals with `OGF_VCONTAINER` (10),
/// `OGF_ICONTAINER` (19), `OGF_TEXTURE_L` (3) and a 104-byte `OGF_TREEDEF2` (22).
#[test]
fn xrlc_11_short4_is_read_per_visual_type() {
    let decl = cat(&[
        cat(&[u16s(&[0, 0]), vec![2, 0, 0, 0]]),
        cat(&[u16s(&[0, 12]), vec![4, 0, 3, 0]]),
        cat(&[u16s(&[0, 16]), vec![7, 0, 5, 0]]),
        cat(&[u16s(&[0xFF, 0]), vec![17, 0, 0, 0]]),
    ]);
    let mut vb = cat(&[u32s(&[1]), decl, u32s(&[6])]);
    let pos = [[0.0f32, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 2.0]];
    for (k, p) in pos.iter().chain(pos.iter()).enumerate() {
        vb.extend(f32s(p));
        vb.extend([128, 255, 128, 255]); // normal +y (bytes B, G, R = z, y, x), hemi 1
        let s4: [i16; 4] = if k < 3 {
            [512, 256, 16384, 8192] // u 0.5, v 0.25; lightmap 0.5, 0.25
        } else {
            [1024, 2048, 100, 0] // u 0.5, v 1.0; wind
        };
        vb.extend(s4.iter().flat_map(|x| x.to_le_bytes()));
    }
    let ib = cat(&[u32s(&[1, 6]), u16s(&[0, 1, 2, 0, 1, 2])]);
    let normal = cat(&[
        chunk(1, &[3, 0, 0, 0]),
        chunk(3, &u32s(&[2, 1])),
        chunk(10, &u32s(&[0, 0, 3])),
        chunk(19, &u32s(&[0, 0, 3])),
    ]);
    let mut xf = vec![0f32; 16];
    xf[0] = 1.0;
    xf[5] = 1.0;
    xf[10] = 1.0;
    xf[15] = 1.0;
    xf[12] = 10.0; // translation x
    let tree = cat(&[
        chunk(1, &[3, 12, 0, 0]),
        chunk(3, &u32s(&[3, 1])),
        chunk(10, &u32s(&[0, 3, 3])),
        chunk(19, &u32s(&[0, 3, 3])),
        chunk(22, &f32s(&[xf, vec![1.0; 5], vec![0.0; 5]].concat())),
    ]);
    let file = cat(&[
        chunk(1, &u16s(&[11, 1])),
        chunk(
            2,
            &strings(&["", "default", "ston\\floor,lmap#2", "trees\\pine"]),
        ),
        chunk(10, &vb),
        chunk(9, &ib),
        chunk(3, &cat(&[chunk(0, &normal), chunk(1, &tree)])),
    ]);
    let (l, s) = scene(&file);
    assert_eq!(l.version(), Some(11));
    assert_eq!(l.vertex_buffers().unwrap()[0].stride(), 24);
    let st = &s.meshes[0].primitives[0];
    assert_eq!(st.uvs[0], vec![[0.5, 0.25]; 3]);
    assert_eq!(st.uvs[1], vec![[0.5, 0.25]; 3]);
    assert_eq!(
        material_names(&s, st.material.unwrap()),
        ("ston/floor", "default/ston\\floor,lmap#2")
    );
    let tr = &s.meshes[1].primitives[0];
    assert_eq!(tr.uvs.len(), 1);
    assert_eq!(tr.uvs[0], vec![[0.5, 1.0]; 3]);
    assert_eq!(
        material_names(&s, tr.material.unwrap()),
        ("trees/pine", "default/trees\\pine")
    );
    // the tree node sits 10 m along x
    let w = s.world_matrices();
    let n = s.nodes.iter().position(|n| n.mesh == Some(1)).unwrap();
    let p = levelgeom_scene::transform_point(&w[n], tr.positions[1]);
    assert_eq!(p, [12.0, 0.0, 0.0]);
}

/// XRLC 9 with D3D9 buffers: VB 12 and IB 11 (VB_OLD 4 absent), an OGF 3 visual; portals 6
/// (80-byte records, count last), lights 8 (108 bytes), sectors 10.
#[test]
fn xrlc_9_with_d3d9_buffers_and_its_own_chunk_ids() {
    let decl = cat(&[
        cat(&[u16s(&[0, 0]), vec![2, 0, 0, 0]]),
        cat(&[u16s(&[0xFF, 0]), vec![17, 0, 0, 0]]),
    ]);
    let vb = cat(&[
        u32s(&[1]),
        decl,
        u32s(&[3]),
        f32s(&[0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]),
    ]);
    let ib = cat(&[u32s(&[1, 3]), u16s(&[0, 1, 2])]);
    let visual = cat(&[
        chunk(1, &[3, 0, 0, 0]),
        chunk(10, &u32s(&[0, 0, 3])),
        chunk(19, &u32s(&[0, 0, 3])),
    ]);
    let mut portal = u16s(&[0, 0]);
    portal.extend(f32s(&[0.5; 18]));
    portal.extend(u32s(&[3]));
    // controller 0, D3D type 1 (point), everything else zero
    let mut light = vec![0u8; 108];
    light[4] = 1;
    let file = cat(&[
        chunk(1, &u16s(&[9, 0])),
        chunk(2, &strings(&[""])),
        chunk(3, &chunk(0, &visual)),
        chunk(12, &vb),
        chunk(11, &ib),
        chunk(6, &portal),
        chunk(8, &light),
        chunk(
            10,
            &chunk(0, &cat(&[chunk(1, &u16s(&[0])), chunk(2, &u32s(&[0]))])),
        ),
    ]);
    let (l, s) = scene(&file);
    assert_eq!(l.portals().len(), 1);
    assert_eq!(l.portals()[0].count, 3);
    assert_eq!(l.lights().len(), 1);
    assert_eq!(
        world_positions(&s, 0),
        vec![[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    );
    let names: Vec<String> = levelgeom_xray::chunks(&file)
        .unwrap()
        .into_iter()
        .map(|c| c.path)
        .collect();
    for want in [
        "fsL_VB",
        "fsL_IB",
        "fsL_PORTALS",
        "fsL_LIGHT_DYNAMIC",
        "fsL_VISUALS/visual[0]/OGF_VCONTAINER",
        "fsL_VISUALS/visual[0]/OGF_ICONTAINER",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
    // rebuild differences are located by the version's names: inside the VB chunk (id 12)
    let vb_at = levelgeom_xray::chunks(&file)
        .unwrap()
        .into_iter()
        .find(|c| c.id == Some(12))
        .unwrap()
        .offset as usize;
    assert_eq!(&file[vb_at..vb_at + 4], &[12, 0, 0, 0]);
    assert_eq!(
        levelgeom_xray::locate(&file, vb_at + 20).as_deref(),
        Some("fsL_VB")
    );
    // a count that does not fit: the IB claims 4 indices, error at the count with its path
    let mut bad = file.clone();
    let at = bad.windows(8).position(|w| w == u32s(&[1, 3])).unwrap() + 4;
    bad[at] = 40;
    let e = Level::read(&bad).unwrap_err();
    assert_eq!(e.offset as usize, at, "{e}");
    assert!(e.to_string().contains("fsL_IB"), "{e}");
}

/// XRLC 10, an OGF 3 progressive visual (model type 2): its stored indices are the coarse mesh
/// (vertex 3 collapsed onto 2: triangles (0, 1, 2), (0, 2, 2)); `OGF_SWIDATA` (9) holds one
/// vertex split for vertex 3 (min 3 vertices) re-pointing index position 5. The export shows
/// the full quad.
#[test]
fn xrlc_10_progressive_visual_is_exported_with_its_vertex_splits_applied() {
    let decl = cat(&[
        cat(&[u16s(&[0, 0]), vec![2, 0, 0, 0]]),
        cat(&[u16s(&[0xFF, 0]), vec![17, 0, 0, 0]]),
    ]);
    let vb = cat(&[
        u32s(&[1]),
        decl,
        u32s(&[4]),
        f32s(&[0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0]),
    ]);
    let ib = cat(&[u32s(&[1, 6]), u16s(&[0, 1, 2, 0, 2, 2])]);
    let swi = cat(&[
        chunk(1, &u32s(&[3, 6])),
        chunk(2, &[2, 0, 1, 1]),
        chunk(3, &cat(&[u32s(&[1]), u16s(&[5])])),
    ]);
    let visual = cat(&[
        chunk(1, &[3, 2, 0, 0]),
        chunk(10, &u32s(&[0, 0, 4])),
        chunk(19, &u32s(&[0, 0, 6])),
        chunk(9, &swi),
    ]);
    let file = cat(&[
        chunk(1, &u16s(&[10, 0])),
        chunk(2, &strings(&[""])),
        chunk(10, &vb),
        chunk(9, &ib),
        chunk(3, &chunk(0, &visual)),
    ]);
    let (_, s) = scene(&file);
    let p = &s.meshes[0].primitives[0];
    // (0, 1, 2), (0, 2, 3), each reversed for glTF
    assert_eq!(p.indices, vec![0, 2, 1, 0, 3, 2]);
    // a split pointing outside the indices is a warning, the coarse mesh stays
    let bad = file
        .windows(2)
        .rposition(|w| w == [5, 0])
        .expect("the index position");
    let mut b = file.clone();
    b[bad] = 50;
    let (l, _) = Level::read(&b).unwrap();
    let s = to_scene(&l, &Geom { chunks: Vec::new() }, &SceneOptions::default()).unwrap();
    assert!(
        s.warnings.iter().any(|w| w.contains("vertex splits")),
        "{:?}",
        s.warnings
    );
    assert_eq!(s.meshes[0].primitives[0].indices, vec![0, 2, 1, 0, 2, 2]);
}

/// Build 2215 (XRLC 13) hierarchy visuals: `OGF_CHILDREN_L` with `u16` entries (found by its
/// size) and a junk chunk 0xF8C of 16 bytes; both kept, the children read.
#[test]
fn build_2215_narrow_children_and_junk_chunks_are_kept() {
    let mut header = vec![4u8, 1, 0, 0];
    header.extend(f32s(&[0.0; 10]));
    let visual = cat(&[
        chunk(1, &header),
        chunk(10, &cat(&[u32s(&[3]), u16s(&[7, 8, 9])])),
        chunk(0xF8C, &[0xAB; 16]),
    ]);
    let mut r = levelgeom_binary::Reader::new(&visual);
    let v = levelgeom_xray::ogf::Visual::read_in(&mut r, 13).unwrap();
    assert_eq!(v.children(), &[7, 8, 9]);
    assert_eq!(v.type_name(), "hierarchy");
    let mut w = levelgeom_binary::Writer::new();
    v.write(&mut w).unwrap();
    assert_eq!(w.into_inner(), visual);
}
