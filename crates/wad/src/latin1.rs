//! The WAD's text bytes as Unicode and back: ISO-8859-1, every byte one character
//! U+0000..U+00FF, so any byte survives the round trip through UTF-8 JSON. Whether the game
//! means Windows-1252 in 0x80..0x9F is not known **\[L\]**.

/// Decode ISO-8859-1 bytes.
pub fn decode(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// A character [`encode`] cannot put into a NUL-terminated WAD string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// A NUL, which would end the string early.
    #[error("a NUL character ends a string in LGPC")]
    Nul,
    /// A character past U+00FF.
    #[error("{0:?} (U+{code:04X}) is not in ISO-8859-1, the WAD's text bytes", code = code_point(.0))]
    NotLatin1(char),
}

fn code_point(c: &char) -> u32 {
    u32::from(*c)
}

/// ISO-8859-1 encoding of a text for a NUL-terminated string (no NULs, nothing past U+00FF).
///
/// # Errors
/// The first character that cannot be encoded.
pub fn encode(text: &str) -> Result<Vec<u8>, EncodeError> {
    text.chars()
        .map(|c| match u8::try_from(u32::from(c)) {
            Ok(0) => Err(EncodeError::Nul),
            Ok(b) => Ok(b),
            Err(_) => Err(EncodeError::NotLatin1(c)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_round_trips_and_the_rest_is_refused() {
        let all: Vec<u8> = (1..=255).collect();
        assert_eq!(encode(&decode(&all)).unwrap(), all);
        assert_eq!(decode(&[0x41, 0xE9]), "Aé");
        assert_eq!(encode("a\0b"), Err(EncodeError::Nul));
        let e = encode("€").unwrap_err();
        assert_eq!(
            e.to_string(),
            "'€' (U+20AC) is not in ISO-8859-1, the WAD's text bytes"
        );
    }
}
