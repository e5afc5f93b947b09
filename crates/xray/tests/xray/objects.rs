//! What a modder (and the X-Ray import) finds on the nodes: extras mapping each node back to its
//! visual, the lights, glows and portals of the level, and `--only` kinds. Expected values are
//! the fixture's hand-decoded fields (see `fixture.rs`) and hand-computed mappings.

use levelgeom_scene::colour::srgb_to_linear;
use levelgeom_scene::{LightKind, Scene};
use levelgeom_xray::chunk::Framed;
use levelgeom_xray::generate::{self, Options};
use levelgeom_xray::level::{self, D3dLight, LevelChunk, Light};
use levelgeom_xray::{to_scene, Geom, Level, LevelFiles, Only, SceneOptions};

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/data/xray-v14-micro/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn fixture(opts: &SceneOptions) -> (Level, Scene) {
    let l = Level::read(&read("level")).unwrap().0;
    let g = Geom::read(&read("level.geom")).unwrap().0;
    let s = to_scene(&l, &g, opts).unwrap();
    (l, s)
}

fn extra<'a>(x: &'a [(String, String)], k: &str) -> Option<&'a str> {
    x.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str())
}

fn node(s: &Scene, name: &str) -> usize {
    s.nodes.iter().position(|n| n.name == name).unwrap()
}

/// The fixture's shader table, as `fixture.rs` pins it.
const SHADERS: [&str; 8] = [
    "",
    "effects\\glow/glow\\glow_04",
    "def_shaders\\def_vertex/ston\\ston_beton04",
    "levels\\agroprom_grass/terrain\\terrain_dom,terrain\\terrain_dom_lm",
    "default/crete\\crete_roof1,lmap#1_1,lmap#1_2",
    "default/ston\\ston_beton_ch_09,lmap#1_1,lmap#1_2",
    "flora\\leaf_wave/trees\\trees_elka",
    "details\\lod/level_lods",
];

#[test]
fn every_visual_node_names_its_visual_type_shader_and_sector() {
    let (l, s) = fixture(&SceneOptions::default());
    let types = ["normal", "hierarchy", "lod", "tree_st"];
    for (i, v) in l.visuals().iter().enumerate() {
        let x = &s.nodes[i].extras;
        assert_eq!(extra(x, "visual"), Some(i.to_string().as_str()));
        let t = extra(x, "model_type").unwrap();
        assert!(types.contains(&t), "{t}");
        let sid: usize = extra(x, "shader_id").unwrap().parse().unwrap();
        assert_eq!(sid, usize::from(v.header().unwrap().shader_id));
        if sid == 0 {
            assert_eq!(extra(x, "shader"), None, "visual {i}");
        } else {
            assert_eq!(extra(x, "shader"), Some(SHADERS[sid]), "visual {i}");
        }
        // sector 0's root is visual 2 (no children), sector 1's visual 15 and all below it
        let want = if i == 2 { "0" } else { "1" };
        assert_eq!(extra(x, "sector"), Some(want), "visual {i}");
    }
    // the fixture's kinds by their shaders: trees use entry 6, LODs entry 7
    for i in [4, 6, 8, 10, 12] {
        assert_eq!(extra(&s.nodes[i].extras, "model_type"), Some("tree_st"));
        assert_eq!(extra(&s.nodes[i].extras, "shader_id"), Some("6"));
    }
    assert_eq!(extra(&s.nodes[15].extras, "model_type"), Some("hierarchy"));
}

#[test]
fn the_fixture_sun_and_glow_sit_where_the_record_says() {
    let (_, s) = fixture(&SceneOptions::default());
    let w = s.world_matrices();
    let level = &s.nodes[s.roots[0]];
    let lights = node(&s, "lights");
    let glows = node(&s, "glows");
    assert!(level.children.contains(&lights) && level.children.contains(&glows));
    // the light: D3D type 3 (directional), diffuse 1,1,1,1, direction bits 3F571ECF BED8616C
    // 3EADD421 = (0.84031385, -0.42261827, 0.33950904) in X-Ray space
    let ln = node(&s, "light_000");
    assert_eq!(s.nodes[lights].children, vec![ln]);
    let light = &s.lights[s.nodes[ln].light.unwrap()];
    assert_eq!(light.kind, LightKind::Directional);
    assert_eq!(light.color, [1.0; 3]);
    assert_eq!(light.intensity, 1.0);
    assert_eq!(light.range, None);
    assert_eq!(extra(&light.extras, "d3d_type"), Some("3"));
    assert_eq!(extra(&light.extras, "controller"), Some("1"));
    let d = [
        f32::from_bits(0x3F57_1ECF),
        f32::from_bits(0xBED8_616C),
        f32::from_bits(0x3EAD_D421),
    ];
    let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    let want = [d[0] / len, d[1] / len, -d[2] / len]; // mirrored into glTF space
                                                      // the node's local −Z in the world: minus its third column
    let m = w[ln];
    let got = [-m[8], -m[9], -m[10]];
    for k in 0..3 {
        assert!((got[k] - want[k]).abs() < 1e-6, "{got:?} vs {want:?}");
    }
    // the glow: position bits 402FFD28 3E7A8E80 C048CD3D, radius 0.5, shader 1
    let gn = node(&s, "glow_000");
    assert_eq!(s.nodes[glows].children, vec![gn]);
    let p = [0x402F_FD28u32, 0x3E7A_8E80, 0xC048_CD3D].map(f32::from_bits);
    assert_eq!([w[gn][12], w[gn][13], w[gn][14]], [p[0], p[1], -p[2]]);
    let x = &s.nodes[gn].extras;
    assert_eq!(extra(x, "radius"), Some("0.5"));
    assert_eq!(extra(x, "shader_id"), Some("1"));
    assert_eq!(extra(x, "shader"), Some(SHADERS[1]));
    assert!(s.nodes[gn].mesh.is_none() && s.nodes[gn].light.is_none());
}

/// The generated level with a point light, a spot light and a light of an unknown type.
fn generated_with_lights() -> (Level, Geom) {
    let (mut l, g) = generate::level(Options::default());
    let rec = |t: u32, diffuse: [f32; 4], range: f32, theta: f32, phi: f32| Light {
        controller: 2,
        d3d: D3dLight {
            light_type: t,
            diffuse,
            specular: [0.0; 4],
            ambient: [0.0; 4],
            position: [1.0, 2.0, 3.0],
            direction: [0.0, -1.0, 0.0],
            range,
            falloff: 1.0,
            attenuation: [1.0, 0.0, 0.0],
            theta,
            phi,
        },
    };
    let lights = vec![
        rec(1, [2.0, 1.0, 0.5, 1.0], 10.0, 0.0, 0.0),
        rec(2, [1.0, 1.0, 1.0, 1.0], 8.0, 0.5, 1.0),
        rec(9, [0.5, 0.5, 0.5, 1.0], -1.0, 0.0, 0.0),
        // a spot whose cone is garbage, one wider than a hemisphere, a black light
        rec(2, [1.0, 1.0, 1.0, 1.0], 4.0, 0.1, f32::NAN),
        rec(2, [1.0, 1.0, 1.0, 1.0], 4.0, 5.0, 4.0),
        rec(1, [0.0, -1.0, f32::INFINITY, 1.0], 4.0, 0.0, 0.0),
    ];
    l.chunks.insert(
        1,
        Framed::plain(level::LIGHT_DYNAMIC, LevelChunk::Lights(lights)),
    );
    (l, g)
}

#[test]
fn d3d_lights_map_to_punctual_lights_by_hand() {
    let (l, g) = generated_with_lights();
    let s = to_scene(&l, &g, &SceneOptions::default()).unwrap();
    assert_eq!(s.lights.len(), 6);
    // point: display (2, 1, 0.5) → linear by the sRGB curve; hue over the brightest channel,
    // brightness b = linear(2); intensity b·(range/2)² = 25·b candela
    let lin = |c: f64| ((c + 0.055) / 1.055).powf(2.4);
    let b = lin(2.0);
    let p = &s.lights[0];
    assert_eq!(p.kind, LightKind::Point);
    let want = [1.0, lin(1.0) / b, lin(0.5) / b];
    for (c, w) in p.color.iter().zip(want) {
        assert!((f64::from(*c) - w).abs() < 1e-6, "{:?}", p.color);
    }
    assert!(
        (f64::from(p.intensity) - 25.0 * b).abs() < 1e-4,
        "{}",
        p.intensity
    );
    assert_eq!(p.range, Some(10.0));
    // spot: D3D's full angles θ = 0.5, φ = 1.0 → glTF's half angles 0.25, 0.5; b = 1
    let sp = &s.lights[1];
    assert_eq!(
        sp.kind,
        LightKind::Spot {
            inner_cone: 0.25,
            outer_cone: 0.5
        }
    );
    assert_eq!(sp.intensity, 16.0);
    // unknown type 9: a point light, a warning; range −1 unusable: none, intensity b
    assert_eq!(s.lights[2].kind, LightKind::Point);
    assert_eq!(s.lights[2].range, None);
    assert_eq!(s.lights[2].intensity, srgb_to_linear(0.5));
    assert!(
        s.warnings.iter().any(|w| w.contains("light 2")),
        "{:?}",
        s.warnings
    );
    // NaN φ: a point light with a warning; φ/2 = 2 > π/2: clamped, inner (2.5) below it;
    // no usable channel: black, intensity 0 (glTF keeps it valid)
    assert_eq!(s.lights[3].kind, LightKind::Point);
    assert!(
        s.warnings.iter().any(|w| w.contains("light 3")),
        "{:?}",
        s.warnings
    );
    let LightKind::Spot {
        inner_cone,
        outer_cone,
    } = s.lights[4].kind
    else {
        panic!("{:?}", s.lights[4].kind)
    };
    assert_eq!(outer_cone, std::f32::consts::FRAC_PI_2);
    assert!(inner_cone < outer_cone && inner_cone > 1.5);
    assert_eq!((s.lights[5].color, s.lights[5].intensity), ([1.0; 3], 0.0));
    // placement: at the mirrored position (1, 2, −3); the spot shines down (−Z → −Y), the
    // point light is not rotated
    let w = s.world_matrices();
    let (pn, sn) = (node(&s, "light_000"), node(&s, "light_001"));
    assert_eq!(&w[pn][12..15], &[1.0, 2.0, -3.0]);
    assert_eq!(w[pn][..12], levelgeom_scene::IDENTITY[..12]);
    let down = [-w[sn][8], -w[sn][9], -w[sn][10]];
    assert!((down[1] + 1.0).abs() < 1e-6 && down[0].abs() < 1e-6 && down[2].abs() < 1e-6);
}

#[test]
fn portals_are_a_hidden_root_of_their_polygons() {
    let (_, without) = fixture(&SceneOptions::default());
    assert!(without.nodes.iter().all(|n| n.name != "portals"));
    let (_, s) = fixture(&SceneOptions {
        portals: true,
        ..SceneOptions::default()
    });
    let root = node(&s, "portals");
    assert!(s.roots.contains(&root) && s.nodes[root].hidden);
    let pn = s.nodes[root].children[0];
    let x = &s.nodes[pn].extras;
    assert_eq!(s.nodes[pn].name, "portal_000");
    assert_eq!(extra(x, "sector_front"), Some("0"));
    assert_eq!(extra(x, "sector_back"), Some("1"));
    // the polygon: 4 vertices (hand-decoded, X-Ray space), 2 triangles, placed at its centre
    let poly = [
        [-0.812_291_4, 0.420_072_02, -1.0],
        [0.812_291_4, 0.420_072_02, -1.0],
        [0.812_291_4, 0.812_291_4, -1.0],
        [-0.812_291_4, 0.812_291_4, -1.0],
    ];
    let w = s.world_matrices()[pn];
    assert_eq!(&w[12..15], &[0.0, (0.420_072_02 + 0.812_291_4) / 2.0, 1.0]);
    let p = &s.meshes[s.nodes[pn].mesh.unwrap()].primitives[0];
    assert_eq!(p.triangle_count(), 2);
    for (v, want) in p.positions.iter().zip(poly) {
        let at = levelgeom_scene::transform_point(&w, *v);
        let want = [want[0], want[1], -want[2]];
        for k in 0..3 {
            assert!((at[k] - want[k]).abs() < 1e-6, "{at:?} vs {want:?}");
        }
    }
    let mat = &s.materials[p.material.unwrap()];
    assert!(mat.double_sided);
}

fn mesh_kinds(s: &Scene) -> Vec<String> {
    let mut v: Vec<String> = s
        .nodes
        .iter()
        .filter(|n| n.mesh.is_some())
        .map(|n| extra(&n.extras, "model_type").unwrap().to_string())
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn only_keeps_one_kind_at_the_same_world_places() {
    let (_, all) = fixture(&SceneOptions {
        lods: true,
        ..SceneOptions::default()
    });
    let all_world = all.world_matrices();
    let world_of = |s: &Scene, name: &str| {
        let w = s.world_matrices();
        w[node(s, name)]
    };
    for (only, kinds, meshes) in [
        (Only::Static, vec!["normal"], 4),
        (Only::Trees, vec!["tree_st"], 5),
        (Only::Lods, vec!["lod"], 5),
    ] {
        let (_, s) = fixture(&SceneOptions {
            only: Some(only),
            ..SceneOptions::default()
        });
        assert_eq!(mesh_kinds(&s), kinds, "{only:?}");
        assert_eq!(s.nodes.iter().filter(|n| n.mesh.is_some()).count(), meshes);
        // no lights, glows, or nodes of other kinds (but the hierarchy groups above them)
        assert!(s.lights.is_empty());
        for n in &s.nodes {
            assert!(n.name != "lights" && n.name != "glows", "{only:?}");
            if let Some(t) = extra(&n.extras, "model_type") {
                assert!(
                    kinds.contains(&t) || n.mesh.is_none(),
                    "{only:?} {}",
                    n.name
                );
            }
        }
        // pivots do not depend on what is exported: same world matrices as the full export
        for n in s.nodes.iter().filter(|n| n.mesh.is_some()) {
            let w = world_of(&s, &n.name);
            let a = all_world[node(&all, &n.name)];
            for k in 0..16 {
                assert!((w[k] - a[k]).abs() < 1e-6, "{only:?} {}", n.name);
            }
        }
        // every node is reachable from the root (nothing dangling)
        let mut seen = vec![false; s.nodes.len()];
        let mut stack = s.roots.clone();
        while let Some(x) = stack.pop() {
            seen[x] = true;
            stack.extend(s.nodes[x].children.iter().copied());
        }
        assert!(seen.iter().all(|&b| b), "{only:?}");
    }
    // collision only: nothing of the level; through LevelFiles with `collision`, the cform
    let (_, s) = fixture(&SceneOptions {
        only: Some(Only::Collision),
        ..SceneOptions::default()
    });
    assert!(s.roots.is_empty() && s.meshes.is_empty());
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/xray-v14-micro");
    let s = LevelFiles::open(&dir)
        .unwrap()
        .to_scene(&SceneOptions {
            name: String::new(),
            only: Some(Only::Collision),
            collision: true,
            ..SceneOptions::default()
        })
        .unwrap();
    let names: Vec<&str> = s.roots.iter().map(|&r| s.nodes[r].name.as_str()).collect();
    assert_eq!(names, ["collision"]);
    assert_eq!(s.mesh_triangle_count(), 44);
}
