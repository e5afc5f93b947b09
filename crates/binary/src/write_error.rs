//! Errors of the writing side: a value that does not fit the field it is written to.
//!
//! Readers guarantee that an unchanged model writes back to the same bytes, so these errors
//! never happen on a round trip; they guard edited and imported data (a model with 70,000
//! vertices, a count past `u16::MAX`, a face naming a vertex that does not exist), which must be
//! refused with the field named rather than silently truncated by an `as` cast.

use std::fmt;

/// What is wrong with a value being written.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WriteErrorKind {
    /// The value is outside the range of the field's integer type.
    DoesNotFit {
        /// The value, as text (it may be negative or wider than 64 bits).
        value: String,
        /// The field's type, e.g. `u16`.
        field_type: &'static str,
    },
    /// An index refers past the end of what it indexes.
    IndexOutOfRange {
        /// The index.
        index: u64,
        /// How many elements there are.
        len: u64,
    },
    /// Any other rule of the format the value breaks, in words.
    Invalid(String),
}

impl fmt::Display for WriteErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteErrorKind::DoesNotFit { value, field_type } => {
                write!(f, "value {value} does not fit in its {field_type} field")
            }
            WriteErrorKind::IndexOutOfRange { index, len } => {
                write!(f, "index {index} is out of range (there are {len})")
            }
            WriteErrorKind::Invalid(m) => f.write_str(m),
        }
    }
}

/// A value that cannot be written: which field (`TRAK/models[3]/vertex count`) and why.
///
/// Displays as `cannot write TRAK/models[3]/vertex count: value 70000 does not fit in its u16 field`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot write {field}: {kind}")]
pub struct WriteError {
    /// The field path, chunk first.
    pub field: String,
    /// What is wrong.
    pub kind: WriteErrorKind,
}

impl WriteError {
    /// A free-form error about `field`.
    pub fn invalid(field: impl Into<String>, msg: impl Into<String>) -> Self {
        WriteError {
            field: field.into(),
            kind: WriteErrorKind::Invalid(msg.into()),
        }
    }

    /// `index` is not below `len`.
    pub fn index(field: impl Into<String>, index: impl Into<u64>, len: impl Into<u64>) -> Self {
        WriteError {
            field: field.into(),
            kind: WriteErrorKind::IndexOutOfRange {
                index: index.into(),
                len: len.into(),
            },
        }
    }

    /// The same error with `outer` put in front of its field path (`outer/field`), for
    /// writers that call the writer of a part.
    pub fn within(mut self, outer: &str) -> Self {
        self.field = if self.field.is_empty() {
            outer.to_string()
        } else {
            format!("{outer}/{}", self.field)
        };
        self
    }
}

/// Convert `value` into the field type `T`, or a [`WriteError`] naming `field` (built only on
/// failure).
///
/// ```
/// use levelgeom_binary::fit;
/// let n: u16 = fit(300usize, || "TRAK/models[0]/vertex count".into()).unwrap();
/// assert_eq!(n, 300);
/// let e = fit::<u16, _>(70_000usize, || "TRAK/models[0]/vertex count".into()).unwrap_err();
/// assert_eq!(e.to_string(), "cannot write TRAK/models[0]/vertex count: value 70000 does not fit in its u16 field");
/// ```
pub fn fit<T, V>(value: V, field: impl FnOnce() -> String) -> Result<T, WriteError>
where
    V: TryInto<T> + Copy + fmt::Display,
{
    value.try_into().map_err(|_| WriteError {
        field: field(),
        kind: WriteErrorKind::DoesNotFit {
            value: value.to_string(),
            field_type: short_type_name::<T>(),
        },
    })
}

fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_names_the_field_and_type() {
        assert_eq!(fit::<u8, _>(255u32, || "a".into()), Ok(255u8));
        let e = fit::<i16, _>(-40_000i32, || "MAP/tiles[2]/y".into()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot write MAP/tiles[2]/y: value -40000 does not fit in its i16 field"
        );
        let e = WriteError::index("faces[3]/v1", 9u32, 4u32).within("TRAK/models[1]");
        assert_eq!(
            e.to_string(),
            "cannot write TRAK/models[1]/faces[3]/v1: index 9 is out of range (there are 4)"
        );
    }
}
