//! The glTF JSON's root object parsed on two threads: its `accessors` array on one, every
//! other member on the other, each by the `gltf` crate's own parse of a root object
//! ([`Root::from_slice`]): the accessors wrapped alone in a root object of their own, the
//! rest with `"accessors": []` in their place. The accessors are most of a level export's
//! JSON (14,000 of them of the 2,000-visual generated level's 2.9 MB JSON chunk, beside
//! 14,000 bufferViews, 2,000 meshes and 2,034 nodes).
//!
//! The members of a root object are read independently of each other (the derived
//! deserializer of `Root`: each member's value into its own field), so the two halves give
//! the root the whole parse gives. Any file the split does not fit, and every error, is
//! parsed whole, which gives the error and its place as before (a key written with escapes,
//! no `accessors`, a JSON chunk under [`SPLIT_FROM`], a member twice).

use gltf::json::Root;
use serde_json::value::RawValue;

/// From how many bytes of JSON on the accessors are parsed on a thread of their own.
const SPLIT_FROM: usize = 256 << 10;

/// The root object of `json`, as [`Root::from_slice`] gives it.
///
/// # Errors
/// [`Root::from_slice`]'s, of the whole JSON.
pub(super) fn parse(json: &[u8]) -> Result<Root, serde_json::Error> {
    if json.len() >= SPLIT_FROM {
        if let Some(root) = split(json) {
            return Ok(root);
        }
    }
    Root::from_slice(json)
}

/// Finds the value of a JSON object's member `accessors`, the other members before it skipped
/// ([`serde::de::IgnoredAny`]): the visit stops there (the deserializer then reports the
/// object unfinished, which the caller ignores: what was found is in `found`).
struct Accessors<'a, 'de> {
    found: &'a mut Option<&'de RawValue>,
}

impl<'de> serde::de::Visitor<'de> for Accessors<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        while let Some(key) = m.next_key::<&'de str>()? {
            if key == "accessors" {
                *self.found = Some(m.next_value()?);
                return Ok(());
            }
            m.next_value::<serde::de::IgnoredAny>()?;
        }
        Ok(())
    }
}

/// The root of `json` parsed in two halves on two threads; `None` when the split does not
/// fit or a half fails (the whole parse then gives the error). A member twice (`accessors`
/// among them) is in the rest, whose parse refuses it.
fn split(json: &[u8]) -> Option<Root> {
    let text = std::str::from_utf8(json).ok()?;
    let mut found = None;
    // Err: stopped at `accessors` (or a file the whole parse reports on)
    let _ = serde::Deserializer::deserialize_map(
        &mut serde_json::Deserializer::from_str(text),
        Accessors { found: &mut found },
    );
    let raw = found?.get();
    // where the value lies in `json` (it was borrowed from it: checked all the same)
    let start = (raw.as_ptr() as usize).checked_sub(json.as_ptr() as usize)?;
    let end = start.checked_add(raw.len())?;
    if json.get(start..end) != Some(raw.as_bytes()) {
        return None;
    }
    let mut rest = Vec::with_capacity(json.len() - raw.len() + 2);
    rest.extend_from_slice(&json[..start]);
    rest.extend_from_slice(b"[]");
    rest.extend_from_slice(&json[end..]);
    let head = br#"{"asset":{"version":"2.0"},"accessors":"#;
    let mut alone = Vec::with_capacity(head.len() + raw.len() + 1);
    alone.extend_from_slice(head);
    alone.extend_from_slice(raw.as_bytes());
    alone.push(b'}');
    let accessors = || {
        let r = Root::from_slice(&alone).ok().map(|r| r.accessors);
        r
    };
    std::thread::scope(|s| {
        let other = std::thread::Builder::new()
            .name("parse glTF".into())
            .spawn_scoped(s, accessors);
        let root = Root::from_slice(&rest).ok();
        let accessors = match other {
            Ok(t) => t
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // no thread: parsed here
            Err(_) => accessors(),
        };
        let mut root = root?;
        root.accessors = accessors?;
        Some(root)
    })
}
