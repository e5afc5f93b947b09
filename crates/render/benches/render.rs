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
    views(&scene);
    let big = xray_scaled(900_000);
    let placed: usize = big
        .nodes
        .iter()
        .filter_map(|n| n.mesh)
        .map(|m| big.meshes[m].triangle_count())
        .sum();
    println!(
        "X-Ray fixture repeated to a large level's size: {} placed meshes, {placed} triangles drawn",
        big.nodes.iter().filter(|n| n.mesh.is_some()).count()
    );
    views(&big);
}

/// The real X-Ray fixture's scene, its roots repeated on a grid until about `triangles`
/// triangles are placed (the size of the 2,000-visual speed level: ~900,000 triangles).
fn xray_scaled(triangles: usize) -> levelgeom_scene::Scene {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../xray/tests/data/xray-v14-micro"
    );
    let files =
        levelgeom_xray::files::LevelFiles::open(std::path::Path::new(dir)).expect("fixture");
    let one = files
        .to_scene(&levelgeom_xray::SceneOptions {
            name: String::new(),
            ..Default::default()
        })
        .expect("fixture scene");
    let per_copy: usize = one
        .nodes
        .iter()
        .filter_map(|n| n.mesh)
        .map(|m| one.meshes[m].triangle_count())
        .sum::<usize>()
        .max(1);
    let copies = triangles.div_ceil(per_copy);
    let side = (copies as f64).sqrt().ceil() as usize;
    let mut scene = one.clone();
    scene.nodes.clear();
    scene.roots.clear();
    for k in 0..copies {
        // every copy gets its own nodes (a node is placed once however often it is listed)
        let base = scene.nodes.len();
        for n in &one.nodes {
            let mut n = n.clone();
            n.children.iter_mut().for_each(|c| *c += base);
            scene.nodes.push(n);
        }
        let (i, j) = (k % side, k / side);
        let mut m = levelgeom_scene::IDENTITY;
        m[12] = i as f32 * 40.0;
        m[14] = -(j as f32) * 40.0;
        let holder = scene.add_node(levelgeom_scene::Node {
            name: format!("copy_{k}"),
            matrix: m,
            children: one.roots.iter().map(|r| r + base).collect(),
            ..Default::default()
        });
        scene.roots.push(holder);
    }
    scene
}

fn views(scene: &levelgeom_scene::Scene) {
    for view in View::ALL {
        let opts = RenderOptions {
            width: 1024,
            height: 768,
            view,
            show_hidden: false,
        };
        let _ = render(scene, &opts); // warm up
        let mut ms: Vec<f64> = (0..9)
            .map(|_| {
                let t = Instant::now();
                let img = render(scene, &opts);
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
