//! The subset of the glTF 2.0 JSON schema the writer emits, as serde structs.
//!
//! Field order is declaration order (serde derives), optional members are skipped when absent
//! or at their schema default, and maps (`attributes`, `extras`) are [`Ordered`] lists, so
//! the JSON text is a deterministic function of the scene.

use std::borrow::Cow;

use rayon::prelude::*;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde::Serialize as DeriveSerialize;

/// A JSON object whose members keep insertion order (keys must already be unique).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Ordered<V, K = String>(pub Vec<(K, V)>);

impl<V, K> Ordered<V, K> {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<V: Serialize, K: Serialize> Serialize for Ordered<V, K> {
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

/// Elements of a large array serialised together, one run per task of the pool.
const RUN: usize = 256;

impl Root {
    /// The compact JSON text of the document — serde_json's bytes of `self`, byte for byte —
    /// as segments to be written one after the other. Members are written in declaration
    /// order with the derive's skips; the large arrays (`nodes`, `meshes`, `accessors`,
    /// `bufferViews`) in runs of [`RUN`] elements on the pool: serde_json writes an object as
    /// `{`, then `"key":value` joined by `,`, then `}`, and an array as `[`, the elements joined
    /// by `,`, `]`, so elements serialised apart and joined so are the same text. Each large
    /// array is dropped once written (its memory given back before the next one's text is
    /// made), the bufferViews excepted: they are returned, as the buffer's layout.
    pub fn into_segments(self) -> serde_json::Result<(Vec<Vec<u8>>, Vec<BufferViewJ>)> {
        let mut t = Text::default();
        t.member("asset", &self.asset)?;
        if !self.extensions_used.is_empty() {
            t.member("extensionsUsed", &self.extensions_used)?;
        }
        if let Some(e) = &self.extensions {
            t.member("extensions", e)?;
        }
        t.member("scene", &self.scene)?;
        t.member("scenes", &self.scenes)?;
        t.runs("nodes", &self.nodes)?;
        drop(self.nodes);
        t.runs("meshes", &self.meshes)?;
        drop(self.meshes);
        if !self.materials.is_empty() {
            t.member("materials", &self.materials)?;
        }
        if !self.textures.is_empty() {
            t.member("textures", &self.textures)?;
        }
        if !self.images.is_empty() {
            t.member("images", &self.images)?;
        }
        if !self.samplers.is_empty() {
            t.member("samplers", &self.samplers)?;
        }
        t.runs("accessors", &self.accessors)?;
        drop(self.accessors);
        t.runs("bufferViews", &self.buffer_views)?;
        if !self.buffers.is_empty() {
            t.member("buffers", &self.buffers)?;
        }
        Ok((t.finish(), self.buffer_views))
    }
}

/// A JSON object's text being written as segments ([`Root::segments`]).
#[derive(Default)]
struct Text {
    done: Vec<Vec<u8>>,
    /// The segment being written.
    cur: Vec<u8>,
    members: usize,
}

impl Text {
    /// `{` or `,`, then `"key":`.
    fn key(&mut self, key: &str) -> serde_json::Result<()> {
        self.cur.push(if self.members == 0 { b'{' } else { b',' });
        self.members += 1;
        serde_json::to_writer(&mut self.cur, key)?;
        self.cur.push(b':');
        Ok(())
    }

    /// One member.
    fn member<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> serde_json::Result<()> {
        self.key(key)?;
        serde_json::to_writer(&mut self.cur, value)
    }

    /// An array member, left out when empty (`skip_serializing_if = "Vec::is_empty"`), its
    /// elements serialised in runs on the pool; each run a segment.
    fn runs<T: Serialize + Sync>(&mut self, key: &str, items: &[T]) -> serde_json::Result<()> {
        if items.is_empty() {
            return Ok(());
        }
        self.key(key)?;
        self.cur.push(b'[');
        self.done.push(std::mem::take(&mut self.cur));
        let runs: Vec<serde_json::Result<Vec<u8>>> = items
            .par_chunks(RUN)
            .enumerate()
            .map(|(r, run)| {
                let mut text = Vec::new();
                for (i, item) in run.iter().enumerate() {
                    if r > 0 || i > 0 {
                        text.push(b',');
                    }
                    serde_json::to_writer(&mut text, item)?;
                    if i == 0 {
                        // sized once from the first element (the elements of a list are alike)
                        // instead of doubled up to the run's length: less memory copied and
                        // faulted in
                        text.reserve((text.len() + 1) * (run.len() + run.len() / 8));
                    }
                }
                Ok(text)
            })
            .collect();
        for run in runs {
            self.done.push(run?);
        }
        self.cur.push(b']');
        Ok(())
    }

    /// The segments, the object closed.
    fn finish(mut self) -> Vec<Vec<u8>> {
        if self.members == 0 {
            self.cur.push(b'{');
        }
        self.cur.push(b'}');
        self.done.push(self.cur);
        self.done
    }
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
    /// Semantic → accessor; the semantics of glTF's own attributes are static strings.
    pub attributes: Ordered<usize, Cow<'static, str>>,
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
    /// Written as the exact `f64` value of each `f32`, so it equals the data bit for bit. Only
    /// POSITION has bounds (three components, written as a JSON array as a `Vec` would be),
    /// boxed so that the other accessors stay small.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<Box<[f64; 3]>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<Box<[f64; 3]>>,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn node(i: usize) -> NodeJ {
        NodeJ {
            name: format!("n\"{i}\u{e9}"),
            mesh: (i % 3 != 0).then_some(i / 2),
            children: (0..i % 4).collect(),
            matrix: (i % 5 == 0).then_some([0.1 * i as f32; 16]),
            extensions: (i % 7 == 0).then_some(NodeExtensions {
                light: NodeLight { light: i },
            }),
            extras: Ordered(if i % 2 == 0 {
                vec![("hidden".into(), serde_json::Value::Bool(true))]
            } else {
                Vec::new()
            }),
        }
    }

    fn mesh(i: usize) -> MeshJ {
        MeshJ {
            name: if i % 2 == 0 {
                String::new()
            } else {
                format!("m{i}")
            },
            primitives: vec![PrimitiveJ {
                attributes: Ordered(vec![("POSITION".into(), i), (format!("_X{i}").into(), 1)]),
                indices: i + 1,
                material: (i % 2 == 0).then_some(0),
                mode: (i % 3 == 0).then_some(1),
            }],
        }
    }

    fn accessor(i: usize) -> AccessorJ {
        AccessorJ {
            buffer_view: i,
            component_type: 5126,
            count: i * 3,
            kind: "VEC3",
            min: (i % 2 == 0).then(|| Box::new([-1.5, f64::from(i as f32 * 0.1), -0.0])),
            max: (i % 2 == 0).then(|| Box::new([1e-7, 3e30, i as f64])),
        }
    }

    fn view(i: usize) -> BufferViewJ {
        BufferViewJ {
            buffer: 0,
            byte_offset: i * 12,
            byte_length: 12,
            target: (i % 2 == 0).then_some(34962),
        }
    }

    /// A document with every member, its large arrays longer than a run (and one of exactly
    /// a run's length plus one): the segments joined are serde_json's own text of the struct.
    #[test]
    fn segments_are_serde_jsons_text() {
        let root = Root {
            asset: Asset {
                version: "2.0",
                generator: "g".into(),
            },
            extensions_used: vec!["KHR_lights_punctual", "KHR_materials_unlit"],
            extensions: Some(RootExtensions {
                lights_punctual: LightList {
                    lights: vec![LightJ {
                        name: "l".into(),
                        kind: "spot",
                        color: [1.0, 0.5, 0.25],
                        intensity: 2.0,
                        range: Some(3.0),
                        spot: Some(SpotJ {
                            inner_cone_angle: 0.1,
                            outer_cone_angle: 0.2,
                        }),
                        extras: Ordered::default(),
                    }],
                },
            }),
            scene: 0,
            scenes: vec![SceneJ {
                name: "s".into(),
                nodes: vec![0, 1],
            }],
            nodes: (0..3 * RUN + 7).map(node).collect(),
            meshes: (0..RUN + 1).map(mesh).collect(),
            materials: vec![MaterialJ {
                name: "mat".into(),
                pbr: Pbr {
                    base_color_factor: [1.0, 0.0, 0.5, 1.0],
                    base_color_texture: Some(TextureInfo { index: 0 }),
                    metallic_factor: 0.0,
                },
                alpha_mode: Some("MASK"),
                alpha_cutoff: Some(0.5),
                double_sided: true,
                extensions: Some(MaterialExtensions { unlit: Empty {} }),
                extras: Ordered(vec![("k".into(), serde_json::Value::String("v".into()))]),
            }],
            textures: vec![TextureJ {
                name: "t".into(),
                sampler: 0,
                source: 0,
            }],
            images: vec![ImageJ {
                name: String::new(),
                uri: None,
                mime_type: Some("image/png"),
                buffer_view: Some(0),
            }],
            samplers: vec![SamplerJ {
                mag_filter: 9728,
                min_filter: 9728,
                wrap_s: 10497,
                wrap_t: 10497,
            }],
            accessors: (0..2 * RUN).map(accessor).collect(),
            buffer_views: (0..RUN - 1).map(view).collect(),
            buffers: vec![BufferJ {
                byte_length: 64,
                uri: Some("a.bin".into()),
            }],
        };
        let want = serde_json::to_vec(&root).unwrap_or_default();
        let (got, views) = root.into_segments().unwrap_or_default();
        // the header, then per large array its opening and its runs (one for 255 views)
        assert_eq!(got.len(), 1 + (1 + 4) + (1 + 2) + (1 + 2) + (1 + 1));
        assert!(
            got.concat() == want,
            "the segments differ from serde_json's text"
        );
        assert_eq!(views.len(), RUN - 1);
    }

    /// A document with nothing optional: the same text as serde_json's.
    #[test]
    fn segments_of_a_bare_document() {
        let root = Root {
            asset: Asset {
                version: "2.0",
                generator: String::new(),
            },
            extensions_used: Vec::new(),
            extensions: None,
            scene: 0,
            scenes: Vec::new(),
            nodes: Vec::new(),
            meshes: Vec::new(),
            materials: Vec::new(),
            textures: Vec::new(),
            images: Vec::new(),
            samplers: Vec::new(),
            accessors: Vec::new(),
            buffer_views: Vec::new(),
            buffers: Vec::new(),
        };
        let want = serde_json::to_vec(&root).unwrap_or_default();
        let got = root.into_segments().unwrap_or_default().0.concat();
        assert_eq!(
            String::from_utf8_lossy(&got),
            r#"{"asset":{"version":"2.0"},"scene":0,"scenes":[]}"#
        );
        assert!(got == want);
    }
}
