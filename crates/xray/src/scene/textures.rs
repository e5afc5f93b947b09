//! Loading the game textures of a converted level from the level folder and a
//! `gamedata/textures` folder ([`load_textures`]).
//!
//! * **Where**: the engine's own order (`CRender::texture_load`: `$level$`, then
//!   `$game_saves$`, then `$game_textures$`, always `<name>.dds`; blender-xray's level importer
//!   also tries the level folder first): the level folder, then the textures folder. In each,
//!   `<name>` with `.png`, `.jpg`, `.jpeg`, `.dds`, `.tga` (converted copies first), as written
//!   and lower-cased. Names that could leave a folder are never looked up ([`unsafe_name`]),
//!   and a file that resolves outside its folder through a link is refused.
//! * **What**: DDS ([`crate::dds`]) and PNG files are decoded (top mip level) into
//!   [`TextureSource::Rgba8`], so that the GLB embeds them and the OBJ gets PNG copies; JPEG
//!   and TGA files (and a DDS or PNG that cannot be decoded, with a warning naming the file and
//!   why) are linked as [`TextureSource::External`], relative to the output folder.
//! * **Further textures** (with [`TextureLookup::lightmaps`]): the shader entry's other textures
//!   (material extras `texture_1`, `texture_2`…: lightmaps `lmap#N_1`/`lmap#N_2`, a terrain's
//!   `…_lm`) are loaded the same way as textures of their own that no material samples, and
//!   each material that names one gets `texture_K_file` in its extras: the PNG file name the
//!   export writes (`lmap#1_1` → `lmap_1_1.png`, see `levelgeom_export::texture_file_name`), or
//!   the linked file's path.
//! * **Missing**: one warning lists the textures found nowhere; materials keep naming them.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use levelgeom_binary::Limits;
use levelgeom_scene::{Scene, Texture, TextureSource};

use crate::dds;

/// Why a texture name is never looked up on disk: it could name a file outside the textures
/// folder (absolute, a drive letter, `..`, an empty or `.` component).
pub(crate) fn unsafe_name(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("the name is empty");
    }
    if name.starts_with('/') || name.starts_with('\\') {
        return Some("it is an absolute path");
    }
    if name.contains(':') {
        return Some("it has a drive letter or `:`");
    }
    if name.contains('\0') {
        return Some("it has a NUL byte");
    }
    for part in name.split(['/', '\\']) {
        match part {
            ".." => return Some("it has a `..` component"),
            "" | "." => return Some("it has an empty or `.` component"),
            _ => {}
        }
    }
    if Path::new(name)
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return Some("it is not a plain relative path");
    }
    None
}

/// Find `name` (a game texture path with `/`) in `dir` with a usual image extension: PNG and
/// JPEG first (the formats glTF viewers read, e.g. converted copies), then the game's DDS/TGA.
/// The name is tried as written and lower-cased (game archives unpack to lower case).
fn find_texture(dir: &Path, name: &str) -> Option<PathBuf> {
    let lower = name.to_lowercase();
    let names: &[&str] = if lower == name {
        &[name]
    } else {
        &[name, &lower]
    };
    names.iter().find_map(|n| {
        ["png", "jpg", "jpeg", "dds", "tga"]
            .iter()
            .map(|ext| dir.join(format!("{n}.{ext}")))
            .find(|p| p.is_file())
    })
}

/// `target` as a path relative to the folder `base` (both made absolute first), with `/`
/// separators, so an export folder and its textures can be moved together; the absolute path
/// when no relative one exists (another drive).
fn relative_path(base: &Path, target: &Path) -> String {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (b, t) = (abs(base), abs(target));
    let bc: Vec<_> = b.components().collect();
    let tc: Vec<_> = t.components().collect();
    let common = bc.iter().zip(&tc).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return t.to_string_lossy().replace('\\', "/");
    }
    let mut parts: Vec<String> = vec!["..".into(); bc.len() - common];
    parts.extend(
        tc[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// Where and how [`load_textures`] looks textures up.
#[derive(Clone, Debug)]
pub struct TextureLookup<'a> {
    /// The `gamedata/textures` folder (`--textures`).
    pub textures_dir: &'a Path,
    /// The level's own folder (lightmaps `lmap#N_*.dds` and `level_lods.dds` live there),
    /// searched first, as the engine does.
    pub level_dir: Option<&'a Path>,
    /// The output folder, which linked files are made relative to.
    pub outdir: &'a Path,
    /// Also load the further textures of every material (lightmaps, `--lightmaps`).
    pub lightmaps: bool,
    /// The largest decoded image (and texture file) accepted.
    pub limits: Limits,
}

/// A folder textures are looked up in, with its real path (links resolved).
struct Folder<'a> {
    dir: &'a Path,
    root: Option<PathBuf>,
}

enum Lookup {
    Found(PathBuf),
    Escapes,
    Missing,
}

fn locate(folders: &[Folder<'_>], name: &str) -> Lookup {
    for f in folders {
        let Some(root) = &f.root else { continue };
        if let Some(found) = find_texture(f.dir, name) {
            return match std::fs::canonicalize(&found) {
                Ok(real) if real.starts_with(root) => Lookup::Found(found),
                _ => Lookup::Escapes,
            };
        }
    }
    Lookup::Missing
}

/// Decode a found file: `Ok(None)` for a format that is linked, not decoded (JPEG, TGA).
fn decode(path: &Path, limits: &Limits) -> Result<Option<dds::Image>, String> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if !matches!(ext.as_str(), "dds" | "png") {
        return Ok(None);
    }
    let len = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    if len > limits.max_decoded as u64 {
        return Err(format!(
            "{len} bytes, above the limit of {}",
            limits.max_decoded
        ));
    }
    let bytes = levelgeom_binary::read_file(path).map_err(|e| e.to_string())?;
    if ext == "dds" {
        dds::decode(&bytes, limits)
            .map(Some)
            .map_err(|e| e.to_string())
    } else {
        dds::decode_png(&bytes, limits).map(Some)
    }
}

/// The PNG file name an export gives a texture (the rule of
/// `levelgeom_export::texture_file_name`: characters other than ASCII letters, digits, `_`,
/// `-` and `.` become `_`).
pub fn png_file_name(name: &str) -> String {
    levelgeom_scene::texture_file_name(name)
}

/// A list for a warning: the first few names, then how many more.
fn listing(names: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut s = names
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    s
}

/// Load the game textures of `scene` (the [`TextureSource::Unresolved`] ones
/// [`crate::to_scene`] makes, and with [`TextureLookup::lightmaps`] every material's further
/// textures) from the level folder and the textures folder; see the [module](self) for where,
/// what and how. Returns the warnings: one listing every texture found nowhere, one per name
/// that is not looked up because it could leave its folder (absolute, a drive letter, `..`,
/// or a file that resolves outside through a link), one per file that cannot be decoded, and
/// one when some textures are linked as DDS/TGA, which glTF viewers cannot read.
pub fn load_textures(scene: &mut Scene, opts: &TextureLookup<'_>) -> Vec<String> {
    let mut run = Resolver {
        opts,
        folders: opts
            .level_dir
            .into_iter()
            .chain([opts.textures_dir])
            .map(|dir| Folder {
                dir,
                root: std::fs::canonicalize(dir).ok(),
            })
            .collect(),
        place: if opts.level_dir.is_some() {
            "the level folder or the --textures folder"
        } else {
            "the --textures folder"
        },
        warnings: Vec::new(),
        missing: Vec::new(),
        not_gltf: Vec::new(),
        found_at: HashMap::new(),
    };
    if let Err(e) = std::fs::canonicalize(opts.textures_dir) {
        run.warnings.push(format!(
            "the --textures folder {} cannot be opened: {e}",
            opts.textures_dir.display()
        ));
    }
    let first_new = scene.textures.len();
    let further = if opts.lightmaps {
        add_further(scene)
    } else {
        Vec::new()
    };
    for (ti, t) in scene.textures.iter_mut().enumerate() {
        run.resolve(ti, t);
    }
    run.split_png_names(scene);
    name_further(scene, first_new, &run.found_at, further);
    run.finish()
}

/// Add the further textures (lightmaps) of every material as textures of their own, which no
/// material samples. Returns (material, extras key, texture) for each.
fn add_further(scene: &mut Scene) -> Vec<(usize, String, usize)> {
    let mut further = Vec::new();
    let mut index: HashMap<String, usize> = scene
        .textures
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.clone(), i))
        .collect();
    let textures = &mut scene.textures;
    for (mi, m) in scene.materials.iter().enumerate() {
        let base = m
            .texture
            .and_then(|t| textures.get(t))
            .map(|t| t.name.clone());
        for (k, v) in &m.extras {
            let numbered = k
                .strip_prefix("texture_")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            let name = v.replace('\\', "/");
            if !numbered || name.is_empty() || Some(&name) == base.as_ref() {
                continue;
            }
            let ti = *index.entry(name.clone()).or_insert_with(|| {
                textures.push(Texture {
                    source: TextureSource::Unresolved {
                        uri: format!("{name}.dds"),
                    },
                    name,
                });
                textures.len() - 1
            });
            further.push((mi, k.clone(), ti));
        }
    }
    further
}

/// The state of one [`load_textures`] run: where it looks and what it found.
struct Resolver<'a> {
    opts: &'a TextureLookup<'a>,
    folders: Vec<Folder<'a>>,
    /// Where textures are looked up, for the warnings.
    place: &'static str,
    warnings: Vec<String>,
    /// Names found nowhere, each once.
    missing: Vec<String>,
    /// Names linked as a format glTF viewers cannot read.
    not_gltf: Vec<String>,
    /// The file each found texture came from.
    found_at: HashMap<usize, PathBuf>,
}

impl Resolver<'_> {
    /// Look up texture `ti` if unresolved: decoded (DDS, PNG) or linked, or left unresolved
    /// with a warning.
    fn resolve(&mut self, ti: usize, t: &mut Texture) {
        if !matches!(t.source, TextureSource::Unresolved { .. }) {
            return;
        }
        let place = self.place;
        if let Some(why) = unsafe_name(&t.name) {
            self.warnings.push(format!(
                "texture {} is not looked up in {place}: {why}",
                t.name
            ));
            return;
        }
        let found = match locate(&self.folders, &t.name) {
            Lookup::Found(f) => f,
            Lookup::Escapes => {
                self.warnings.push(format!(
                    "texture {} resolves outside {place} (through a link); not linked",
                    t.name
                ));
                return;
            }
            Lookup::Missing => {
                if !self.missing.contains(&t.name) {
                    self.missing.push(t.name.clone());
                }
                return;
            }
        };
        let link = TextureSource::External {
            uri: relative_path(self.opts.outdir, &found),
        };
        t.source = match decode(&found, &self.opts.limits) {
            Ok(Some(img)) => TextureSource::Rgba8 {
                width: img.width,
                height: img.height,
                pixels: img.pixels,
            },
            Ok(None) => link,
            Err(why) => {
                self.warnings.push(format!(
                    "texture {}: {} cannot be decoded ({why}); linked as it is",
                    t.name,
                    found.display()
                ));
                link
            }
        };
        if let TextureSource::External { .. } = t.source {
            let ext = found
                .extension()
                .map(|e| e.to_string_lossy().to_lowercase());
            if !matches!(ext.as_deref(), Some("png" | "jpg" | "jpeg")) {
                self.not_gltf.push(t.name.clone());
            }
        }
        self.found_at.insert(ti, found);
    }

    /// Two decoded textures must not share a PNG file name (`a/b` and `a_b`): the later is
    /// linked.
    fn split_png_names(&mut self, scene: &mut Scene) {
        let mut png_names: HashMap<String, usize> = HashMap::new();
        for (ti, t) in scene.textures.iter_mut().enumerate() {
            if !matches!(t.source, TextureSource::Rgba8 { .. }) {
                continue;
            }
            let file = png_file_name(&t.name);
            if let Some(&first) = png_names.get(&file) {
                let Some(found) = self.found_at.get(&ti) else {
                    continue;
                };
                self.warnings.push(format!(
                    "texture {} would be written as {file} like texture {first}; linked instead",
                    t.name
                ));
                t.source = TextureSource::External {
                    uri: relative_path(self.opts.outdir, found),
                };
            } else {
                png_names.insert(file, ti);
            }
        }
    }

    /// The warnings, closed by the missing names and the DDS/TGA links.
    fn finish(mut self) -> Vec<String> {
        let place = self.place;
        match self.missing.len() {
            0 => {}
            1 => self
                .warnings
                .push(format!("texture {} not found in {place}", self.missing[0])),
            n => self.warnings.push(format!(
                "{n} textures not found in {place}: {}",
                listing(&self.missing)
            )),
        }
        if let Some(first) = self.not_gltf.first() {
            let n = self.not_gltf.len();
            self.warnings.push(format!(
                "{n} texture{} found only as DDS/TGA ({first}{}), which glTF viewers cannot read; \
                 put PNG copies beside {} to have those linked instead",
                if n == 1 { "" } else { "s" },
                if n == 1 { "" } else { ", …" },
                if n == 1 { "it" } else { "them" },
            ));
        }
        self.warnings
    }
}

/// Further textures (from `first_new` on) found nowhere are dropped again (they are in the
/// missing list); the others are named in the extras of the materials that list them.
fn name_further(
    scene: &mut Scene,
    first_new: usize,
    found_at: &HashMap<usize, PathBuf>,
    further: Vec<(usize, String, usize)>,
) {
    let keep: Vec<bool> = (0..scene.textures.len())
        .map(|i| i < first_new || found_at.contains_key(&i))
        .collect();
    let mut new_index = vec![None; scene.textures.len()];
    let mut n = 0;
    for (i, k) in keep.iter().enumerate() {
        if *k {
            new_index[i] = Some(n);
            n += 1;
        }
    }
    let mut i = 0;
    scene.textures.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    for (mi, key, ti) in further {
        let Some(t) = new_index[ti].and_then(|t| scene.textures.get(t)) else {
            continue;
        };
        let file = match &t.source {
            TextureSource::Rgba8 { .. } => png_file_name(&t.name),
            TextureSource::External { uri } => uri.clone(),
            TextureSource::Unresolved { .. } => continue,
        };
        if let Some(m) = scene.materials.get_mut(mi) {
            m.extras.push((format!("{key}_file"), file));
        }
    }
}

/// The decoded textures that materials name in their `texture_K_file` extras (lightmaps after
/// [`load_textures`] with [`TextureLookup::lightmaps`]), in texture order: what an export writes
/// as PNG files beside it whatever its format.
pub fn further_textures(scene: &Scene) -> Vec<usize> {
    let named: std::collections::HashSet<&str> = scene
        .materials
        .iter()
        .flat_map(|m| m.extras.iter())
        .filter(|(k, _)| {
            k.strip_prefix("texture_")
                .and_then(|r| r.strip_suffix("_file"))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(|(_, v)| v.as_str())
        .collect();
    scene
        .textures
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            matches!(t.source, TextureSource::Rgba8 { .. })
                && named.contains(png_file_name(&t.name).as_str())
        })
        .map(|(i, _)| i)
        .collect()
}

/// [`load_textures`] from `textures_dir` alone (no level folder, no further textures, the
/// default limits): found DDS and PNG files decoded, others linked relative to `outdir`.
pub fn resolve_textures(scene: &mut Scene, textures_dir: &Path, outdir: &Path) -> Vec<String> {
    load_textures(
        scene,
        &TextureLookup {
            textures_dir,
            level_dir: None,
            outdir,
            lightmaps: false,
            limits: Limits::DEFAULT,
        },
    )
}
