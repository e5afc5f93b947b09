//! The LGPC string table as `strings.json` and `strings.csv`, and the NAME chunk's name.

use serde_json::{json, Value};

use super::Extracted;
use crate::latin1;
use crate::level::Level;
use crate::tags::Tag;

/// A CSV cell: quoted (quotes doubled) when it holds a comma, quote or line break.
fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The strings of the LGPC chunk, with the offset of each, as JSON and CSV.
pub(super) fn lgpc(level: &Level, out: &mut Extracted) {
    let Some(t) = level.lgpc() else {
        return;
    };
    let base = level.payload_offset(Tag::LGPC);
    let Some(table) = t.table() else {
        out.warnings.push(format!(
            "LGPC: the string data does not split into {} × {} NUL-terminated strings; not extracted",
            t.rows(),
            t.cols
        ));
        return;
    };
    let mut list = Vec::new();
    let mut at = t.data_offset();
    let mut csv = String::from("column");
    for r in 0..t.rows() {
        csv.push_str(&format!(",row_{r}"));
    }
    csv.push_str("\r\n");
    for (c, col) in table.iter().enumerate() {
        csv.push_str(&c.to_string());
        for (r, s) in col.iter().enumerate() {
            let text = latin1::decode(s);
            csv.push(',');
            csv.push_str(&csv_cell(&text));
            list.push(json!({
                "column": c,
                "row": r,
                "voice_id": r as u64 + 1 == t.rows(),
                "offset": base.map(|b| b + at),
                "text": text,
            }));
            // the string and its NUL
            at += s.len() + 1;
        }
        csv.push_str("\r\n");
    }
    let doc = json!({
        "chunk": "LGPC",
        "offset": base,
        "rows": t.rows(),
        "columns": t.cols,
        "encoding": "ISO-8859-1 bytes as Unicode U+0000..U+00FF",
        "strings": list,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    out.files.push(("strings.json".into(), text.into_bytes()));
    out.files.push(("strings.csv".into(), csv.into_bytes()));
    out.items.push(json!({
        "kind": "strings",
        "chunk": "LGPC",
        "offset": base,
        "file": "strings.json",
        "csv": "strings.csv",
        "rows": t.rows(),
        "columns": t.cols,
    }));
}

/// The level name of the NAME chunk (a manifest item, no file).
pub(super) fn name(level: &Level, out: &mut Extracted) {
    let Some(n) = level.name() else {
        return;
    };
    out.items.push(json!({
        "kind": "name",
        "chunk": "NAME",
        "offset": level.payload_offset(Tag::NAME).map(|o| o + crate::name::TEXT_OFFSET),
        "count": n.count,
        "text": latin1::decode(n.name_bytes()),
        "file": Value::Null,
    }));
}
