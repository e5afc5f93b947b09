//! Discovery: the levels under folders, found by their content (see [`super`]).

use std::collections::HashSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// What [`find_levels`] found at one path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum What {
    /// An Argonaut level WAD.
    Wad,
    /// An X-Ray level: its files (`level` first, then `level.geom`, `level.geomx`,
    /// `level.cform`, `level.hom`, `level.som`, `level.ai`, `level.details` as present).
    Xray {
        /// The level's files.
        files: Vec<PathBuf>,
    },
    /// Not a level (or not one that is read): why.
    Skipped {
        /// The reason, for the user.
        reason: String,
    },
}

/// One entry of [`find_levels`]: a level, or a file that was skipped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Found {
    /// The WAD file; the X-Ray level folder (or its level file when that is not called
    /// `level`); the skipped file.
    pub path: PathBuf,
    /// The path given to [`find_levels`] this was found under.
    pub root: PathBuf,
    /// Bytes of the level's files together (0 for skipped entries).
    pub bytes: u64,
    /// What it is.
    #[serde(flatten)]
    pub what: What,
}

impl Found {
    /// True for a level (not a skipped entry).
    pub fn is_level(&self) -> bool {
        !matches!(self.what, What::Skipped { .. })
    }

    /// The format name a report uses (`argonaut-wad`, `xray-level`; `None` when skipped).
    pub fn format(&self) -> Option<&'static str> {
        match self.what {
            What::Wad => Some(crate::Format::Wad.name()),
            What::Xray { .. } => Some(crate::Format::XrayLevel.name()),
            What::Skipped { .. } => None,
        }
    }

    /// The level's own name: a WAD's file stem, an X-Ray level's folder name.
    pub fn name(&self) -> String {
        let p = match self.what {
            What::Xray { .. } if self.path.is_file() => self.path.parent().unwrap_or(&self.path),
            What::Wad | What::Xray { .. } | What::Skipped { .. } => &self.path,
        };
        let n = match self.what {
            What::Wad => p.file_stem(),
            What::Xray { .. } | What::Skipped { .. } => p.file_name(),
        };
        n.map_or_else(|| "level".into(), |n| n.to_string_lossy().into_owned())
    }

    /// The path below its root (the root's own name when the root is the level), without a
    /// WAD's extension: what a clashing name is replaced by (`/` → `_`).
    pub fn relative_name(&self) -> String {
        let rel = self.path.strip_prefix(&self.root).unwrap_or(&self.path);
        let rel = if rel.as_os_str().is_empty() {
            PathBuf::from(self.root.file_name().unwrap_or(self.root.as_os_str()))
        } else {
            rel.to_path_buf()
        };
        let rel = match self.what {
            What::Wad => rel.with_extension(""),
            What::Xray { .. } | What::Skipped { .. } => rel,
        };
        let parts: Vec<String> = rel
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        if parts.is_empty() {
            self.name()
        } else {
            parts.join("_")
        }
    }
}

/// The files of an X-Ray level besides `level`, in the order they are listed and verified.
const XRAY_COMPANIONS: [&str; 7] = [
    "level.geom",
    "level.geomx",
    "level.cform",
    "level.hom",
    "level.som",
    "level.ai",
    "level.details",
];

/// Find every level under `paths` (files or folders), with the skipped files and why; sorted by
/// path, each level once. See the module docs for the rules.
pub fn find_levels(paths: &[PathBuf]) -> Vec<Found> {
    let mut w = Walker::default();
    for root in paths {
        match fs::metadata(root) {
            Err(e) => w.skip(root, root, format!("cannot read: {e}")),
            Ok(m) if m.is_dir() => w.dir(root, root),
            Ok(_) => w.file(root, root, true),
        }
    }
    let mut out = w.out;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out.dedup_by(|a, b| a.path == b.path);
    out
}

#[derive(Default)]
struct Walker {
    /// Canonical paths of folders walked and files taken (as levels or their parts).
    seen: HashSet<PathBuf>,
    out: Vec<Found>,
}

fn canonical(p: &Path) -> PathBuf {
    fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn named_like_a_level(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.starts_with("level") || name.ends_with(".wad")
}

pub(super) fn file_size(p: &Path) -> u64 {
    fs::metadata(p).map_or(0, |m| m.len())
}

/// The first `n` bytes of a file (fewer when it is shorter).
fn head(p: &Path, n: usize) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(n);
    fs::File::open(p)?.take(n as u64).read_to_end(&mut buf)?;
    Ok(buf)
}

impl Walker {
    fn skip(&mut self, root: &Path, path: &Path, reason: String) {
        self.out.push(Found {
            path: path.to_path_buf(),
            root: root.to_path_buf(),
            bytes: 0,
            what: What::Skipped { reason },
        });
    }

    fn dir(&mut self, root: &Path, dir: &Path) {
        if !self.seen.insert(canonical(dir)) {
            return;
        }
        let entries = match fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => return self.skip(root, dir, format!("cannot read the folder: {e}")),
        };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        let level = dir.join("level");
        if level.is_file() && dir.join("level.geom").is_file() {
            self.xray(root, &level);
        }
        let mut dirs = Vec::new();
        for p in entries {
            match fs::metadata(&p) {
                Ok(m) if m.is_dir() => dirs.push(p),
                Ok(m) if m.is_file() => self.file(root, &p, false),
                Ok(_) => {}
                Err(e) => {
                    // a dangling link, say
                    if named_like_a_level(&p) {
                        self.skip(root, &p, format!("cannot read: {e}"));
                    }
                }
            }
        }
        for d in dirs {
            self.dir(root, &d);
        }
    }

    /// Look at one file; `given` when it was named on the command line.
    fn file(&mut self, root: &Path, p: &Path, given: bool) {
        if self.seen.contains(&canonical(p)) {
            return;
        }
        let report = given || named_like_a_level(p);
        let bytes = match head(p, 12) {
            Ok(b) => b,
            Err(e) => {
                if report {
                    self.skip(root, p, format!("cannot read: {e}"));
                }
                return;
            }
        };
        match crate::Engine::sniff(&bytes) {
            Some(crate::Engine::Wad) => {
                self.seen.insert(canonical(p));
                self.out.push(Found {
                    path: p.to_path_buf(),
                    root: root.to_path_buf(),
                    bytes: file_size(p),
                    what: What::Wad,
                });
                return;
            }
            // an X-Ray chunk file starting with its header chunk 1: 4 bytes (XRLC 11–14) or
            // 128 (XRLC 4–10, with the level's name); other X-Ray files (a stray level.cform)
            // hold no level and are not read further
            Some(crate::Engine::Xray) if levelgeom_xray::level::starts_with_header(&bytes) => {
                return self.xray_file(root, p, given, report);
            }
            Some(crate::Engine::Xray) | None => {}
        }
        if report {
            let first = crate::first_bytes(&bytes);
            let reason = if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("wad")) {
                format!(
                    "not a level WAD: no chunk tag of capital letters at offset 4 (first bytes \
                     {first})"
                )
            } else {
                format!("not a level file levelgeom reads (first bytes {first})")
            };
            self.skip(root, p, reason);
        }
    }

    /// A file that starts like an X-Ray `level` or `level.geom`: the level, or why it is
    /// skipped.
    fn xray_file(&mut self, root: &Path, p: &Path, given: bool, report: bool) {
        // only these are read whole: what kind of X-Ray file it is needs its chunk list
        let kind = levelgeom_binary::read_file(p)
            .ok()
            .and_then(|all| levelgeom_xray::kind(&all));
        let reason = match kind {
            Some(levelgeom_xray::Kind::Level) => return self.xray(root, p),
            Some(levelgeom_xray::Kind::Geom) if given && sibling_level(p).is_some() => {
                // `verify micro/level.geom`: the level it belongs to is right there
                if let Some(level) = sibling_level(p) {
                    self.xray(root, &level);
                }
                return;
            }
            Some(levelgeom_xray::Kind::Geom) => {
                "an X-Ray level.geom without the X-Ray `level` file beside it (the \
                 visuals and shaders are there); give the folder holding both"
            }
            _ => "an X-Ray chunk file that is not a level (no visuals or shaders chunk)",
        };
        if report {
            self.skip(root, p, reason.into());
        }
    }

    /// An X-Ray level whose `level` file is `level`: it and its companions beside it.
    fn xray(&mut self, root: &Path, level: &Path) {
        if !self.seen.insert(canonical(level)) {
            return;
        }
        let dir = match level.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut files = vec![level.to_path_buf()];
        for name in XRAY_COMPANIONS {
            let c = dir.join(name);
            if c.is_file() {
                self.seen.insert(canonical(&c));
                files.push(c);
            }
        }
        let path = if level.file_name().is_some_and(|n| n == "level") {
            if level.parent().is_some_and(|d| d.as_os_str().is_empty()) {
                PathBuf::from(".")
            } else {
                dir
            }
        } else {
            level.to_path_buf()
        };
        self.out.push(Found {
            path,
            root: root.to_path_buf(),
            bytes: files.iter().map(|f| file_size(f)).sum(),
            what: What::Xray { files },
        });
    }
}

/// The X-Ray `level` file beside a `level.geom`, when there is one that reads as a level.
fn sibling_level(geom: &Path) -> Option<PathBuf> {
    let dir = match geom.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let level = dir.join("level");
    let bytes = levelgeom_binary::read_file(&level).ok()?;
    (levelgeom_xray::kind(&bytes) == Some(levelgeom_xray::Kind::Level)).then_some(level)
}
