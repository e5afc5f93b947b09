//! The real xrLC v14 micro level (blender-xray test data): byte-exact rebuilds, vertex codec
//! round trips and facts stated in the fixture README / docs/formats/xray-level.md §8, checked independently.

use levelgeom_xray::cform::Cform;
use levelgeom_xray::ogf::model_type;
use levelgeom_xray::{check, decl, geom, Geom, Level};

fn read(name: &str) -> Vec<u8> {
    let p = format!(
        "{}/tests/data/xray-v14-micro/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

#[test]
fn all_four_files_rebuild_byte_for_byte() {
    let l = read("level");
    assert_eq!(Level::read(&l).unwrap().0.to_bytes().unwrap(), l);
    let g = read("level.geom");
    assert_eq!(Geom::read(&g).unwrap().0.to_bytes().unwrap(), g);
    let gx = read("level.geomx");
    assert_eq!(Geom::read(&gx).unwrap().0.to_bytes().unwrap(), gx);
    let c = read("level.cform");
    assert_eq!(Cform::read(&c).unwrap().0.to_bytes().unwrap(), c);
}

#[test]
fn geom_matches_the_readme() {
    let g = Geom::read(&read("level.geom")).unwrap().0;
    let h = g.header().unwrap();
    assert_eq!((h.version, h.quality), (14, 0));
    let vbs = g.vertex_buffers().unwrap();
    let counts: Vec<u32> = vbs.iter().map(|v| v.count).collect();
    assert_eq!(counts, vec![24, 53, 20]);
    assert_eq!(vbs[0].decl, decl::mu_model());
    assert_eq!(vbs[1].decl, decl::r1_lmap());
    assert_eq!(vbs[2].decl, decl::r1_vert());
    assert!(vbs.iter().all(|v| v.stride() == 32));
    let ibs = g.index_buffers().unwrap();
    assert_eq!(ibs.len(), 1);
    assert_eq!(ibs[0].len(), 168);
    assert!(g.swis().is_empty());

    let gx = Geom::read(&read("level.geomx")).unwrap().0;
    let vbs = gx.vertex_buffers().unwrap();
    assert_eq!(vbs.len(), 1);
    assert_eq!((vbs[0].count, vbs[0].stride()), (37, 12));
    assert_eq!(vbs[0].decl, decl::x_vert());
    assert_eq!(gx.index_buffers().unwrap()[0].len(), 132);
}

#[test]
fn level_matches_the_readme_and_spec() {
    let l = Level::read(&read("level")).unwrap().0;
    let h = l.header().unwrap();
    assert_eq!((h.version, h.quality), (14, 1));
    let order: Vec<u32> = l.chunks.iter().map(|c| c.id()).collect();
    assert_eq!(order, vec![1, 4, 6, 7, 3, 2, 8]);
    assert_eq!(l.portals().len(), 1);
    assert_eq!(l.lights().len(), 1);
    assert_eq!(l.glows().len(), 1);
    let vis = l.visuals();
    assert_eq!(vis.len(), 16);
    let count = |t: u8| vis.iter().filter(|v| v.model_type() == Some(t)).count();
    assert_eq!(count(model_type::NORMAL), 4);
    assert_eq!(count(model_type::TREE_ST), 5);
    assert_eq!(count(model_type::LOD), 5);
    assert_eq!(count(model_type::HIERARCHY), 2);
    for v in &vis {
        if v.model_type() == Some(model_type::NORMAL) {
            assert!(v.fastpath().is_some());
        }
        if v.model_type() == Some(model_type::TREE_ST) {
            let g = v.gcontainer().unwrap();
            let got = (
                g.vb_index,
                g.vb_offset,
                g.vb_count,
                g.ib_index,
                g.ib_offset,
                g.ib_count,
            );
            assert_eq!(got, (0, 0, 24, 0, 0, 36));
        }
    }
    let shaders: Vec<String> = l.shaders().unwrap().iter().map(|s| s.text()).collect();
    assert_eq!(
        shaders,
        vec![
            "",
            "effects\\glow/glow\\glow_04",
            "def_shaders\\def_vertex/ston\\ston_beton04",
            "levels\\agroprom_grass/terrain\\terrain_dom,terrain\\terrain_dom_lm",
            "default/crete\\crete_roof1,lmap#1_1,lmap#1_2",
            "default/ston\\ston_beton_ch_09,lmap#1_1,lmap#1_2",
            "flora\\leaf_wave/trees\\trees_elka",
            "details\\lod/level_lods",
        ]
    );
    let roots: Vec<Option<u32>> = l.sectors().iter().map(|s| s.value.root()).collect();
    assert_eq!(roots, vec![Some(2), Some(15)]);
    // LOD pad bytes are the garbage the spec quotes: 12 68 3f
    let lod = vis
        .iter()
        .find(|v| v.model_type() == Some(model_type::LOD))
        .unwrap();
    assert_eq!(lod.lod_quads().unwrap()[0][0].pad, [0x12, 0x68, 0x3f]);

    let c = Cform::read(&read("level.cform")).unwrap().0;
    assert_eq!((c.version, c.vertices.len(), c.tris.len()), (4, 33, 44));
    assert!(levelgeom_xray::check::cform(&c).is_empty());
}

#[test]
fn decoded_vertices_re_encode_byte_for_byte() {
    for f in ["level.geom", "level.geomx"] {
        let g = Geom::read(&read(f)).unwrap().0;
        for vb in g.vertex_buffers().unwrap() {
            let v = vb.decode();
            assert_eq!(v.count, vb.count as usize);
            assert_eq!(levelgeom_xray::vertex::encode(&vb.decl, &v), vb.data, "{f}");
        }
    }
}

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
fn unit(a: [f32; 3]) -> [f32; 3] {
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    [a[0] / l, a[1] / l, a[2] / l]
}
fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[test]
fn decoded_normals_agree_with_face_winding_and_uvs_are_in_range() {
    // docs/formats/xray-level.md §2.3: cross(p1-p0, p2-p0) agrees with the decoded normal (x = byte 2). Measured
    // independently (Python): per visual the mean cosine is 1.0 except visual 1 (0.98) and the
    // smooth-shaded visual 2 (0.80, min 0.44); no vertex normal points away from its face.
    let g = Geom::read(&read("level.geom")).unwrap().0;
    let l = Level::read(&read("level")).unwrap().0;
    let vbs = g.vertex_buffers().unwrap();
    let ib = &g.index_buffers().unwrap()[0];
    let mut seen = std::collections::HashSet::new();
    for v in l.visuals() {
        let Some(gc) = v.gcontainer() else { continue };
        if !seen.insert((gc.vb_index, gc.vb_offset, gc.ib_offset)) {
            continue;
        }
        let d = vbs[gc.vb_index as usize].decode();
        let mut sum = 0.0;
        let mut n = 0.0;
        let mut min = 1.0f32;
        let range = &ib[gc.ib_offset as usize..(gc.ib_offset + gc.ib_count) as usize];
        for t in range.chunks(3) {
            let k = |i: u16| gc.vb_offset as usize + i as usize;
            let (p0, p1, p2) = (
                d.positions[k(t[0])],
                d.positions[k(t[1])],
                d.positions[k(t[2])],
            );
            let f = cross(sub(p1, p0), sub(p2, p0));
            if dot(f, f) < 1e-12 {
                continue;
            }
            let f = unit(f);
            for &i in t {
                let c = dot(f, unit(d.normals[k(i)]));
                min = min.min(c);
                sum += c;
                n += 1.0;
            }
        }
        assert!(
            sum / n > 0.75,
            "vb {} offset {}: mean cos {}",
            gc.vb_index,
            gc.vb_offset,
            sum / n
        );
        assert!(
            min > 0.4,
            "vb {} offset {}: min cos {min}",
            gc.vb_index,
            gc.vb_offset
        );
    }
    // tree UVs (1/2048) and lightmap UVs (1/32768) lie in 0..1 (sample ranges 0..2047 / 0..32767)
    for p in vbs[0]
        .decode()
        .uv
        .iter()
        .chain(vbs[1].decode().lightmap.iter())
    {
        assert!(
            (0.0..1.0).contains(&p[0]) && (0.0..1.0).contains(&p[1]),
            "{p:?}"
        );
    }
}

#[test]
fn tree_matrices_reproduce_the_header_bboxes() {
    let g = Geom::read(&read("level.geom")).unwrap().0;
    let l = Level::read(&read("level")).unwrap().0;
    let d = g.vertex_buffers().unwrap()[0].decode();
    for v in l.visuals() {
        let Some(td) = v.treedef() else { continue };
        let h = v.header().unwrap();
        let mut lo = [f32::MAX; 3];
        let mut hi = [f32::MIN; 3];
        for p in &d.positions {
            let w = td.transform(*p);
            for k in 0..3 {
                lo[k] = lo[k].min(w[k]);
                hi[k] = hi[k].max(w[k]);
            }
        }
        for k in 0..3 {
            assert!(
                (lo[k] - h.bbox_min[k]).abs() < 0.01,
                "{lo:?} vs {:?}",
                h.bbox_min
            );
            assert!(
                (hi[k] - h.bbox_max[k]).abs() < 0.01,
                "{hi:?} vs {:?}",
                h.bbox_max
            );
        }
    }
}

#[test]
fn the_fixture_passes_check() {
    let g = Geom::read(&read("level.geom")).unwrap().0;
    let gx = Geom::read(&read("level.geomx")).unwrap().0;
    let l = Level::read(&read("level")).unwrap().0;
    assert_eq!(check::geom(&g), vec![]);
    assert_eq!(check::geom(&gx), vec![]);
    assert_eq!(check::level(&l, Some(&g), Some(&gx)), vec![]);
}

#[test]
fn portal_light_and_glow_fields_match_a_hand_decode() {
    // Bit patterns read from the file with Python `struct` at the chunk payloads 0x14
    // (portal), 0x6C (light), 0xE0 (glow).
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    let l = Level::read(&read("level")).unwrap().0;
    let p = &l.portals()[0];
    assert_eq!((p.sector_front, p.sector_back, p.count), (0, 1, 4));
    assert_eq!(bits(&p.poly[0]), [0xBF4F_F255, 0x3ED7_13AE, 0xBF80_0000]);
    assert_eq!(bits(&p.poly[3]), [0xBF4F_F255, 0x3F4F_F255, 0xBF80_0000]);
    // unused polygon slots hold garbage denormals, kept bit for bit
    assert_eq!(p.poly[4][0].to_bits(), 0x0056_03C3);
    let li = &l.lights()[0];
    assert_eq!((li.controller, li.d3d.light_type), (1, 3)); // D3DLIGHT_DIRECTIONAL
    assert_eq!(li.d3d.diffuse, [1.0; 4]);
    assert_eq!(
        bits(&li.d3d.direction),
        [0x3F57_1ECF, 0xBED8_616C, 0x3EAD_D421]
    );
    let g = &l.glows()[0];
    assert_eq!(bits(&g.position), [0x402F_FD28, 0x3E7A_8E80, 0xC048_CD3D]);
    assert_eq!((g.radius, g.shader), (0.5, 1));
    // the glow's shader entry is the glow shader
    assert_eq!(
        l.shaders().unwrap()[usize::from(g.shader)].text(),
        "effects\\glow/glow\\glow_04"
    );
    let s = l.sectors();
    assert_eq!(s[0].value.portals(), &[0]);
}

#[test]
fn every_fixture_visual_is_in_exactly_one_sector() {
    let l = Level::read(&read("level")).unwrap().0;
    let sectors = l.visual_sectors();
    assert_eq!(sectors.len(), 16);
    // the sector roots themselves (2 and 15, see level_matches_the_readme_and_spec)
    assert_eq!(sectors[2], vec![0]);
    assert_eq!(sectors[15], vec![1]);
    // xrLC puts every visual in exactly one sector's tree
    for (v, s) in sectors.iter().enumerate() {
        assert_eq!(s.len(), 1, "visual {v}: sectors {s:?}");
    }
}

#[test]
fn shared_read_keeps_the_vertex_bytes_in_the_file_and_rebuilds_them() {
    use std::sync::Arc;
    for f in ["level.geom", "level.geomx"] {
        let bytes = read(f);
        let file = Arc::new(bytes.clone());
        let (shared, _) = Geom::read_shared(&file, Default::default()).unwrap();
        let (copied, _) = Geom::read(&bytes).unwrap();
        assert_eq!(shared, copied, "{f}");
        let vbs = shared.vertex_buffers().unwrap();
        assert!(!vbs.is_empty());
        for vb in vbs {
            assert!(vb.data.is_shared(), "{f}");
            // the bytes are the file's own, found at their place in it
            let at = vb.data.as_ptr() as usize - file.as_ptr() as usize;
            assert_eq!(&bytes[at..at + vb.data.len()], &*vb.data);
        }
        let ibs = shared.index_buffers().unwrap();
        assert!(!ibs.is_empty());
        for (ib, copy) in ibs.iter().zip(copied.index_buffers().unwrap()) {
            // the fixture's index data starts at even offsets, so it is borrowed in place
            assert_eq!(ib.is_shared(), cfg!(target_endian = "little"), "{f}");
            assert!(!copy.is_shared(), "{f}");
            if ib.is_shared() {
                // the indices are the file's own bytes, found at their place in it
                let at = ib.as_ptr() as usize - file.as_ptr() as usize;
                let le: Vec<u8> = ib.iter().flat_map(|x| x.to_le_bytes()).collect();
                assert_eq!(&bytes[at..at + le.len()], &le[..]);
            }
        }
        assert!(shared.to_bytes().unwrap() == bytes, "{f} rebuilds");
        // an unknown chunk of 3 bytes before chunk 10 puts its indices at odd offsets: read
        // shared, they are decoded instead (same values), and the file still rebuilds
        let mut odd = copied.clone();
        let ib_at = odd.chunks.iter().position(|c| c.id() == geom::IB).unwrap();
        let pad = geom::GeomChunk::Raw(vec![1, 2, 3]);
        odd.chunks
            .insert(ib_at, levelgeom_xray::chunk::Framed::plain(0x77, pad));
        let odd_bytes = odd.to_bytes().unwrap();
        let (odd_read, _) =
            Geom::read_shared(&Arc::new(odd_bytes.clone()), Default::default()).unwrap();
        assert_eq!(odd_read, odd, "{f}");
        assert!(odd_read
            .index_buffers()
            .unwrap()
            .iter()
            .all(|ib| !ib.is_shared()));
        assert!(odd_read.vertex_buffers().unwrap()[0].data.is_shared());
        assert!(
            odd_read.to_bytes().unwrap() == odd_bytes,
            "{f} with an odd pad rebuilds"
        );
        // a truncated file fails the same way both ways
        let cut = &bytes[..bytes.len() - 3];
        let e1 = Geom::read_shared(&Arc::new(cut.to_vec()), Default::default()).unwrap_err();
        assert_eq!(e1, Geom::read(cut).unwrap_err(), "{f}");
        // a geom file opened on its own (as `rebuild` opens it) shares them too
        let Some(Ok((levelgeom_xray::files::Opened::Geom(alone), _))) =
            levelgeom_xray::files::Opened::read_shared(&file, Default::default())
        else {
            panic!("{f} opens as a geom file");
        };
        assert_eq!(alone, copied, "{f}");
        assert!(alone.vertex_buffers().unwrap()[0].data.is_shared(), "{f}");
    }
}
