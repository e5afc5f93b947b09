//! Against the peer modders use today, in the same run: blender-xray's level import in
//! Blender, and `levelgeom export LEVEL OUT --format gltf` (our way from a level to something
//! Blender opens), on the generated X-Ray levels of 2,000 and 8,000 visuals
//! ([`levelgeom_xray::bench_level::large`], written as the `process` bench writes them, plus
//! the empty portal, light and glow chunks and the empty `level.cform` that blender-xray cannot
//! import a level without; see [`complete_for_blender_xray`]):
//! `cargo bench -p levelgeom --bench peer [-- 2000|8000] [-- --json]`.
//!
//! Per run, each side is a child process timed from spawn to exit, with its CPU time (user +
//! system) and peak resident memory (`ru_maxrss` from `wait4`):
//! - **ours**: the release `levelgeom export DIR OUT --format gltf` (one untimed warm-up run
//!   per level first);
//! - **blender-xray**: `blender -b --factory-startup -noaudio --python
//!   tools/blender/peer_import.py`, which enables the add-on and times
//!   `bpy.ops.xray_import.level` alone inside Blender (`time.perf_counter` around the operator
//!   call, so Blender's start-up and exit are outside it), and reports what the import made; a
//!   level it reads with fewer mesh objects than visuals fails the bench. Blender runs with a
//!   system `PATH` (no pyenv shims: under pyenv Blender could pick up the wrong Python).
//!
//! The table gives both, the ratios (blender-xray's import time over our whole export, its
//! whole process over ours) and both peaks. Every figure is the median of
//! `LEVELGEOM_BENCH_RUNS` runs (default 1: Blender takes about half a minute per import of
//! the 2,000-visual level and minutes for the 8,000-visual one).
//!
//! Options (after `--`): words not starting with `-` pick the levels by substring of their
//! name (`xray-2000`, `8000`); `--json` prints one JSON document instead of the table.
//! Environment: `LEVELGEOM_BENCH_RUNS`, `LEVELGEOM_BIN` (another levelgeom binary),
//! `LEVELGEOM_BENCH_DIR` (where inputs and outputs go; default the temporary folder),
//! `LEVELGEOM_BLENDER` (the Blender binary; default `blender` on the system `PATH`),
//! `LEVELGEOM_BLENDER_XRAY` (the folder holding blender-xray's `io_scene_xray`; default
//! `shared/peers/blender-xray` beside the repository or the folder of worktrees, else
//! `/work/shared/peers/blender-xray`). A missing Blender or blender-xray is reported and the
//! bench does nothing, except under `CI=true`, where it fails (`levelgeom_testkit::tool_missing`);
//! it is not part of `.ci/run` (it takes minutes).
//!
//! Not a test: nothing here passes or fails on time.
#![allow(unsafe_code)] // wait4 in `child` (the libraries forbid unsafe; this bench is a tool)

mod child;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use child::{median, ms};

/// The `PATH` Blender runs with: the system's, without pyenv's shims.
const SYSTEM_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The levels measured: visuals of [`levelgeom_xray::bench_level::large`].
const LEVELS: [usize; 2] = [2000, 8000];

/// The repository's root (for `tools/blender/peer_import.py`).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Blender: `LEVELGEOM_BLENDER`, else `blender` found on the system `PATH`.
fn blender() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LEVELGEOM_BLENDER") {
        return Some(PathBuf::from(p));
    }
    SYSTEM_PATH
        .split(':')
        .map(|d| Path::new(d).join("blender"))
        .find(|p| p.is_file())
}

/// What `tools/blender/peer_import.py` writes.
#[derive(serde::Deserialize, Debug)]
struct Inside {
    /// Seconds of the `bpy.ops.xray_import.level` call.
    import_s: f64,
    meshes: usize,
    vertices: usize,
}

/// One run of both sides.
#[derive(Debug)]
struct Pair {
    ours: child::Usage,
    blender: child::Usage,
    inside: Inside,
}

/// The figures of one level.
#[derive(serde::Serialize)]
struct Summary {
    level: String,
    runs: usize,
    input_bytes: u64,
    levelgeom_wall_ms: f64,
    levelgeom_cpu_ms: f64,
    levelgeom_peak_rss_bytes: u64,
    blender_import_ms: f64,
    blender_wall_ms: f64,
    blender_cpu_ms: f64,
    blender_peak_rss_bytes: u64,
    /// blender-xray's import (inside Blender) over our export's wall time.
    import_ratio: f64,
    /// Blender's whole process over our export's, wall time.
    wall_ratio: f64,
    /// Blender's peak memory over ours.
    rss_ratio: f64,
    /// What blender-xray made (last run): mesh objects and vertices.
    blender_meshes: usize,
    blender_vertices: usize,
}

/// Run both sides `runs` times on the level of `visuals` visuals (generated into `tmp`).
fn measure(
    bin: &Path,
    tools: &(PathBuf, PathBuf),
    tmp: &Path,
    visuals: usize,
    runs: usize,
) -> Summary {
    let (blender, xray) = tools;
    let name = format!("xray-{visuals}");
    let dir = tmp.join(&name);
    fs::create_dir_all(&dir).expect("folder");
    child::generate(
        &[
            "--generate-xray".into(),
            dir.clone().into(),
            visuals.to_string().into(),
        ],
        tmp,
    );
    let log = tmp.join("child");
    let level = dir.join("level");
    let input_bytes = child::bytes_of(&[&level, &dir.join("level.geom"), &dir.join("level.cform")]);
    let out = tmp.join(format!("{name}-out"));
    let result = tmp.join(format!("{name}-blender.json"));
    let script = root().join("tools/blender/peer_import.py");
    let export = || {
        let _ = fs::remove_dir_all(&out);
        let u = child::run(
            Command::new(bin)
                .arg("export")
                .arg(&dir)
                .arg(&out)
                .args(["--format", "gltf"]),
            &log,
        );
        let _ = fs::remove_dir_all(&out);
        u
    };
    export(); // warm-up: the page cache, the binary
    let mut pairs = Vec::new();
    for k in 1..=runs {
        let ours = export();
        eprintln!(
            "{name} run {k}/{runs}: levelgeom {:.0} ms; blender-xray importing…",
            ms(ours.wall)
        );
        let _ = fs::remove_file(&result);
        let blender = child::run(
            Command::new(blender)
                .env("PATH", SYSTEM_PATH)
                .args(["-b", "--factory-startup", "-noaudio"])
                .args(["--python-exit-code", "1", "--python"])
                .arg(&script)
                .arg("--")
                .arg(&level)
                .arg(xray)
                .arg(&result),
            &log,
        );
        let text = fs::read_to_string(&result).expect("peer_import.py wrote its result");
        let inside: Inside = serde_json::from_str(&text).expect("peer_import.py's JSON");
        assert!(
            inside.meshes >= visuals,
            "blender-xray made {} mesh objects of the {visuals}-visual level: it did not read it",
            inside.meshes
        );
        eprintln!(
            "{name} run {k}/{runs}: blender-xray import {:.1} s, Blender {:.1} s",
            inside.import_s,
            blender.wall.as_secs_f64()
        );
        pairs.push(Pair {
            ours,
            blender,
            inside,
        });
    }
    summarise(name, input_bytes, &pairs)
}

fn summarise(level: String, input_bytes: u64, pairs: &[Pair]) -> Summary {
    let med = |f: &dyn Fn(&Pair) -> f64| median(pairs.iter().map(f).collect());
    let ours_wall = med(&|p| ms(p.ours.wall));
    let ours_rss = med(&|p| p.ours.max_rss as f64);
    let import = med(&|p| p.inside.import_s * 1e3);
    let blender_wall = med(&|p| ms(p.blender.wall));
    let blender_rss = med(&|p| p.blender.max_rss as f64);
    let last = pairs.last().map(|p| &p.inside);
    Summary {
        level,
        runs: pairs.len(),
        input_bytes,
        levelgeom_wall_ms: ours_wall,
        levelgeom_cpu_ms: med(&|p| ms(p.ours.cpu)),
        levelgeom_peak_rss_bytes: ours_rss as u64,
        blender_import_ms: import,
        blender_wall_ms: blender_wall,
        blender_cpu_ms: med(&|p| ms(p.blender.cpu)),
        blender_peak_rss_bytes: blender_rss as u64,
        // the ratios of each pair, then their median (runs side by side share the load)
        import_ratio: med(&|p| p.inside.import_s / p.ours.wall.as_secs_f64().max(1e-9)),
        wall_ratio: med(&|p| p.blender.wall.as_secs_f64() / p.ours.wall.as_secs_f64().max(1e-9)),
        rss_ratio: med(&|p| p.blender.max_rss as f64 / (p.ours.max_rss as f64).max(1.0)),
        blender_meshes: last.map_or(0, |i| i.meshes),
        blender_vertices: last.map_or(0, |i| i.vertices),
    }
}

/// Give the generated level what blender-xray's level import cannot do without and the
/// generator leaves out: empty `fsL_PORTALS` (4), `fsL_LIGHT_DYNAMIC` (6) and `fsL_GLOWS` (7)
/// chunks appended to `level` (`docs/formats/xray-level.md §1.4`; blender-xray pops each of
/// them without a default: `io_scene_xray/formats/level/imp/{portal,light,glow}.py`, called from
/// `main.py` `_import_level`, else `KeyError: 4`), and a `level.cform` without triangles (the
/// 36-byte version 4 header of `docs/formats/xray-level.md §12`: 0 vertices, 0 faces, an empty
/// box), which blender-xray reads from XRLC 10 on (`imp/cform.py` `import_cform`). Both sides
/// then read the same files; ours reads the empty chunks and ignores `level.cform` (no
/// `--collision`), and neither adds more than a few bytes to read.
fn complete_for_blender_xray(dir: &Path) {
    let path = dir.join("level");
    let mut level = fs::read(&path).expect("reads level");
    for id in [4u32, 6, 7] {
        level.extend_from_slice(&id.to_le_bytes());
        level.extend_from_slice(&0u32.to_le_bytes());
    }
    fs::write(&path, &level).expect("writes level");
    let mut cform = Vec::with_capacity(36);
    for word in [4u32, 0, 0] {
        cform.extend_from_slice(&word.to_le_bytes());
    }
    cform.extend_from_slice(&[0u8; 24]);
    fs::write(dir.join("level.cform"), &cform).expect("writes level.cform");
}

fn print_row(s: &Summary) {
    println!(
        "{:<10} {:>8.1} {:>9.0} {:>9.0} {:>8.1} {:>11.0} {:>10.0} {:>9.0} {:>8.1} {:>8.1} {:>8.1} {:>8.2}",
        s.level,
        s.input_bytes as f64 / 1e6,
        s.levelgeom_wall_ms,
        s.levelgeom_cpu_ms,
        s.levelgeom_peak_rss_bytes as f64 / 1e6,
        s.blender_import_ms,
        s.blender_wall_ms,
        s.blender_cpu_ms,
        s.blender_peak_rss_bytes as f64 / 1e6,
        s.import_ratio,
        s.wall_ratio,
        s.rss_ratio,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [mode, dir, visuals] = args.as_slice() {
        if mode == "--generate-xray" {
            child::write_xray_level(Path::new(dir), visuals.parse().unwrap_or(2000));
            complete_for_blender_xray(Path::new(dir));
            return;
        }
    }
    if child::listing(&args) {
        return;
    }
    let (Some(blender), Some(xray)) = (blender(), levelgeom_testkit::blender_xray()) else {
        levelgeom_testkit::tool_missing(
            "Blender (LEVELGEOM_BLENDER or blender on the system PATH) or blender-xray \
             (LEVELGEOM_BLENDER_XRAY)",
        );
        return;
    };
    let set = child::Settings::new(&args, "peer", 1);
    let (json, runs, bin, tmp) = (set.json, set.runs, &set.bin, &set.tmp);
    let tools = (blender, xray);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if !json {
        println!(
            "\nblender-xray ({}) against {} ({cores} cores), {runs} run(s) per level, medians",
            tools.1.display(),
            bin.display()
        );
        println!(
            "{:<10} {:>8} {:>9} {:>9} {:>8} {:>11} {:>10} {:>9} {:>8} {:>8} {:>8} {:>8}",
            "level",
            "input MB",
            "ours ms",
            "CPU ms",
            "peak MB",
            "import ms",
            "Blender ms",
            "CPU ms",
            "peak MB",
            "× import",
            "× wall",
            "× peak",
        );
    }
    let mut all = Vec::new();
    for visuals in LEVELS {
        let name = format!("xray-{visuals}");
        if !set.wants(&name) {
            continue;
        }
        let s = measure(bin, &tools, tmp, visuals, runs);
        if !json {
            print_row(&s);
        }
        all.push(s);
    }
    if json {
        let doc = serde_json::json!({
            "binary": bin.display().to_string(),
            "blender": tools.0.display().to_string(),
            "blender_xray": tools.1.display().to_string(),
            "cores": cores,
            "runs": runs,
            "levels": all,
        });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    }
    let _ = fs::remove_dir_all(tmp);
}
