//! A GLB read by hand, asserting the container rules on the way.

use std::path::Path;

use serde_json::Value;

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// A GLB split into its JSON and BIN chunks.
pub struct Glb {
    /// The JSON document.
    pub json: Value,
    /// The JSON chunk's bytes, padding included.
    pub json_chunk: Vec<u8>,
    /// The BIN chunk's bytes (empty when there is none).
    pub bin: Vec<u8>,
}

/// Components per element of an accessor `type`.
fn components(ty: &str) -> usize {
    match ty {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        t => panic!("accessor type {t}"),
    }
}

impl Glb {
    /// Parse the 12-byte header and the chunks: magic, version 2, total length, JSON chunk
    /// first and 4-byte aligned, an optional BIN chunk, nothing after.
    pub fn parse(b: &[u8]) -> Glb {
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
        Glb {
            json,
            json_chunk,
            bin,
        }
    }

    /// Read and [`Glb::parse`] a file.
    pub fn read(p: &Path) -> Glb {
        Glb::parse(&std::fs::read(p).unwrap())
    }

    /// A top-level JSON array (`nodes`, `meshes`…), empty when absent.
    pub fn array(&self, key: &str) -> &[Value] {
        self.json[key].as_array().map_or(&[], |a| a.as_slice())
    }

    /// The node called `name`.
    pub fn node(&self, name: &str) -> &Value {
        self.array("nodes")
            .iter()
            .find(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("no glTF node {name}"))
    }

    /// Names of the root nodes of scene 0.
    pub fn root_names(&self) -> Vec<&str> {
        self.json["scenes"][0]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                self.array("nodes")[i.as_u64().unwrap() as usize]["name"]
                    .as_str()
                    .unwrap()
            })
            .collect()
    }

    /// The bytes of bufferView `v`.
    pub fn view(&self, v: usize) -> &[u8] {
        let bv = &self.json["bufferViews"][v];
        let off = bv["byteOffset"].as_u64().unwrap_or(0) as usize;
        let len = bv["byteLength"].as_u64().unwrap() as usize;
        &self.bin[off..off + len]
    }

    /// Accessor `a` and its bytes from its offset on (tightly packed: the writer never sets
    /// `byteStride`, which is asserted).
    pub fn accessor_bytes(&self, a: usize) -> (&Value, &[u8]) {
        let acc = &self.array("accessors")[a];
        let v = acc["bufferView"].as_u64().unwrap() as usize;
        assert!(self.json["bufferViews"][v].get("byteStride").is_none());
        let off = acc["byteOffset"].as_u64().unwrap_or(0) as usize;
        (acc, &self.view(v)[off..])
    }

    /// Float components of accessor `a`, flat.
    pub fn floats(&self, a: usize) -> Vec<f32> {
        let (acc, data) = self.accessor_bytes(a);
        assert_eq!(acc["componentType"], 5126, "FLOAT");
        let comps = components(acc["type"].as_str().unwrap());
        let count = acc["count"].as_u64().unwrap() as usize;
        (0..count * comps)
            .map(|i| f32::from_le_bytes(data[i * 4..i * 4 + 4].try_into().unwrap()))
            .collect()
    }

    /// Float accessor `a` as rows of its component count.
    pub fn rows(&self, a: usize) -> Vec<Vec<f32>> {
        let (acc, _) = self.accessor_bytes(a);
        let comps = components(acc["type"].as_str().unwrap());
        self.floats(a).chunks(comps).map(<[f32]>::to_vec).collect()
    }

    /// Index values of accessor `a` and its component type (5121, 5123 or 5125).
    pub fn indices(&self, a: usize) -> (u64, Vec<u32>) {
        let (acc, data) = self.accessor_bytes(a);
        let ct = acc["componentType"].as_u64().unwrap();
        let count = acc["count"].as_u64().unwrap() as usize;
        let v = match ct {
            5121 => data[..count].iter().map(|&b| u32::from(b)).collect(),
            5123 => (0..count)
                .map(|i| u32::from(u16::from_le_bytes([data[2 * i], data[2 * i + 1]])))
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
