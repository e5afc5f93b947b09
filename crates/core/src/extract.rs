//! `extract`: a WAD's sounds, strings, level name and font as ordinary files, with a manifest
//! ([`levelgeom_wad::extract`] says what each file holds).
//!
//! The font sheet's pixels are encoded as PNG by [`levelgeom_export::png`]; the folder is
//! written all or nothing by the export folder machinery ([`levelgeom_export::folder`]):
//! absent, empty or a previous output of ours, else only with `--force`; inputs are never
//! overwritten.

use std::path::{Path, PathBuf};

use levelgeom_export::folder::{self, FolderOptions};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::level::{Content, LevelFile};

/// What [`LevelFile::extract`] is asked to do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExtractOptions {
    /// Write into a folder that holds files other than a previous output of ours.
    pub force: bool,
    /// `Music/ENGLISH.CVS`, to decode the SRPC speech entries.
    pub cvs: Option<PathBuf>,
}

/// What [`LevelFile::extract`] wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtractReport {
    /// Files written, with their sizes (the folder manifest not included).
    pub files: Vec<(PathBuf, u64)>,
    /// The manifest (also written as `manifest.json`).
    pub manifest: Value,
    /// What could not be extracted, for the user.
    pub warnings: Vec<String>,
}

impl LevelFile {
    /// Write a WAD's sounds, strings, name and font into `outdir` with `manifest.json`, all
    /// or nothing (see the module docs).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for X-Ray files; [`Error::Folder`] when the folder cannot be
    /// written (it is then left as it was); [`Error::Extract`] when `--cvs` cannot be read.
    pub fn extract(&self, outdir: &Path, opts: &ExtractOptions) -> Result<ExtractReport> {
        let Content::Wad(level) = &self.content else {
            return Err(Error::Unsupported {
                file: self.display_name(),
                message: "extract reads Argonaut WADs (sounds, strings, font); X-Ray levels hold none of these".into(),
            });
        };
        let extracted = levelgeom_wad::extract::extract(level, opts.cvs.as_deref())?;
        let manifest = extracted.manifest(&self.display_name());
        let mut files = extracted.files;
        if let Some(sheet) = &extracted.font {
            let png = levelgeom_export::png::encode_rgba8(sheet.width, sheet.height, &sheet.rgba)
                .map_err(|source| Error::Encode {
                file: levelgeom_wad::extract::FONT_FILE.into(),
                source,
            })?;
            files.push((levelgeom_wad::extract::FONT_FILE.into(), png));
        }
        let mut text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
        text.push('\n');
        files.push(("manifest.json".into(), text.into_bytes()));
        let mut protect = vec![self.path.clone()];
        protect.extend(opts.cvs.iter().cloned());
        let written = folder::write_files(
            outdir,
            &files,
            &FolderOptions {
                force: opts.force,
                protect,
                input: self.display_name(),
                ..FolderOptions::default()
            },
        )?;
        let mut all = extracted.warnings;
        all.extend(written.warnings);
        Ok(ExtractReport {
            files: written.files,
            manifest,
            warnings: all,
        })
    }
}
