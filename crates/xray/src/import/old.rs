//! Import into a level of XRLC 4–12 (geometry inside `level`, OGF 2/3 visuals), same build in
//! and same build out.
//!
//! The edit is worked out on the 13/14-shaped view of the level ([`crate::flat::flatten`]) by
//! the 13/14 import, and the result is written back into the old layout by its inverse
//! ([`crate::flat::unflatten`], which says how: buffers, visuals, materials); an embedded cform
//! (XRLC 4–9) is written back into its chunk here.
//!
//! `--to-version` then converts the result as a whole ([`super::convert`]).

use super::{import_view, Base, ImportError, ImportOptions, Imported};
use crate::flat::{flatten, unflatten, Edited, NewVisual};
use crate::geom::Geom;
use crate::level::{LevelChunk, Part};
use levelgeom_scene::Scene;

/// Import the edited scene into an old level (see the module docs).
///
/// # Errors
/// As [`super::import`]; [`ImportError::Unflatten`] when the result cannot be written in the
/// level's build.
pub(super) fn import(
    base: Base<'_>,
    edited: &Scene,
    collision_mesh: Option<&Scene>,
    opts: &ImportOptions,
) -> Result<Imported, ImportError> {
    let flat = flatten(base.level)?;
    let view = Base {
        level: &flat.level,
        geom: &flat.geom,
        geomx: None,
        cform: base.cform,
    };
    let inner = ImportOptions {
        to_version: None,
        ..opts.clone()
    };
    let mut out = import_view(view, edited, collision_mesh, &inner)?;
    let added: Vec<NewVisual> = out
        .summary
        .added
        .iter()
        .map(|a| NewVisual {
            visual: a.visual,
            copy_of: a.copy_of,
        })
        .collect();
    let edit = Edited {
        level: &out.level,
        geom: &out.geom,
        removed: &out.summary.removed,
        added: &added,
    };
    let (mut level, notes) =
        unflatten(base.level, &flat, &edit).map_err(|source| ImportError::Unflatten {
            version: base.level.version().unwrap_or(0),
            source,
        })?;
    out.summary.warnings.extend(notes);
    // an embedded cform goes back into its chunk
    let embedded = level
        .chunks
        .iter()
        .position(|c| level.part(c.id()) == Some(Part::Cform));
    if let (Some(k), Some(c)) = (embedded, out.cform.as_ref()) {
        if Some(c) != base.cform {
            level.chunks[k].value = LevelChunk::Raw(c.to_bytes()?);
        }
        out.cform = None;
    }
    out.level = level;
    out.geom = Geom { chunks: Vec::new() };
    out.geomx = None;
    Ok(out)
}
