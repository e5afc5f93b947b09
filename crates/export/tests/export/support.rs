//! Hand-built scenes with known values, and an independent GLB reader.

use levelgeom_scene::*;

/// Column-major translation.
pub fn translate(x: f32, y: f32, z: f32) -> [f32; 16] {
    let mut m = IDENTITY;
    m[12] = x;
    m[13] = y;
    m[14] = z;
    m
}

/// Column-major scale.
pub fn scale(x: f32, y: f32, z: f32) -> [f32; 16] {
    let mut m = IDENTITY;
    m[0] = x;
    m[5] = y;
    m[10] = z;
    m
}

pub const QUAD_POS: [[f32; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0],
    [1.0, 1.0, 0.0],
    [0.0, 1.0, 0.0],
];
pub const QUAD_UV: [[f32; 2]; 4] = [[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.25, 0.125]];
pub const QUAD_COL: [[f32; 4]; 4] = [
    [1.0, 0.0, 0.0, 1.0],
    [0.0, 1.0, 0.0, 1.0],
    [0.0, 0.0, 1.0, 1.0],
    [0.5, 0.5, 0.5, 0.5],
];
pub const QUAD_IDX: [u32; 6] = [0, 1, 2, 0, 2, 3];
pub const HEMI: [f32; 4] = [0.1, 0.2, 0.3, 0.4];
/// 2×2 texture, row-major from the top-left.
pub const PIXELS: [u8; 16] = [
    255, 0, 0, 255, 0, 255, 0, 255, //
    0, 0, 255, 255, 255, 255, 255, 0,
];

/// The quad on z = 0, facing +z (counter-clockwise seen from +z), with a deliberately
/// un-normalised normal (0,0,2) that must come out as (0,0,1).
pub fn quad(material: Option<usize>) -> Primitive {
    Primitive {
        material,
        topology: Topology::Triangles,
        positions: QUAD_POS.to_vec(),
        normals: vec![[0.0, 0.0, 2.0]; 4],
        tangents: vec![[1.0, 0.0, 0.0, 1.0]; 4],
        uvs: vec![QUAD_UV.to_vec()],
        colors: vec![QUAD_COL.to_vec()],
        scalars: vec![("HEMI".to_string(), HEMI.to_vec())],
        vectors: Vec::new(),
        indices: QUAD_IDX.to_vec(),
        hollow: None,
    }
}

/// Node indices of [`scene`].
pub const ROOT: usize = 0;
pub const NODE_A: usize = 1;
pub const NODE_B: usize = 2;
pub const HIDDEN: usize = 3;

/// root (translate x+10) → a (identity, mesh 0), b (translate z+5 · scale 2, mesh 0);
/// hidden root "collision" (mesh 1: blended quad plus an empty primitive).
/// Material 0: textured, double-sided, masked 0.5, unlit, extras. Material 1: blended colour.
pub fn scene() -> Scene {
    let mut s = Scene {
        name: "test".into(),
        ..Scene::default()
    };
    s.textures.push(Texture {
        name: "page_00".into(),
        source: TextureSource::Rgba8 {
            width: 2,
            height: 2,
            pixels: PIXELS.to_vec(),
        },
    });
    s.materials.push(Material {
        name: "mat textured".into(),
        texture: Some(0),
        double_sided: true,
        alpha: AlphaMode::Mask(0.5),
        unlit: true,
        extras: vec![("blend_mode".into(), "2".into())],
        ..Material::default()
    });
    s.materials.push(Material {
        name: "glass".into(),
        base_color: [0.5, 0.25, 1.0, 0.75],
        alpha: AlphaMode::Blend,
        ..Material::default()
    });
    s.add_mesh(Mesh {
        name: "quad".into(),
        primitives: vec![quad(Some(0))],
    });
    let mut blended = quad(Some(1));
    blended.uvs.clear();
    s.add_mesh(Mesh {
        name: "collision".into(),
        primitives: vec![Primitive::default(), blended],
    });
    let root = s.add_node(Node {
        name: "root".into(),
        matrix: translate(10.0, 0.0, 0.0),
        children: vec![NODE_A, NODE_B],
        ..Node::default()
    });
    s.add_node(Node {
        name: "a".into(),
        mesh: Some(0),
        ..Node::default()
    });
    s.add_node(Node {
        name: "b".into(),
        mesh: Some(0),
        matrix: mul(&translate(0.0, 0.0, 5.0), &scale(2.0, 2.0, 2.0)),
        extras: vec![("swap_state".into(), "alternative".into())],
        ..Node::default()
    });
    let hidden = s.add_node(Node {
        name: "collision".into(),
        mesh: Some(1),
        hidden: true,
        ..Node::default()
    });
    s.roots = vec![root, hidden];
    s
}

/// A GLB split by hand (the shared test reader).
pub use levelgeom_testkit::glb::Glb as Parsed;

/// Parse the 12-byte header and the chunks (asserting the container rules on the way).
pub fn parse_glb(b: &[u8]) -> Parsed {
    Parsed::parse(b)
}

/// Flatten fixed arrays for comparison.
pub fn flat<const N: usize>(v: &[[f32; N]]) -> Vec<f32> {
    v.iter().flatten().copied().collect()
}

/// [`scene`] plus three lights: a point light on node a, a spot light on a new child of b
/// (so it inherits b's transform) and an invalid spot light (outer cone > π/2) on the root.
pub fn scene_with_lights() -> Scene {
    let mut s = scene();
    s.lights.push(Light {
        name: "lamp".into(),
        kind: LightKind::Point,
        color: [1.0, 0.5, 0.25],
        intensity: 3.0,
        range: Some(12.0),
        extras: vec![("record".into(), "0".into())],
    });
    s.lights.push(Light {
        name: "torch".into(),
        kind: LightKind::Spot {
            inner_cone: 0.25,
            outer_cone: 0.5,
        },
        color: [0.0, 1.0, 0.0],
        intensity: 1.0,
        range: None,
        extras: Vec::new(),
    });
    s.lights.push(Light {
        name: "bad".into(),
        kind: LightKind::Spot {
            inner_cone: 0.0,
            outer_cone: 2.0,
        },
        color: [1.0; 3],
        intensity: 1.0,
        range: None,
        extras: Vec::new(),
    });
    s.nodes[NODE_A].light = Some(0);
    let torch = s.add_node(Node {
        name: "torch".into(),
        light: Some(1),
        ..Node::default()
    });
    s.nodes[NODE_B].children.push(torch);
    s.nodes[ROOT].light = Some(2);
    s
}
