//! Batch export: many levels into one output root, with a manifest and a contact sheet.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use levelgeom_export::folder::is_plain_name;
use serde::Serialize;

use super::runner::guarded;
use super::verify::{skipped_entries, SkippedEntry};
use super::{Found, Run, What};
use crate::error::{Error, Result};
use crate::open;
use crate::options::ExportOptions;

/// The manifest a batch export writes into its output root.
pub const BATCH_MANIFEST: &str = ".levelgeom-batch.json";

/// The contact sheet a batch export with previews writes into its output root.
pub const INDEX: &str = "index.html";

/// The preview picture the contact sheet shows for each level.
pub const SHEET_PREVIEW: &str = "preview_persp.png";

/// One level of a [`BatchExport`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LevelExport {
    /// The level (as [`Found::path`]).
    pub path: PathBuf,
    /// `argonaut-wad` or `xray-level`.
    pub format: &'static str,
    /// Bytes of its files.
    pub bytes: u64,
    /// Its folder's name inside the output root.
    pub name: String,
    /// Its folder.
    pub outdir: PathBuf,
    /// Files written, with their sizes.
    pub files: Vec<(PathBuf, u64)>,
    /// Warnings of the export.
    pub warnings: Vec<String>,
    /// Why it was not exported (its folder was left as it was).
    pub error: Option<String>,
}

/// What [`export_batch`] did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BatchExport {
    /// Each level, in path order (levels not started after a stop are left out).
    pub levels: Vec<LevelExport>,
    /// The files skipped, in path order.
    pub skipped: Vec<SkippedEntry>,
    /// Levels not started because the run was stopped.
    pub not_run: usize,
    /// The contact sheet, when previews were written.
    pub index: Option<PathBuf>,
    /// Folders of a previous batch (levels no longer in this one) that were removed.
    pub removed: Vec<PathBuf>,
}

impl BatchExport {
    /// Levels exported.
    pub fn exported(&self) -> usize {
        self.levels.iter().filter(|l| l.error.is_none()).count()
    }
}

/// The folder name of each level of `levels` inside a batch's output root: the level's own
/// name ([`Found::name`]); where names clash (compared ignoring case, as on Windows and macOS),
/// the path below its root with `/` replaced by `_` ([`Found::relative_name`]); where even
/// those clash, `_2`, `_3`… in path order. Names of our own files (`index.html`, names that
/// start with `.`) are never used.
pub fn level_names(levels: &[&Found]) -> Vec<String> {
    let key = |s: &str| s.to_lowercase();
    let clean = |s: String| {
        let s = s.trim_start_matches('.').to_string();
        if s.is_empty() || key(&s) == INDEX {
            format!("level_{s}")
        } else {
            s
        }
    };
    let own: Vec<String> = levels.iter().map(|l| clean(l.name())).collect();
    let mut names: Vec<String> = own
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let clash = own
                .iter()
                .enumerate()
                .any(|(j, m)| j != i && key(m) == key(n));
            if clash {
                clean(levels[i].relative_name())
            } else {
                n.clone()
            }
        })
        .collect();
    let mut taken: HashSet<String> = HashSet::new();
    for name in &mut names {
        if taken.insert(key(name)) {
            continue;
        }
        let base = name.clone();
        let mut k = 2;
        while !taken.insert(key(&format!("{base}_{k}"))) {
            k += 1;
        }
        *name = format!("{base}_{k}");
    }
    names
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.to_path_buf();
    move |source| Error::Io { path, source }
}

/// `(levels, files)` of the batch manifest in `dir`; `None` when there is none of ours.
fn previous_batch(dir: &Path) -> Option<(Vec<String>, Vec<String>)> {
    let text = fs::read_to_string(dir.join(BATCH_MANIFEST)).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    if v.get("tool")?.as_str()? != "levelgeom" {
        return None;
    }
    let list = |k: &str| -> Vec<String> {
        v.get(k)
            .and_then(|a| a.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str())
                    .filter(|s| is_plain_name(s))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    Some((list("levels"), list("files")))
}

/// Write the batch manifest into `root`, with `more` files (the contact sheet), all or nothing.
fn write_batch_manifest(
    root: &Path,
    levels: &[String],
    files: &[String],
    more: Vec<(PathBuf, Vec<u8>)>,
) -> Result<()> {
    let v = serde_json::json!({
        "tool": "levelgeom",
        "version": env!("CARGO_PKG_VERSION"),
        "batch": true,
        "levels": levels,
        "files": files,
    });
    let bytes = serde_json::to_vec_pretty(&v).unwrap_or_default();
    let mut group = more;
    group.push((root.join(BATCH_MANIFEST), bytes));
    levelgeom_binary::write_group(&group, &[], true).map_err(|e| Error::Io {
        path: e.path,
        source: e.source,
    })
}

/// Remove a previous level export folder of ours: the files its manifest lists, the manifest,
/// then the folder if nothing else is left in it. Returns whether the folder is gone.
fn remove_export_folder(dir: &Path) -> bool {
    let manifest = dir.join(levelgeom_export::folder::MANIFEST);
    let Ok(text) = fs::read_to_string(&manifest) else {
        return false;
    };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
        return false;
    };
    if v.get("tool").and_then(|t| t.as_str()) != Some("levelgeom") {
        return false;
    }
    for f in v
        .get("files")
        .and_then(|f| f.as_array())
        .into_iter()
        .flatten()
        .filter_map(|f| f.as_str())
        .filter(|f| is_plain_name(f))
    {
        let _ = fs::remove_file(dir.join(f));
    }
    let _ = fs::remove_file(&manifest);
    fs::remove_dir(dir).is_ok()
}

/// Percent-encode a folder name for a URL path segment.
fn url_segment(name: &str) -> String {
    let mut s = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            s.push(char::from(b));
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// Escape text for HTML (element content and quoted attribute values).
pub fn html_escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            c => s.push(c),
        }
    }
    s
}

/// The contact sheet: one figure per exported level with a preview, linked to its folder.
fn contact_sheet(levels: &[LevelExport]) -> String {
    let mut h = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>levelgeom export</title>\n<style>\n\
         body { font-family: sans-serif; background: #202020; color: #e0e0e0; margin: 1em; }\n\
         a { color: #8cf; }\n\
         .sheet { display: flex; flex-wrap: wrap; gap: 12px; }\n\
         figure { margin: 0; width: 256px; }\n\
         img { width: 256px; height: 192px; object-fit: contain; background: #000; }\n\
         figcaption { font-size: 0.85em; overflow-wrap: anywhere; }\n\
         </style>\n</head>\n<body>\n",
    );
    let shown: Vec<&LevelExport> = levels
        .iter()
        .filter(|l| l.error.is_none() && l.outdir.join(SHEET_PREVIEW).is_file())
        .collect();
    h.push_str(&format!(
        "<h1>{} level{}</h1>\n<div class=\"sheet\">\n",
        shown.len(),
        if shown.len() == 1 { "" } else { "s" }
    ));
    for l in &shown {
        let href = url_segment(&l.name);
        let name = html_escape(&l.name);
        h.push_str(&format!(
            "<figure><a href=\"{href}/\"><img src=\"{href}/{SHEET_PREVIEW}\" alt=\"{name}\" \
             loading=\"lazy\"></a>\n<figcaption><a href=\"{href}/\">{name}</a><br>{}<br>{}</figcaption></figure>\n",
            html_escape(l.format),
            html_escape(&l.path.display().to_string()),
        ));
    }
    h.push_str("</div>\n");
    let failed: Vec<&LevelExport> = levels.iter().filter(|l| l.error.is_some()).collect();
    if !failed.is_empty() {
        h.push_str("<h2>Not exported</h2>\n<ul>\n");
        for l in failed {
            h.push_str(&format!(
                "<li>{}: {}</li>\n",
                html_escape(&l.path.display().to_string()),
                html_escape(l.error.as_deref().unwrap_or(""))
            ));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</body>\n</html>\n");
    h
}

/// Export every level of `found` into `outroot/NAME/` ([`level_names`]), each folder all or
/// nothing as [`crate::LevelFile::export`] writes it, as `run` says. The options of one engine
/// apply to that engine's levels only (`collision` to WADs, `textures` to X-Ray levels).
///
/// `outroot` follows the rule of an export folder: absent, empty, or a previous batch of ours
/// (its manifest [`BATCH_MANIFEST`]), else refused unless `opts.force`. A previous batch's level
/// folders that this batch does not write again are removed (their listed files only) when the
/// run was not stopped. With `opts.preview`, [`INDEX`] is written: a contact sheet of the
/// levels' previews.
///
/// # Errors
/// Only for the output root (refused, or not writable); a level that fails is reported in its
/// [`LevelExport::error`] and the others go on.
pub fn export_batch(
    found: &[Found],
    outroot: &Path,
    opts: &ExportOptions,
    run: &Run<'_>,
) -> Result<BatchExport> {
    use levelgeom_binary::folder::{inspect, Existing};
    use levelgeom_export::folder::FolderError;
    let found_there = inspect(outroot).map_err(|e| Error::Io {
        path: e.path,
        source: e.source,
    })?;
    let previous = match found_there {
        Existing::NotAFolder => {
            return Err(FolderError::NotAFolder(outroot.to_path_buf()).into());
        }
        Existing::Absent => Default::default(),
        Existing::Empty | Existing::NotEmpty => {
            let previous = previous_batch(outroot);
            if previous.is_none() && found_there == Existing::NotEmpty && !opts.force {
                return Err(FolderError::NotOurs(outroot.to_path_buf()).into());
            }
            previous.unwrap_or_default()
        }
    };
    fs::create_dir_all(outroot).map_err(io(outroot))?;
    let levels: Vec<&Found> = found.iter().filter(|f| f.is_level()).collect();
    let names = level_names(&levels);
    // Written first, so that a batch stopped half-way is still recognised as ours.
    let mut listed: Vec<String> = previous.0.clone();
    for n in &names {
        if !listed.contains(n) {
            listed.push(n.clone());
        }
    }
    let mut files = previous.1.clone();
    if opts.preview && !files.iter().any(|f| f == INDEX) {
        files.push(INDEX.into());
    }
    write_batch_manifest(outroot, &listed, &files, Vec::new())?;

    let results = run.map(&levels, |i, f| {
        let r = export_one(f, outroot, &names[i], opts);
        let ok = r.error.is_none();
        (r, ok)
    });
    let not_run = results.iter().filter(|r| r.is_none()).count();
    let levels: Vec<LevelExport> = results.into_iter().flatten().collect();

    let mut removed = Vec::new();
    if not_run == 0 {
        for stale in previous.0.iter().filter(|n| !names.contains(n)) {
            let d = outroot.join(stale);
            if !d.exists() {
                listed.retain(|n| n != stale);
            } else if remove_export_folder(&d) {
                removed.push(d);
                listed.retain(|n| n != stale);
            }
        }
    }
    let index = if opts.preview {
        Some(outroot.join(INDEX))
    } else {
        if files.iter().any(|f| f == INDEX) && not_run == 0 {
            let _ = fs::remove_file(outroot.join(INDEX));
            files.retain(|f| f != INDEX);
        }
        None
    };
    let sheet = index
        .iter()
        .map(|p| (p.clone(), contact_sheet(&levels).into_bytes()))
        .collect();
    write_batch_manifest(outroot, &listed, &files, sheet)?;
    Ok(BatchExport {
        levels,
        skipped: skipped_entries(found),
        not_run,
        index,
        removed,
    })
}

/// The options of `opts` that apply to `found`'s engine.
pub fn options_for(found: &Found, opts: &ExportOptions) -> ExportOptions {
    let mut o = opts.clone();
    match found.what {
        What::Wad => o.engine.xray = None,
        What::Xray { .. } => o.engine.wad = None,
        What::Skipped { .. } => {
            o.engine.wad = None;
            o.engine.xray = None;
        }
    }
    o
}

fn export_one(found: &Found, outroot: &Path, name: &str, opts: &ExportOptions) -> LevelExport {
    let outdir = outroot.join(name);
    let mut r = LevelExport {
        path: found.path.clone(),
        format: found.format().unwrap_or("none"),
        bytes: found.bytes,
        name: name.to_string(),
        outdir: outdir.clone(),
        files: Vec::new(),
        warnings: Vec::new(),
        error: None,
    };
    let o = options_for(found, opts);
    match guarded(|| open(&found.path).and_then(|l| l.export(&outdir, &o))) {
        Ok(Ok(e)) => {
            r.files = e.files;
            r.warnings = e.warnings;
        }
        Ok(Err(e)) => r.error = Some(e.to_string()),
        Err(e) => r.error = Some(e),
    }
    r
}
