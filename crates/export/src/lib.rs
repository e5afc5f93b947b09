//! Exporters from the engine-neutral scene model ([`levelgeom_scene::Scene`]).
//!
//! The exporters know only the scene, never an engine's file model:
//!
//! | module | output | entry point |
//! |---|---|---|
//! | [`gltf`] | glTF 2.0 binary (`.glb`), or `.gltf` + `.bin` | [`gltf::to_glb`], [`gltf::write_glb`] (streamed into a writer), [`gltf::to_gltf`] |
//! | [`obj`] | Wavefront OBJ + MTL text | [`obj::to_obj`], [`obj::write_obj`] (streamed, formatted in parallel) |
//! | [`png`] | PNG images of decoded textures | [`png::encode_rgba8`], [`write_textures`] |
//! | [`folder`] | all of them into an output folder, all or nothing | [`folder::write_folder`] |
//!
//! # Getting started
//! ```
//! use levelgeom_scene::{Mesh, Node, Primitive, Scene};
//! use levelgeom_export::{gltf, obj};
//!
//! let mut scene = Scene::default();
//! let mesh = scene.add_mesh(Mesh {
//!     name: "tri".into(),
//!     primitives: vec![Primitive {
//!         positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
//!         indices: vec![0, 1, 2],
//!         ..Primitive::default()
//!     }],
//! });
//! let node = scene.add_node(Node { name: "tri".into(), mesh: Some(mesh), ..Node::default() });
//! scene.roots.push(node);
//!
//! let glb = gltf::to_glb(&scene, &gltf::GltfOptions::default()).unwrap();
//! assert_eq!(&glb[..4], b"glTF");
//! let out = obj::to_obj(&scene, &obj::ObjOptions::default());
//! assert!(out.obj.contains("\no tri\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl levelgeom_default\nf 1 2 3\n"));
//! ```
//!
//! # Design
//! * Output is a pure function of the scene and the options: the same input gives the same
//!   bytes (no hash maps, struct field order in JSON, fixed float formatting), so exports can be
//!   compared by hash.
//! * Scene content problems (an index past the vertices, an attribute of the wrong length, a
//!   NaN, a texture whose pixel buffer does not match its size) never abort a glTF or OBJ export:
//!   the writer repairs or leaves out the offending part and reports a warning. Errors
//!   ([`ExportError`]) are kept for what cannot be written at all (an output beyond 4 GiB, a PNG
//!   file asked for by [`write_textures`] that cannot be encoded, file-system failures).
//! * Texture files are named by [`texture_file_name`]; the OBJ/MTL and `.gltf` writers refer to
//!   textures by that name and [`write_textures`] writes them.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::path::{Path, PathBuf};

use levelgeom_scene::{Scene, Texture, TextureSource};

mod clean;
pub mod folder;
pub mod gltf;
pub mod obj;
pub mod png;

/// Why an export could not be produced.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// A texture's decoded pixels cannot be encoded (zero size, or the buffer is not
    /// `width * height * 4` bytes).
    #[error("texture {name:?}: {message}")]
    Texture {
        /// The texture's name.
        name: String,
        /// What is wrong with it.
        message: String,
    },
    /// The PNG encoder failed.
    #[error("png encoding failed: {0}")]
    Png(String),
    /// The output would exceed a size limit of the format (GLB lengths are 32-bit).
    #[error("{what} is too large for the output format")]
    TooLarge {
        /// What overflowed.
        what: String,
    },
    /// Two textures would be written to the same file name.
    #[error("textures {first} and {second} would both be written as {file:?}")]
    DuplicateFileName {
        /// The clashing file name.
        file: String,
        /// The first texture index.
        first: usize,
        /// The second texture index.
        second: usize,
    },
    /// The export needs the data of a hollow primitive ([`levelgeom_scene::Primitive::hollow`])
    /// before its binary buffer is written (a node matrix baked into its mesh), or a writer
    /// that reads no [`levelgeom_scene::PrimitiveSource`] was given one; the caller exports
    /// the full scene instead.
    #[error("{what}: the export needs the vertices of a streamed mesh up front")]
    NeedsData {
        /// What needed them.
        what: String,
    },
    /// A [`levelgeom_scene::PrimitiveSource`] could not fill a hollow primitive, or filled one
    /// that breaks the promises of its [`levelgeom_scene::Hollow`].
    #[error("{what}: {message}")]
    Source {
        /// The primitive (`mesh 3 "mesh_0003" primitive 0`).
        what: String,
        /// What went wrong.
        message: String,
    },
    /// Writing to a stream without a path failed ([`gltf::write_glb`], [`gltf::to_gltf`]);
    /// the caller that opened the stream knows the file.
    #[error("writing the output: {0}")]
    Write(#[source] std::io::Error),
    /// Writing a file failed.
    #[error("writing {path:?}: {source}")]
    Io {
        /// The file being written.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// File name a texture is written under: `{name}.png`.
///
/// Characters other than ASCII letters, digits, `_`, `-` and `.` (path separators, spaces, …)
/// become `_`, so the name can never leave the output folder; an empty name becomes `texture`.
pub fn texture_file_name(texture: &Texture) -> String {
    levelgeom_scene::texture_file_name(&texture.name)
}

/// A texture reference the export writes for a name the level gives (MTL `map_Kd`), kept
/// inside the export folder whatever the name says: a relative `/`-separated path of plain
/// components is kept as it is; anything else (a `..`, `.` or empty component, an absolute
/// path, a backslash, a drive letter or URI scheme `:`, a control character) becomes one file
/// name in the folder, its other characters than ASCII letters, digits, `_`, `-` and `.` made
/// `_` (`..\..\secret.dds` → `.._.._secret.dds`).
pub fn inside_reference(uri: &str) -> String {
    let plain = !uri.is_empty()
        && !uri.starts_with('/')
        && !uri.contains(['\\', ':'])
        && !uri.chars().any(char::is_control)
        && uri.split('/').all(|c| !matches!(c, "" | "." | ".."));
    if plain {
        return uri.to_string();
    }
    let flat: String = uri
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if flat.chars().all(|c| c == '.') {
        format!("_{flat}")
    } else {
        flat
    }
}

/// Encode every texture with decoded pixels ([`TextureSource::Rgba8`]) of `scene` as PNG, or
/// only those listed in `subset` (scene texture indices; indices out of range and textures
/// without pixels are skipped): `(`[`texture_file_name`]`, PNG bytes)` in texture order.
/// The pages are encoded in parallel (rayon); the result is the same as one by one.
///
/// # Errors
/// A texture that cannot be encoded (the first in texture order), or two textures with the
/// same file name.
pub fn encode_textures_subset(
    scene: &Scene,
    subset: Option<&[usize]>,
) -> Result<Vec<(String, Vec<u8>)>, ExportError> {
    let mut chosen: Vec<usize> = match subset {
        Some(list) => list
            .iter()
            .copied()
            .filter(|&i| i < scene.textures.len())
            .collect(),
        None => (0..scene.textures.len()).collect(),
    };
    chosen.sort_unstable();
    chosen.dedup();
    let mut encoded = encode_each(scene, &chosen);
    texture_files(scene, &chosen, &mut encoded)
}

/// PNG bytes of each texture in `chosen` that has decoded pixels (`None` for the others),
/// encoded in parallel, in the order of `chosen`.
pub(crate) fn encode_each(
    scene: &Scene,
    chosen: &[usize],
) -> Vec<Option<Result<Vec<u8>, ExportError>>> {
    use rayon::prelude::*;
    chosen
        .par_iter()
        .map(|&i| match &scene.textures.get(i)?.source {
            TextureSource::Rgba8 {
                width,
                height,
                pixels,
            } => Some(png::encode_rgba8(*width, *height, pixels)),
            _ => None,
        })
        .collect()
}

/// The texture files of [`encode_textures_subset`] from the encodings of [`encode_each`]
/// (taken out of `encoded`): names checked for clashes, the first failed encoding (in texture
/// order) an error naming its texture.
pub(crate) fn texture_files(
    scene: &Scene,
    chosen: &[usize],
    encoded: &mut [Option<Result<Vec<u8>, ExportError>>],
) -> Result<Vec<(String, Vec<u8>)>, ExportError> {
    let mut names: Vec<(String, usize)> = Vec::new();
    for (&i, e) in chosen.iter().zip(encoded.iter()) {
        if e.is_some() {
            let file = texture_file_name(&scene.textures[i]);
            if let Some((_, first)) = names.iter().find(|(n, _)| *n == file) {
                return Err(ExportError::DuplicateFileName {
                    file,
                    first: *first,
                    second: i,
                });
            }
            names.push((file, i));
        }
    }
    let mut out = Vec::with_capacity(names.len());
    let results = chosen
        .iter()
        .zip(encoded.iter_mut())
        .filter_map(|(&i, e)| e.take().map(|r| (i, r)));
    for ((file, _), (i, r)) in names.into_iter().zip(results) {
        let bytes = r.map_err(|e| match e {
            ExportError::Texture { message, .. } => ExportError::Texture {
                name: scene.textures[i].name.clone(),
                message,
            },
            other => other,
        })?;
        out.push((file, bytes));
    }
    Ok(out)
}

/// [`encode_textures_subset`] of every texture.
///
/// # Errors
/// As [`encode_textures_subset`].
pub fn encode_textures(scene: &Scene) -> Result<Vec<(String, Vec<u8>)>, ExportError> {
    encode_textures_subset(scene, None)
}

/// Write every texture with decoded pixels ([`TextureSource::Rgba8`]) of `scene` as
/// `dir/`[`texture_file_name`], or only those listed in `subset` (see
/// [`encode_textures_subset`]).
///
/// Files are written with [`levelgeom_binary::write_atomic`], refusing to overwrite any path in
/// `protect` (the command's inputs). Every texture is encoded before the first file is
/// written. Returns the paths written, in texture order.
///
/// # Errors
/// A texture that cannot be encoded, two textures with the same file name, or an I/O failure.
pub fn write_textures(
    scene: &Scene,
    dir: &Path,
    subset: Option<&[usize]>,
    protect: &[&Path],
) -> Result<Vec<PathBuf>, ExportError> {
    let encoded = encode_textures_subset(scene, subset)?;
    let mut written = Vec::with_capacity(encoded.len());
    for (file, bytes) in encoded {
        let path = dir.join(&file);
        levelgeom_binary::write_atomic(&path, &bytes, protect).map_err(|source| {
            ExportError::Io {
                path: path.clone(),
                source,
            }
        })?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn pages_encoded_in_parallel_decode_to_their_pixels() {
        let mut scene = Scene::default();
        for k in 0..9u32 {
            let (w, h) = (16 + k, 8 + 2 * k);
            let pixels: Vec<u8> = (0..w * h * 4)
                .map(|i| (i * 7 + k * 31) as u8 ^ (i / 5) as u8)
                .collect();
            scene.textures.push(Texture {
                name: format!("page_{k:02}"),
                source: TextureSource::Rgba8 {
                    width: w,
                    height: h,
                    pixels,
                },
            });
        }
        let files = encode_textures(&scene).unwrap();
        assert_eq!(files.len(), 9);
        for ((name, bytes), t) in files.iter().zip(&scene.textures) {
            let TextureSource::Rgba8 {
                width,
                height,
                pixels,
            } = &t.source
            else {
                unreachable!()
            };
            assert_eq!(*name, texture_file_name(t));
            // the same bytes as one at a time, and they decode (png crate) to the pixels
            assert_eq!(*bytes, png::encode_rgba8(*width, *height, pixels).unwrap());
            let mut dec = ::png::Decoder::new(std::io::Cursor::new(bytes))
                .read_info()
                .unwrap();
            let mut buf = vec![0; dec.output_buffer_size().unwrap()];
            let info = dec.next_frame(&mut buf).unwrap();
            assert_eq!((info.width, info.height), (*width, *height));
            assert_eq!(&buf[..info.buffer_size()], pixels.as_slice());
        }
    }

    #[test]
    fn export_error_is_send_and_sync() {
        fn check<T: Send + Sync + std::error::Error + 'static>() {}
        check::<super::ExportError>();
    }
}
