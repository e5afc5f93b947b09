//! What `check` reports: one problem type for every engine.

use std::fmt;

/// How serious a [`Problem`] is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing; the game (and our export) still handle the file.
    Warning,
    /// A rule of the format is broken: the game may misbehave or the export be wrong.
    #[default]
    Error,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One broken consistency rule, naming where it is (`TRAK/models[3]/faces[17]`, and the byte
/// offset when the rule is about bytes of the file) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Where: chunk, then record path segments, e.g. `TRAK/models[3]/faces[17]`.
    pub path: String,
    /// The absolute file offset of what is wrong, where the rule knows it.
    pub offset: Option<u64>,
    /// What is wrong, e.g. `texture index 40 is not below the 31 texture entries`.
    pub message: String,
    /// How serious it is.
    pub severity: Severity,
}

impl Problem {
    /// An [`Severity::Error`] problem at `path` with no known offset.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            path: path.into(),
            offset: None,
            message: message.into(),
            severity: Severity::Error,
        }
    }

    /// The same problem, at an absolute file offset.
    pub fn at(mut self, offset: u64) -> Problem {
        self.offset = Some(offset);
        self
    }

    /// The same problem, as a warning.
    pub fn warning(mut self) -> Problem {
        self.severity = Severity::Warning;
        self
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.severity == Severity::Warning {
            f.write_str("warning: ")?;
        }
        if let Some(o) = self.offset {
            write!(f, "at 0x{o:08X} in ")?;
        }
        write!(f, "{}: {}", self.path, self.message)
    }
}
