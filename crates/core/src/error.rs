//! The one error type of the library entry point.

use std::path::PathBuf;

use levelgeom_binary::{ReadError, WriteError};

/// Why an operation on a level failed. Every variant names the file; read errors also carry
/// the byte offset and chunk path inside it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An input file could not be read from disk.
    #[error("cannot read {path}: {source}")]
    Input {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A file could not be read from (or written to) disk (where it is not known which;
    /// inputs that cannot be read are [`Error::Input`]).
    #[error("cannot read or write {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The bytes are no level file of any engine.
    #[error("{file}: not a recognised level file ({len} bytes, first bytes {first}): {expected}")]
    NotALevel {
        /// The file, as given.
        file: String,
        /// Its size.
        len: usize,
        /// Its first bytes, in hex.
        first: String,
        /// What the detection looked for.
        expected: &'static str,
    },
    /// The file is malformed: the offset and chunk path say where.
    #[error("{file}: {source}")]
    Read {
        /// The file.
        file: String,
        /// What went wrong, and where.
        #[source]
        source: ReadError,
    },
    /// The level cannot be written back (a value of the model does not fit its field).
    #[error("{file}: {source}")]
    Write {
        /// The file the model came from.
        file: String,
        /// The field and why.
        #[source]
        source: WriteError,
    },
    /// An option given does not apply to the opened level's engine.
    #[error("{file} is {format}; these do not apply to it: {option}")]
    OptionDoesNotApply {
        /// The option(s), as the user wrote them.
        option: &'static str,
        /// The file.
        file: String,
        /// What the file is.
        format: &'static str,
    },
    /// Options of one engine were given for a file of another (`--rebuild` for an X-Ray
    /// level): [`crate::LevelFile::refuse_other_engines_options`].
    #[error(
        "{} {}; {file} is {format}, so {} not apply",
        and_list(options),
        match (options.len(), engine) {
            (1, crate::Engine::Xray) => "is an X-Ray option".to_string(),
            (1, e) => format!("is a {} option", e.name()),
            (_, e) => format!("are {} options", e.name()),
        },
        if options.len() == 1 { "it does" } else { "they do" }
    )]
    OptionsOfAnotherEngine {
        /// The options, as the user wrote them.
        options: Vec<&'static str>,
        /// The engine they belong to.
        engine: crate::Engine,
        /// The file.
        file: String,
        /// What the file is.
        format: &'static str,
    },
    /// The file reads, but holds no level to convert: what is missing, and the offset of
    /// where it was looked for (e.g. the END chunk of a WAD without MAP, the header chunk of an
    /// X-Ray build that is not read).
    #[error("{file}: at 0x{offset:08X} in {path}: {source}")]
    NotConvertible {
        /// The file.
        file: String,
        /// Where the missing or refused part is (or would be).
        offset: u64,
        /// The chunk path there.
        path: String,
        /// What is missing or refused: the engine's scene error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// This kind of file cannot do what was asked (e.g. export a `level.geom` alone).
    #[error("{file}: {message}")]
    Unsupported {
        /// The file.
        file: String,
        /// What cannot be done, and what to do instead.
        message: String,
    },
    /// A value given to a command means nothing (a coordinate that is not finite or lies
    /// beyond any level): which argument, and why.
    #[error("{argument}: {message}")]
    BadArgument {
        /// The argument, as the user knows it (e.g. `probe x`).
        argument: String,
        /// What is wrong with its value.
        message: String,
    },
    /// An X-Ray level could not be converted into a scene.
    #[error("{file}: {source}")]
    XrayScene {
        /// The level file.
        file: String,
        /// Why.
        #[source]
        source: levelgeom_xray::scene::SceneError,
    },
    /// An X-Ray level's files could not be read together or converted into a scene.
    #[error("{file}: {source}")]
    XrayFiles {
        /// The level file.
        file: String,
        /// Why (it names the file of the level it is about).
        #[source]
        source: Box<levelgeom_xray::files::FilesError>,
    },
    /// An X-Ray import or conversion was refused: the edit, the build asked for, or data the
    /// conversion would lose ([`Error::needs_allow_loss`]).
    #[error("{file}: {source}")]
    XrayImport {
        /// The mesh file (the collision mesh's for its errors), or the level for a conversion.
        file: String,
        /// Why.
        #[source]
        source: levelgeom_xray::import::ImportError,
    },
    /// A WAD import refused the mesh: the triangle it is about, located in the mesh file.
    #[error("{file}: {source}{at}")]
    WadImport {
        /// The mesh file (the collision mesh's for collision triangles).
        file: String,
        /// Why.
        #[source]
        source: levelgeom_wad::import::ImportError,
        /// ` (at node …, triangle …)` when the error is about one triangle, else empty.
        at: String,
    },
    /// A WAD import was given an export of an X-Ray level, and refused it.
    #[error(
        "{file}: this is an export of an X-Ray level (its nodes carry X-Ray `visual` \
         properties), which a WAD cannot take; import it into the X-Ray level it came from: \
         levelgeom import LEVEL_DIR {file} OUT_DIR ({source})"
    )]
    XrayExportIntoWad {
        /// The mesh file.
        file: String,
        /// What the WAD import said.
        #[source]
        source: levelgeom_wad::import::ImportError,
    },
    /// A mesh file places more triangles than `Limits::max_instanced_triangles`.
    #[error("{file}: {source}{note}")]
    TooManyTriangles {
        /// The mesh file.
        file: String,
        /// The node that crossed the limit.
        #[source]
        source: levelgeom_import::TooManyTriangles,
        /// ` (total over the file: limit N)` when the limit is shared by several trees of
        /// the file, else empty.
        note: String,
    },
    /// A file beside an X-Ray `level` (its `level.geom`, `level.cform`, …) cannot be used.
    #[error("{file}: the files beside it: {source}")]
    XrayBeside {
        /// The `level` file.
        file: String,
        /// Why (naming the file beside it).
        #[source]
        source: Box<levelgeom_xray::files::FilesError>,
    },
    /// A preview picture could not be encoded.
    #[error("{file}: the {view} preview: {source}")]
    Preview {
        /// The scene's name.
        file: String,
        /// The view (`top`, `persp`, …).
        view: &'static str,
        /// Why.
        #[source]
        source: levelgeom_render::RenderError,
    },
    /// An output file could not be encoded (a PNG).
    #[error("{file}: {source}")]
    Encode {
        /// The file being made.
        file: String,
        /// Why.
        #[source]
        source: levelgeom_export::ExportError,
    },
    /// A mesh file (for import) could not be read; the message names the file and, where
    /// the format has them, the line or JSON path.
    #[error(transparent)]
    Mesh(#[from] levelgeom_import::ImportError),
    /// A WAD's sounds, strings or font could not be extracted.
    #[error(transparent)]
    Extract(#[from] levelgeom_wad::extract::ExtractError),
    /// Edited strings, sounds or zones could not be put into a WAD.
    #[error(transparent)]
    Replace(#[from] levelgeom_wad::replace::ReplaceError),
    /// Writing the export folder failed; nothing in it was changed.
    #[error(transparent)]
    Folder(#[from] levelgeom_export::folder::FolderError),
}

impl Error {
    /// The file offset the error is about, where it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Read { source, .. } => Some(source.offset),
            Error::NotALevel { .. } => Some(0),
            Error::NotConvertible { offset, .. } => Some(*offset),
            _ => None,
        }
    }

    /// True when the operation was refused only because it would lose data, and would succeed
    /// with `allow_loss` (`--allow-loss`): not a broken file.
    pub fn needs_allow_loss(&self) -> bool {
        matches!(
            self,
            Error::XrayImport {
                source: levelgeom_xray::import::ImportError::Loss { .. },
                ..
            }
        )
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    #[test]
    fn lists_join_with_and() {
        assert_eq!(super::and_list(&["--lods"]), "--lods");
        assert_eq!(super::and_list(&["--lods", "--only"]), "--lods and --only");
        assert_eq!(super::and_list(&["a", "b", "c"]), "a, b and c");
    }
}
