//! Conversion of a typed level into the engine-neutral scene model ([`levelgeom_scene::Scene`]).
//!
//! # Node tree
//!
//! | node | mesh | contents |
//! |------|------|----------|
//! | `level` | – | one child per MAP tile that draws something, in tile order |
//! | `tile_TTTT_mMMM` | yes | TRAK model `MMM` placed by tile `TTTT`; extras `tile`, `model`, `rot` (with [`SceneOptions::zones`] also `zone`, `zone_colour`, `anim_flag`). Tiles whose model has no faces (collision-only tiles) get no node |
//! | `swap` (hidden) | – | only when the level has swap tiles (`WFPC & 0x10000`): the alternative states, which the game does not show until the swap |
//! | `tile_TTTT_mBBB_swap` | yes | a swap tile's alternative model B, extras `swap_state = alternative` (the tile's own node under `level` gets `primary`) |
//! | `collision` (hidden) | – | with [`SceneOptions::collision`]: one child per (ground material, group) |
//! | `matNN_grpG` | yes | every collision polygon of material `NN` (decimal) in group `G` (0..2) |
//! | `light_NNN` | – | under `level`: LGHT light `NNN` as a punctual light ([`lights`]) |
//! | `objects` | – | with [`SceneOptions::objects`]: the MAP objects where they stand ([`objects`]) |
//! | `map_object_NNN` | – | MAP object `NNN`: its position and yaw as the node matrix, its raw fields as extras |
//! | `map_object_NNN_stpc_MMM` | yes | STPC model `MMM`, which the object's definition references (one mesh per model, shared) |
//! | `map_object_NNN_marker` | yes | for objects that reference no mesh: a small octahedron |
//! | `objects_catalogue` | – | with [`SceneOptions::objects_catalogue`]: the STPC models side by side |
//! | `object_III` | yes | STPC model `III` in its stored (bind) pose, moved by the node matrix |
//!
//! # Decisions
//! * **World positions are baked into the vertices** of one mesh per tile (node matrix =
//!   identity), so OBJ and glTF carry the same numbers and a vertex's position can be checked
//!   without composing transforms; placement per docs/formats/argonaut-wad.md §15 ([`placement`]). Models are not
//!   shared between tiles because their vertex colours differ per tile anyway.
//! * The model a tile draws is taken from MAP's model-index list (what the renderer and the
//!   colour blocks use); record A's `model` is the same in every known level, and a mismatch
//!   is reported as a warning.
//! * Winding: the game's front face is the side the stored face plane points to; see
//!   [`mesh`] for why that means the stored order `(v0, v1, v2)` in glTF.
//! * UVs per docs/formats/argonaut-wad.md §16 ([`uv`]), vertex colours per docs/formats/argonaut-wad.md §18 / §12.1 ([`colour`]),
//!   materials per page and render state ([`material`]), collision per docs/formats/argonaut-wad.md §12.4
//!   ([`collision`]).
//! * Textures: one per TEXT page, named `page_NN`, decoded to RGBA8 (8-bit pages through the
//!   palette their texture entries name, see [`TextView::from_text`]). A page that cannot be
//!   decoded (an 8-bit page without its palette, a broken RLE stream) is left out with a
//!   warning; its materials then have no texture.
//! * Swap tiles: both states are exported, the primary under `level` (what the game shows
//!   first), the alternative under the hidden root `swap`, so a viewer of the level shows one
//!   state per tile and a modder still has both (the export writes `swap` into files of its
//!   own); `extras.swap_state` tells them apart. Collision is
//!   exported for the tiles' own models only (the alternative's would overlap). A swap record
//!   whose model A is not the tile's model, and records beyond the flagged tiles, are warned
//!   about (the k-th record belongs to the k-th flagged tile, docs/formats/argonaut-wad.md §18.10).
//! * Objects in place: see [`objects`] (placement rule, what is confirmed). Lights: see
//!   [`lights`].
//! * Object catalogue: STPC vertices are exported as stored. For skinned models that is taken to be the
//!   bind pose (the seed gives only per-bone vertex counts, kept in
//!   `extras.bone_vertex_counts`; no bind matrices are stored with the model). They sit in a
//!   row along +x, 3 units beyond the grid's z = 0 edge, each moved by its node matrix so its
//!   mesh keeps the model's own origin.
//! * Faces: flags 0x1/0x2 (special sort/transparency modes, meaning uncertain) and the
//!   entry's mode bits 8–10 do not change the material.
//! * Everything is created in file order (tiles, faces, pages), so the scene, and therefore
//!   the exported bytes, are a pure function of the level.

use std::collections::{BTreeMap, BTreeSet};

use levelgeom_scene::{roots, Node, Primitive, Scene, Texture, TextureSource, IDENTITY};

use crate::level::Level;
use crate::map::{Map, TileSwap};
use crate::model::{Face, Model};
use crate::stpc::Stpc;
use crate::text::Text;
use crate::trak::Trak;

pub mod collision;
pub mod colour;
pub mod lights;
pub mod material;
pub mod mesh;
pub mod objects;
pub mod placement;
pub mod routes;
pub mod uv;

use material::{MaterialKey, Materials};
use mesh::FaceLook;
use placement::Placement;

/// What to convert.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SceneOptions {
    /// Negate z (and reverse the winding so front faces stay front).
    pub mirror_z: bool,
    /// Add the collision polygons under a hidden `collision` root.
    pub collision: bool,
    /// Add the MAP objects where they stand, with their STPC meshes, under an `objects` root.
    pub objects: bool,
    /// Add the STPC object models side by side under an `objects_catalogue` root.
    pub objects_catalogue: bool,
    /// Give every tile node its zone: extras `zone` (the zone number of its cell, absent for
    /// a tile outside the grid), `zone_colour` (`#RRGGBB` of [`crate::map::zones::PALETTE`])
    /// and the tile's flag word `anim_flag` (crate::map::Tile).
    pub zones: bool,
}

/// Why a level cannot be converted at all (smaller problems become [`Scene::warnings`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SceneError {
    /// A chunk the level geometry needs is missing.
    #[error("the level has no {0} chunk, which holds its geometry")]
    MissingChunk(&'static str),
}

/// One TEXT texture entry, as far as the export needs it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EntryView {
    /// Entry flags (bit 0 flat colour, bits 12–14 blend mode).
    pub flags: u16,
    /// Page index (0xFF = none in the samples; any index past the pages is unusable).
    pub page: u8,
    /// `u0, u1, v0, v1` (or R, G, B, extra for flat colours).
    pub rect: [u8; 4],
}

/// One TEXT page, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageView {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// RGBA8 pixels (top row first), or why they could not be decoded.
    pub rgba: Result<Vec<u8>, String>,
}

/// What the conversion needs from TEXT: entries and decoded pages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextView {
    /// Texture entries, indexed by a face's `texture`.
    pub entries: Vec<EntryView>,
    /// Pages, indexed by an entry's `page`.
    pub pages: Vec<PageView>,
    /// What the decoding noticed (e.g. entries that disagree on an 8-bit page's palette);
    /// [`build`] passes them on as scene warnings.
    pub warnings: Vec<String>,
}

impl TextView {
    /// The entries and decoded pages of a TEXT chunk.
    ///
    /// An 8-bit page is decoded through the palette its texture entries name in their second
    /// byte (docs/formats/argonaut-wad.md §6.1: the material's palette byte selects it). A page is exported as one
    /// image, so when its entries name different palettes the first entry's wins (with a
    /// warning); when no entry names a valid palette, the first palette is used.
    pub fn from_text(text: &Text) -> TextView {
        let mut warnings = Vec::new();
        let pages = text
            .pages
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let rgba = if matches!(p.data, crate::text::PageData::Indexed(_)) {
                    let pal = page_palette(text, i, &mut warnings);
                    p.to_rgba8_with(text.palettes.get(pal))
                } else {
                    p.to_rgba8(&text.palettes)
                };
                PageView {
                    width: p.width,
                    height: p.height,
                    rgba: rgba.map_err(|e| e.to_string()),
                }
            })
            .collect();
        TextView {
            entries: text
                .entries
                .iter()
                .map(|e| EntryView {
                    flags: e.flags,
                    page: e.page,
                    rect: [e.u0, e.u1, e.v0, e.v1],
                })
                .collect(),
            pages,
            warnings,
        }
    }
}

/// The palette an 8-bit page is decoded through: the second byte of the first textured entry
/// on `page` that names an existing palette, else palette 0 (see [`TextView::from_text`]).
fn page_palette(text: &Text, page: usize, warnings: &mut Vec<String>) -> usize {
    let named: BTreeSet<(usize, usize)> = text
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.is_flat_colour() && usize::from(e.page) == page)
        .filter(|(_, e)| usize::from(e.extra) < text.palettes.len())
        .map(|(i, e)| (i, usize::from(e.extra)))
        .collect();
    let Some(&(first_entry, pal)) = named.iter().next() else {
        return 0;
    };
    let others: BTreeSet<usize> = named
        .iter()
        .map(|&(_, p)| p)
        .filter(|&p| p != pal)
        .collect();
    if !others.is_empty() {
        let list: Vec<String> = others.iter().map(|p| p.to_string()).collect();
        warnings.push(format!(
            "TEXT/pages[{page}]: 8-bit page decoded through palette {pal} (entry {first_entry}); other entries name palette(s) {}",
            list.join(", ")
        ));
    }
    pal
}

/// Convert a level into a scene: its TRAK tiles placed by MAP, with TEXT materials, and the
/// collision and STPC objects when asked for (see the module docs for the node tree).
///
/// # Errors
/// [`SceneError::MissingChunk`] when the level has no TRAK or no MAP chunk. Everything
/// smaller (a bad texture index, a short colour block, a degenerate collision polygon) is a
/// warning in [`Scene::warnings`].
pub fn to_scene(level: &Level, opts: &SceneOptions) -> Result<Scene, SceneError> {
    let trak = level.trak().ok_or(SceneError::MissingChunk("TRAK"))?;
    let map = level.map().ok_or(SceneError::MissingChunk("MAP"))?;
    let text = match level.text() {
        Some(t) => TextView::from_text(t),
        None => TextView::default(),
    };
    let mut text = text;
    // the decoded pages move into the scene's textures (the view keeps their sizes)
    let pixels = text
        .pages
        .iter_mut()
        .map(|p| std::mem::replace(&mut p.rgba, Ok(Vec::new())))
        .collect();
    let mut scene = build_with(trak, map, level.stpc(), &text, pixels, opts);
    let lights = level_lights(level, opts);
    if let Some(root) = scene.roots.first().copied() {
        let centre = [
            f64::from(map.grid_w) / 2.0,
            if opts.mirror_z { 1.0 } else { -1.0 } * f64::from(map.grid_h) / 2.0,
        ];
        lights::add_lights(&mut scene, root, &lights, centre);
    }
    if level.text().is_none() {
        scene.warnings.insert(
            0,
            "the level has no TEXT chunk: no textures or materials".into(),
        );
    }
    Ok(scene)
}

/// The LGHT lights of a level in export space ([`lights::light_views`]; empty without LGHT),
/// what `lights.json` lists.
pub fn level_lights(level: &Level, opts: &SceneOptions) -> Vec<lights::LightView> {
    let offset = level.chunk(crate::tags::Tag::LGHT).and_then(|c| c.offset);
    level
        .lght()
        .map(|l| lights::light_views(l, opts.mirror_z, offset))
        .unwrap_or_default()
}

/// Convert the geometry chunks of a level into a scene (see the module docs for the layout).
///
/// `text` may be empty (a level without TEXT): every face then gets the default material with
/// a warning.
pub fn build(
    trak: &Trak,
    map: &Map,
    stpc: Option<&Stpc>,
    text: &TextView,
    opts: &SceneOptions,
) -> Scene {
    let pixels = text.pages.iter().map(|p| p.rgba.clone()).collect();
    build_with(trak, map, stpc, text, pixels, opts)
}

/// [`build`] with each page's decoded pixels given apart from `text` (`pixels[p]` for
/// `text.pages[p]`), moved into the textures instead of copied.
fn build_with(
    trak: &Trak,
    map: &Map,
    stpc: Option<&Stpc>,
    text: &TextView,
    pixels: Vec<Result<Vec<u8>, String>>,
    opts: &SceneOptions,
) -> Scene {
    let mut scene = Scene {
        name: roots::LEVEL.into(),
        ..Scene::default()
    };
    let mut warnings = text.warnings.clone();
    let pages = textures(text, pixels, &mut scene, &mut warnings);
    let mut looks = Looks {
        text,
        pages: &pages,
        materials: Materials::default(),
        bad: BTreeMap::new(),
    };

    level_tiles(&mut scene, &mut looks, &mut warnings, trak, map, opts);

    if opts.collision {
        collision_tree(
            &mut scene,
            &mut looks.materials,
            &mut warnings,
            trak,
            map,
            opts,
        );
    }
    if opts.objects {
        if stpc.is_none() {
            warnings.push("no STPC chunk: MAP objects get markers only".into());
        }
        objects::objects_in_place(&mut scene, &mut looks, &mut warnings, stpc, map, opts);
    }
    if opts.objects_catalogue {
        match stpc {
            Some(stpc) => objects_tree(&mut scene, &mut looks, &mut warnings, stpc, opts),
            None => warnings.push("no STPC chunk: no object models to export".into()),
        }
    }

    for (m, idx) in &looks.bad {
        let list: Vec<String> = idx.iter().take(8).map(|i| i.to_string()).collect();
        warnings.push(format!(
            "{m}: texture entries {}{} are not usable (index past the {} entries or page past the {} pages); default material",
            list.join(", "),
            if idx.len() > 8 { ", …" } else { "" },
            text.entries.len(),
            text.pages.len()
        ));
    }
    scene.materials = looks.materials.list;
    scene.warnings = warnings;
    scene
}

/// The level's tiles under the root `level` (each TRAK model placed by its MAP tile), and the
/// alternative models of swap tiles under the hidden root `swap`; swap records without a
/// flagged tile are reported.
fn level_tiles(
    scene: &mut Scene,
    looks: &mut Looks<'_>,
    warnings: &mut Vec<String>,
    trak: &Trak,
    map: &Map,
    opts: &SceneOptions,
) {
    let level_root = scene.add_node(Node {
        name: roots::LEVEL.into(),
        ..Node::default()
    });
    scene.roots.push(level_root);
    let mut swap_children = Vec::new();
    let mut flagged = 0usize;
    for (ti, tile) in map.tiles.iter().enumerate() {
        let m = tile_model(map, ti, warnings);
        let place = Placement::tile(
            tile.pos[0],
            tile.pos[1],
            tile.pos[2],
            tile.rot,
            opts.mirror_z,
        );
        let colours = map.colours.get(ti);
        let swap = if tile.anim_flag != 0 {
            flagged += 1;
            swap_record(map, (ti, m), flagged - 1, warnings)
        } else {
            None
        };
        let layers = colours.map(|c| c.layers.as_slice()).unwrap_or(&[]);
        let node = tile_node(
            scene,
            looks,
            warnings,
            &TileModel {
                trak,
                ti,
                m,
                rot: tile.rot,
                place: &place,
                layers,
                suffix: "",
            },
        );
        if let Some(node) = node {
            scene.nodes[level_root].children.push(node);
            if opts.zones {
                zone_extras(&mut scene.nodes[node], map, ti);
            }
        }
        if let Some(s) = swap {
            if let Some(node) = node {
                scene.nodes[node]
                    .extras
                    .push(("swap_state".into(), "primary".into()));
            }
            let layers = colours
                .and_then(|c| c.swap_layers.as_deref())
                .unwrap_or(&[]);
            if let Some(alt) = tile_node(
                scene,
                looks,
                warnings,
                &TileModel {
                    trak,
                    ti,
                    m: s.model_b,
                    rot: tile.rot,
                    place: &place,
                    layers,
                    suffix: "_swap",
                },
            ) {
                scene.nodes[alt]
                    .extras
                    .push(("swap_state".into(), "alternative".into()));
                if opts.zones {
                    zone_extras(&mut scene.nodes[alt], map, ti);
                }
                swap_children.push(alt);
            }
        }
    }
    if !swap_children.is_empty() {
        let swap_root = scene.add_node(Node {
            name: roots::SWAP.into(),
            hidden: true,
            children: swap_children,
            ..Node::default()
        });
        scene.roots.push(swap_root);
    }

    let records = map.swaps.as_ref().map_or(0, Vec::len);
    if records > flagged {
        warnings.push(format!(
            "MAP/swaps: {records} swap records but only {flagged} tiles are flagged as swap tiles; records {flagged}.. are not exported"
        ));
    }
}

/// Swap record `k` of the MAP, the one of the k-th flagged tile `ti` (drawing model `m`);
/// a missing record or one whose normal state is another model is reported.
fn swap_record<'m>(
    map: &'m Map,
    (ti, m): (usize, u32),
    k: usize,
    warnings: &mut Vec<String>,
) -> Option<&'m TileSwap> {
    let s = map.swaps.as_ref().and_then(|s| s.get(k));
    match s {
        None => warnings.push(format!(
            "MAP/tiles[{ti}]: flagged as a swap tile but there is no swap record {k}"
        )),
        Some(s) if s.model_a != m => warnings.push(format!(
            "MAP/swaps[{k}]: names model {} as the normal state of tile {ti}, which draws model {m}",
            s.model_a
        )),
        Some(_) => {}
    }
    s
}

/// The extras [`SceneOptions::zones`] adds to the node of tile `ti`.
fn zone_extras(node: &mut Node, map: &Map, ti: usize) {
    if let Some(z) = map.tile_zone(ti) {
        node.extras.push(("zone".into(), z.to_string()));
        node.extras
            .push(("zone_colour".into(), crate::map::zones::zone_colour_hex(z)));
    }
    let flag = map.tiles.get(ti).map_or(0, |t| t.anim_flag);
    node.extras.push(("anim_flag".into(), flag.to_string()));
}

/// The TRAK model a tile draws: the MAP model-index list (what the renderer and the colour
/// blocks use), falling back to record A's model when the list is short.
fn tile_model(map: &Map, ti: usize, warnings: &mut Vec<String>) -> u32 {
    let a = map.tiles.get(ti).map_or(0, |t| t.model);
    match map.model_indices.get(ti) {
        Some(&m) => {
            if m != a {
                warnings.push(format!(
                    "MAP/tiles[{ti}]: record A names model {a} but the model list {m}; using {m}"
                ));
            }
            m
        }
        None => a,
    }
}

/// Make every decoded page (`pixels[p]` for `text.pages[p]`) a texture; returns per page
/// (texture index, has transparency).
fn textures(
    text: &TextView,
    pixels: Vec<Result<Vec<u8>, String>>,
    scene: &mut Scene,
    warnings: &mut Vec<String>,
) -> Vec<(Option<usize>, bool)> {
    let mut out = Vec::with_capacity(text.pages.len());
    for (p, (page, rgba)) in text.pages.iter().zip(pixels).enumerate() {
        match rgba {
            Ok(px) => {
                let t = Texture {
                    name: format!("page_{p:02}"),
                    source: TextureSource::Rgba8 {
                        width: page.width,
                        height: page.height,
                        pixels: px,
                    },
                };
                let transparent = t.has_transparency();
                scene.textures.push(t);
                out.push((Some(scene.textures.len() - 1), transparent));
            }
            Err(e) => {
                warnings.push(format!("TEXT/pages[{p}]: not exported: {e}"));
                out.push((None, false));
            }
        }
    }
    out
}

/// Material lookup for faces, remembering unusable texture indices per model.
struct Looks<'a> {
    text: &'a TextView,
    pages: &'a [(Option<usize>, bool)],
    materials: Materials,
    bad: BTreeMap<String, BTreeSet<u16>>,
}

impl Looks<'_> {
    fn face(&mut self, context: &str, face: &Face) -> FaceLook {
        let none = FaceLook {
            material: None,
            uvs: None,
        };
        let double_sided = face.flags & crate::model::FACE_DOUBLE_SIDED != 0;
        let Some(e) = self.text.entries.get(usize::from(face.texture)) else {
            self.bad
                .entry(context.to_string())
                .or_default()
                .insert(face.texture);
            return none;
        };
        let blend = material::blend_mode(e.flags);
        if e.flags & crate::text::ENTRY_FLAT_COLOUR != 0 {
            let key = MaterialKey::Flat {
                rgb: [e.rect[0], e.rect[1], e.rect[2]],
                extra: e.rect[3],
                blend,
                double_sided,
            };
            return FaceLook {
                material: Some(self.materials.get(key, None, false)),
                uvs: None,
            };
        }
        let page = usize::from(e.page);
        let Some(pv) = self.text.pages.get(page) else {
            self.bad
                .entry(context.to_string())
                .or_default()
                .insert(face.texture);
            return none;
        };
        let (texture, transparent) = self.pages.get(page).copied().unwrap_or((None, false));
        let key = MaterialKey::Page {
            page,
            blend,
            double_sided,
        };
        let rect = uv::UvRect::new(
            e.rect[0], e.rect[1], e.rect[2], e.rect[3], pv.width, pv.height,
        );
        FaceLook {
            material: Some(self.materials.get(key, texture, transparent)),
            uvs: Some(uv::corners(face.flags, &rect)),
        }
    }
}

/// One model as a tile draws it: tile `ti` showing TRAK model `m` turned by `rot`, at `place`,
/// with its colour `layers`; `suffix` (`""` or `"_swap"`) ends the node's name.
struct TileModel<'a> {
    trak: &'a Trak,
    ti: usize,
    m: u32,
    rot: u32,
    place: &'a Placement,
    layers: &'a [Vec<u32>],
    suffix: &'a str,
}

/// Add the node of a tile's model; `None` when the model does not exist (warning) or has
/// nothing to draw (a collision-only tile: no empty node is made for it).
fn tile_node(
    scene: &mut Scene,
    looks: &mut Looks<'_>,
    warnings: &mut Vec<String>,
    tile: &TileModel<'_>,
) -> Option<usize> {
    let TileModel {
        trak,
        ti,
        m,
        rot,
        place,
        layers,
        suffix,
    } = *tile;
    let Some(model) = trak.models.get(m as usize) else {
        warnings.push(format!(
            "MAP/tiles[{ti}]: model {m} is not below the {} TRAK models; tile skipped",
            trak.models.len()
        ));
        return None;
    };
    let name = format!("tile_{ti:04}_m{m:03}{suffix}");
    let sets: Vec<&[u32]> = if layers.is_empty() {
        vec![&[]]
    } else {
        layers.iter().map(|l| l.as_slice()).collect()
    };
    let mesh = model_mesh(
        scene,
        looks,
        warnings,
        &ModelPart {
            name: name.clone(),
            model,
            place,
            sets: &sets,
            model_ctx: &format!("TRAK/models[{m}]"),
            place_ctx: &format!("MAP/tiles[{ti}]"),
        },
    );
    let mesh = mesh?;
    Some(scene.add_node(Node {
        name,
        mesh: Some(mesh),
        extras: vec![
            ("tile".into(), ti.to_string()),
            ("model".into(), m.to_string()),
            ("rot".into(), rot.to_string()),
        ],
        ..Node::default()
    }))
}

/// A model to turn into a mesh: its node `name`, where it is placed, its colour sets, and the
/// chunk paths its errors name (`model_ctx` for the model's faces, `place_ctx` for the place).
struct ModelPart<'a> {
    name: String,
    model: &'a Model,
    place: &'a Placement,
    sets: &'a [&'a [u32]],
    model_ctx: &'a str,
    place_ctx: &'a str,
}

/// Build and add a model's mesh; `None` (no mesh) for models without faces.
fn model_mesh(
    scene: &mut Scene,
    looks: &mut Looks<'_>,
    warnings: &mut Vec<String>,
    part: &ModelPart<'_>,
) -> Option<usize> {
    let model = part.model;
    if model.faces.is_empty() {
        return None;
    }
    let mut look = |_: usize, f: &Face| looks.face(part.model_ctx, f);
    let mut warn = |w: String| warnings.push(w);
    let m = mesh::build(
        part.name.clone(),
        model,
        part.place,
        part.sets,
        &mut look,
        part.place_ctx,
        &mut warn,
    );
    if m.primitives.is_empty() {
        return None;
    }
    Some(scene.add_mesh(m))
}

/// The group (0..2) of collision polygon `j` of a model, by the header's three counts.
fn collision_group(model: &Model, j: usize) -> u8 {
    let c = model.header.collision_counts.map(usize::from);
    if j < c[0] {
        0
    } else if j < c[0] + c[1] {
        1
    } else {
        2
    }
}

fn collision_tree(
    scene: &mut Scene,
    materials: &mut Materials,
    warnings: &mut Vec<String>,
    trak: &Trak,
    map: &Map,
    opts: &SceneOptions,
) {
    let mut buckets: BTreeMap<(u8, u8), Primitive> = BTreeMap::new();
    for (ti, tile) in map.tiles.iter().enumerate() {
        let m = map.model_indices.get(ti).copied().unwrap_or(tile.model);
        let Some(model) = trak.models.get(m as usize) else {
            continue; // already warned for the tile itself
        };
        let place = Placement::tile(
            tile.pos[0],
            tile.pos[1],
            tile.pos[2],
            tile.rot,
            opts.mirror_z,
        );
        for (j, poly) in model.collision.iter().enumerate() {
            let corners = match collision::corners(poly) {
                Ok(c) => c,
                Err(e) => {
                    warnings.push(format!(
                        "MAP/tiles[{ti}] TRAK/models[{m}]/collision[{j}]: {e}; polygon skipped"
                    ));
                    continue;
                }
            };
            let group = collision_group(model, j);
            let prim = buckets.entry((poly.material, group)).or_default();
            let (n, _) = collision::export_plane(&poly.planes[0]);
            let n = mesh::unit(placement::to_f32(n)).unwrap_or([0.0, 1.0, 0.0]);
            let n = mesh::unit(place.direction(n)).unwrap_or([0.0, 1.0, 0.0]);
            let base = u32::try_from(prim.positions.len()).unwrap_or(u32::MAX);
            for c in &corners {
                prim.positions.push(placement::to_f32(place.point64(*c)));
                prim.normals.push(n);
            }
            for k in 1..corners.len().saturating_sub(1) {
                let k = k as u32;
                let tri = if place.flips_winding() {
                    [base, base + k + 1, base + k]
                } else {
                    [base, base + k, base + k + 1]
                };
                prim.indices.extend_from_slice(&tri);
            }
        }
    }
    let mut root = Node {
        name: roots::COLLISION.into(),
        hidden: true,
        ..Node::default()
    };
    for ((mat, group), mut prim) in buckets {
        prim.material = Some(materials.get(MaterialKey::Collision { material: mat }, None, false));
        let name = format!("mat{mat:02}_grp{group}");
        let mesh = scene.add_mesh(levelgeom_scene::Mesh {
            name: name.clone(),
            primitives: vec![prim],
        });
        let node = scene.add_node(Node {
            name,
            mesh: Some(mesh),
            extras: vec![
                ("collision_material".into(), mat.to_string()),
                ("collision_group".into(), group.to_string()),
            ],
            ..Node::default()
        });
        root.children.push(node);
    }
    let root = scene.add_node(root);
    scene.roots.push(root);
}

/// Gap between objects in the row, and between the level's z = 0 edge and the row.
const OBJECT_GAP: f64 = 1.0;
/// Where the object row starts in z (tiles reach at most ~2.4 units past the grid).
const OBJECT_ROW_Z: f64 = 3.0;

fn objects_tree(
    scene: &mut Scene,
    looks: &mut Looks<'_>,
    warnings: &mut Vec<String>,
    stpc: &Stpc,
    opts: &SceneOptions,
) {
    let mut root = Node {
        name: roots::OBJECTS_CATALOGUE.into(),
        ..Node::default()
    };
    let place = Placement::translation([0.0; 3], opts.mirror_z);
    let mut cursor = 0.0f64;
    for (i, model) in stpc.models.iter().enumerate() {
        let name = format!("object_{i:03}");
        let ctx = format!("STPC/models[{i}]");
        let mesh = model_mesh(
            scene,
            looks,
            warnings,
            &ModelPart {
                name: name.clone(),
                model,
                place: &place,
                sets: &[],
                model_ctx: &ctx,
                place_ctx: &ctx,
            },
        );
        // Bounds in output space (after the mirror), to lay the models out in a row.
        let pts: Vec<[f32; 3]> = model.vertices.iter().map(|v| place.point(v.pos)).collect();
        let (lo, hi) = crate::model::bounds(pts.iter().copied()).unwrap_or(([0.0; 3], [0.0; 3]));
        let ox = cursor - f64::from(lo[0]);
        let oz = if opts.mirror_z {
            -OBJECT_ROW_Z - f64::from(hi[2])
        } else {
            OBJECT_ROW_Z - f64::from(lo[2])
        };
        cursor += f64::from(hi[0] - lo[0]) + OBJECT_GAP;
        let mut matrix = IDENTITY;
        matrix[12] = ox as f32;
        matrix[14] = oz as f32;
        let mut extras = vec![("stpc_model".into(), i.to_string())];
        if !model.bone_vertex_counts.is_empty() {
            let counts: Vec<String> = model
                .bone_vertex_counts
                .iter()
                .map(|c| c.to_string())
                .collect();
            extras.push(("bone_vertex_counts".into(), counts.join(",")));
        }
        let node = scene.add_node(Node {
            name,
            mesh,
            matrix,
            extras,
            ..Node::default()
        });
        root.children.push(node);
    }
    let root = scene.add_node(root);
    scene.roots.push(root);
}
