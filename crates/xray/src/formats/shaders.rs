//! `level` chunk 2 (`fsL_SHADERS`): the shader table visuals index with `shader_id`.
//!
//! | size | meaning |
//! |---|---|
//! | 4 | `u32 count` |
//! | … | `count` NUL-terminated strings |
//!
//! Entry 0 is the empty "reserved" entry. An entry reads `"<engine shader>/<tex0>[,<tex1>…]"`
//! (the engine splits at the first `/`); `tex0` is the diffuse texture (relative to
//! `gamedata/textures`, backslashes), `lmap#N_1,lmap#N_2` are lightmap layers in the level folder,
//! `<tex>_lm` an implicit-lighting map. Strings are kept as bytes (game files use cp1251).

use levelgeom_binary::{fit, ReadError, Reader, WriteError, Writer};

/// One shader table entry, as stored (without its NUL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaderEntry(pub Vec<u8>);

impl ShaderEntry {
    /// The entry as text (lossy for non-UTF-8 bytes).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0).into_owned()
    }

    /// The engine shader: everything before the first `/` (the whole entry if there is none).
    pub fn engine_shader(&self) -> String {
        let t = self.text();
        match t.split_once('/') {
            Some((s, _)) => s.to_string(),
            None => t,
        }
    }

    /// The texture names after the first `/`, split at commas.
    pub fn textures(&self) -> Vec<String> {
        let t = self.text();
        match t.split_once('/') {
            Some((_, tex)) if !tex.is_empty() => tex.split(',').map(str::to_string).collect(),
            _ => Vec::new(),
        }
    }

    /// The diffuse texture (the first one), if any.
    pub fn diffuse(&self) -> Option<String> {
        self.textures().into_iter().next()
    }
}

/// Read the table.
pub fn read(r: &mut Reader<'_>) -> Result<Vec<ShaderEntry>, ReadError> {
    let n = r.u32_count(1)?;
    let mut v = Vec::with_capacity(n);
    for i in 0..n {
        r.push("shader", Some(i));
        v.push(ShaderEntry(r.cstr()?.to_vec()));
        r.pop();
    }
    r.finish()?;
    Ok(v)
}

/// Write the table; an entry with a NUL byte inside cannot be stored NUL-terminated.
pub fn write(v: &[ShaderEntry], w: &mut Writer) -> Result<(), WriteError> {
    w.u32(fit(v.len(), || "shader count".into())?);
    for (i, s) in v.iter().enumerate() {
        if let Some(k) = s.0.iter().position(|&b| b == 0) {
            return Err(WriteError::invalid(
                format!("shader[{i}]"),
                format!("has a NUL byte at {k}; entries are stored NUL-terminated"),
            ));
        }
        w.bytes(&s.0);
        w.u8(0);
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn entries_split_at_the_first_slash_and_commas() {
        let e = ShaderEntry(b"default/crete\\crete_roof1,lmap#1_1,lmap#1_2".to_vec());
        assert_eq!(e.engine_shader(), "default");
        assert_eq!(
            e.textures(),
            vec!["crete\\crete_roof1", "lmap#1_1", "lmap#1_2"]
        );
        let e = ShaderEntry(b"effects\\glow/glow\\glow_04".to_vec());
        assert_eq!(e.engine_shader(), "effects\\glow");
        assert_eq!(e.diffuse().as_deref(), Some("glow\\glow_04"));
        assert!(ShaderEntry(Vec::new()).textures().is_empty());
    }
}
