//! Linking the game textures of a converted level to the files of a `gamedata/textures` folder.

use std::path::{Component, Path, PathBuf};

use levelgeom_scene::{Scene, TextureSource};

/// Why a texture name is never looked up on disk: it could name a file outside the textures
/// folder (absolute, a drive letter, `..`, an empty or `.` component).
fn unsafe_name(name: &str) -> Option<&'static str> {
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

/// Link the game textures of `scene` (the [`TextureSource::Unresolved`] ones [`crate::to_scene`]
/// makes) to the files found in `textures_dir`: a found file becomes
/// [`TextureSource::External`] with its path relative to `outdir` (`/` separators, not
/// percent-encoded); a missing one stays unresolved. Returns the warnings: one per missing
/// texture, one per name that is not looked up because it could leave `textures_dir`
/// (absolute, a drive letter, `..`, or a file that resolves outside it through a symlink),
/// and one when some textures were found only as DDS/TGA, which glTF viewers cannot read.
pub fn resolve_textures(scene: &mut Scene, textures_dir: &Path, outdir: &Path) -> Vec<String> {
    let mut warnings = Vec::new();
    let root = std::fs::canonicalize(textures_dir).ok();
    let mut not_gltf = Vec::new();
    for t in &mut scene.textures {
        if !matches!(t.source, TextureSource::Unresolved { .. }) {
            continue;
        }
        if let Some(why) = unsafe_name(&t.name) {
            warnings.push(format!(
                "texture {} is not looked up in the --textures folder: {why}",
                t.name
            ));
            continue;
        }
        let Some(root) = &root else {
            warnings.push(format!(
                "texture {} not found in the --textures folder",
                t.name
            ));
            continue;
        };
        let Some(found) = find_texture(textures_dir, &t.name) else {
            warnings.push(format!(
                "texture {} not found in the --textures folder",
                t.name
            ));
            continue;
        };
        match std::fs::canonicalize(&found) {
            Ok(real) if real.starts_with(root) => {}
            _ => {
                warnings.push(format!(
                    "texture {} resolves outside the --textures folder (through a link); not linked",
                    t.name
                ));
                continue;
            }
        }
        let ext = found
            .extension()
            .map(|e| e.to_string_lossy().to_lowercase());
        if !matches!(ext.as_deref(), Some("png" | "jpg" | "jpeg")) {
            not_gltf.push(t.name.clone());
        }
        t.source = TextureSource::External {
            uri: relative_path(outdir, &found),
        };
    }
    if let Some(first) = not_gltf.first() {
        let n = not_gltf.len();
        warnings.push(format!(
            "{n} texture{} found only as DDS/TGA ({first}{}), which glTF viewers cannot read; \
             put PNG copies beside {} to have those linked instead",
            if n == 1 { "" } else { "s" },
            if n == 1 { "" } else { ", …" },
            if n == 1 { "it" } else { "them" },
        ));
    }
    warnings
}
