//! S.T.A.L.K.E.R. (X-Ray engine) compiled levels.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// True when `bytes` look like an X-Ray chunk file that starts with a 4-byte header chunk 1.
pub fn sniff(bytes: &[u8]) -> bool {
    bytes.len() >= 12 && bytes[0..8] == [1, 0, 0, 0, 4, 0, 0, 0]
}
