//! What several of the binary's tests share: running it, the real X-Ray fixture, writing a
//! generated WAD, reading JSON and PNG files back, the Khronos glTF validator.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

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

/// Run the levelgeom binary with string arguments: its whole output.
pub fn levelgeom(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_levelgeom"))
        .args(args)
        .output()
        .expect("runs levelgeom")
}

/// Run the levelgeom binary and assert it succeeded (its stdout and stderr in the message).
pub fn ok(args: &[&str]) -> Output {
    let o = levelgeom(args);
    assert!(
        o.status.success(),
        "levelgeom {args:?}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// A path as a string argument.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// A JSON file, parsed.
pub fn json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// Write a generated level's `bytes` as `dir/name`: its path and the bytes.
pub fn write_wad(dir: &Path, name: &str, bytes: Vec<u8>) -> (PathBuf, Vec<u8>) {
    let p = dir.join(name);
    std::fs::write(&p, &bytes).unwrap();
    (p, bytes)
}

/// An RGBA8 PNG file decoded by the png crate: `(width, height, pixels)`.
pub fn rgba(path: &Path) -> (u32, u32, Vec<u8>) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// What the Khronos glTF validator (`tools/gltf-validator/validate.mjs --strict`) said of one
/// file.
pub struct Validated {
    /// It exited 0.
    pub passed: bool,
    /// Its report (stdout).
    pub report: String,
    /// Its stderr.
    pub stderr: String,
}

/// Run the Khronos glTF validator on each of `files`, or `None` when node or the validator's
/// `node_modules` is missing (reported through `levelgeom_testkit::tool_missing`, which fails
/// under CI=true).
pub fn gltf_validator(files: &[PathBuf]) -> Option<Vec<Validated>> {
    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/gltf-validator");
    let node_ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !node_ok || !tool.join("node_modules").is_dir() {
        levelgeom_testkit::tool_missing(
            "the glTF validator (node + tools/gltf-validator/node_modules)",
        );
        return None;
    }
    let run = |f: &PathBuf| {
        let o = Command::new("node")
            .arg(tool.join("validate.mjs"))
            .arg("--strict")
            .arg(f)
            .output()
            .unwrap();
        Validated {
            passed: o.status.success(),
            report: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    };
    Some(files.iter().map(run).collect())
}

/// A WAV file laid out by hand (RIFF spec, 44-byte canonical header): format tag (1 integer
/// PCM, 3 float), channels, bits per sample, rate, then `data` (the interleaved samples).
pub fn wav_bytes(tag: u16, channels: u16, bits: u16, rate: u32, data: &[u8]) -> Vec<u8> {
    let align = channels * bits.div_ceil(8);
    let mut b = b"RIFF".to_vec();
    b.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&tag.to_le_bytes());
    b.extend_from_slice(&channels.to_le_bytes());
    b.extend_from_slice(&rate.to_le_bytes());
    b.extend_from_slice(&(rate * u32::from(align)).to_le_bytes());
    b.extend_from_slice(&align.to_le_bytes());
    b.extend_from_slice(&bits.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&(data.len() as u32).to_le_bytes());
    b.extend_from_slice(data);
    b
}
