//! Glue between the CLI and `levelgeom-wad`: info, rebuild, check and the demo level.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use levelgeom_binary::Warning;
use levelgeom_wad::container::RawWad;
use levelgeom_wad::level::{ChunkData, Level};
use levelgeom_wad::text::Effects;
use serde_json::{json, Value};

/// The built-in demo level (a generated, self-consistent WAD).
pub fn demo_bytes() -> Vec<u8> {
    levelgeom_wad::generate::demo_level()
}

/// Parse the container and the typed level, with the file named in any error.
fn parse(path: &Path, bytes: &[u8]) -> anyhow::Result<(RawWad, Level, Vec<Warning>)> {
    let (raw, _) = RawWad::parse(bytes).with_context(|| format!("{}", path.display()))?;
    let (level, warnings) =
        Level::from_bytes(bytes).with_context(|| format!("{}", path.display()))?;
    Ok((raw, level, warnings))
}

fn warn_stderr(path: &Path, warnings: &[Warning]) {
    for w in warnings {
        eprintln!("levelgeom: warning: {}: {w}", path.display());
    }
}

/// One line per chunk: what it holds.
fn summary(data: &ChunkData) -> String {
    match data {
        ChunkData::Info(b) | ChunkData::Vers(b) => format!("{} bytes (kept raw)", b.len()),
        ChunkData::Wfpc(w) => format!("flags 0x{:08X}", w.flags),
        ChunkData::Text(t) => {
            let count = |name: &str| t.pages.iter().filter(|p| p.storage_name() == name).count();
            let effects = match &t.effects {
                Effects::Absent => "no effects".to_string(),
                Effects::List(l) => format!("{} effects", l.len()),
                Effects::Raw(b) => format!("{} bytes of unparsed effects", b.len()),
            };
            format!(
                "{} palettes, {} pages ({} rle, {} raw16, {} 8-bit), {} texture entries, {}",
                t.palettes.len(),
                t.pages.len(),
                count("rle"),
                count("raw16"),
                count("8-bit"),
                t.entries.len(),
                effects
            )
        }
        ChunkData::Font(f) => format!("{} glyphs", f.glyphs.len()),
        ChunkData::Sprt(s) => match &s.table {
            Some(t) => format!("material base {}, table of {}", s.material_base, t.len()),
            None => format!("material base {}", s.material_base),
        },
        ChunkData::Name(n) => format!("\"{}\"", n.text().escape_default()),
        ChunkData::Smpc(s) => format!("{} sounds", s.sounds.len()),
        ChunkData::Ampc(a) => match a.count() {
            Some(n) => format!("{n} entries, {} bytes (kept raw)", a.raw.len()),
            None => format!("{} bytes (kept raw)", a.raw.len()),
        },
        ChunkData::Srpc(s) => format!("{} speech references", s.refs.len()),
        ChunkData::Trak(t) => format!(
            "{} models, {} vertices, {} faces, {} collision polygons",
            t.models.len(),
            t.models.iter().map(|m| m.vertices.len()).sum::<usize>(),
            t.models.iter().map(|m| m.faces.len()).sum::<usize>(),
            t.models.iter().map(|m| m.collision.len()).sum::<usize>(),
        ),
        ChunkData::Stpc(s) => format!(
            "{} models, {} animations, {} bytes of script data",
            s.models.len(),
            s.animation_count,
            s.rest.len()
        ),
        ChunkData::Map(m) => format!(
            "{}×{} grid, {} tiles, {} tile swaps, {} objects",
            m.grid_w,
            m.grid_h,
            m.tiles.len(),
            m.swaps.as_ref().map_or(0, |s| s.len()),
            m.objects.len()
        ),
        ChunkData::Lght(l) => format!("{} lights", l.lights.len()),
        ChunkData::Lnfo(l) => format!("values {} {}", l.values[0], l.values[1]),
        ChunkData::Lgpc(l) => format!("{} rows × {} strings", l.rows(), l.cols),
        ChunkData::End(b) => format!("end, {} payload bytes", b.len()),
        ChunkData::Unknown(b) => format!("{} bytes (kept raw)", b.len()),
    }
}

/// `info` for a WAD.
pub fn info(path: &Path, bytes: &[u8], json: bool, out: &mut dyn Write) -> anyhow::Result<u8> {
    let (raw, level, warnings) = parse(path, bytes)?;
    let map = level.map();
    if json {
        let chunks: Vec<Value> = raw
            .chunks
            .iter()
            .map(|c| {
                json!({
                    "tag": c.tag.name(),
                    "offset": c.offset,
                    "declared_size": c.declared_size,
                    "size": c.payload.len(),
                })
            })
            .collect();
        let v = json!({
            "format": "argonaut-wad",
            "file": path.display().to_string(),
            "size": bytes.len(),
            "header": { "value": raw.header, "bias": raw.bias() },
            "chunks": chunks,
            "trailing_bytes": raw.trailing.len(),
            "level": {
                "wfpc": level.wfpc(),
                "grid": map.map(|m| json!([m.grid_w, m.grid_h])),
                "tiles": map.map(|m| m.tiles.len()),
                "trak_models": level.trak().map(|t| t.models.len()),
                "stpc_models": level.stpc().map(|s| s.models.len()),
                "texture_pages": level.text().map(|t| t.pages.len()),
                "texture_entries": level.text().map(|t| t.entries.len()),
            },
            "warnings": warnings.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(0);
    }
    writeln!(
        out,
        "{}: Argonaut level WAD (The Emperor's New Groove PC), {} bytes",
        path.display(),
        bytes.len()
    )?;
    writeln!(
        out,
        "header 0x{:08X} (file size − 4 {} {})",
        raw.header,
        if raw.bias() < 0 { "−" } else { "+" },
        raw.bias().unsigned_abs()
    )?;
    writeln!(
        out,
        "{:<10}  {:<4}  {:>10}  {:>10}  contents",
        "offset", "tag", "declared", "size"
    )?;
    for (c, typed) in raw.chunks.iter().zip(&level.chunks) {
        writeln!(
            out,
            "0x{:08X}  {:<4}  {:>10}  {:>10}  {}",
            c.offset,
            c.tag.name(),
            c.declared_size,
            c.payload.len(),
            summary(&typed.data)
        )?;
    }
    if !raw.trailing.is_empty() {
        writeln!(
            out,
            "{} bytes after END (kept verbatim)",
            raw.trailing.len()
        )?;
    }
    for w in &warnings {
        writeln!(out, "warning: {w}")?;
    }
    Ok(0)
}

/// `rebuild` for a WAD: the rebuilt bytes.
pub fn rebuild(path: &Path, bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
    let (level, warnings) =
        Level::from_bytes(bytes).with_context(|| format!("{}", path.display()))?;
    warn_stderr(path, &warnings);
    Ok(level.to_bytes())
}

/// Name the chunk (and, where known, the part) that holds absolute offset `at`.
pub fn locate(bytes: &[u8], at: usize) -> Option<String> {
    if at < 4 {
        return Some("the file header".to_string());
    }
    let (raw, _) = RawWad::parse(bytes).ok()?;
    if let Some(c) = raw.chunk_at(at) {
        let part = if at < c.payload_offset() {
            " header"
        } else {
            ""
        };
        return Some(format!(
            "{}{part} (chunk at 0x{:08X})",
            c.tag.name().trim_end(),
            c.offset
        ));
    }
    if !raw.trailing.is_empty() && at < bytes.len() {
        return Some("the bytes after END".to_string());
    }
    None
}

/// `check` for a WAD.
pub fn check(path: &Path, bytes: &[u8], out: &mut dyn Write) -> anyhow::Result<u8> {
    let (_, level, warnings) = parse(path, bytes)?;
    warn_stderr(path, &warnings);
    let violations = levelgeom_wad::check::check(&level);
    if violations.is_empty() {
        writeln!(out, "{}: no problems found", path.display())?;
        return Ok(0);
    }
    for v in &violations {
        writeln!(out, "{v}")?;
    }
    eprintln!(
        "levelgeom: {}: {} problem{} found",
        path.display(),
        violations.len(),
        if violations.len() == 1 { "" } else { "s" }
    );
    Ok(1)
}

#[cfg(test)]
mod tests {
    use super::locate;

    #[test]
    fn locate_names_the_chunk_holding_an_offset() {
        // header 0x1C, WFPC (12 bytes at 4), MAP with 4 payload bytes (at 16), END (at 28)
        let mut b = vec![0x1C, 0, 0, 0];
        b.extend_from_slice(b"CPFW\x04\0\0\0\0\0\0\0");
        b.extend_from_slice(b" PAM\x04\0\0\0\x01\x02\x03\x04");
        b.extend_from_slice(b" DNE\0\0\0\0");
        b.push(0xEE); // one byte after END
        assert_eq!(locate(&b, 2).as_deref(), Some("the file header"));
        assert_eq!(
            locate(&b, 9).as_deref(),
            Some("WFPC header (chunk at 0x00000004)")
        );
        assert_eq!(locate(&b, 25).as_deref(), Some("MAP (chunk at 0x00000010)"));
        assert_eq!(
            locate(&b, 28).as_deref(),
            Some("END header (chunk at 0x0000001C)")
        );
        assert_eq!(locate(&b, 36).as_deref(), Some("the bytes after END"));
        assert_eq!(locate(&b, 37), None);
    }
}
