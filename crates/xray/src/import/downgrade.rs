//! `--to-version N` for an old build N (XRLC 4, 5, 8–12) from XRLC 13: the geometry moved
//! into `level` in build N's layout.
//!
//! Not written yet: refused with [`ImportError::TargetVersion`].

use super::{Conversion, ImportError, Imported};

/// Rewrite `out` (an XRLC 13 level) in the old build `to`.
///
/// # Errors
/// [`ImportError::TargetVersion`] (not written yet).
pub(super) fn from_13(out: &mut Imported, to: u16) -> Result<Conversion, ImportError> {
    let _ = out;
    Err(ImportError::TargetVersion { from: 13, to })
}
