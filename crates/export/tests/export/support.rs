//! Hand-built scenes with known values, and an independent GLB reader.

use levelgeom_scene::*;
use serde_json::Value;

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
        positions: QUAD_POS.to_vec(),
        normals: vec![[0.0, 0.0, 2.0]; 4],
        tangents: vec![[1.0, 0.0, 0.0, 1.0]; 4],
        uvs: vec![QUAD_UV.to_vec()],
        colors: vec![QUAD_COL.to_vec()],
        scalars: vec![("HEMI".to_string(), HEMI.to_vec())],
        indices: QUAD_IDX.to_vec(),
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

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// A GLB split by hand: the JSON and the BIN chunk.
pub struct Parsed {
    pub json: Value,
    pub json_chunk: Vec<u8>,
    pub bin: Vec<u8>,
}

/// Parse the 12-byte header and the chunks (asserting the container rules on the way).
pub fn parse_glb(b: &[u8]) -> Parsed {
    assert_eq!(&b[0..4], b"glTF");
    assert_eq!(u32_at(b, 4), 2, "GLB version");
    assert_eq!(u32_at(b, 8) as usize, b.len(), "GLB total length");
    let jlen = u32_at(b, 12) as usize;
    assert_eq!(&b[16..20], b"JSON");
    assert_eq!(jlen % 4, 0, "JSON chunk length multiple of 4");
    let json_chunk = b[20..20 + jlen].to_vec();
    let text = std::str::from_utf8(&json_chunk).unwrap();
    // padding is spaces, which JSON parsers skip
    let json: Value = serde_json::from_str(text.trim_end_matches(' ')).unwrap();
    let mut at = 20 + jlen;
    let mut bin = Vec::new();
    if at < b.len() {
        let blen = u32_at(b, at) as usize;
        assert_eq!(&b[at + 4..at + 8], b"BIN\0");
        assert_eq!(blen % 4, 0, "BIN chunk length multiple of 4");
        bin = b[at + 8..at + 8 + blen].to_vec();
        at += 8 + blen;
    }
    assert_eq!(at, b.len(), "no bytes after the chunks");
    Parsed {
        json,
        json_chunk,
        bin,
    }
}

impl Parsed {
    /// The bytes of bufferView `v`.
    pub fn view(&self, v: usize) -> &[u8] {
        let bv = &self.json["bufferViews"][v];
        let off = bv["byteOffset"].as_u64().unwrap_or(0) as usize;
        let len = bv["byteLength"].as_u64().unwrap() as usize;
        &self.bin[off..off + len]
    }

    /// Float components of accessor `a` (tightly packed, as the writer documents).
    pub fn floats(&self, a: usize) -> Vec<f32> {
        let acc = &self.json["accessors"][a];
        assert_eq!(acc["componentType"], 5126);
        let comps = match acc["type"].as_str().unwrap() {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            t => panic!("type {t}"),
        };
        let count = acc["count"].as_u64().unwrap() as usize;
        let off = acc["byteOffset"].as_u64().unwrap_or(0) as usize;
        let data = &self.view(acc["bufferView"].as_u64().unwrap() as usize)[off..];
        (0..count * comps)
            .map(|i| f32::from_le_bytes(data[i * 4..i * 4 + 4].try_into().unwrap()))
            .collect()
    }

    /// Index values of accessor `a` and its component type.
    pub fn indices(&self, a: usize) -> (u64, Vec<u32>) {
        let acc = &self.json["accessors"][a];
        let ct = acc["componentType"].as_u64().unwrap();
        let count = acc["count"].as_u64().unwrap() as usize;
        let data = self.view(acc["bufferView"].as_u64().unwrap() as usize);
        let v = match ct {
            5123 => (0..count)
                .map(|i| u16::from_le_bytes([data[2 * i], data[2 * i + 1]]) as u32)
                .collect(),
            5125 => (0..count).map(|i| u32_at(data, 4 * i)).collect(),
            _ => panic!("index type {ct}"),
        };
        (ct, v)
    }

    /// Accessor index of `attr` in primitive `p` of mesh `m`.
    pub fn attr(&self, m: usize, p: usize, attr: &str) -> Option<usize> {
        self.json["meshes"][m]["primitives"][p]["attributes"][attr]
            .as_u64()
            .map(|v| v as usize)
    }
}

/// Flatten fixed arrays for comparison.
pub fn flat<const N: usize>(v: &[[f32; N]]) -> Vec<f32> {
    v.iter().flatten().copied().collect()
}
