//! Planning one glTF export: the JSON document and the layout of its buffer, built phase by
//! phase (textures, materials, meshes cleaned, nodes, lights, meshes laid out, the root) over
//! one [`Builder`] that holds the run's state.

use std::borrow::Cow;

use levelgeom_scene::{AlphaMode, Scene, TextureSource, IDENTITY};

use super::json::*;
use super::{
    bounds, extras, forest, light_json, primitive, uri_encode, Bounds, GltfOptions, Layout, Plan,
    ViewData, NEAREST, REPEAT,
};
use crate::clean::{
    bake, clean_hollow, clean_primitive, is_trs, mul64, CleanPrimitive, Label, Repairs,
};
use crate::ExportError;

/// The state of one planned export, shared by its phases.
struct Builder<'a, 'e> {
    scene: &'a Scene,
    /// `Some(bin_uri)` for `.gltf` + `.bin`, `None` for GLB.
    files: Option<&'e str>,
    /// PNG bytes of textures already encoded, by scene texture index.
    encoded: &'e [Option<&'a [u8]>],
    rep: Repairs,
    buf: Layout,
    /// Embedded PNGs, in image order.
    pngs: Vec<Cow<'a, [u8]>>,
}

/// The textures phase: images, textures, and `map[i]` = glTF texture of scene texture i.
struct Textures {
    images: Vec<ImageJ>,
    textures: Vec<TextureJ>,
    map: Vec<Option<usize>>,
}

/// The materials phase: same indices as the scene.
struct Materials {
    materials: Vec<MaterialJ>,
    /// Whether material i got a texture.
    textured: Vec<bool>,
    any_unlit: bool,
}

/// The meshes, each cleaned once: `map[i]` = glTF mesh of scene mesh i (None when nothing is
/// drawable), `count` of them.
struct Cleaned<'a> {
    prims: Vec<Vec<CleanPrimitive<'a>>>,
    map: Vec<Option<usize>>,
    count: usize,
}

/// The node tree repaired into a forest, with each node's matrix and mesh, and the baked
/// copies asked for (scene mesh, matrix).
struct Tree {
    children: Vec<Vec<usize>>,
    roots: Vec<usize>,
    matrix: Vec<Option<[f32; 16]>>,
    mesh: Vec<Option<usize>>,
    baked: Vec<(usize, [f64; 16])>,
}

/// An export planned up to the layout of its buffer: everything cleaned and decided (the
/// primitives written and their order, the warnings so far), the meshes not yet laid out and
/// the JSON not yet written ([`Prepared::finish`]). The hollow primitives' keys are known
/// from here on ([`Prepared::hollow_keys`]), so their filling can start while the rest is done.
pub(super) struct Prepared<'a, 'e> {
    b: Builder<'a, 'e>,
    generator: String,
    textures: Textures,
    materials: Materials,
    cleaned: Cleaned<'a>,
    tree: Tree,
    lights: Vec<LightJ>,
    nodes: Vec<NodeJ>,
    baked_prims: Vec<Vec<CleanPrimitive<'a>>>,
}

/// Build the JSON document and the buffer. `files`: `Some(bin_uri)` for `.gltf` + `.bin`
/// (decoded textures referenced as PNG files), `None` for GLB (everything embedded).
/// `encoded`: PNG bytes of textures already encoded, by scene texture index (see
/// [`super::write_glb`]).
pub(super) fn build<'a>(
    scene: &'a Scene,
    opts: &GltfOptions,
    files: Option<&str>,
    encoded: &[Option<&'a [u8]>],
) -> Result<Plan<'a>, ExportError> {
    prepare(scene, opts, files, encoded)?.finish()
}

/// The phases of [`build`] up to the layout: textures, materials, meshes cleaned, nodes,
/// lights, baked copies. A hollow mesh that would need baking is refused here.
pub(super) fn prepare<'a, 'e>(
    scene: &'a Scene,
    opts: &GltfOptions,
    files: Option<&'e str>,
    encoded: &'e [Option<&'a [u8]>],
) -> Result<Prepared<'a, 'e>, ExportError> {
    let mut b = Builder {
        scene,
        files,
        encoded,
        rep: Repairs::default(),
        buf: Layout::default(),
        pngs: Vec::new(),
    };
    let textures = b.textures();
    let materials = b.materials(&textures.map);
    let cleaned = b.clean_meshes(&materials.textured);
    let tree = b.tree(&cleaned);
    let (lights, light_map) = b.lights();
    let nodes = b.nodes(&tree, &light_map);
    if let Some((mi, _)) = tree
        .baked
        .iter()
        .find(|(mi, _)| cleaned.prims[*mi].iter().any(|c| c.hollow.is_some()))
    {
        return Err(ExportError::NeedsData {
            what: format!("mesh {mi} (a node matrix to bake into it)"),
        });
    }
    let baked_prims: Vec<Vec<CleanPrimitive<'a>>> = tree
        .baked
        .iter()
        .map(|(mi, eff)| {
            cleaned.prims[*mi]
                .iter()
                .map(|c| bake(c, eff, &mut b.rep))
                .collect()
        })
        .collect();
    Ok(Prepared {
        b,
        generator: opts.generator.clone(),
        textures,
        materials,
        cleaned,
        tree,
        lights,
        nodes,
        baked_prims,
    })
}

impl<'a> Prepared<'a, '_> {
    /// The source keys of the hollow primitives, in buffer order (a baked copy is never
    /// hollow: [`prepare`] refuses it).
    pub fn hollow_keys(&self) -> Vec<usize> {
        self.cleaned
            .prims
            .iter()
            .flatten()
            .filter_map(|c| c.hollow.map(|h| h.key))
            .collect()
    }

    /// The meshes laid out and the JSON document serialised (then dropped, its views kept).
    pub fn finish(self) -> Result<Plan<'a>, ExportError> {
        let Prepared {
            mut b,
            generator,
            textures,
            materials,
            cleaned,
            tree,
            lights,
            nodes,
            baked_prims,
        } = self;
        let scene = b.scene;
        let meshes = b.meshes(&cleaned, &tree.baked, &baked_prims);
        let bin_len = padded(b.buf.len);
        let samplers = if textures.textures.is_empty() {
            Vec::new()
        } else {
            vec![SamplerJ {
                mag_filter: NEAREST,
                min_filter: NEAREST,
                wrap_s: REPEAT,
                wrap_t: REPEAT,
            }]
        };
        let mut extensions_used = Vec::new();
        if materials.any_unlit {
            extensions_used.push("KHR_materials_unlit");
        }
        if !lights.is_empty() {
            extensions_used.push("KHR_lights_punctual");
        }
        let root = Root {
            asset: Asset {
                version: "2.0",
                generator,
            },
            extensions_used,
            extensions: (!lights.is_empty()).then_some(RootExtensions {
                lights_punctual: LightList { lights },
            }),
            scene: 0,
            scenes: vec![SceneJ {
                name: scene.name.clone(),
                nodes: tree.roots,
            }],
            nodes,
            meshes,
            materials: materials.materials,
            textures: textures.textures,
            images: textures.images,
            samplers,
            accessors: std::mem::take(&mut b.buf.accessors),
            buffer_views: std::mem::take(&mut b.buf.views),
            buffers: if bin_len == 0 {
                Vec::new()
            } else {
                vec![BufferJ {
                    byte_length: bin_len,
                    uri: b.files.map(str::to_string),
                }]
            },
        };
        // Serialising plain structs of finite numbers and strings cannot fail; map it anyway.
        let (json, views) = root.into_segments().map_err(|e| ExportError::TooLarge {
            what: format!("glTF JSON ({e})"),
        })?;
        let prims = cleaned
            .prims
            .into_iter()
            .flatten()
            .chain(baked_prims.into_iter().flatten())
            .collect();
        Ok(Plan {
            json_len: json.iter().map(Vec::len).sum(),
            json,
            views,
            bin_len,
            layout: b.buf,
            prims,
            images: b.pngs,
            rep: b.rep,
        })
    }
}

/// `len` rounded up to a multiple of 4 (the buffer's padded length).
fn padded(len: usize) -> usize {
    len + (4 - len % 4) % 4
}

impl<'a> Builder<'a, '_> {
    /// Textures and images, in scene order.
    fn textures(&mut self) -> Textures {
        let mut out = Textures {
            images: Vec::new(),
            textures: Vec::new(),
            map: Vec::with_capacity(self.scene.textures.len()),
        };
        let scene = self.scene;
        for (i, t) in scene.textures.iter().enumerate() {
            let image = self.image(i, t);
            out.map.push(image.map(|img| {
                out.images.push(img);
                out.textures.push(TextureJ {
                    name: t.name.clone(),
                    sampler: 0,
                    source: out.images.len() - 1,
                });
                out.textures.len() - 1
            }));
        }
        out
    }

    /// The image of scene texture `i`, or `None` (with a warning where it is an error).
    fn image(&mut self, i: usize, t: &'a levelgeom_scene::Texture) -> Option<ImageJ> {
        // a PNG given for an embedded texture is its pixels' (`write_glb`'s contract): the
        // pixels are neither checked nor read (a caller may leave them out)
        let given = self.files.is_none() && self.encoded.get(i).copied().flatten().is_some();
        match &t.source {
            TextureSource::Rgba8 {
                width,
                height,
                pixels,
            } => match (
                self.files,
                if given {
                    Ok(())
                } else {
                    crate::png::check_rgba8(*width, *height, pixels.len())
                },
            ) {
                (_, Err(e)) => {
                    self.rep
                        .warn(format!("texture {i} {:?}: {e}; left out", t.name));
                    None
                }
                (Some(_), Ok(())) => Some(ImageJ {
                    name: t.name.clone(),
                    uri: Some(crate::texture_file_name(t)),
                    mime_type: None,
                    buffer_view: None,
                }),
                (None, Ok(())) => match self.encoded.get(i).copied().flatten().map_or_else(
                    || crate::png::encode_rgba8(*width, *height, pixels).map(Cow::Owned),
                    |b| Ok(Cow::Borrowed(b)),
                ) {
                    Ok(png) => {
                        let len = png.len();
                        self.pngs.push(png);
                        let view = self
                            .buf
                            .view(len, None, ViewData::Image(self.pngs.len() - 1));
                        Some(ImageJ {
                            name: t.name.clone(),
                            uri: None,
                            mime_type: Some("image/png"),
                            buffer_view: Some(view),
                        })
                    }
                    Err(e) => {
                        self.rep
                            .warn(format!("texture {i} {:?}: {e}; left out", t.name));
                        None
                    }
                },
            },
            TextureSource::External { uri } if uri.is_empty() => {
                self.rep
                    .warn(format!("texture {i} {:?}: empty uri; left out", t.name));
                None
            }
            TextureSource::Unresolved { .. } => None,
            TextureSource::External { uri } => Some(ImageJ {
                name: t.name.clone(),
                uri: Some(uri_encode(uri)),
                mime_type: None,
                buffer_view: None,
            }),
        }
    }

    /// Materials, same indices as the scene.
    fn materials(&mut self, tex_map: &[Option<usize>]) -> Materials {
        let scene = self.scene;
        let rep = &mut self.rep;
        let mut out = Materials {
            materials: Vec::with_capacity(scene.materials.len()),
            textured: Vec::with_capacity(scene.materials.len()),
            any_unlit: false,
        };
        for (i, m) in scene.materials.iter().enumerate() {
            let label = format!("material {i} {:?}", m.name);
            let texture = match m.texture {
                None => None,
                Some(t) => match tex_map.get(t).copied().flatten() {
                    Some(g) => Some(TextureInfo { index: g }),
                    // a texture known by name only is left out on purpose (a glTF reader would
                    // fail on the missing file); the OBJ/MTL still name it
                    None if matches!(
                        scene.textures.get(t).map(|x| &x.source),
                        Some(TextureSource::Unresolved { .. })
                    ) =>
                    {
                        None
                    }
                    None => {
                        rep.warn(format!("{label}: texture {t} is missing; left untextured"));
                        None
                    }
                },
            };
            out.textured.push(texture.is_some());
            let (alpha_mode, alpha_cutoff) = match m.alpha {
                AlphaMode::Opaque => (None, None),
                AlphaMode::Mask(c) => (Some("MASK"), Some(rep.clamp(c, 0.0, f32::MAX))),
                AlphaMode::Blend => (Some("BLEND"), None),
            };
            out.any_unlit |= m.unlit;
            let c = m.base_color;
            out.materials.push(MaterialJ {
                name: m.name.clone(),
                pbr: Pbr {
                    base_color_factor: [
                        rep.clamp(c[0], 0.0, 1.0),
                        rep.clamp(c[1], 0.0, 1.0),
                        rep.clamp(c[2], 0.0, 1.0),
                        rep.clamp(c[3], 0.0, 1.0),
                    ],
                    base_color_texture: texture,
                    metallic_factor: 0.0,
                },
                alpha_mode,
                alpha_cutoff,
                double_sided: m.double_sided,
                extensions: m.unlit.then_some(MaterialExtensions { unlit: Empty {} }),
                extras: extras(&m.extras, &label, rep),
            });
        }
        out
    }

    /// Every mesh cleaned once, the meshes in parallel (their repairs gathered in mesh order,
    /// so the warnings come as they would one mesh after the other). Meshes are written after
    /// the nodes, which may ask for baked copies.
    fn clean_meshes(&mut self, textured: &[bool]) -> Cleaned<'a> {
        use rayon::prelude::*;
        let scene: &'a Scene = self.scene;
        let each: Vec<(Vec<CleanPrimitive<'a>>, Repairs)> = scene
            .meshes
            .par_iter()
            .enumerate()
            .map(|(mi, mesh)| {
                let mut rep = Repairs::default();
                let prims = clean_mesh(scene, mi, mesh, textured, &mut rep);
                (prims, rep)
            })
            .collect();
        let mut out = Cleaned {
            prims: Vec::with_capacity(scene.meshes.len()),
            map: Vec::with_capacity(scene.meshes.len()),
            count: 0,
        };
        for (prims, rep) in each {
            self.rep.absorb(rep);
            if prims.is_empty() {
                out.map.push(None);
            } else {
                out.map.push(Some(out.count));
                out.count += 1;
            }
            out.prims.push(prims);
        }
        out
    }

    /// Nodes, same indices as the scene, with the tree repaired into a forest. A matrix glTF
    /// cannot hold (not translation·rotation·scale: shear, zero scale, projection) is baked:
    /// the node gets no matrix, its mesh is replaced by a transformed copy, and its children
    /// are pre-multiplied by it. Parents are visited before their children.
    fn tree(&mut self, cleaned: &Cleaned<'_>) -> Tree {
        let scene = self.scene;
        let rep = &mut self.rep;
        let (children, roots) = forest(scene, rep);
        let n = scene.nodes.len();
        let mut is_child = vec![false; n];
        children.iter().flatten().for_each(|&c| is_child[c] = true);
        let mut order = Vec::with_capacity(n);
        let mut stack: Vec<usize> = (0..n).rev().filter(|&x| !is_child[x]).collect();
        while let Some(x) = stack.pop() {
            order.push(x);
            stack.extend(children[x].iter().rev());
        }
        let mut pending: Vec<Option<[f64; 16]>> = vec![None; n];
        let mut tree = Tree {
            children,
            roots,
            matrix: vec![None; n],
            mesh: vec![None; n],
            baked: Vec::new(),
        };
        let identity = IDENTITY.map(|v| v as f64);
        for &x in &order {
            let node = &scene.nodes[x];
            let label = Label(|f| write!(f, "node {x} {:?}", node.name));
            let local = if node.matrix.iter().any(|v| !v.is_finite()) {
                rep.warn(format!("{label}: non-finite matrix; wrote identity"));
                identity
            } else {
                node.matrix.map(|v| v as f64)
            };
            let eff = match &pending[x] {
                Some(p) => mul64(p, &local),
                None => local,
            };
            let bake_with = if eff == identity {
                None
            } else if is_trs(&eff) {
                tree.matrix[x] = Some(eff.map(|v| v as f32));
                None
            } else {
                Some(eff)
            };
            for &c in &tree.children[x] {
                pending[c] = bake_with;
            }
            tree.mesh[x] = match node.mesh {
                None => None,
                Some(m) => match cleaned.map.get(m) {
                    Some(Some(g)) => match bake_with {
                        None => Some(*g),
                        Some(eff) => {
                            tree.baked.push((m, eff));
                            Some(cleaned.count + tree.baked.len() - 1)
                        }
                    },
                    Some(None) => {
                        rep.warn(format!("{label}: mesh {m} has nothing drawable; left out"));
                        None
                    }
                    None => {
                        rep.warn(format!("{label}: mesh {m} does not exist; left out"));
                        None
                    }
                },
            };
            if bake_with.is_some() {
                rep.warn(format!(
                    "{label}: matrix is not translation·rotation·scale; baked into its mesh and children"
                ));
            }
        }
        tree
    }

    /// Lights (KHR_lights_punctual): only valid ones, renumbered (`map[i]` = glTF light of
    /// scene light i).
    fn lights(&mut self) -> (Vec<LightJ>, Vec<Option<usize>>) {
        let mut lights = Vec::new();
        let mut map = Vec::with_capacity(self.scene.lights.len());
        for (li, l) in self.scene.lights.iter().enumerate() {
            let label = format!("light {li} {:?}", l.name);
            match light_json(l, &label, &mut self.rep) {
                Some(j) => {
                    map.push(Some(lights.len()));
                    lights.push(j);
                }
                None => map.push(None),
            }
        }
        (lights, map)
    }

    /// The nodes' JSON; nodes naming an invalid or missing light get none.
    fn nodes(&mut self, tree: &Tree, light_map: &[Option<usize>]) -> Vec<NodeJ> {
        let mut nodes = Vec::with_capacity(self.scene.nodes.len());
        for (ni, node) in self.scene.nodes.iter().enumerate() {
            let label = Label(|f| write!(f, "node {ni} {:?}", node.name));
            let mut ex = extras(&node.extras, &label, &mut self.rep);
            if node.hidden && !ex.0.iter().any(|(k, _)| k == "hidden") {
                ex.0.push(("hidden".to_string(), serde_json::Value::Bool(true)));
            }
            nodes.push(NodeJ {
                name: node.name.clone(),
                mesh: tree.mesh[ni],
                children: tree.children[ni].clone(),
                matrix: tree.matrix[ni],
                extensions: match node.light.map(|l| light_map.get(l).copied().flatten()) {
                    None => None,
                    Some(Some(light)) => Some(NodeExtensions {
                        light: NodeLight { light },
                    }),
                    Some(None) => {
                        self.rep.warn(format!(
                            "{label}: light {:?} missing or invalid; left out",
                            node.light
                        ));
                        None
                    }
                },
                extras: ex,
            });
        }
        nodes
    }

    /// Meshes laid out in the buffer: the scene's own, then the baked copies (baked before,
    /// as baking only counts repairs, so the messages keep their order).
    fn meshes(
        &mut self,
        cleaned: &Cleaned<'a>,
        baked: &[(usize, [f64; 16])],
        baked_prims: &[Vec<CleanPrimitive<'a>>],
    ) -> Vec<MeshJ> {
        let scene = self.scene;
        let mut meshes = Vec::with_capacity(cleaned.count + baked.len());
        let mut next = 0usize;
        let own = cleaned
            .prims
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.is_empty())
            .map(|(mi, p)| (mi, p, ""));
        let copies = baked
            .iter()
            .zip(baked_prims)
            .map(|((mi, _), p)| (*mi, p, " (baked)"));
        let written: Vec<(usize, &Vec<CleanPrimitive<'a>>, &str)> = own.chain(copies).collect();
        // the POSITION bounds of every primitive, in parallel, in the order written
        let bounds: Vec<Bounds> = {
            use rayon::prelude::*;
            let all: Vec<&CleanPrimitive<'a>> = written.iter().flat_map(|w| w.1).collect();
            all.par_iter().map(|c| bounds(c)).collect()
        };
        // every accessor and view of the meshes reserved at once (grown by doubling, each
        // reallocation copied the JSON structures and touched twice their pages)
        self.buf.reserve(
            written
                .iter()
                .flat_map(|w| w.1)
                .map(|c| {
                    2 + usize::from(c.has_normals())
                        + usize::from(c.has_tangents())
                        + c.uv_sets()
                        + c.colour_sets()
                        + c.scalar_names().len()
                        + c.vector_names().len()
                })
                .sum(),
        );
        for (mi, prims, what) in written {
            let name = &scene.meshes[mi].name;
            let primitives = prims
                .iter()
                .enumerate()
                .map(|(pi, c)| {
                    let label = Label(|f| write!(f, "mesh {mi} {name:?}{what} primitive {pi}"));
                    next += 1;
                    let b = bounds[next - 1];
                    primitive(&mut self.buf, next - 1, c, b, &label, &mut self.rep)
                })
                .collect();
            meshes.push(MeshJ {
                name: name.clone(),
                primitives,
            });
        }
        meshes
    }
}

/// The primitives of scene mesh `mi` cleaned (see [`clean_primitive`]); a textured one
/// without UVs gets zero UVs.
fn clean_mesh<'a>(
    scene: &'a Scene,
    mi: usize,
    mesh: &'a levelgeom_scene::Mesh,
    textured: &[bool],
    rep: &mut Repairs,
) -> Vec<CleanPrimitive<'a>> {
    let mut prims = Vec::with_capacity(mesh.primitives.len());
    for (pi, p) in mesh.primitives.iter().enumerate() {
        let label = Label(|f| write!(f, "mesh {mi} {:?} primitive {pi}", mesh.name));
        let cleaned = match &p.hollow {
            Some(h) => clean_hollow(p, h, scene.materials.len(), &label, rep),
            None => clean_primitive(p, scene.materials.len(), &label, rep),
        };
        let Some(mut c) = cleaned else {
            continue;
        };
        let needs_uv = c.material.is_some_and(|m| textured.get(m) == Some(&true));
        if needs_uv && c.uv_sets() == 0 {
            rep.warn(format!(
                "{label}: textured material but no UVs; wrote zero TEXCOORD_0"
            ));
            if c.hollow.is_some() {
                c.zero_uvs = true;
            } else {
                c.uvs.push(Cow::Owned(vec![[0.0; 2]; c.positions.len()]));
            }
        }
        prims.push(c);
    }
    prims
}
