//! Import into XRLC 4–12 (the generated level of every old build, plain and compressed):
//! nothing edited gives the same `level` bytes; moving a visual, deleting one, copying a tree
//! and adding a box gives a level that reads back, passes the rules, and exports the edited
//! scene — positions the base export's plus hand-chosen offsets — with every other visual's
//! chunks and every old vertex byte unchanged.

use levelgeom_scene::Scene;
use levelgeom_xray::cform::Cform;
use levelgeom_xray::import::{self, Base, ImportOptions, Imported};
use levelgeom_xray::level::{LevelChunk, Part};
use levelgeom_xray::ogf::OgfChunk;
use levelgeom_xray::{check, files, flat, generate, to_scene, Geom, Level, SceneOptions};

use super::import_edit::{add_box, move_node, node_of, world_corners};

const OLD: [u16; 7] = [4, 5, 8, 9, 10, 11, 12];

pub fn levels() -> Vec<(String, Vec<u8>)> {
    OLD.iter()
        .flat_map(|&version| {
            [false, true].map(move |compress| {
                let (lb, _) = generate::level_bytes(generate::Options { version, compress });
                (format!("v{version} compress={compress}"), lb)
            })
        })
        .collect()
}

pub fn empty() -> Geom {
    Geom { chunks: Vec::new() }
}

pub fn export(l: &Level) -> Scene {
    to_scene(l, &empty(), &SceneOptions::default()).unwrap()
}

/// The cform embedded in an XRLC ≤ 9 level.
pub fn embedded(l: &Level) -> Option<Cform> {
    let v = l.version()?;
    l.chunks.iter().find_map(|c| match &c.value {
        LevelChunk::Raw(b) if levelgeom_xray::level::part(v, c.id()) == Some(Part::Cform) => {
            Some(Cform::read(b).unwrap().0)
        }
        _ => None,
    })
}

pub fn run(l: &Level, s: &Scene) -> Imported {
    let g = empty();
    let cf = embedded(l);
    import::import(
        Base {
            level: l,
            geom: &g,
            geomx: None,
            cform: cf.as_ref(),
        },
        s,
        None,
        &ImportOptions::default(),
    )
    .unwrap()
}

#[test]
fn nothing_edited_gives_the_same_level_bytes() {
    for (name, lb) in levels() {
        let l = Level::read(&lb).unwrap().0;
        let out = run(&l, &export(&l));
        assert_eq!(out.level.to_bytes().unwrap(), lb, "{name}");
        assert!(
            out.geom.chunks.is_empty(),
            "{name}: no level.geom before 13"
        );
        assert!(
            out.cform.is_none(),
            "{name}: the cform stays inside `level`"
        );
        assert!(
            out.summary.moved.is_empty() && out.summary.added.is_empty(),
            "{name}"
        );
    }
}

fn shifted(p: &[[f32; 3]], t: [f32; 3]) -> Vec<[f32; 3]> {
    p.iter()
        .map(|q| [q[0] + t[0], q[1] + t[1], q[2] + t[2]])
        .collect()
}

fn close(a: &[[f32; 3]], b: &[[f32; 3]]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.iter().zip(y).all(|(p, q)| (p - q).abs() <= 1e-4))
}

fn parent_of(s: &Scene, n: usize) -> usize {
    s.nodes
        .iter()
        .position(|p| p.children.contains(&n))
        .unwrap()
}

/// The vertex bytes of every old buffer (FVF or D3D9) of a level.
fn buffer_bytes(l: &Level) -> Vec<Vec<u8>> {
    match (l.vertex_buffers(), l.fvf_buffers()) {
        (Some(v), _) => v.iter().map(|b| b.data.to_vec()).collect(),
        (None, Some(f)) => f.iter().map(|b| b.data.clone()).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn moved_deleted_copied_and_added_visuals_come_back_in_the_old_layout() {
    let offset = [1.5f32, -0.25, 3.0];
    let tree_offset = [-4.0f32, 0.5, 2.0];
    for (name, lb) in levels() {
        let l = Level::read(&lb).unwrap().0;
        let version = l.version().unwrap();
        let trees = generate::old_features(version).0;
        let mut s = export(&l);
        let before = s.clone();
        // move visual 0, delete visual 1
        let n0 = node_of(&s, 0);
        move_node(&mut s, n0, offset);
        let n1 = node_of(&s, 1);
        let p1 = parent_of(&s, n1);
        s.nodes[p1].children.retain(|&c| c != n1);
        // copy tree visual 2 (trees from XRLC 9)
        if trees {
            let n = node_of(&s, 2);
            let mut copy = s.nodes[n].clone();
            copy.name.push_str(".001");
            let c = s.add_node(copy);
            let p = parent_of(&s, n);
            s.nodes[p].children.push(c);
            move_node(&mut s, c, tree_offset);
        }
        let centre = [2.0f32, 1.0, -3.0];
        add_box(&mut s, centre, "ston/ston_01");
        let out = run(&l, &s);
        assert_eq!(out.summary.moved, vec![0], "{name}");
        assert_eq!(out.summary.removed, vec![1], "{name}");
        assert_eq!(
            out.summary.added.len(),
            1 + usize::from(trees),
            "{name}: {:?}",
            out.summary.added
        );
        assert!(out.summary.shaders_added.is_empty(), "{name}");
        // the written bytes read back as the same build and pass the rules
        let bytes = out.level.to_bytes().unwrap();
        let nl = Level::read(&bytes).unwrap().0;
        assert_eq!(nl.version(), Some(version), "{name}");
        let f = flat::flatten(&nl).unwrap();
        assert_eq!(
            check::level(&f.level, Some(&f.geom), None),
            vec![],
            "{name}"
        );
        let opened = files::Opened::read(&bytes).unwrap().unwrap().0;
        assert_eq!(opened.check(), vec![], "{name}");
        // old vertex bytes stay where they were (a moved visual shares no vertices here, so
        // its range is rewritten in place: only those bytes differ)
        let (ob, nb) = (buffer_bytes(&l), buffer_bytes(&nl));
        assert_eq!(ob.len(), nb.len(), "{name}: no new buffer");
        let r0 = l.visuals()[0]
            .find_chunk(|c| match c {
                OgfChunk::VContainer(r) => Some(*r),
                _ => None,
            })
            .unwrap();
        let counts: Vec<usize> = match (l.vertex_buffers(), l.fvf_buffers()) {
            (Some(v), _) => v.iter().map(|b| b.count as usize).collect(),
            (None, Some(f)) => f.iter().map(|b| b.count as usize).collect(),
            _ => Vec::new(),
        };
        for (k, (o, n)) in ob.iter().zip(&nb).enumerate() {
            assert!(n.len() >= o.len(), "{name}: buffers only grow");
            let stride = o.len() / counts[k];
            for (x, (a, b)) in o.iter().zip(n).enumerate() {
                let vertex = (x / stride) as u32;
                let in_moved = k as u32 == r0[0] && (r0[1]..r0[1] + r0[2]).contains(&vertex);
                assert!(in_moved || a == b, "{name}: buffer {k} byte {x} changed");
            }
        }
        // and visual 0's range did change (it moved in place)
        let s0 = ob[r0[0] as usize].len() / counts[r0[0] as usize];
        let range = r0[1] as usize * s0..(r0[1] + r0[2]) as usize * s0;
        assert_ne!(
            ob[r0[0] as usize][range.clone()],
            nb[r0[0] as usize][range],
            "{name}"
        );
        // the re-export: visual 0 moved, visual 1 gone, the others renumbered down by one
        let re = export(&nl);
        let nv = l.visuals().len();
        assert_eq!(
            nl.visuals().len(),
            nv - 1 + 1 + usize::from(trees),
            "{name}"
        );
        let want0 = shifted(&world_corners(&before, node_of(&before, 0)), offset);
        assert!(
            close(&world_corners(&re, node_of(&re, 0)), &want0),
            "{name}: visual 0 at {:?}, want {want0:?}",
            world_corners(&re, node_of(&re, 0))
        );
        for v in 2..nv {
            let old_n = node_of(&before, v);
            if before.nodes[old_n].mesh.is_none() {
                continue;
            }
            assert!(
                close(
                    &world_corners(&re, node_of(&re, v - 1)),
                    &world_corners(&before, old_n)
                ),
                "{name}: visual {v} (now {}) moved",
                v - 1
            );
            // untouched visuals keep their chunks (children renumbered aside)
            let (a, b) = (&l.visuals()[v], &nl.visuals()[v - 1]);
            if a.children().is_empty() {
                assert_eq!(a, b, "{name}: visual {v} changed");
            }
        }
        let mut next = nv - 1;
        if trees {
            let want = shifted(&world_corners(&before, node_of(&before, 2)), tree_offset);
            assert!(
                close(&world_corners(&re, node_of(&re, next)), &want),
                "{name}: the tree copy"
            );
            // the copy is a tree instance on the same geometry: only its matrix differs
            let (t, c) = (&nl.visuals()[1], &nl.visuals()[next]);
            let vc = |v: &levelgeom_xray::ogf::Visual| {
                v.find_chunk(|c| match c {
                    OgfChunk::VContainer(r) => Some(*r),
                    _ => None,
                })
            };
            assert_eq!(vc(t), vc(c), "{name}");
            assert_ne!(t.treedef(), c.treedef(), "{name}");
            next += 1;
        }
        // the box: 12 triangles whose corners are within the cube around `centre`
        let bc = world_corners(&re, node_of(&re, next));
        assert_eq!(bc.len(), 36, "{name}");
        for p in &bc {
            for k in 0..3 {
                assert!((p[k] - centre[k]).abs() <= 1.0 + 1e-4, "{name}: {p:?}");
            }
        }
        // XRLC ≤ 9: the embedded collision followed visual 0 (its two faces lie on it) …
        if version <= 9 {
            assert_eq!(out.summary.collision.moved, 2, "{name}");
            let (a, b) = (embedded(&l).unwrap(), embedded(&nl).unwrap());
            // … and the new box got one collision face per triangle (12)
            assert_eq!(out.summary.collision.added, 12, "{name}");
            assert_eq!(a.tris.len() + 12, b.tris.len(), "{name}");
            assert_ne!(a, b, "{name}: the embedded cform was written back");
        }
    }
}

#[test]
fn an_old_level_converts_to_14_with_allow_loss_and_to_no_unknown_build() {
    let (lb, _) = generate::level_bytes(generate::Options {
        version: 8,
        compress: false,
    });
    let l = Level::read(&lb).unwrap().0;
    let g = empty();
    let cf = embedded(&l);
    let go = |to: u16, allow_loss: bool| {
        import::import(
            Base {
                level: &l,
                geom: &g,
                geomx: None,
                cform: cf.as_ref(),
            },
            &export(&l),
            None,
            &ImportOptions {
                to_version: Some(to),
                allow_loss,
                ..ImportOptions::default()
            },
        )
    };
    // XRLC 7 has no public levels and no layout we write
    let e = go(7, true).unwrap_err();
    assert!(
        matches!(e, import::ImportError::TargetVersion { from: 8, to: 7 }),
        "{e}"
    );
    // XRLC 8's D3D7 light keeps a frame, flags and a name the 108-byte light has no place for
    let e = go(14, false).unwrap_err().to_string();
    assert!(e.contains("torch_01") && e.contains("--allow-loss"), "{e}");
    let out = go(14, true).unwrap();
    assert_eq!(out.summary.build_out, 14);
    let nl = Level::read(&out.level.to_bytes().unwrap()).unwrap().0;
    assert_eq!(nl.version(), Some(14));
    assert!(!nl.is_old());
    assert_eq!(
        Geom::read(&out.geom.to_bytes().unwrap())
            .unwrap()
            .0
            .header()
            .unwrap()
            .version,
        14
    );
    // the embedded collision became a level.cform of version 4
    assert_eq!(out.cform.as_ref().map(|c| c.version), Some(4));
}

#[test]
fn a_new_texture_is_added_to_the_old_tables() {
    for (name, lb) in levels() {
        let l = Level::read(&lb).unwrap().0;
        let mut s = export(&l);
        add_box(&mut s, [0.0, 4.0, 0.0], "ston/ston_new");
        let out = run(&l, &s);
        assert_eq!(out.summary.added.len(), 1, "{name}");
        assert_eq!(out.summary.shaders_added.len(), 1, "{name}");
        let nl = Level::read(&out.level.to_bytes().unwrap()).unwrap().0;
        // the name is in the level's own table (the texture table in XRLC 4/5)
        let table = nl.textures().or(nl.shaders()).unwrap();
        assert!(
            table.iter().any(|e| e.text().contains("ston\\ston_new")),
            "{name}: {:?}",
            table.iter().map(|e| e.text()).collect::<Vec<_>>()
        );
        // the view of the written level gives the new visual an entry naming that texture
        let f = flat::flatten(&nl).unwrap();
        assert_eq!(
            check::level(&f.level, Some(&f.geom), None),
            vec![],
            "{name}"
        );
        let v = f.level.visuals().len() - 1;
        let sid = f.level.visuals()[v].header().unwrap().shader_id;
        let entry = f.level.shaders().unwrap()[usize::from(sid)].text();
        assert!(entry.ends_with("/ston\\ston_new"), "{name}: {entry}");
        // the old visuals keep their materials
        assert_eq!(&nl.visuals()[0], &l.visuals()[0], "{name}");
    }
}

// ---- old-build paths the generated levels never reach: inputs built by changing a generated
// level's typed `Level`, written and read back (so they are what the reader gives)

fn visuals_mut(
    l: &mut Level,
) -> &mut Vec<levelgeom_xray::chunk::Framed<levelgeom_xray::ogf::Visual>> {
    l.chunks
        .iter_mut()
        .find_map(|c| match &mut c.value {
            LevelChunk::Visuals(v) => Some(v),
            _ => None,
        })
        .unwrap()
}

/// The level an old-build import wrote, read back; its rules (the view's and the files') pass.
pub fn written(name: &str, out: &Imported) -> Level {
    let bytes = out.level.to_bytes().unwrap();
    let nl = Level::read(&bytes).unwrap().0;
    let f = flat::flatten(&nl).unwrap();
    assert_eq!(
        check::level(&f.level, Some(&f.geom), None),
        vec![],
        "{name}"
    );
    let opened = files::Opened::read(&bytes).unwrap().unwrap().0;
    assert_eq!(opened.check(), vec![], "{name}");
    nl
}

fn reread(l: &Level) -> (Level, Vec<u8>) {
    let b = l.to_bytes().unwrap();
    (Level::read(&b).unwrap().0, b)
}

fn nested(id: u32, body: &[u8]) -> Vec<u8> {
    let mut out = id.to_le_bytes().to_vec();
    out.extend((body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    out
}

fn indices_of(l: &Level, v: usize) -> Vec<u16> {
    let vis = &l.visuals()[v];
    if let Some(ix) = vis.find_chunk(|c| match c {
        OgfChunk::Indices(x) => Some(x.clone()),
        _ => None,
    }) {
        return ix;
    }
    let r = vis
        .find_chunk(|c| match c {
            OgfChunk::IContainer(r) => Some(*r),
            _ => None,
        })
        .unwrap();
    l.index_buffers().unwrap()[r[0] as usize][r[1] as usize..(r[1] + r[2]) as usize].to_vec()
}

#[test]
fn an_ogf3_progressive_visual_loses_its_splits_when_its_triangles_change() {
    use levelgeom_xray::chunk::Framed;
    use levelgeom_xray::ogf::model_type_v3;
    let mut tried = 0;
    for (name, lb) in levels() {
        let mut l = Level::read(&lb).unwrap().0;
        if generate::old_features(l.version().unwrap()).1 != 3 {
            continue; // OGF 2 (XRLC 4/5) has no vertex splits
        }
        // visual 0 (the quad, 4 vertices, 2 triangles) as an OGF 3 progressive visual whose
        // splits start at its last vertex: nothing to split, full detail = its indices
        let vs = visuals_mut(&mut l);
        for c in &mut vs[0].value.chunks {
            if let OgfChunk::ShortHeader { model_type, .. } = &mut c.value {
                *model_type = model_type_v3::PROGRESSIVE;
            }
        }
        let mut raw = nested(1, &[4u32.to_le_bytes(), 6u32.to_le_bytes()].concat());
        raw.extend(nested(2, &[]));
        raw.extend(nested(3, &0u32.to_le_bytes()));
        vs[0]
            .value
            .chunks
            .push(Framed::plain(9, OgfChunk::Raw(raw)));
        let (l, lb) = reread(&l);
        let has_splits = |l: &Level| {
            l.visuals()[0]
                .chunks
                .iter()
                .any(|c| c.id() == 9 && matches!(c.value, OgfChunk::Raw(_)))
        };
        assert!(has_splits(&l), "{name}");
        // nothing edited: the same bytes
        assert_eq!(run(&l, &export(&l)).level.to_bytes().unwrap(), lb, "{name}");
        // moved: the splits stay (same triangles)
        let mut s = export(&l);
        let n = node_of(&s, 0);
        move_node(&mut s, n, [0.0, 1.0, 0.0]);
        let nl = Level::read(&run(&l, &s).level.to_bytes().unwrap())
            .unwrap()
            .0;
        assert!(has_splits(&nl), "{name}: moved");
        // one triangle cut: a normal visual without splits, with a warning
        let mut s = export(&l);
        let n = node_of(&s, 0);
        let m = s.nodes[n].mesh.unwrap();
        s.meshes[m].primitives[0].indices.truncate(3);
        let want = world_corners(&s, n);
        let out = run(&l, &s);
        assert_eq!(out.summary.edited, vec![0], "{name}");
        assert!(
            out.summary
                .warnings
                .iter()
                .any(|w| w.contains("OGF 3 vertex splits")),
            "{name}: {:?}",
            out.summary.warnings
        );
        let nl = written(&name, &out);
        assert!(!has_splits(&nl), "{name}");
        let t = nl.visuals()[0].find_chunk(|c| match c {
            OgfChunk::ShortHeader { model_type, .. } => Some(*model_type),
            _ => None,
        });
        assert_eq!(t, Some(model_type_v3::NORMAL), "{name}");
        assert_eq!(indices_of(&nl, 0).len(), 3, "{name}");
        let again = export(&nl);
        assert!(
            close(&world_corners(&again, node_of(&again, 0)), &want),
            "{name}"
        );
        // the other visuals keep their chunks
        for v in 1..l.visuals().len() - 1 {
            assert_eq!(nl.visuals()[v], l.visuals()[v], "{name}: visual {v}");
        }
        tried += 1;
    }
    assert!(tried >= 5, "XRLC 8–12 write OGF 3");
}

#[test]
fn a_visuals_own_vertices_are_rewritten_in_place() {
    use levelgeom_xray::fvf::{FvfBuffer, UvOrder};
    let mut tried = 0;
    for (name, lb) in levels() {
        let mut l = Level::read(&lb).unwrap().0;
        let version = l.version().unwrap();
        if version != 8 {
            continue; // OGF 2 (XRLC 4/5) has no OGF_VERTICES in our reader; 9+ index buffers
        }
        // visual 1 (the vertex-lit quad) with its own OGF_VERTICES instead of its range
        let fvfs = l.fvf_buffers().unwrap().to_vec();
        let vs = visuals_mut(&mut l);
        let vis = &mut vs[1].value;
        let r = vis
            .find_chunk(|c| match c {
                OgfChunk::VContainer(r) => Some(*r),
                _ => None,
            })
            .unwrap();
        let b = &fvfs[r[0] as usize];
        let stride = b.data.len() / b.count as usize;
        let own = FvfBuffer {
            fvf: b.fvf,
            count: r[2],
            data: b.data[r[1] as usize * stride..(r[1] + r[2]) as usize * stride].to_vec(),
        };
        for c in &mut vis.chunks {
            if matches!(c.value, OgfChunk::VContainer(_)) {
                *c = levelgeom_xray::chunk::Framed::plain(7, OgfChunk::Vertices(own.clone()));
            }
        }
        let (l, lb) = reread(&l);
        assert_eq!(run(&l, &export(&l)).level.to_bytes().unwrap(), lb, "{name}");
        // its vertex 0 dragged up by 0.5
        let mut s = export(&l);
        let n = node_of(&s, 1);
        let m = s.nodes[n].mesh.unwrap();
        s.meshes[m].primitives[0].positions[0][1] += 0.5;
        let out = run(&l, &s);
        assert_eq!(
            out.summary.edited,
            vec![1],
            "{name}: {:?}",
            out.summary.warnings
        );
        let nl = written(&name, &out);
        let vis = &nl.visuals()[1];
        let mine = vis
            .find_chunk(|c| match c {
                OgfChunk::Vertices(b) => Some(b.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{name}: its own vertices"));
        assert!(vis
            .find_chunk(|c| matches!(c, OgfChunk::VContainer(_)).then_some(()))
            .is_none());
        assert_eq!((mine.fvf, mine.count), (own.fvf, own.count), "{name}");
        // vertex 0 is the quad's corner (3, 0, −1) raised to y = 0.5; the others keep their
        // bytes
        let p = mine.decode(UvOrder::for_version(version)).positions;
        let mut want = generate::OLD_QUAD_LIT.to_vec();
        want[0][1] = 0.5;
        assert!(close(&p, &want), "{name}: {p:?}");
        assert_eq!(mine.data[stride..], own.data[stride..], "{name}");
        // the level's buffers keep their bytes
        assert_eq!(buffer_bytes(&nl), buffer_bytes(&l), "{name}");
        tried += 1;
    }
    assert_eq!(tried, 2, "XRLC 8, plain and compressed");
}

#[test]
fn new_vertices_start_a_buffer_when_the_last_is_full() {
    let mut tried = 0;
    for (name, lb) in levels() {
        let mut l = Level::read(&lb).unwrap().0;
        // visual 0's buffer filled to 65,535 vertices (the padding: copies of its last vertex)
        let r0 = l.visuals()[0]
            .find_chunk(|c| match c {
                OgfChunk::VContainer(r) => Some(*r),
                _ => None,
            })
            .unwrap();
        let k = r0[0] as usize;
        let nbuf = buffer_bytes(&l).len();
        for c in &mut l.chunks {
            match &mut c.value {
                LevelChunk::VertexBuffers(v) => {
                    let b = &mut v[k];
                    let s = b.stride();
                    let last = b.data[b.data.len() - s..].to_vec();
                    let mut data = b.data.to_vec();
                    while data.len() / s < 65_535 {
                        data.extend_from_slice(&last);
                    }
                    b.data = data.into();
                    b.count = 65_535;
                }
                LevelChunk::FvfBuffers(v) => {
                    let b = &mut v[k];
                    let s = b.data.len() / b.count as usize;
                    let last = b.data[b.data.len() - s..].to_vec();
                    while b.data.len() / s < 65_535 {
                        b.data.extend_from_slice(&last);
                    }
                    b.count = 65_535;
                }
                _ => {}
            }
        }
        let (l, _) = reread(&l);
        let before = buffer_bytes(&l);
        // a box with visual 0's material: its layout, and so its buffer's
        let view = flat::flatten(&l).unwrap();
        let sid = view.level.visuals()[0].header().unwrap().shader_id;
        let material = view.level.shaders().unwrap()[usize::from(sid)].text();
        let mut s = export(&l);
        let centre = [2.0f32, 1.0, -3.0];
        let b = add_box(&mut s, centre, &material);
        let want = world_corners(&s, b);
        let out = run(&l, &s);
        assert_eq!(
            out.summary.added.len(),
            1,
            "{name}: {:?}",
            out.summary.warnings
        );
        let nl = written(&name, &out);
        let after = buffer_bytes(&nl);
        // a new buffer, the old ones unchanged
        assert_eq!(after.len(), nbuf + 1, "{name}");
        assert_eq!(after[..nbuf], before[..], "{name}");
        let v = nl.visuals().len() - 1;
        let r = nl.visuals()[v]
            .find_chunk(|c| match c {
                OgfChunk::VContainer(r) => Some(*r),
                _ => None,
            })
            .unwrap();
        assert_eq!((r[0] as usize, r[1]), (nbuf, 0), "{name}");
        let (stride_old, stride_new) =
            (before[k].len() / 65_535, after[nbuf].len() / r[2] as usize);
        assert_eq!(stride_old, stride_new, "{name}: the full buffer's layout");
        let again = export(&nl);
        let got = world_corners(&again, node_of(&again, v));
        assert!(close(&got, &want), "{name}");
        tried += 1;
    }
    assert_eq!(tried, 14);
}

#[test]
fn removing_renumbers_a_sector_that_points_at_a_non_root_visual() {
    use levelgeom_xray::sectors::SectorChunk;
    let mut tried = 0;
    for (name, lb) in levels() {
        let mut l = Level::read(&lb).unwrap().0;
        let nv = l.visuals().len();
        // a second sector whose root is visual 1 (a child of the hierarchy)
        for c in &mut l.chunks {
            if let LevelChunk::Sectors(ss) = &mut c.value {
                let mut s = ss[0].clone();
                for sc in &mut s.value.chunks {
                    if let SectorChunk::Root(r) = &mut sc.value {
                        *r = 1;
                    }
                }
                s.raw_id = ss.len() as u32;
                ss.push(s);
            }
        }
        let (l, _) = reread(&l);
        let roots =
            |l: &Level| -> Vec<u32> { l.sectors().iter().filter_map(|s| s.value.root()).collect() };
        assert_eq!(roots(&l), vec![nv as u32 - 1, 1], "{name}");
        // delete visual 0: every index past it moves down by one
        let mut s = export(&l);
        let n0 = node_of(&s, 0);
        let p = parent_of(&s, n0);
        s.nodes[p].children.retain(|&c| c != n0);
        let out = run(&l, &s);
        assert_eq!(
            out.summary.removed,
            vec![0],
            "{name}: {:?}",
            out.summary.warnings
        );
        // (and the written level passes the rules)
        let nl = written(&name, &out);
        assert_eq!(roots(&nl), vec![nv as u32 - 2, 0], "{name}");
        // the second sector's root is still the vertex-lit quad, the first the hierarchy
        assert_eq!(nl.visuals()[0], l.visuals()[1], "{name}");
        assert_eq!(
            nl.visuals()[nv - 2].children().len(),
            l.visuals()[nv - 1].children().len() - 1,
            "{name}"
        );
        tried += 1;
    }
    assert_eq!(tried, 14);
}
