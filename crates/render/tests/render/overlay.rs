//! `render_overlay`: hidden geometry (the collision) tinted over the level, seen even where it
//! lies under it; drawn alone when it is all there is.

use levelgeom_render::{
    render, render_overlay, Image, RenderOptions, View, BACKGROUND, OVERLAY_ALPHA,
};
use levelgeom_scene::{Node, Scene};

use crate::common::*;

const RED: [u8; 4] = [255, 0, 0, 255];

fn count(img: &Image, c: [u8; 4]) -> usize {
    img.pixels.chunks_exact(4).filter(|p| *p == c).count()
}

/// A red unit square at y = 0 and, hidden under it at y = −0.5, a square of a quarter of its
/// area centred under it (x, −z ∈ [0.25, 0.75]).
fn level_over_collision() -> Scene {
    let mut s = Scene::default();
    s.materials.push(flat([1.0, 0.0, 0.0, 1.0]));
    add(&mut s, vec![square(0.0, 0)]);
    let mut c = square(-0.5, 0);
    for p in &mut c.positions {
        p[0] = 0.25 + p[0] * 0.5;
        p[2] = -0.25 + p[2] * 0.5;
    }
    let n = add(&mut s, vec![c]);
    s.roots.pop();
    let parent = s.add_node(Node {
        name: "collision".into(),
        children: vec![n],
        hidden: true,
        ..Node::default()
    });
    s.roots.push(parent);
    s
}

fn top(w: u32, h: u32) -> RenderOptions {
    RenderOptions {
        width: w,
        height: h,
        view: View::Top,
        show_hidden: false,
    }
}

#[test]
fn collision_under_the_level_is_tinted_over_it() {
    let s = level_over_collision();
    let plain = render(&s, &top(64, 64));
    assert_eq!(
        plain.pixel(32, 32),
        RED,
        "without the overlay the level hides it"
    );
    let img = render_overlay(&s, &top(64, 64));
    // Hand computed: the hidden square faces up, n · l = 1/|(0.3, 1, 0.5)| = 0.86387, shade =
    // 0.35 + 0.65 · 0.86387 = 0.91152; overlay (1, 0.2, 0.8) · shade = bytes (232, 46, 186);
    // over red by 0.6: (255·0.4 + 232·0.6, 46·0.6, 186·0.6) = (241.2, 27.6, 111.6).
    assert!((OVERLAY_ALPHA - 0.6).abs() < 1e-6);
    let tinted = [241, 28, 112, 255];
    assert_eq!(img.pixel(32, 32), tinted);
    let (red, tint, bg) = (
        count(&img, RED),
        count(&img, tinted),
        count(&img, BACKGROUND),
    );
    assert_eq!(red + tint + bg, 64 * 64, "only level, tint and sky");
    // the hidden square has a quarter of the level's area
    let share = tint as f64 / (red + tint) as f64;
    assert!((share - 0.25).abs() < 0.03, "tinted share {share}");
    // the level's own pixels are those of the plain picture
    assert_eq!(count(&plain, RED), red + tint);
}

#[test]
fn collision_alone_is_drawn_in_its_own_materials() {
    let mut s = level_over_collision();
    s.roots.remove(0); // the visible square
    let alone = render_overlay(&s, &top(32, 32));
    let shown = render(
        &s,
        &RenderOptions {
            show_hidden: true,
            ..top(32, 32)
        },
    );
    assert_eq!(alone, shown);
    assert!(count(&alone, RED) > 0, "not a blank picture");
    assert_eq!(count(&render(&s, &top(32, 32)), BACKGROUND), 32 * 32);
}
