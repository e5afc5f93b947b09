//! Whole levels: the generated WAD demo against an independent top-down ray cast, the X-Ray
//! fixture, and determinism across thread counts.

use std::path::Path;

use levelgeom_render::{render, Image, RenderOptions, View, BACKGROUND, TOP_MARGIN};
use levelgeom_scene::{transform_point, AlphaMode, Scene, TextureSource};

fn demo_scene() -> Scene {
    let bytes = levelgeom_wad::generate::demo_level().unwrap();
    let (level, _) = levelgeom_wad::Level::read(&bytes).unwrap();
    levelgeom_wad::scene::to_scene(&level, &Default::default()).unwrap()
}

fn xray_scene() -> Scene {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../xray/tests/data/xray-v14-micro");
    let files = levelgeom_xray::files::LevelFiles::open(&dir).unwrap();
    files
        .to_scene(&levelgeom_xray::SceneOptions {
            name: String::new(),
            ..Default::default()
        })
        .unwrap()
}

/// A visible triangle in world space, as the reference sees it.
struct RefTri {
    node: String,
    p: [[f32; 3]; 3],
    uv: [[f32; 2]; 3],
    col: [[f32; 4]; 3],
    material: Option<usize>,
}

/// Every triangle of the non-hidden nodes (walking the tree by hand), in world space.
fn visible_triangles(scene: &Scene) -> Vec<RefTri> {
    let worlds = scene.world_matrices();
    let mut out = Vec::new();
    let mut stack: Vec<usize> = scene.roots.clone();
    while let Some(n) = stack.pop() {
        let node = &scene.nodes[n];
        if node.hidden {
            continue;
        }
        stack.extend(&node.children);
        let Some(m) = node.mesh else { continue };
        for prim in &scene.meshes[m].primitives {
            for t in prim.indices.chunks_exact(3) {
                let i = [t[0] as usize, t[1] as usize, t[2] as usize];
                out.push(RefTri {
                    node: node.name.clone(),
                    p: i.map(|k| transform_point(&worlds[n], prim.positions[k])),
                    uv: i.map(|k| prim.uvs.first().map_or([0.0; 2], |u| u[k])),
                    col: i.map(|k| prim.colors.first().map_or([1.0; 4], |c| c[k])),
                    material: prim.material,
                });
            }
        }
    }
    out
}

/// The documented top-view fit: (centre x, centre z, pixels per unit).
fn top_fit(tris: &[RefTri], w: u32, h: u32) -> (f32, f32, f32) {
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    for t in tris {
        for p in &t.p {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
    }
    let s = (w as f32 / (hi[0] - lo[0])).min(h as f32 / (hi[2] - lo[2])) / TOP_MARGIN;
    ((lo[0] + hi[0]) / 2.0, (lo[2] + hi[2]) / 2.0, s)
}

/// The colour a top-down ray through world (x, z) should see, or `None` when the answer is
/// not clear-cut (near an edge, a texel boundary, two surfaces at the same height, or a
/// material this simple reference does not model). Also returns the node hit.
fn ray_cast(scene: &Scene, tris: &[RefTri], x: f32, z: f32) -> Option<([u8; 3], String)> {
    let mut hits: Vec<(f32, &RefTri, [f32; 3])> = Vec::new();
    for t in tris {
        let [a, b, c] = t.p;
        // 2-D barycentrics in the (x, z) plane
        let d = (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2]);
        if d.abs() < 1e-9 {
            continue;
        }
        let l1 = ((x - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (z - a[2])) / d;
        let l2 = ((b[0] - a[0]) * (z - a[2]) - (x - a[0]) * (b[2] - a[2])) / d;
        let l = [1.0 - l1 - l2, l1, l2];
        let margin = 0.02;
        if l.iter().any(|&v| v < -margin) {
            continue;
        }
        if l.iter().any(|&v| v < margin) {
            return None; // too close to an edge to be sure
        }
        let mat = t.material.map(|m| &scene.materials[m]);
        // normal y of the counter-clockwise order: > 0 faces the camera above
        let ny = (b[2] - a[2]) * (c[0] - a[0]) - (b[0] - a[0]) * (c[2] - a[2]);
        let double_sided = mat.is_some_and(|m| m.double_sided);
        if ny <= 0.0 && !double_sided {
            continue;
        }
        let y = l[0] * a[1] + l[1] * b[1] + l[2] * c[1];
        hits.push((y, t, l));
    }
    hits.sort_by(|a, b| b.0.total_cmp(&a.0));
    let &(y, t, l) = hits.first()?;
    if hits.get(1).is_some_and(|h| y - h.0 < 1e-3) {
        return None;
    }
    let m = &scene.materials[t.material?];
    if !m.unlit || m.alpha == AlphaMode::Blend {
        return None;
    }
    let lerp = |v: [f32; 3]| l[0] * v[0] + l[1] * v[1] + l[2] * v[2];
    let mut c: [f32; 4] =
        std::array::from_fn(|k| m.base_color[k] * lerp([t.col[0][k], t.col[1][k], t.col[2][k]]));
    if let Some(tex) = m.texture {
        let TextureSource::Rgba8 {
            width,
            height,
            pixels,
        } = &scene.textures[tex].source
        else {
            return None;
        };
        let u = lerp([t.uv[0][0], t.uv[1][0], t.uv[2][0]]) * *width as f32;
        let v = lerp([t.uv[0][1], t.uv[1][1], t.uv[2][1]]) * *height as f32;
        let near_boundary = |f: f32| (f - f.floor() - 0.5).abs() > 0.4;
        if near_boundary(u) || near_boundary(v) {
            return None;
        }
        let (tu, tv) = (
            (u.floor() as i64).rem_euclid(i64::from(*width)) as usize,
            (v.floor() as i64).rem_euclid(i64::from(*height)) as usize,
        );
        let o = (tv * *width as usize + tu) * 4;
        if pixels[o + 3] != 255 {
            return None;
        }
        for (ck, pk) in c.iter_mut().zip(&pixels[o..o + 3]) {
            *ck *= f32::from(*pk) / 255.0;
        }
    }
    Some((
        c.map(|v| (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8)[..3]
            .try_into()
            .ok()?,
        t.node.clone(),
    ))
}

#[test]
fn demo_top_view_puts_tile_texels_where_their_world_position_says() {
    let scene = demo_scene();
    let (w, h) = (320u32, 240u32);
    let img = render(
        &scene,
        &RenderOptions {
            width: w,
            height: h,
            view: View::Top,
            show_hidden: false,
        },
    );
    let tris = visible_triangles(&scene);
    let (cx, cz, s) = top_fit(&tris, w, h);
    let world = |px: u32, py: u32| {
        (
            cx + (px as f32 + 0.5 - w as f32 / 2.0) / s,
            cz + (py as f32 + 0.5 - h as f32 / 2.0) / s,
        )
    };
    // One named tile first: the centroid of the first triangle of the first tile node.
    let first = tris.iter().find(|t| t.node.starts_with("tile_")).unwrap();
    let gx = (first.p[0][0] + first.p[1][0] + first.p[2][0]) / 3.0;
    let gz = (first.p[0][2] + first.p[1][2] + first.p[2][2]) / 3.0;
    let (px, py) = (
        (w as f32 / 2.0 + (gx - cx) * s).floor() as u32,
        (h as f32 / 2.0 + (gz - cz) * s).floor() as u32,
    );
    // search that pixel's neighbourhood for one the reference is sure about and that shows
    // this tile
    let mut named = None;
    'search: for dy in -3i32..=3 {
        for dx in -3i32..=3 {
            let (qx, qy) = ((px as i32 + dx) as u32, (py as i32 + dy) as u32);
            let (x, z) = world(qx, qy);
            if let Some((c, node)) = ray_cast(&scene, &tris, x, z) {
                if node == first.node {
                    named = Some((qx, qy, c));
                    break 'search;
                }
            }
        }
    }
    let (qx, qy, c) = named.expect("a clear pixel of the first tile near its centroid");
    let got = img.pixel(qx, qy);
    assert!(
        (0..3).all(|k| got[k].abs_diff(c[k]) <= 1),
        "tile {} at pixel ({qx}, {qy}): got {got:?}, want {c:?}",
        first.node
    );
    // Then a grid over the whole image.
    let (mut checked, mut bad) = (0, Vec::new());
    for py in (2..h).step_by(7) {
        for px in (2..w).step_by(7) {
            let (x, z) = world(px, py);
            let Some((c, node)) = ray_cast(&scene, &tris, x, z) else {
                continue;
            };
            checked += 1;
            let got = img.pixel(px, py);
            if !(0..3).all(|k| got[k].abs_diff(c[k]) <= 1) {
                bad.push(format!("({px}, {py}) {node}: got {got:?} want {c:?}"));
            }
        }
    }
    assert!(checked > 300, "only {checked} pixels were clear-cut");
    assert!(
        bad.is_empty(),
        "{} of {checked} wrong: {:?}",
        bad.len(),
        &bad[..bad.len().min(10)]
    );
    // Outside the fitted geometry (the margin) only background.
    assert_eq!(img.pixel(0, 0), BACKGROUND);
}

fn distinct_colours(img: &Image) -> usize {
    let mut c: Vec<&[u8]> = img.pixels.chunks_exact(4).collect();
    c.sort_unstable();
    c.dedup();
    c.len()
}

#[test]
fn xray_fixture_renders_as_shaded_shapes() {
    let scene = xray_scene();
    for view in View::ALL {
        let img = render(
            &scene,
            &RenderOptions {
                width: 160,
                height: 120,
                view,
                show_hidden: false,
            },
        );
        let covered = img
            .pixels
            .chunks_exact(4)
            .filter(|p| *p != BACKGROUND)
            .count();
        assert!(
            covered > 160 * 120 / 20,
            "{view}: only {covered} pixels drawn"
        );
        assert!(img.pixels.chunks_exact(4).all(|p| p[3] == 255));
        if view != View::Top {
            // lit from a fixed direction, differently oriented faces get different shades
            assert!(distinct_colours(&img) > 2, "{view}: flat, not shaded");
        }
    }
}

#[test]
fn rendering_is_deterministic_across_runs_and_thread_counts() {
    let scene = demo_scene();
    let opts = RenderOptions {
        width: 200,
        height: 150,
        view: View::Persp,
        show_hidden: true,
    };
    let once = render(&scene, &opts);
    assert_eq!(render(&scene, &opts), once);
    for n in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap();
        let img = pool.install(|| render(&scene, &opts));
        assert!(img == once, "{n} threads differ");
    }
    assert_eq!(
        once.to_png().unwrap(),
        render(&scene, &opts).to_png().unwrap()
    );
}

#[test]
fn hidden_collision_is_drawn_only_with_show_hidden() {
    let bytes = levelgeom_wad::generate::demo_level().unwrap();
    let (level, _) = levelgeom_wad::Level::read(&bytes).unwrap();
    let opts = levelgeom_wad::scene::SceneOptions {
        collision: true,
        ..Default::default()
    };
    let with = levelgeom_wad::scene::to_scene(&level, &opts).unwrap();
    let without = demo_scene();
    let mut o = RenderOptions {
        width: 120,
        height: 90,
        view: View::Iso,
        show_hidden: false,
    };
    // the collision tree is hidden: same picture as a scene without it
    assert_eq!(render(&with, &o), render(&without, &o));
    o.show_hidden = true;
    assert_ne!(render(&with, &o), render(&without, &o));
}
