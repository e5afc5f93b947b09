//! Whole-install timings: `cargo bench -p levelgeom --bench batch`.
//!
//! A folder of 34 full-size generated WADs (`LevelSpec::full_size` with 34 different seeds, so
//! no two inputs are identical) plus the real X-Ray fixture, through `verify` and batch
//! `export` with 1 job and with 2 jobs; prints the times and the 2-job speed-up (the target on
//! the 2-core machine is ≥ 1.6×). `LEVELGEOM_BATCH_LEVELS=N` changes the number of WADs. Not a
//! test: nothing here passes or fails on time.

use std::path::Path;
use std::time::{Duration, Instant};

use levelgeom_core::batch::{self, Run};
use levelgeom_core::ExportOptions;
use levelgeom_wad::generate::{generate, LevelSpec};

fn install(root: &Path, n: u64) -> u64 {
    std::fs::create_dir_all(root.join("wads")).expect("folder");
    let mut bytes = 0;
    for i in 0..n {
        let spec = LevelSpec {
            seed: LevelSpec::full_size().seed + i,
            ..LevelSpec::full_size()
        };
        let b = generate(&spec)
            .and_then(|l| l.to_bytes())
            .expect("generates");
        bytes += b.len() as u64;
        std::fs::write(root.join(format!("wads/T{}L1M{i:03}.wad", i % 4 + 1)), b).expect("writes");
    }
    let x = root.join("levels/micro");
    std::fs::create_dir_all(&x).expect("folder");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../xray/tests/data/xray-v14-micro");
    for f in ["level", "level.geom", "level.geomx", "level.cform"] {
        bytes += std::fs::copy(fixture.join(f), x.join(f)).expect("copies");
    }
    bytes
}

/// Best of `runs` runs.
fn best(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let n = std::env::var("LEVELGEOM_BATCH_LEVELS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(34);
    let tmp = std::env::temp_dir().join(format!("levelgeom-batch-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let root = tmp.join("install");
    let bytes = install(&root, n);
    let found = batch::find_levels(std::slice::from_ref(&root));
    let levels = found.iter().filter(|f| f.is_level()).count();
    println!(
        "\nbatch: {levels} levels ({n} full-size WADs + the X-Ray fixture), {:.1} MB, {} cores",
        bytes as f64 / 1e6,
        std::thread::available_parallelism().map_or(1, usize::from)
    );
    println!(
        "{:<26} {:>10} {:>10} {:>8}",
        "run", "1 job s", "2 jobs s", "ratio"
    );
    let verify = |jobs| {
        best(3, || {
            let r = batch::verify_batch(
                &found,
                false,
                &Run {
                    jobs,
                    ..Run::default()
                },
            );
            assert_eq!(r.summary.passed, levels, "every level verifies");
        })
    };
    let (v1, v2) = (verify(1), verify(2));
    row("verify", v1, v2);
    let export = |jobs| {
        best(2, || {
            let out = tmp.join(format!("out{jobs}"));
            let r = batch::export_batch(
                &found,
                &out,
                &ExportOptions::default(),
                &Run {
                    jobs,
                    ..Run::default()
                },
            )
            .expect("exports");
            assert_eq!(r.exported(), levels, "every level exports");
        })
    };
    let (e1, e2) = (export(1), export(2));
    row("export (GLB + OBJ + PNG)", e1, e2);
    let _ = std::fs::remove_dir_all(&tmp);
}

fn row(name: &str, one: Duration, two: Duration) {
    println!(
        "{name:<26} {:>10.2} {:>10.2} {:>7.2}×",
        one.as_secs_f64(),
        two.as_secs_f64(),
        one.as_secs_f64() / two.as_secs_f64().max(1e-9)
    );
}
