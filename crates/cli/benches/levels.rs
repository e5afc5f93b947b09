//! Whole-level timings at full game scale: `cargo bench -p levelgeom`.
//!
//! Not a pass/fail test: it prints milliseconds per run (best of several), throughput in MB/s
//! of the input file, and each step's cost as a ratio to copying the same bytes (`memcpy`), so
//! numbers from different machines can be compared side by side.
//!
//! * Argonaut WAD: the generator's full-size level (96×96 grid, ~600 models, ~25,000 triangles,
//!   30 RLE texture pages) — generate, raw chunk walk, typed parse, write back, `check`, scene
//!   conversion, GLB, OBJ and PNG encoding.
//! * X-Ray: the real fixture's `level.geom` with its vertex buffers repeated to 400,000+ vertices
//!   (a large level's order of magnitude) — parse, decode every vertex, encode them back, write,
//!   LZHUF pack and unpack.

use std::hint::black_box;
use std::time::{Duration, Instant};

use levelgeom_export::{gltf, obj, png};
use levelgeom_scene::TextureSource;
use levelgeom_wad::{container::RawWad, generate, scene as wad_scene, Level};
use levelgeom_xray::geom::{Geom, GeomChunk};
use levelgeom_xray::lzhuf;

/// Run `f` repeatedly (at least 3 times and ~1 s) and return the best time.
fn best<T>(mut f: impl FnMut() -> T) -> Duration {
    let mut best = Duration::MAX;
    let start = Instant::now();
    let mut runs = 0;
    while runs < 3 || (start.elapsed() < Duration::from_secs(1) && runs < 200) {
        let t = Instant::now();
        black_box(f());
        best = best.min(t.elapsed());
        runs += 1;
    }
    best
}

struct Table {
    bytes: usize,
    base: Duration,
}

impl Table {
    fn new(title: &str, bytes: &[u8]) -> Table {
        let base = best(|| bytes.to_vec());
        println!("\n{title}: input {:.2} MB", bytes.len() as f64 / 1e6);
        println!(
            "{:<34} {:>10} {:>10} {:>12}",
            "step", "ms", "MB/s", "× memcpy"
        );
        let t = Table {
            bytes: bytes.len(),
            base,
        };
        t.row("memcpy (baseline)", base);
        t
    }

    fn row(&self, name: &str, d: Duration) {
        let ms = d.as_secs_f64() * 1e3;
        let mbs = self.bytes as f64 / 1e6 / d.as_secs_f64();
        let ratio = d.as_secs_f64() / self.base.as_secs_f64().max(1e-9);
        println!("{name:<34} {ms:>10.3} {mbs:>10.1} {ratio:>12.1}");
    }
}

fn wad() {
    let gen = best(generate::full_size_level);
    let level = generate::full_size_level().expect("generates");
    let bytes = level.to_bytes().expect("writes");
    let t = Table::new("Argonaut WAD, generated full-size level", &bytes);
    t.row("generate (LevelSpec::full_size)", gen);
    t.row(
        "raw chunk walk (RawWad::parse)",
        best(|| RawWad::parse(&bytes)),
    );
    let parse = best(|| Level::read(&bytes));
    t.row("typed parse (Level::read)", parse);
    let (level, _) = Level::read(&bytes).expect("generated level parses");
    let write = best(|| level.to_bytes());
    t.row("write back (Level::to_bytes)", write);
    t.row(
        "check (all consistency rules)",
        best(|| levelgeom_wad::check::check(&level)),
    );
    let opts = wad_scene::SceneOptions {
        mirror_z: false,
        collision: true,
        objects: true,
        objects_catalogue: true,
        zones: false,
    };
    let to_scene = best(|| wad_scene::to_scene(&level, &opts));
    t.row("to_scene (+collision, objects)", to_scene);
    let scene = wad_scene::to_scene(&level, &opts).expect("scene");
    let glb = best(|| gltf::to_glb(&scene, &gltf::GltfOptions::default()));
    t.row("GLB (textures embedded)", glb);
    let objt = best(|| obj::to_obj(&scene, &obj::ObjOptions::default()));
    t.row("OBJ + MTL text", objt);
    let pngs = best(|| {
        for tex in &scene.textures {
            if let TextureSource::Rgba8 {
                width,
                height,
                pixels,
            } = &tex.source
            {
                black_box(png::encode_rgba8(*width, *height, pixels).ok());
            }
        }
    });
    t.row("PNG pages", pngs);
    t.row("whole export (parse→scene→GLB)", parse + to_scene + glb);
    // the library entry point, as the CLI runs it: detect + parse, scene, GLB + OBJ + PNG
    // into a folder (written all or nothing)
    let tmp = std::env::temp_dir().join(format!("levelgeom-bench-{}", std::process::id()));
    let opts = levelgeom_core::ExportOptions {
        engine: levelgeom_core::EngineOptions {
            wad: Some(opts.clone()),
            ..levelgeom_core::EngineOptions::default()
        },
        ..levelgeom_core::ExportOptions::default()
    };
    t.row(
        "levelgeom_core open + export (all)",
        best(|| {
            let level = levelgeom_core::open_bytes("full.wad", bytes.clone()).expect("opens");
            level.export(&tmp, &opts).expect("exports")
        }),
    );
    let _ = std::fs::remove_dir_all(&tmp);
    let tris = scene.mesh_triangle_count();
    println!(
        "  ({} models, {} scene triangles incl. collision, {} pages)",
        level.trak().map(|t| t.models.len()).unwrap_or(0),
        tris,
        scene.textures.len()
    );
}

fn xray() {
    let fixture = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../xray/tests/data/xray-v14-micro/level.geom"
    ))
    .expect("fixture level.geom");
    let (mut geom, _) = Geom::read(&fixture).expect("fixture parses");
    let mut vertices = 0usize;
    for c in &mut geom.chunks {
        if let GeomChunk::VertexBuffers(vbs) = &mut c.value {
            for vb in vbs.iter_mut() {
                let reps = 150_000 / vb.count.max(1) as usize;
                vb.data = vb.data.repeat(reps).into();
                vb.count *= reps as u32;
                vertices += vb.count as usize;
            }
        }
    }
    let bytes = geom.to_bytes().expect("writes");
    let t = Table::new(
        &format!("X-Ray level.geom, fixture buffers repeated to {vertices} vertices"),
        &bytes,
    );
    t.row("parse (Geom::read)", best(|| Geom::read(&bytes)));
    let (geom, _) = Geom::read(&bytes).expect("scaled geom parses");
    let vbs = geom.vertex_buffers().expect("vertex buffers");
    t.row(
        "decode every vertex",
        best(|| vbs.iter().map(|vb| vb.decode()).collect::<Vec<_>>()),
    );
    let decoded: Vec<_> = vbs.iter().map(|vb| vb.decode()).collect();
    t.row(
        "encode every vertex (xrLC formulas)",
        best(|| {
            vbs.iter()
                .zip(&decoded)
                .map(|(vb, v)| levelgeom_xray::vertex::encode(&vb.decl, v))
                .collect::<Vec<_>>()
        }),
    );
    t.row("write back (Geom::to_bytes)", best(|| geom.to_bytes()));
    // the codec of XRLC 12's packed chunks, over the same bytes
    let packed = lzhuf::compress(&bytes).expect("packs");
    t.row(
        "LZHUF pack (lzhuf::compress)",
        best(|| lzhuf::compress(&bytes)),
    );
    t.row(
        "LZHUF unpack (lzhuf::decompress)",
        best(|| lzhuf::decompress(&packed)),
    );
    println!(
        "  (packed: {:.1} % of the bytes)",
        100.0 * packed.len() as f64 / bytes.len() as f64
    );
}

fn main() {
    // `cargo test --benches` / `cargo bench -- --list` pass flags; only run for a real bench.
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    wad();
    xray();
}
