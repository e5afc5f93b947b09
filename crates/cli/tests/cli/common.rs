//! What several of the binary's tests share: running it, the real X-Ray fixture.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Run the levelgeom binary: `(exit code, stdout, stderr)`.
pub fn run(args: &[&OsStr]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_levelgeom"))
        .args(args)
        .output()
        .expect("runs levelgeom");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// An argument as an `OsStr`.
pub fn os<S: AsRef<OsStr> + ?Sized>(s: &S) -> &OsStr {
    s.as_ref()
}

/// The real XRLC 14 fixture's folder.
pub fn xray_fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../xray/tests/data/xray-v14-micro")
}

/// The files of an XRLC 13/14 level folder.
pub const XRAY_FILES: [&str; 4] = ["level", "level.geom", "level.geomx", "level.cform"];
