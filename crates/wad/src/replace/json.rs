//! The JSON files `replace` reads (strings, zones, routes): parsed with errors that name the
//! byte offset and the JSON path there ([`levelgeom_binary::json_path`]).

use levelgeom_binary::json_path;
use serde_json::Value;

/// Bytes that are not a JSON document; `kind` names the file ("strings", "zones", "routes").
#[derive(Debug, thiserror::Error)]
pub enum JsonSyntax {
    /// Not UTF-8 text.
    #[error(
        "at byte 0x{at:08X} ({path}): not UTF-8 (byte 0x{byte:02X}); a {kind} JSON is UTF-8 text"
    )]
    NotUtf8 {
        /// The file's kind.
        kind: &'static str,
        /// The first byte that is not UTF-8.
        at: usize,
        /// The JSON path there.
        path: String,
        /// That byte.
        byte: u8,
    },
    /// Not JSON.
    #[error("at byte 0x{at:08X} ({path}): not JSON: {source}")]
    NotJson {
        /// Where the parser stopped.
        at: usize,
        /// The JSON path there.
        path: String,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
}

/// Parse a `kind` JSON; an error names its byte offset and the JSON path there.
///
/// # Errors
/// [`JsonSyntax::NotUtf8`], [`JsonSyntax::NotJson`].
pub fn parse(bytes: &[u8], kind: &'static str) -> Result<Value, JsonSyntax> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        JsonSyntax::NotUtf8 {
            kind,
            at,
            path: json_path::path_at(bytes, at),
            byte: bytes.get(at).copied().unwrap_or(0),
        }
    })?;
    serde_json::from_str(text).map_err(|source| {
        let at = json_path::offset_of_line_column(bytes, source.line(), source.column());
        JsonSyntax::NotJson {
            at,
            path: json_path::path_at(bytes, at),
            source,
        }
    })
}

/// `at byte 0x… (path)` where `path` is in `text`, else `None`.
pub fn located(text: &[u8], path: &str) -> Option<String> {
    json_path::offset_of(text, path).map(|at| format!("at byte 0x{at:08X} ({path})"))
}

/// `at byte 0x… (path)` where `path` is in `text`, else the path alone.
pub fn place(text: &[u8], path: &str) -> String {
    located(text, path).unwrap_or_else(|| path.to_string())
}
