//! The subset of the glTF 2.0 JSON schema the writer emits, as serde structs.
//!
//! Field order is declaration order (serde derives), optional members are skipped when absent
//! or at their schema default, and maps (`attributes`, `extras`) are [`Ordered`] lists, so
//! the JSON text is a deterministic function of the scene.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde::Serialize as DeriveSerialize;

/// A JSON object whose members keep insertion order (keys must already be unique).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Ordered<V>(pub Vec<(String, V)>);

impl<V> Ordered<V> {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<V: Serialize> Serialize for Ordered<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// An always-empty JSON object (`{}`), e.g. the body of `KHR_materials_unlit`.
#[derive(Clone, Copy, Debug, Default, DeriveSerialize)]
pub(crate) struct Empty {}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct Root {
    pub asset: Asset,
    #[serde(rename = "extensionsUsed", skip_serializing_if = "Vec::is_empty")]
    pub extensions_used: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<RootExtensions>,
    pub scene: usize,
    pub scenes: Vec<SceneJ>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<NodeJ>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub meshes: Vec<MeshJ>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub materials: Vec<MaterialJ>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub textures: Vec<TextureJ>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageJ>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub samplers: Vec<SamplerJ>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub accessors: Vec<AccessorJ>,
    #[serde(rename = "bufferViews", skip_serializing_if = "Vec::is_empty")]
    pub buffer_views: Vec<BufferViewJ>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub buffers: Vec<BufferJ>,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct Asset {
    pub version: &'static str,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub generator: String,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct SceneJ {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<usize>,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct NodeJ {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mesh: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matrix: Option<[f32; 16]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<NodeExtensions>,
    #[serde(skip_serializing_if = "Ordered::is_empty")]
    pub extras: Ordered<serde_json::Value>,
}

/// Document-level extensions: the `KHR_lights_punctual` light list.
#[derive(Debug, DeriveSerialize)]
pub(crate) struct RootExtensions {
    #[serde(rename = "KHR_lights_punctual")]
    pub lights_punctual: LightList,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct LightList {
    pub lights: Vec<LightJ>,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct LightJ {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub color: [f32; 3],
    pub intensity: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spot: Option<SpotJ>,
    #[serde(skip_serializing_if = "Ordered::is_empty")]
    pub extras: Ordered<serde_json::Value>,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct SpotJ {
    #[serde(rename = "innerConeAngle")]
    pub inner_cone_angle: f32,
    #[serde(rename = "outerConeAngle")]
    pub outer_cone_angle: f32,
}

/// Node extensions: the light the node places.
#[derive(Debug, DeriveSerialize)]
pub(crate) struct NodeExtensions {
    #[serde(rename = "KHR_lights_punctual")]
    pub light: NodeLight,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct NodeLight {
    pub light: usize,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct MeshJ {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    pub primitives: Vec<PrimitiveJ>,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct PrimitiveJ {
    pub attributes: Ordered<usize>,
    pub indices: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub material: Option<usize>,
    /// `1` (LINES) for line primitives; absent (the default, 4 = TRIANGLES) otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct MaterialJ {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(rename = "pbrMetallicRoughness")]
    pub pbr: Pbr,
    #[serde(rename = "alphaMode", skip_serializing_if = "Option::is_none")]
    pub alpha_mode: Option<&'static str>,
    #[serde(rename = "alphaCutoff", skip_serializing_if = "Option::is_none")]
    pub alpha_cutoff: Option<f32>,
    #[serde(rename = "doubleSided", skip_serializing_if = "std::ops::Not::not")]
    pub double_sided: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<MaterialExtensions>,
    #[serde(skip_serializing_if = "Ordered::is_empty")]
    pub extras: Ordered<serde_json::Value>,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct Pbr {
    #[serde(rename = "baseColorFactor")]
    pub base_color_factor: [f32; 4],
    #[serde(rename = "baseColorTexture", skip_serializing_if = "Option::is_none")]
    pub base_color_texture: Option<TextureInfo>,
    #[serde(rename = "metallicFactor")]
    pub metallic_factor: f32,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct TextureInfo {
    pub index: usize,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct MaterialExtensions {
    #[serde(rename = "KHR_materials_unlit")]
    pub unlit: Empty,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct TextureJ {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    pub sampler: usize,
    pub source: usize,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct ImageJ {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<&'static str>,
    #[serde(rename = "bufferView", skip_serializing_if = "Option::is_none")]
    pub buffer_view: Option<usize>,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct SamplerJ {
    #[serde(rename = "magFilter")]
    pub mag_filter: u32,
    #[serde(rename = "minFilter")]
    pub min_filter: u32,
    #[serde(rename = "wrapS")]
    pub wrap_s: u32,
    #[serde(rename = "wrapT")]
    pub wrap_t: u32,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct AccessorJ {
    #[serde(rename = "bufferView")]
    pub buffer_view: usize,
    #[serde(rename = "componentType")]
    pub component_type: u32,
    pub count: usize,
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Written as the exact `f64` value of each `f32`, so it equals the data bit for bit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<Vec<f64>>,
}

#[derive(Clone, Debug, DeriveSerialize)]
pub(crate) struct BufferViewJ {
    pub buffer: usize,
    #[serde(rename = "byteOffset")]
    pub byte_offset: usize,
    #[serde(rename = "byteLength")]
    pub byte_length: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<u32>,
}

#[derive(Debug, DeriveSerialize)]
pub(crate) struct BufferJ {
    #[serde(rename = "byteLength")]
    pub byte_length: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
}
