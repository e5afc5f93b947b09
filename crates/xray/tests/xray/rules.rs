//! `check` rules: each broken on purpose in a generated level must be reported with its path.

use levelgeom_binary::Problem;
use levelgeom_xray::check;
use levelgeom_xray::generate::{self, Options};
use levelgeom_xray::geom::GeomChunk;
use levelgeom_xray::ogf::OgfChunk;

fn broken(
    edit: impl FnOnce(&mut levelgeom_xray::Level, &mut levelgeom_xray::Geom),
) -> Vec<Problem> {
    let (mut l, mut g) = generate::level(Options::default());
    assert!(check::level(&l, Some(&g), None).is_empty());
    edit(&mut l, &mut g);
    check::level(&l, Some(&g), None)
}

fn visual_chunk(l: &mut levelgeom_xray::Level, v: usize, id: u32) -> &mut OgfChunk {
    let vis = l
        .chunks
        .iter_mut()
        .find_map(|c| match &mut c.value {
            levelgeom_xray::level::LevelChunk::Visuals(v) => Some(v),
            _ => None,
        })
        .unwrap();
    &mut vis[v]
        .value
        .chunks
        .iter_mut()
        .find(|c| c.id() == id)
        .unwrap()
        .value
}

fn has(p: &[Problem], path: &str, words: &str) -> bool {
    p.iter()
        .any(|x| x.path == path && x.message.contains(words))
}

#[test]
fn gcontainer_past_its_vertex_buffer() {
    let p = broken(|l, _| {
        if let OgfChunk::GContainer(g) = visual_chunk(l, 0, 21) {
            g.vb_offset = 100;
        }
    });
    assert!(
        has(
            &p,
            "fsL_VISUALS/visual[0]/OGF_GCONTAINER",
            "outside vertex buffer 0 of 13 vertices"
        ),
        "{p:?}"
    );
}

#[test]
fn index_not_below_vb_count() {
    let p = broken(|_, g| {
        for c in &mut g.chunks {
            if let GeomChunk::IndexBuffers(ib) = &mut c.value {
                ib[0][1] = 4; // the quad has 4 vertices: 0..3
            }
        }
    });
    assert!(
        has(
            &p,
            "fsL_VISUALS/visual[0]/OGF_GCONTAINER",
            "index 4 at position 1"
        ),
        "{p:?}"
    );
}

#[test]
fn swi_window_outside_its_range() {
    let p = broken(|l, _| {
        if let OgfChunk::SwiData(s) = visual_chunk(l, 1, 6) {
            s.windows[1].offset = 27; // 27 + 2·3 > 30 indices
        }
    });
    assert!(
        has(
            &p,
            "fsL_VISUALS/visual[1]/OGF_SWIDATA/sw[1]",
            "runs past the visual's 30 indices"
        ),
        "{p:?}"
    );
    let p = broken(|_, g| {
        for c in &mut g.chunks {
            if let GeomChunk::Swis(s) = &mut c.value {
                s[0].windows[0].num_verts = 4; // the full window uses the apex, vertex 4
            }
        }
    });
    assert!(
        has(
            &p,
            "fsL_VISUALS/visual[2]/OGF_SWICONTAINER/sw[0]",
            "index 4 is not below the window's 4 vertices"
        ),
        "{p:?}"
    );
}

#[test]
fn bad_child_shader_and_swi_indices() {
    let p = broken(|l, _| {
        if let OgfChunk::Children(c) = visual_chunk(l, 4, 10) {
            c[2] = 9;
        }
        if let OgfChunk::Header(h) = visual_chunk(l, 0, 1) {
            h.shader_id = 3;
        }
        if let OgfChunk::SwiContainer(i) = visual_chunk(l, 3, 20) {
            *i = 5;
        }
    });
    assert!(
        has(
            &p,
            "fsL_VISUALS/visual[4]/OGF_CHILDREN_L",
            "child 2 is visual 9 (there are 5 visuals)"
        ),
        "{p:?}"
    );
    assert!(
        has(
            &p,
            "fsL_VISUALS/visual[0]/OGF_HEADER",
            "shader_id 3 but the table has 3 entries"
        ),
        "{p:?}"
    );
    assert!(
        has(
            &p,
            "fsL_VISUALS/visual[3]/OGF_SWICONTAINER",
            "SWI index 5 but level.geom has 1 items"
        ),
        "{p:?}"
    );
}

#[test]
fn overlapping_declaration_elements() {
    let (_, mut g) = generate::level(Options::default());
    g.vertex_buffers_mut().unwrap()[0].decl.elements[1].offset = 8;
    let p = check::geom(&g);
    assert!(has(&p, "fsL_VB/vb[0]", "elements 0 and 1 overlap"), "{p:?}");
}

#[test]
fn swi_windows_must_start_on_a_triangle_and_exist() {
    // geom alone: SWIS item 0 of the generated level has two windows
    let (_, mut g) = generate::level(Options::default());
    assert!(check::geom(&g).is_empty());
    for c in &mut g.chunks {
        if let GeomChunk::Swis(s) = &mut c.value {
            s[0].windows[1].offset = 13;
            s.push(levelgeom_xray::geom::SwiItem {
                reserved: [0; 4],
                windows: Vec::new(),
            });
        }
    }
    let p = check::geom(&g);
    assert!(
        has(
            &p,
            "fsL_SWIS/item[0]/sw[1]",
            "offset 13 is not a multiple of 3"
        ),
        "{p:?}"
    );
    assert!(has(&p, "fsL_SWIS/item[1]", "no windows"), "{p:?}");
    // inside a visual's OGF_SWIDATA too
    let p = broken(|l, _| {
        if let OgfChunk::SwiData(s) = visual_chunk(l, 1, 6) {
            s.windows[0].offset = 1;
        }
    });
    assert!(
        has(
            &p,
            "fsL_VISUALS/visual[1]/OGF_SWIDATA/sw[0]",
            "offset 1 is not a multiple of 3"
        ),
        "{p:?}"
    );
}

#[test]
fn fast_path_windows_are_checked_against_level_geomx() {
    let dir = format!("{}/tests/data/xray-v14-micro", env!("CARGO_MANIFEST_DIR"));
    let read = |n: &str| std::fs::read(format!("{dir}/{n}")).unwrap();
    let mut l = levelgeom_xray::Level::read(&read("level")).unwrap().0;
    let g = levelgeom_xray::Geom::read(&read("level.geom")).unwrap().0;
    let gx = levelgeom_xray::Geom::read(&read("level.geomx")).unwrap().0;
    let fp = l.visuals()[0].fastpath().unwrap();
    if let OgfChunk::FastPath(cs) = visual_chunk(&mut l, 0, 22) {
        cs.push(levelgeom_xray::chunk::Framed::plain(
            6,
            OgfChunk::SwiData(levelgeom_xray::geom::SwiItem {
                reserved: [0; 4],
                windows: vec![levelgeom_xray::geom::SlideWindow {
                    offset: 0,
                    num_tris: (fp.ib_count / 3 + 1) as u16,
                    num_verts: 3,
                }],
            }),
        ));
    }
    let p = check::level(&l, Some(&g), Some(&gx));
    let want = format!("runs past the visual's {} indices", fp.ib_count);
    assert!(
        has(
            &p,
            "fsL_VISUALS/visual[0]/OGF_FASTPATH/OGF_SWIDATA/sw[0]",
            &want
        ),
        "{p:?}"
    );
}
