//! `--to-version 13|14` from an old build (XRLC 4, 5, 8–12): the level written as a real
//! XRLC 13 `level` + `level.geom` (+ `level.geomx`, `level.cform`); 13 → 14 is then
//! [`super::convert`]'s re-encoding.
//!
//! Not written yet: refused with [`ImportError::TargetVersion`].

use super::{Conversion, ImportError, Imported};

/// Rewrite `out` (a level of the old build `from`, as [`super::old`] writes it) as XRLC 13.
///
/// # Errors
/// [`ImportError::TargetVersion`] (not written yet).
pub(super) fn to_13(out: &mut Imported, from: u16) -> Result<Conversion, ImportError> {
    let _ = out;
    Err(ImportError::TargetVersion { from, to: 13 })
}
