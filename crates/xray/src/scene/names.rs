//! Material names for the shader table: the diffuse texture's name, short enough for Blender.
//!
//! Blender keeps at most 63 bytes of an ID name and silently cuts longer ones, so two long
//! names that differ only past byte 63 would become one. Every name is therefore at most
//! [`MAX_NAME`] bytes (cut at a UTF-8 character boundary) and unique over the whole table:
//!
//! * the base is the diffuse texture (`tex0`, backslashes as `/`: `crete/crete_roof1`), or the
//!   engine shader for an entry without textures;
//! * entries are named in shader-id order; the first entry with a base gets the base itself,
//!   a later one whose (cut) base is taken gets `base#ID` (its shader id, with the base cut
//!   further so the whole stays within 63 bytes), and if even that is taken, `base#ID~K` for
//!   the first free K ≥ 1.
//!
//! Names depend only on the shader table, never on which visuals an export includes, so the
//! same entry has the same material name in every export of a level.

use crate::shaders::ShaderEntry;

/// The most bytes of a name Blender keeps.
pub const MAX_NAME: usize = 63;

/// `s` cut to at most `max` bytes at a character boundary.
pub fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// `base` cut so that `base + suffix` fits [`MAX_NAME`], then the suffix.
fn with_suffix(base: &str, suffix: &str) -> String {
    format!(
        "{}{suffix}",
        cut(base, MAX_NAME.saturating_sub(suffix.len()))
    )
}

/// The base name of one entry (before cutting and disambiguation).
pub fn base_name(entry: &ShaderEntry) -> String {
    match entry.diffuse() {
        Some(t) if !t.is_empty() => t.replace('\\', "/"),
        _ => entry.engine_shader(),
    }
}

/// The material name of every shader-table entry (index = shader id; entry 0, the reserved
/// empty one, gets a name too but is never used by a material).
pub fn material_names(shaders: &[ShaderEntry]) -> Vec<String> {
    let mut used = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(shaders.len());
    for (id, e) in shaders.iter().enumerate() {
        let base = base_name(e);
        let mut name = cut(&base, MAX_NAME).to_string();
        if used.contains(&name) {
            name = with_suffix(&base, &format!("#{id}"));
            let mut k = 1usize;
            while used.contains(&name) {
                name = with_suffix(&base, &format!("#{id}~{k}"));
                k += 1;
            }
        }
        used.insert(name.clone());
        out.push(name);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn e(s: &str) -> ShaderEntry {
        ShaderEntry(s.as_bytes().to_vec())
    }

    #[test]
    fn names_are_textures_unique_and_at_most_63_bytes() {
        let long = "a".repeat(70);
        let table = [
            e(""),
            e("default/crete\\crete_roof1,lmap#1_1,lmap#1_2"),
            e("default/crete\\crete_roof1,lmap#2_1,lmap#2_2"),
            e("def_shaders\\def_vertex"),
            e(&format!("default/{long}x")),
            e(&format!("default/{long}y")),
            // a texture literally named like the disambiguated second entry
            e("default/crete\\crete_roof1#2"),
        ];
        let n = material_names(&table);
        assert_eq!(n[1], "crete/crete_roof1");
        assert_eq!(n[2], "crete/crete_roof1#2");
        assert_eq!(n[3], "def_shaders\\def_vertex");
        assert_eq!(n[4], "a".repeat(63));
        assert_eq!(n[5], format!("{}#5", "a".repeat(61)));
        assert_eq!(n[6], "crete/crete_roof1#2#6");
        let mut set = std::collections::HashSet::new();
        for x in &n {
            assert!(x.len() <= MAX_NAME, "{x}");
            assert!(set.insert(x.clone()), "duplicate {x}");
        }
    }

    #[test]
    fn cut_keeps_characters_whole() {
        // 'ж' is two bytes in UTF-8: 31 of them are 62 bytes, the 32nd would cross 63
        let s = "ж".repeat(40);
        assert_eq!(cut(&s, 63).len(), 62);
        assert_eq!(cut("abc", 63), "abc");
    }
}
