//! Milliseconds per view at 1024×768 for the full-size generated WAD level
//! (`cargo bench -p levelgeom-render`). Prints the best and the median of a few runs.

use std::time::Instant;

use levelgeom_render::{render, RenderOptions, View};

fn main() {
    let level = levelgeom_wad::generate::full_size_level().expect("full-size level");
    let scene = levelgeom_wad::scene::to_scene(&level, &Default::default()).expect("scene");
    println!(
        "full-size level: {} triangles, {} textures, {} threads",
        scene.mesh_triangle_count(),
        scene.textures.len(),
        rayon::current_num_threads()
    );
    for view in View::ALL {
        let opts = RenderOptions {
            width: 1024,
            height: 768,
            view,
            show_hidden: false,
        };
        let _ = render(&scene, &opts); // warm up
        let mut ms: Vec<f64> = (0..9)
            .map(|_| {
                let t = Instant::now();
                let img = render(&scene, &opts);
                std::hint::black_box(&img);
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        ms.sort_by(f64::total_cmp);
        println!(
            "{view:>5}: best {:.1} ms, median {:.1} ms",
            ms[0],
            ms[ms.len() / 2]
        );
    }
}
