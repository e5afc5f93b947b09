//! `replace --strings`: a `strings.json` read (every error located by byte offset and JSON
//! path, [`levelgeom_binary::json_path`]) and laid into the LGPC chunk.

use std::path::Path;

use super::json::{self, JsonSyntax};
use serde_json::Value;

use super::{LevelProblem, ReplaceError};
use crate::latin1;
use crate::level::Level;

/// The largest `strings.json` `replace --strings` reads: 32 MiB (a level's strings, as
/// `extract` writes them, take a few hundred KB).
pub const MAX_STRINGS_SIZE: u64 = 32 << 20;

/// What is wrong in a strings JSON; `place` is `at byte 0x… ($.path)`.
#[derive(Debug, thiserror::Error)]
pub enum StringsError {
    /// Not a JSON document.
    #[error(transparent)]
    Syntax(#[from] JsonSyntax),
    /// No `strings` array.
    #[error("{place}: no \"strings\" array (write it with levelgeom extract)")]
    NoStringsArray {
        /// Where `strings` is, else where the document starts.
        place: String,
    },
    /// An entry without its three fields.
    #[error("{place}: needs \"column\", \"row\" and \"text\"")]
    Fields {
        /// The entry.
        place: String,
    },
    /// A cell outside the table.
    #[error(
        "{place}: column {column}, row {row} is outside the table ({cols} columns × {rows} rows)"
    )]
    OutsideTable {
        /// The entry.
        place: String,
        /// The column given.
        column: usize,
        /// The row given.
        row: usize,
        /// The table's columns.
        cols: usize,
        /// The table's rows.
        rows: usize,
    },
    /// A text that cannot be a WAD string.
    #[error("{place}: {source}")]
    Text {
        /// The entry's text.
        place: String,
        /// The character.
        #[source]
        source: latin1::EncodeError,
    },
    /// A string length that no longer fits its u32.
    #[error("string {index}: its length does not fit the u32 field")]
    Length {
        /// The string's index in column-major order.
        index: usize,
    },
}

/// `at byte 0x… ($.path)` for the value at a JSON path of `text`, if it is there.
/// Parse a strings JSON (as `replace --strings` does); an error names its byte offset and the
/// JSON path there.
///
/// # Errors
/// [`StringsError::Syntax`].
pub fn strings_json(bytes: &[u8]) -> Result<Value, StringsError> {
    Ok(json::parse(bytes, "strings")?)
}

/// The table's cells in column-major order with the edits of `list` applied.
fn edited_cells(
    bytes: &[u8],
    list: &[Value],
    mut cells: Vec<Vec<u8>>,
    rows: usize,
) -> Result<Vec<Vec<u8>>, StringsError> {
    for (k, s) in list.iter().enumerate() {
        // located only on error: finding an offset walks the text
        let at = |p: String| json::located(bytes, &p).unwrap_or(p);
        let (Some(c), Some(r), Some(txt)) =
            (s["column"].as_u64(), s["row"].as_u64(), s["text"].as_str())
        else {
            return Err(StringsError::Fields {
                place: at(format!("$.strings[{k}]")),
            });
        };
        let (c, r) = (c as usize, r as usize);
        let cols = cells.len() / rows.max(1);
        if r >= rows || c >= cols {
            return Err(StringsError::OutsideTable {
                place: at(format!("$.strings[{k}]")),
                column: c,
                row: r,
                cols,
                rows,
            });
        }
        cells[c * rows + r] = latin1::encode(txt).map_err(|source| StringsError::Text {
            place: at(format!("$.strings[{k}].text")),
            source,
        })?;
    }
    Ok(cells)
}

/// Lay the strings of the JSON file `path` into the level's LGPC chunk (see the module docs of
/// [`super`]); the cells whose text changed, as `(column, row)`.
pub(super) fn replace(
    level: &mut Level,
    path: &Path,
    lacks: impl Fn(LevelProblem) -> ReplaceError,
) -> Result<Vec<(usize, usize)>, ReplaceError> {
    let bytes = levelgeom_binary::read_regular(path, MAX_STRINGS_SIZE).map_err(|source| {
        ReplaceError::Io {
            path: path.to_path_buf(),
            source,
        }
    })?;
    let bad = |source| ReplaceError::Strings {
        file: path.to_path_buf(),
        source,
    };
    let doc = strings_json(&bytes).map_err(bad)?;
    let list = doc["strings"].as_array().ok_or_else(|| {
        bad(StringsError::NoStringsArray {
            place: json::located(&bytes, "$.strings")
                .or_else(|| json::located(&bytes, "$"))
                .unwrap_or_else(|| "at byte 0x00000000 ($)".into()),
        })
    })?;
    let t = level
        .lgpc_mut()
        .ok_or_else(|| lacks(LevelProblem::NoLgpc))?;
    let rows = usize::try_from(t.rows()).unwrap_or(usize::MAX);
    let old: Vec<Vec<u8>> = t
        .table()
        .ok_or_else(|| lacks(LevelProblem::TableSplit))?
        .into_iter()
        .flatten()
        .map(<[u8]>::to_vec)
        .collect();
    let cells = edited_cells(&bytes, list, old.clone(), rows).map_err(bad)?;
    let mut changed = Vec::new();
    if cells == old {
        return Ok(changed);
    }
    let mut data = Vec::new();
    for (i, (new, was)) in cells.iter().zip(&old).enumerate() {
        if new != was {
            changed.push((i / rows, i % rows));
        }
        let delta = new.len() as i64 - was.len() as i64;
        if let Some(l) = t.lengths.get_mut(i) {
            *l = u32::try_from(i64::from(*l) + delta)
                .map_err(|_| bad(StringsError::Length { index: i }))?;
        }
        data.extend_from_slice(new);
        data.push(0);
    }
    t.data = data;
    Ok(changed)
}
