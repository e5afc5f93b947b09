//! `LGHT`: lights (ENG Bible; hdc0; Rartrin `LightPC`; docs/formats/argonaut-wad.md §5). Read as a stream by `sub_42C180`.
//!
//! ```text
//! offset | size | meaning
//!      0 |    4 | u32 n
//!        |      | n lights:
//!        |    1 |   u8 type
//!        |    3 |   u8 r, g, b
//!        |      |   type 1:      3 × f32
//!        |      |   type 2 or 4: 5 × f32, then 1 byte
//!        |      |   other types: nothing more
//! ```
//! The meaning of the floats is not settled (position/direction, radii); they are kept as read.

use levelgeom_binary::{fit, ReadError, Reader, WriteError, Writer};

/// What follows a light's 4-byte head, by type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LightBody {
    /// Type 1: three floats.
    Three([f32; 3]),
    /// Types 2 and 4: five floats and one byte.
    Five {
        /// The floats.
        values: [f32; 5],
        /// The byte after them.
        extra: u8,
    },
    /// Any other type: no further bytes.
    Empty,
}

/// One light.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Light {
    /// The type byte (1, 2, 4 are known).
    pub kind: u8,
    /// Colour bytes.
    pub rgb: [u8; 3],
    /// The type-dependent rest.
    pub body: LightBody,
}

/// The LGHT chunk.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lght {
    /// The lights in file order.
    pub lights: Vec<Light>,
}

impl Lght {
    /// Read the payload.
    pub fn read(r: &mut Reader<'_>) -> Result<Lght, ReadError> {
        let n = r.u32_count(4)?;
        let mut lights = Vec::with_capacity(n);
        for i in 0..n {
            lights.push(r.within("lights", Some(i), |r| {
                let kind = r.u8()?;
                let rgb = r.array::<3>()?;
                let body = match kind {
                    1 => LightBody::Three(r.f32s::<3>()?),
                    2 | 4 => LightBody::Five {
                        values: r.f32s::<5>()?,
                        extra: r.u8()?,
                    },
                    _ => LightBody::Empty,
                };
                Ok(Light { kind, rgb, body })
            })?);
        }
        Ok(Lght { lights })
    }

    /// Write the payload (the body as stored, whatever the type byte says).
    pub fn write(&self, w: &mut Writer) -> Result<(), WriteError> {
        w.u32(fit(self.lights.len(), || "LGHT/light count".into())?);
        for l in &self.lights {
            w.u8(l.kind);
            w.bytes(&l.rgb);
            match l.body {
                LightBody::Three(v) => w.f32s(&v),
                LightBody::Five { values, extra } => {
                    w.f32s(&values);
                    w.u8(extra);
                }
                LightBody::Empty => {}
            }
        }
        Ok(())
    }
}
