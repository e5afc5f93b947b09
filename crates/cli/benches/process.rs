//! Whole-process benchmarks of the `levelgeom` binary at full scale, each against the copy
//! floor of the same bytes: `cargo bench -p levelgeom --bench process [-- FILTER] [-- --json]`.
//!
//! For every case the release binary runs as a child process (stdout/stderr to files), timed
//! from spawn to exit; `wait4` gives its peak resident memory (`ru_maxrss`) and CPU time (user +
//! system). In the same run, paired with every timed run, the **floor** is measured in this
//! process: read every input file of the case into memory and write as many bytes as the case
//! wrote (from the bytes just read) into a new file, with `fsync` when the command makes its
//! output durable (`rebuild` writes through `write_atomic`, which syncs; exports do not). For
//! `info`, whose output is a few kilobytes, the floor is a copy of its input file (read it,
//! write it), as the target is stated. The ratio is the median over the runs of
//! `case time / floor time` of each pair; memory is compared with input + output bytes.
//!
//! Cases: X-Ray levels of 2,000 and 8,000 visuals ([`levelgeom_xray::bench_level::large`]) →
//! glTF, → OBJ, → both (the default), `rebuild --verify` of `level.geom`, `info` of
//! `level.geom` and of the level, `check` of the level, `convert --to-version 13` and `12` (the
//! latter LZHUF-packs its buffers; the former is its twin), `import` of the level's own
//! unedited glTF export (its twin: that export, `→ gltf`); the generator's full-size WAD → GLB +
//! OBJ + PNG pages (the default export; target in CPU time), with `--collision --objects`, and
//! `check`. A case with a twin also shows its wall and CPU time over the twin's (`× twin`);
//! filtering for a case keeps its twin.
//!
//! Options (after `--`): words not starting with `-` filter the cases by substring (`xray-2000`,
//! `obj`, `wad`); `--json` prints one JSON document instead of the table. Environment:
//! `LEVELGEOM_BENCH_RUNS` (timed runs per case, default 5, after one warm-up run),
//! `LEVELGEOM_BIN` (another binary to measure, e.g. an older build, for before/after tables),
//! `LEVELGEOM_BENCH_DIR` (where inputs and outputs go; default the temporary folder — on a
//! tmpfs such as `/dev/shm` the floor is a memory copy and disk writeback stays out of it).
//!
//! Not a test: nothing here passes or fails on time.
#![allow(unsafe_code)] // wait4 (the libraries forbid unsafe; this bench is a tool)

mod child;

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use child::{median, ms};

/// Where a case's output goes, for counting its bytes.
#[derive(Clone, Debug)]
enum Output {
    /// An export folder (removed before each run).
    Dir(PathBuf),
    /// One file (removed before each run).
    File(PathBuf),
    /// Standard output only.
    Stdout,
}

#[derive(Clone, Debug)]
struct Case {
    name: String,
    args: Vec<OsString>,
    inputs: Vec<PathBuf>,
    output: Output,
    /// The command syncs its output to disk, so the floor does too.
    fsync: bool,
    /// The floor writes the input's size (a copy of the file) instead of the output's.
    copy_floor: bool,
    /// The case this one is paired with (its *twin*: `convert --to-version 12` with `13`,
    /// `import` with the glTF export it reads back); the table shows the ratio of the two.
    twin: Option<String>,
}

/// One measured child run.
#[derive(Clone, Copy, Debug, Default)]
struct Run {
    wall: Duration,
    cpu: Duration,
    max_rss: u64,
    out_bytes: u64,
    floor: Duration,
}

/// Run `bin args`, returning wall time, CPU time and peak RSS of the child (bytes).
fn run_child(bin: &Path, args: &[OsString], log: &Path) -> (Duration, Duration, u64) {
    let u = child::run(Command::new(bin).args(args), log);
    (u.wall, u.cpu, u.max_rss)
}

fn dir_bytes(dir: &Path) -> u64 {
    fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

fn clear(output: &Output) {
    match output {
        Output::Dir(d) => {
            let _ = fs::remove_dir_all(d);
        }
        Output::File(f) => {
            let _ = fs::remove_file(f);
        }
        Output::Stdout => {}
    }
}

/// The floor, run as a child process of this bench (`--floor OUT BYTES SYNC INPUT...`): read
/// the inputs, write `BYTES` bytes to `OUT` (synced when `SYNC` is 1). Returns its exit code.
fn floor_main(args: &[String]) -> i32 {
    let [out, bytes, sync, inputs @ ..] = args else {
        return 2;
    };
    let out_bytes: usize = bytes.parse().unwrap_or(0);
    let read: Vec<Vec<u8>> = inputs
        .iter()
        .map(|p| fs::read(p).expect("reads input"))
        .collect();
    let src: &[u8] = read
        .iter()
        .max_by_key(|b| b.len())
        .map_or(&[0u8; 1][..], |b| b.as_slice());
    let mut f = fs::File::create(out).expect("floor file");
    let mut left = out_bytes;
    while left > 0 {
        let n = left.min(src.len());
        f.write_all(&src[..n]).expect("writes");
        left -= n;
    }
    if sync == "1" {
        f.sync_all().expect("syncs");
    }
    drop(f);
    std::hint::black_box(read);
    0
}

/// Time the floor of `inputs` + `out_bytes` as a whole process (like the case itself).
fn floor(inputs: &[PathBuf], out_bytes: u64, fsync: bool, scratch: &Path, log: &Path) -> Duration {
    let _ = fs::remove_file(scratch);
    let me = std::env::current_exe().expect("own path");
    let mut args = os(&[
        &"--floor",
        &scratch,
        &out_bytes.to_string(),
        &if fsync { "1" } else { "0" },
    ]);
    args.extend(inputs.iter().map(|p| p.as_os_str().to_os_string()));
    let (wall, _, _) = run_child(&me, &args, log);
    let _ = fs::remove_file(scratch);
    wall
}

fn measure(bin: &Path, case: &Case, runs: usize, tmp: &Path) -> Vec<Run> {
    let log = tmp.join("child");
    let scratch = tmp.join("floor.bin");
    let in_bytes = child::bytes_of(&case.inputs);
    let mut out = Vec::new();
    for k in 0..=runs {
        clear(&case.output);
        let (wall, cpu, max_rss) = run_child(bin, &case.args, &log);
        let out_bytes = match &case.output {
            Output::Dir(d) => dir_bytes(d),
            Output::File(f) => fs::metadata(f).map_or(0, |m| m.len()),
            Output::Stdout => fs::metadata(log.with_extension("stdout")).map_or(0, |m| m.len()),
        };
        let floor_out = if case.copy_floor { in_bytes } else { out_bytes };
        let fl = floor(
            &case.inputs,
            floor_out,
            case.fsync,
            &scratch,
            &tmp.join("floor"),
        );
        if k > 0 {
            // run 0 warms the page cache and the allocator's first touches
            out.push(Run {
                wall,
                cpu,
                max_rss,
                out_bytes,
                floor: fl,
            });
        }
    }
    clear(&case.output);
    out
}

/// What the table and the JSON show for one case.
#[derive(serde::Serialize)]
struct Summary {
    case: String,
    runs: usize,
    input_bytes: u64,
    output_bytes: u64,
    wall_ms: f64,
    cpu_ms: f64,
    floor_ms: f64,
    ratio: f64,
    peak_rss_bytes: u64,
    rss_ratio: f64,
    wall_ms_min: f64,
    wall_ms_max: f64,
    /// The twin case's name, and this case's wall and CPU time over the twin's (medians).
    twin: Option<String>,
    twin_wall_ratio: Option<f64>,
    twin_cpu_ratio: Option<f64>,
}

fn summarise(case: &Case, runs: &[Run]) -> Summary {
    let in_bytes = child::bytes_of(&case.inputs);
    let out_bytes = runs.last().map_or(0, |r| r.out_bytes);
    let rss = median(runs.iter().map(|r| r.max_rss as f64).collect()) as u64;
    let io = if case.copy_floor {
        in_bytes
    } else {
        in_bytes + out_bytes
    };
    Summary {
        case: case.name.clone(),
        runs: runs.len(),
        input_bytes: in_bytes,
        output_bytes: out_bytes,
        wall_ms: median(runs.iter().map(|r| ms(r.wall)).collect()),
        cpu_ms: median(runs.iter().map(|r| ms(r.cpu)).collect()),
        floor_ms: median(runs.iter().map(|r| ms(r.floor)).collect()),
        ratio: median(
            runs.iter()
                .map(|r| r.wall.as_secs_f64() / r.floor.as_secs_f64().max(1e-9))
                .collect(),
        ),
        peak_rss_bytes: rss,
        rss_ratio: rss as f64 / io.max(1) as f64,
        wall_ms_min: runs
            .iter()
            .map(|r| ms(r.wall))
            .fold(f64::INFINITY, f64::min),
        wall_ms_max: runs.iter().map(|r| ms(r.wall)).fold(0.0, f64::max),
        twin: case.twin.clone(),
        twin_wall_ratio: None,
        twin_cpu_ratio: None,
    }
}

fn os(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Vec<OsString> {
    args.iter().map(|a| a.as_ref().to_os_string()).collect()
}

fn xray_cases(bin: &Path, tmp: &Path, visuals: usize, set: &child::Settings) -> Vec<Case> {
    let tag = format!("xray-{visuals}");
    let wanted = |name: &str| set.wants(name);
    let dir = tmp.join(&tag);
    let level = dir.join("level");
    let geom = dir.join("level.geom");
    let out = tmp.join(format!("{tag}-out"));
    let both = vec![level.clone(), geom.clone()];
    let export = |fmt: &str| Case {
        name: format!("{tag} → {fmt}"),
        args: os(&[&"export", &dir, &out, &"--format", &fmt]),
        inputs: both.clone(),
        output: Output::Dir(out.clone()),
        fsync: false,
        copy_floor: false,
        twin: None,
    };
    let rebuilt = tmp.join(format!("{tag}-rebuilt.geom"));
    let mut cases = vec![
        export("gltf"),
        export("obj"),
        Case {
            name: format!("{tag} → all (GLB + OBJ)"),
            ..export("all")
        },
        Case {
            name: format!("{tag} rebuild --verify level.geom"),
            args: os(&[&"rebuild", &geom, &rebuilt, &"--verify"]),
            inputs: vec![geom.clone()],
            output: Output::File(rebuilt.clone()),
            fsync: true,
            copy_floor: false,
            twin: None,
        },
        Case {
            name: format!("{tag} info level.geom"),
            args: os(&[&"info", &geom]),
            inputs: vec![geom.clone()],
            output: Output::Stdout,
            fsync: false,
            copy_floor: true,
            twin: None,
        },
        Case {
            name: format!("{tag} check level"),
            args: os(&[&"check", &dir]),
            inputs: both.clone(),
            output: Output::Stdout,
            fsync: false,
            copy_floor: true,
            twin: None,
        },
        Case {
            name: format!("{tag} info level"),
            args: os(&[&"info", &level]),
            inputs: both.clone(),
            output: Output::Stdout,
            fsync: false,
            copy_floor: true,
            twin: None,
        },
    ];
    // XRLC 12 packs its vertex, index and SWI buffers with LZHUF; 13 is the same level
    // unpacked (its twin: the ratio of the two is the packing's cost)
    let convert = |to: u16| {
        let out = tmp.join(format!("{tag}-to-{to}"));
        Case {
            name: format!("{tag} convert --to-version {to}"),
            args: os(&[&"convert", &dir, &out, &"--to-version", &to.to_string()]),
            inputs: both.clone(),
            output: Output::Dir(out),
            // written as a group of synced files (`levelgeom_binary::write_group`)
            fsync: true,
            copy_floor: false,
            twin: (to == 12).then(|| format!("{tag} convert --to-version 13")),
        }
    };
    cases.push(convert(13));
    cases.push(convert(12));
    // the level's own unedited glTF export put back (every visual kept, the same files
    // written); its twin is the export that made the GLB
    let glb = tmp.join(format!("{tag}-export")).join("level.glb");
    let imported = tmp.join(format!("{tag}-imported"));
    cases.push(Case {
        name: format!("{tag} import of its own glTF export"),
        args: os(&[&"import", &dir, &glb, &imported]),
        inputs: vec![level.clone(), geom.clone(), glb.clone()],
        output: Output::Dir(imported),
        // written as a group of synced files (`levelgeom_binary::write_group`)
        fsync: true,
        copy_floor: false,
        twin: Some(format!("{tag} → gltf")),
    });
    // a wanted case brings its twin
    let twins: Vec<String> = cases
        .iter()
        .filter(|c| wanted(&c.name))
        .filter_map(|c| c.twin.clone())
        .collect();
    let cases: Vec<Case> = cases
        .into_iter()
        .filter(|c| wanted(&c.name) || twins.contains(&c.name))
        .collect();
    if !cases.is_empty() {
        fs::create_dir_all(&dir).expect("folder");
        // generated by a child process, so that this process stays small: on Linux a child's
        // peak RSS starts from its parent's peak (it is carried over at exec)
        child::generate(&os(&[&"--generate-xray", &dir, &visuals.to_string()]), tmp);
        if cases.iter().any(|c| c.name.contains("import")) {
            // the import's input: the export as the measured binary writes it
            let log = tmp.join("export-for-import");
            let export = glb.parent().expect("export folder");
            run_child(
                bin,
                &os(&[&"export", &dir, &export, &"--format", &"gltf"]),
                &log,
            );
        }
    }
    cases
}

fn wad_cases(tmp: &Path, set: &child::Settings) -> Vec<Case> {
    let wanted = |name: &str| set.wants(name);
    let names = [
        "wad full-size → GLB + OBJ + PNG",
        "wad full-size → all, --collision --objects",
        "wad full-size check",
    ];
    let wad = tmp.join("full.wad");
    let out = tmp.join("wad-out");
    let cases = vec![
        Case {
            name: names[0].into(),
            args: os(&[&"export", &wad, &out]),
            inputs: vec![wad.clone()],
            output: Output::Dir(out.clone()),
            fsync: false,
            copy_floor: false,
            twin: None,
        },
        Case {
            name: names[2].into(),
            args: os(&[&"check", &wad]),
            inputs: vec![wad.clone()],
            output: Output::Stdout,
            fsync: false,
            copy_floor: true,
            twin: None,
        },
        Case {
            name: names[1].into(),
            args: os(&[&"export", &wad, &out, &"--collision", &"--objects"]),
            inputs: vec![wad.clone()],
            output: Output::Dir(out.clone()),
            fsync: false,
            copy_floor: false,
            twin: None,
        },
    ];
    let cases: Vec<Case> = cases.into_iter().filter(|c| wanted(&c.name)).collect();
    if !cases.is_empty() {
        child::generate(&os(&[&"--generate-wad", &wad]), tmp);
    }
    cases
}

/// Run this bench as a child with `args` (a `--generate-*` mode).
/// `--generate-xray DIR VISUALS` / `--generate-wad FILE`: write the inputs (child mode).
fn generate_main(mode: &str, args: &[String]) -> i32 {
    match (mode, args) {
        ("--generate-xray", [dir, visuals]) => {
            child::write_xray_level(Path::new(dir), visuals.parse().unwrap_or(2000));
            0
        }
        ("--generate-wad", [file]) => {
            let bytes = levelgeom_wad::generate::full_size_level()
                .and_then(|l| l.to_bytes())
                .expect("generates");
            fs::write(file, &bytes).expect("writes");
            println!("wad: full-size level {:.2} MB", bytes.len() as f64 / 1e6);
            0
        }
        _ => 2,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--floor") => std::process::exit(floor_main(&args[1..])),
        Some(m @ ("--generate-xray" | "--generate-wad")) => {
            std::process::exit(generate_main(m, &args[1..]))
        }
        _ => {}
    }
    if child::listing(&args) {
        return;
    }
    let set = child::Settings::new(&args, "process", 5);
    let (json, runs, bin, tmp) = (set.json, set.runs, &set.bin, &set.tmp);

    let mut cases = xray_cases(bin, tmp, 2000, &set);
    cases.extend(xray_cases(bin, tmp, 8000, &set));
    cases.extend(wad_cases(tmp, &set));
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if !json {
        println!(
            "\nlevelgeom whole-process benchmarks: {} ({cores} cores), {runs} runs per case, medians",
            bin.display()
        );
        println!(
            "{:<44} {:>9} {:>9} {:>9} {:>7} {:>9} {:>9} {:>7} {:>13}",
            "case",
            "in+out MB",
            "ms",
            "floor ms",
            "× floor",
            "CPU ms",
            "peak MB",
            "× i+o",
            "× twin (CPU)"
        );
    }
    let mut all = Vec::new();
    for case in &cases {
        let r = measure(bin, case, runs, tmp);
        let mut s = summarise(case, &r);
        if let Some(t) = all
            .iter()
            .find(|t: &&Summary| Some(&t.case) == case.twin.as_ref())
        {
            s.twin_wall_ratio = Some(s.wall_ms / t.wall_ms.max(1e-9));
            s.twin_cpu_ratio = Some(s.cpu_ms / t.cpu_ms.max(1e-9));
        }
        if !json {
            let twin = match (s.twin_wall_ratio, s.twin_cpu_ratio) {
                (Some(w), Some(c)) => format!("{w:.2} ({c:.2})"),
                _ => "-".to_string(),
            };
            let io = if case.copy_floor {
                s.input_bytes
            } else {
                s.input_bytes + s.output_bytes
            };
            println!(
                "{:<44} {:>9.1} {:>9.1} {:>9.1} {:>7.2} {:>9.1} {:>9.1} {:>7.2} {:>13}",
                s.case,
                io as f64 / 1e6,
                s.wall_ms,
                s.floor_ms,
                s.ratio,
                s.cpu_ms,
                s.peak_rss_bytes as f64 / 1e6,
                s.rss_ratio,
                twin
            );
        }
        all.push(s);
    }
    if json {
        let doc = serde_json::json!({
            "binary": bin.display().to_string(),
            "cores": cores,
            "runs": runs,
            "cases": all,
        });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    }
    let _ = fs::remove_dir_all(tmp);
}
