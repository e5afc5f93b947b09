//! XRLC 4, 5, 8–12: the lights, glows and portals of old builds. The generator writes one of
//! each per build (values in `generate::old_level`'s docs); here the records are assembled by
//! hand from those values in each build's layout (blender-xray's importer and xray_re agree on
//! them: D3D7 light + 20-byte tail in 4/5, + `frame, flags, name[64]` in 8, `controller` +
//! D3D9 light from 9; 24-byte glows `pos, radius, u32 texture, u32 shader` before 12, 18 bytes
//! from 12; 4/5 portals with the count before the six vertices) and found as the payload of
//! the build's chunk; the decoded fields, the scene's light, glow and portal (hand-computed
//! glTF positions), truncated records and `info` are checked against them.

use levelgeom_scene::colour::srgb_to_linear;
use levelgeom_scene::{transform_point, LightKind, Scene};
use levelgeom_xray::generate::{self, Options};
use levelgeom_xray::level::OldLightTail;
use levelgeom_xray::{files, to_scene, Geom, Info, Level, SceneOptions};

const OLD: [u16; 7] = [4, 5, 8, 9, 10, 11, 12];

fn options() -> Vec<Options> {
    OLD.iter()
        .flat_map(|&version| [false, true].map(|compress| Options { version, compress }))
        .collect()
}

/// Chunk ids of (portals, lights, glows) per build (blender-xray `fmt.py`, xray_re).
fn ids(v: u16) -> (u32, u32, u32) {
    match v {
        4 | 5 => (7, 8, 10),
        8 => (6, 7, 9),
        9 => (6, 8, 9),
        _ => (4, 6, 7),
    }
}

/// (offset of the payload, payload) of top-level chunk `id`, walked here from the headers.
fn chunk(bytes: &[u8], id: u32) -> (usize, &[u8]) {
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let cid = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let size = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        if cid == id {
            return (at + 8, &bytes[at + 8..at + 8 + size]);
        }
        at += 8 + size;
    }
    panic!("no chunk {id}")
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The generator's light in the layout of build `v`, by hand.
fn light_bytes(v: u16) -> Vec<u8> {
    let mut b = Vec::new();
    if v >= 9 {
        b.extend(2u32.to_le_bytes()); // controller
    }
    b.extend((if v == 8 { 2u32 } else { 1 }).to_le_bytes()); // spot in 8, point elsewhere
    b.extend(f32s(&[1.0, 0.5, 0.25, 1.0])); // diffuse
    b.extend(f32s(&[0.1, 0.2, 0.3, 0.4])); // specular
    b.extend(f32s(&[0.0; 4])); // ambient
    b.extend(f32s(&[2.0, 3.0, -4.0])); // position
    b.extend(f32s(&[0.0, -1.0, 0.0])); // direction
    b.extend(f32s(&[10.0, 1.0, 1.0, 0.1, 0.01, 0.5, 1.0])); // range .. phi
    match v {
        4 | 5 => {
            b.extend(7u32.to_le_bytes());
            b.extend(3u32.to_le_bytes());
            b.extend(f32s(&[0.25, 2.0]));
            b.extend([0u8; 4]); // key start, key count
        }
        8 => {
            b.extend(7u32.to_le_bytes());
            b.extend(5u32.to_le_bytes());
            let mut name = [0u8; 64];
            name[..8].copy_from_slice(b"torch_01");
            name[63] = 0xCC;
            b.extend(name);
        }
        _ => {}
    }
    b
}

fn glow_bytes(v: u16) -> Vec<u8> {
    let mut b = f32s(&[1.0, 2.0, 3.0, 0.75]);
    match v {
        4 | 5 => [2u32, 2].iter().for_each(|x| b.extend(x.to_le_bytes())),
        8..=11 => [10u32, 9].iter().for_each(|x| b.extend(x.to_le_bytes())), // texture, shader
        _ => b.extend(5u16.to_le_bytes()),
    }
    b
}

fn portal_bytes(v: u16) -> Vec<u8> {
    let poly = f32s(&[
        0.0, 0.0, -7.0, 0.0, 3.0, -7.0, 0.0, 3.0, 6.0, 0.0, 0.0, 6.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0,
    ]);
    let mut b = vec![0u8; 4]; // sectors 0, 0
    if v <= 5 {
        b.extend(4u32.to_le_bytes());
        b.extend(poly);
    } else {
        b.extend(poly);
        b.extend(4u32.to_le_bytes());
    }
    b
}

#[test]
fn old_records_have_the_builds_layouts_and_rebuild_byte_for_byte() {
    for o in options() {
        let v = o.version;
        let (lb, _) = generate::level_bytes(o);
        let (pid, lid, gid) = ids(v);
        assert_eq!(chunk(&lb, lid).1, light_bytes(v), "{o:?} light");
        assert_eq!(chunk(&lb, gid).1, glow_bytes(v), "{o:?} glow");
        assert_eq!(chunk(&lb, pid).1, portal_bytes(v), "{o:?} portal");
        assert_eq!(
            light_bytes(v).len(),
            [124, 176, 108][usize::from(v >= 8) + usize::from(v >= 9)]
        );
        let l = Level::read(&lb).unwrap().0;
        assert_eq!(l.to_bytes().unwrap(), lb, "{o:?}");
        // decoded fields
        let p = l.portals();
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].sector_front, p[0].sector_back, p[0].count), (0, 0, 4));
        assert_eq!(p[0].poly[2], [0.0, 3.0, 6.0]);
        assert_eq!(p[0].poly[5], [9.0, 9.0, 9.0]);
        if v <= 8 {
            assert!(l.lights().is_empty());
            let [x] = l.old_lights() else {
                panic!("{o:?}: {:?}", l.old_lights())
            };
            assert_eq!(x.d3d.light_type, if v == 8 { 2 } else { 1 });
            assert_eq!(x.d3d.diffuse, [1.0, 0.5, 0.25, 1.0]);
            assert_eq!(x.d3d.position, [2.0, 3.0, -4.0]);
            assert_eq!((x.d3d.range, x.d3d.theta, x.d3d.phi), (10.0, 0.5, 1.0));
            assert_eq!(x.d3d.attenuation, [1.0, 0.1, 0.01]);
            match x.tail {
                OldLightTail::Build8 { frame, flags, name } => {
                    assert_eq!((v, frame, flags, name[63]), (8, 7, 5, 0xCC));
                    assert_eq!(x.name().as_deref(), Some("torch_01"));
                }
                OldLightTail::Build5 {
                    frame,
                    flags,
                    current_time,
                    speed,
                    key_start,
                    key_count,
                } => {
                    assert!(v <= 5);
                    assert_eq!((frame, flags, key_start, key_count), (7, 3, 0, 0));
                    assert_eq!((current_time, speed), (0.25, 2.0));
                }
            }
            // no controller stored: xray_re's 2 (static) for point and spot lights
            assert_eq!(x.to_light().controller, 2);
        } else {
            assert_eq!(l.lights().len(), 1);
            assert_eq!(l.lights()[0].controller, 2);
            assert_eq!(l.lights()[0].d3d.position, [2.0, 3.0, -4.0]);
        }
        if v <= 11 {
            let [g] = l.old_glows() else { panic!("{o:?}") };
            assert_eq!((g.position, g.radius), ([1.0, 2.0, 3.0], 0.75));
            let want = if v <= 5 { (2, 2) } else { (10, 9) };
            assert_eq!((g.texture, g.shader), want);
        } else {
            assert_eq!(l.glows()[0].shader, 5);
        }
        // a changed record is written back changed (the typed fields are what is written)
        let mut m = l.clone();
        for c in &mut m.chunks {
            match &mut c.value {
                levelgeom_xray::level::LevelChunk::OldLights(x) => x[0].d3d.position[0] = 8.0,
                levelgeom_xray::level::LevelChunk::Lights(x) => x[0].d3d.position[0] = 8.0,
                _ => {}
            }
        }
        let mb = m.to_bytes().unwrap();
        let (at, _) = chunk(&lb, lid);
        let px = at + if v >= 9 { 4 } else { 0 } + 4 + 48;
        assert_eq!(&mb[px..px + 4], &8f32.to_le_bytes(), "{o:?}");
        assert_eq!(mb.len(), lb.len());
    }
}

fn world(s: &Scene, name: &str) -> (usize, [f32; 16]) {
    let n = s.nodes.iter().position(|n| n.name == name).unwrap();
    (n, s.world_matrices()[n])
}

fn extra<'a>(x: &'a [(String, String)], k: &str) -> Option<&'a str> {
    x.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str())
}

#[test]
fn old_lights_glows_and_portals_reach_the_scene_at_their_gltf_positions() {
    for o in options() {
        let v = o.version;
        let l = Level::read(&generate::level_bytes(o).0).unwrap().0;
        let s = to_scene(
            &l,
            &Geom { chunks: Vec::new() },
            &SceneOptions {
                portals: true,
                ..SceneOptions::default()
            },
        )
        .unwrap();
        assert!(s.warnings.is_empty(), "{o:?}: {:?}", s.warnings);
        // light at X-Ray (2, 3, −4) → glTF (2, 3, 4)
        let (n, m) = world(&s, "light_000");
        assert_eq!([m[12], m[13], m[14]], [2.0, 3.0, 4.0], "{o:?}");
        let light = &s.lights[s.nodes[n].light.unwrap()];
        // diffuse (1, 0.5, 0.25) display-space → linear, brightest channel 1; range 10
        assert_eq!(
            light.color,
            [1.0, srgb_to_linear(0.5), srgb_to_linear(0.25)]
        );
        assert_eq!(light.intensity, 25.0); // 1 · (10 / 2)²
        assert_eq!(light.range, Some(10.0));
        assert_eq!(extra(&light.extras, "controller"), Some("2"));
        // the old record's tail (generate::old_light_chunk): frame 7, flags 5 and the name
        // "torch_01" in 8; frame 7, flags 3, time 0.25, speed 2, keys 0/0 in 4/5; none from 9
        let tail: Vec<Option<&str>> = ["frame", "flags", "name", "time", "speed", "key_count"]
            .iter()
            .map(|k| extra(&light.extras, k))
            .collect();
        let want = match v {
            8 => vec![Some("7"), Some("5"), Some("torch_01"), None, None, None],
            4 | 5 => vec![
                Some("7"),
                Some("3"),
                None,
                Some("0.25"),
                Some("2.0"),
                Some("0"),
            ],
            _ => vec![None; 6],
        };
        assert_eq!(tail, want, "{o:?}");
        if v == 8 {
            // theta 0.5, phi 1 are full cone angles: glTF 0.25, 0.5
            assert_eq!(
                light.kind,
                LightKind::Spot {
                    inner_cone: 0.25,
                    outer_cone: 0.5
                }
            );
            // shining along X-Ray (0, −1, 0) = glTF (0, −1, 0): the node's −Z
            let d = [-m[8], -m[9], -m[10]];
            assert!((d[1] + 1.0).abs() < 1e-6 && d[0].abs() < 1e-6 && d[2].abs() < 1e-6);
        } else {
            assert_eq!(light.kind, LightKind::Point, "{o:?}");
        }
        // glow at X-Ray (1, 2, 3) → glTF (1, 2, −3), its shader/texture pair named
        let (g, m) = world(&s, "glow_000");
        assert_eq!([m[12], m[13], m[14]], [1.0, 2.0, -3.0]);
        let x = &s.nodes[g].extras;
        assert_eq!(extra(x, "radius"), Some("0.75"));
        assert_eq!(
            extra(x, "shader"),
            Some("effects\\glow/glow\\glow_04"),
            "{o:?}"
        );
        // portal: the 4 used corners mirrored, (0,0,7) (0,3,7) (0,3,−6) (0,0,−6); pivot at the
        // centre of their box (0, 1.5, 0.5)
        let (p, m) = world(&s, "portal_000");
        assert_eq!([m[12], m[13], m[14]], [0.0, 1.5, 0.5]);
        let mesh = &s.meshes[s.nodes[p].mesh.unwrap()];
        let pts: Vec<[f32; 3]> = mesh.primitives[0]
            .positions
            .iter()
            .map(|&q| transform_point(&m, q))
            .collect();
        assert_eq!(
            pts,
            [
                [0.0, 0.0, 7.0],
                [0.0, 3.0, 7.0],
                [0.0, 3.0, -6.0],
                [0.0, 0.0, -6.0]
            ]
        );
        assert_eq!(mesh.primitives[0].indices.len(), 6, "two fan triangles");
        assert_eq!(extra(&s.nodes[p].extras, "sector_front"), Some("0"));
    }
}

#[test]
fn truncated_old_records_are_errors_with_their_offsets() {
    for version in OLD {
        let (lb, _) = generate::level_bytes(Options {
            version,
            compress: false,
        });
        let (pid, lid, gid) = ids(version);
        for (id, what) in [(lid, "light"), (gid, "glow"), (pid, "portal")] {
            // the chunk 4 bytes shorter: its size field and its payload
            let (at, body) = chunk(&lb, id);
            let mut b = lb[..at - 4].to_vec();
            b.extend((body.len() as u32 - 4).to_le_bytes());
            b.extend(&body[..body.len() - 4]);
            b.extend(&lb[at + body.len()..]);
            let e = Level::read(&b).unwrap_err();
            assert_eq!(e.offset as usize, at, "{version} {what}: {e}");
            let text = e.to_string();
            assert!(
                text.contains(&format!("{what} chunk of {} bytes", body.len() - 4)),
                "{version}: {text}"
            );
            // the chunk-file walk of `info` refuses it the same way
            assert_eq!(
                Info::read("level", &b).unwrap_err().to_string(),
                text,
                "{version} {what}"
            );
        }
    }
}

#[test]
fn info_names_old_visual_types_and_builds_without_decoding_buffers() {
    // xray_re's xr_level_version.h, corrected where the sources say otherwise: XRLC 11
    // is builds 1558/1569 (1537 unofficial), XRLC 12 has an OGF 3 and an OGF 4 layout, XRLC 4
    // is not in xray_re's table
    let builds = [
        (
            4,
            "builds 1096/1097 (blender-xray's users; not in xray_re's table)",
        ),
        (5, "build 1098"),
        (
            8,
            "early layout (indices inside the visuals): builds 1114, 1154 (xray_re reads them \
             without an index buffer chunk); late layout (fsL_IBUFFERS + OGF_ICONTAINER): no \
             public build known; 2002-09-30 layout (late, + fsL_LIGHT_CONTROL, 108-byte lights \
             in chunk 8): no public build known",
        ),
        (9, "build 1472"),
        (10, "build 1475"),
        (11, "builds 1558, 1569 (1537 unofficial)"),
        (
            12,
            "first layout (OGF 3, OGF_TEXTURE_L and 24-byte glows): no public build known; OGF 3 \
             layout: builds 1580–1865; OGF 4 layout: builds 1935–2218",
        ),
    ];
    for o in options() {
        let (lb, _) = generate::level_bytes(o);
        let info = Info::read("level", &lb).unwrap();
        let build = builds.iter().find(|b| b.0 == o.version).unwrap().1;
        let text = info.to_string();
        // no quality before XRLC 13; the name of the 128-byte header up to XRLC 10
        let name = if o.version <= 10 {
            format!(", name \"{}\"", generate::OLD_LEVEL_NAME)
        } else {
            String::new()
        };
        assert!(
            text.contains(&format!("XRLC version {} ({build}){name}\n", o.version)),
            "{text}"
        );
        assert_eq!(
            serde_json::to_value(&info).unwrap()["name"],
            if o.version <= 10 {
                serde_json::json!(generate::OLD_LEVEL_NAME)
            } else {
                serde_json::Value::Null
            }
        );
        assert!(!text.contains("unknown"), "{text}");
        let j = serde_json::to_value(&info).unwrap();
        assert_eq!(j["build"], build);
        assert_eq!(
            (j["lights"].as_u64(), j["glows"].as_u64()),
            (Some(1), Some(1))
        );
        assert_eq!(j["portals"], 1);
        let types: Vec<&str> = j["visuals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["type"].as_str().unwrap())
            .collect();
        let want: &[&str] = if o.version <= 8 {
            &["normal", "normal", "hierarchy"]
        } else {
            &["normal", "normal", "tree_st", "tree_st", "lod", "hierarchy"]
        };
        assert_eq!(types, want, "{o:?}");
        // OGF 2 in XRLC 4, 3 from 5 (generator's formats, generate::old_features)
        let ogf = if o.version <= 4 { 2 } else { 3 };
        assert!(j["visuals"]
            .as_array()
            .unwrap()
            .iter()
            .all(|v| v["ogf_version"] == ogf && v["type_id"] != 255));
        // the summary (buffers walked, not kept) shows what the full read shows, and refuses
        // what it refuses
        let full = |b: &[u8]| {
            Level::read(b).and_then(|(l, w)| Info::new("level", b, &files::Opened::Level(l), &w))
        };
        assert_eq!(info, full(&lb).unwrap());
        let summary = Level::read_summary(&lb, levelgeom_binary::Limits::DEFAULT).unwrap();
        assert!(summary.fvf_buffers().is_none() && summary.index_buffers().is_none());
        let step = (lb.len() / 113).max(1);
        for cut in (0..lb.len()).step_by(step) {
            let mut b = lb.clone();
            if cut % 2 == 0 {
                b.truncate(cut);
            } else {
                b[cut] ^= 0x5A;
            }
            let summary = Level::read_summary(&b, levelgeom_binary::Limits::DEFAULT);
            match (summary, Level::read(&b)) {
                (Ok(a), Ok((c, _))) => {
                    let i = |l| Info::new("level", &b, &files::Opened::Level(l), &[]).unwrap();
                    assert_eq!(i(a), i(c), "{o:?} at {cut}")
                }
                (Err(a), Err(c)) => assert_eq!(a.to_string(), c.to_string(), "{o:?} at {cut}"),
                (a, c) => panic!("{o:?} at {cut}: {a:?} vs {c:?}"),
            }
        }
    }
}
