//! What `info` shows: one value per file, rendered as text ([`std::fmt::Display`]) or JSON
//! (serde), so the two never disagree.

use std::fmt;
use std::path::Path;

use levelgeom_binary::Limits;

use serde::Serialize;

use crate::error::Result;

/// The description of one level file, by engine.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Info {
    /// An Argonaut WAD.
    Wad(levelgeom_wad::info::Info),
    /// An X-Ray file.
    Xray(levelgeom_xray::info::Info),
}

impl Info {
    /// The JSON text of `info --json` (pretty-printed).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Info::Wad(i) => i.fmt(f),
            Info::Xray(i) => i.fmt(f),
        }
    }
}

impl Info {
    /// What `levelgeom info PATH` shows — the same value as [`crate::open`]`(path)?.info()` —
    /// reading no more than it needs: an X-Ray `level.geom`/`level.geomx` is walked for its
    /// headers and counts ([`levelgeom_xray::info::geom_summary`]: no buffer is decoded or
    /// copied); an X-Ray `level` is parsed, and the geom files beside it (which [`crate::open`]
    /// checks) are walked the same way instead of parsed. Everything else, and any file the
    /// short path refuses, goes through [`crate::open`], so errors are the same.
    ///
    /// # Errors
    /// As [`crate::open`] and [`crate::LevelFile::info`].
    pub fn open(path: &Path) -> Result<Info> {
        Self::open_short(path)
            .map(Ok)
            .unwrap_or_else(|| crate::open(path)?.info())
    }

    /// The short path of [`Info::open`]; `None` to take the long one.
    fn open_short(path: &Path) -> Option<Info> {
        use levelgeom_xray::{files, info, Kind};
        let limits = Limits::DEFAULT;
        let file = if path.is_dir() {
            path.join("level")
        } else {
            path.to_path_buf()
        };
        let bytes = levelgeom_binary::read_file(&file).ok()?;
        match crate::Engine::sniff(&bytes)? {
            // a WAD is read whole anyway: the long path
            crate::Engine::Wad => return None,
            crate::Engine::Xray => {}
        }
        let name = file.display().to_string();
        match levelgeom_xray::kind(&bytes)? {
            Kind::Geom => info::Info::read_geom(&name, &bytes, limits)
                .ok()
                .map(Info::Xray),
            Kind::Level => {
                let (level, warnings) = levelgeom_xray::Level::read_with(&bytes, limits).ok()?;
                // what open() reads beside a level, checked as it would be
                let dir = file.parent().filter(|d| !d.as_os_str().is_empty());
                let dir = dir.map_or_else(|| Path::new(".").to_path_buf(), Path::to_path_buf);
                for sib in ["level.geom", "level.geomx"] {
                    let p = dir.join(sib);
                    if p.is_file() {
                        let b = levelgeom_binary::read_file(&p).ok()?;
                        if levelgeom_xray::kind(&b) != Some(Kind::Geom) {
                            return None;
                        }
                        info::geom_summary(&b, limits).ok()?;
                    }
                }
                files::cform_beside(&file).ok()?;
                let opened = files::Opened::Level(level);
                info::Info::new(&name, &bytes, &opened, &warnings)
                    .ok()
                    .map(Info::Xray)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn short_info_equals_the_opened_files_info() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../xray/tests/data/xray-v14-micro");
        let tmp = tempfile::tempdir().unwrap();
        let big = tmp.path().join("big");
        std::fs::create_dir(&big).unwrap();
        let l = levelgeom_xray::bench_level::large(30).unwrap();
        std::fs::write(big.join("level"), &l.level).unwrap();
        std::fs::write(big.join("level.geom"), &l.geom).unwrap();
        // a level whose level.geom is broken: open() refuses it, and so must info
        let broken = tmp.path().join("broken");
        std::fs::create_dir(&broken).unwrap();
        std::fs::write(broken.join("level"), &l.level).unwrap();
        std::fs::write(broken.join("level.geom"), &l.geom[..l.geom.len() / 2]).unwrap();
        for p in [
            dir.clone(),
            dir.join("level"),
            dir.join("level.geom"),
            dir.join("level.geomx"),
            dir.join("level.cform"),
            big.clone(),
            big.join("level.geom"),
        ] {
            let a = Info::open(&p).unwrap().to_json();
            let b = crate::open(&p).unwrap().info().unwrap().to_json();
            assert_eq!(a, b, "{}", p.display());
        }
        let a = Info::open(&broken).unwrap_err().to_string();
        let b = crate::open(&broken).unwrap_err().to_string();
        assert_eq!(a, b);
        assert!(a.contains("level.geom"), "{a}");
    }
}
