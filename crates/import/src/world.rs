//! The scene flattened into world-space triangles, for engine importers.

use levelgeom_scene::{Scene, IDENTITY};

/// One triangle in world space with its corner attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct Triangle {
    /// Index of the node that placed it ([`Scene::nodes`]).
    pub node: usize,
    /// That node's name (e.g. `tile_0012_m034`, `mat03_grp1`).
    pub node_name: String,
    /// Index of its primitive in the node's mesh (for error messages: `meshes[m].primitives[p]`).
    pub primitive: usize,
    /// Index of its triangle in that primitive (the `k`-th index triple).
    pub index: usize,
    /// Index into [`Scene::materials`] of its primitive.
    pub material: Option<usize>,
    /// Corner positions, world space.
    pub positions: [[f32; 3]; 3],
    /// Corner UVs from `uvs[0]` (top-left origin), when the primitive has them.
    pub uvs: Option<[[f32; 2]; 3]>,
    /// Corner colours from `colors[0]`, RGBA as stored, when the primitive has them.
    pub colours: Option<[[f32; 4]; 3]>,
    /// Corner unit normals, world space, when the primitive has them.
    pub normals: Option<[[f32; 3]; 3]>,
}

/// Every triangle under `root` (or under all [`Scene::roots`] when `None`), in world space.
///
/// * Nodes are visited depth first, children in order, each node once (a node reachable
///   twice, or a cycle, is not repeated). The start node's world matrix is its world matrix
///   from the scene roots when it is reachable from them, else its own local matrix.
/// * Positions are transformed by the node's world matrix, normals by its inverse-transpose
///   (renormalised); when the matrix mirrors (negative determinant) the corner order is
///   reversed (corners 1 and 2 swapped) so that front faces stay counter-clockwise.
///   Arithmetic is in f64, rounded once.
/// * With `include_hidden` false, a hidden node and its whole subtree are skipped (including
///   the start node: pass `true` to flatten e.g. the hidden `collision` tree).
/// * Triangles with an index past the primitive's vertices are skipped; attribute sets whose
///   length differs from the positions' are left out (`None`).
pub fn world_triangles(scene: &Scene, root: Option<usize>, include_hidden: bool) -> Vec<Triangle> {
    let mut out = Vec::new();
    visit(scene, root, include_hidden, |x, m| {
        push_triangles(scene, x, m, &mut out);
    });
    out
}

/// The scene placed more triangles than a limit allows ([`world_triangles_limited`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("nodes[{node}] ({node_name}) brings the triangles placed to {count}, more than the limit of {limit} (Limits::max_instanced_triangles)")]
pub struct TooManyTriangles {
    /// The node whose mesh crossed the limit.
    pub node: usize,
    /// Its name.
    pub node_name: String,
    /// The triangles placed up to and including that node.
    pub count: u64,
    /// The limit.
    pub limit: u64,
}

/// [`world_triangles`], refused when the nodes visited would place more than `limit`
/// triangles (every node instancing a mesh counted): the triangles are counted before
/// anything is allocated for them, and the vector is reserved fallibly.
///
/// # Errors
/// [`TooManyTriangles`] naming the node that crossed the limit.
pub fn world_triangles_limited(
    scene: &Scene,
    root: Option<usize>,
    include_hidden: bool,
    limit: usize,
) -> Result<Vec<Triangle>, TooManyTriangles> {
    let count = count_world_triangles(scene, root, include_hidden, limit)?;
    let mut out = Vec::new();
    out.try_reserve_exact(count as usize)
        .map_err(|_| TooManyTriangles {
            node: root.unwrap_or(0),
            node_name: String::from("(allocation failed)"),
            count,
            limit: limit as u64,
        })?;
    visit(scene, root, include_hidden, |x, m| {
        push_triangles(scene, x, m, &mut out);
    });
    Ok(out)
}

/// The triangles the nodes under `root` (or the roots) place, every node instancing a mesh
/// counted, without building them; refused past `limit` like [`world_triangles_limited`].
///
/// # Errors
/// [`TooManyTriangles`] naming the node that crossed the limit.
pub fn count_world_triangles(
    scene: &Scene,
    root: Option<usize>,
    include_hidden: bool,
    limit: usize,
) -> Result<u64, TooManyTriangles> {
    match root {
        Some(r) => count_from(scene, &[r], include_hidden, limit),
        None => count_from(scene, &scene.roots, include_hidden, limit),
    }
}

/// [`count_world_triangles`] from the nodes `starts`, in one pass.
fn count_from(
    scene: &Scene,
    starts: &[usize],
    include_hidden: bool,
    limit: usize,
) -> Result<u64, TooManyTriangles> {
    let mut count = 0u64;
    let mut over = None;
    visit_from(scene, starts, include_hidden, |x, _| {
        if over.is_some() {
            return;
        }
        let Some(mesh) = scene.nodes[x].mesh.and_then(|mi| scene.meshes.get(mi)) else {
            return;
        };
        count += mesh
            .primitives
            .iter()
            .map(|p| (p.indices.len() / 3) as u64)
            .sum::<u64>();
        if count > limit as u64 {
            over = Some(TooManyTriangles {
                node: x,
                node_name: scene.nodes[x].name.clone(),
                count,
                limit: limit as u64,
            });
        }
    });
    match over {
        Some(e) => Err(e),
        None => Ok(count),
    }
}

/// [`world_triangles_limited`] from the nodes `starts` (each a start as `root` is), in one
/// pass: for callers that take some roots and skip others, without a pass per root.
///
/// # Errors
/// [`TooManyTriangles`] naming the node that crossed the limit.
pub fn world_triangles_under(
    scene: &Scene,
    starts: &[usize],
    include_hidden: bool,
    limit: usize,
) -> Result<Vec<Triangle>, TooManyTriangles> {
    let count = count_from(scene, starts, include_hidden, limit)?;
    let mut out = Vec::new();
    out.try_reserve_exact(count as usize)
        .map_err(|_| TooManyTriangles {
            node: starts.first().copied().unwrap_or(0),
            node_name: String::from("(allocation failed)"),
            count,
            limit: limit as u64,
        })?;
    visit_from(scene, starts, include_hidden, |x, m| {
        push_triangles(scene, x, m, &mut out);
    });
    Ok(out)
}

/// Call `f(node, world matrix)` for every node under `root` (or the roots), depth first,
/// each node once, hidden subtrees skipped unless `include_hidden`.
fn visit(
    scene: &Scene,
    root: Option<usize>,
    include_hidden: bool,
    f: impl FnMut(usize, &[f64; 16]),
) {
    match root {
        Some(r) => visit_from(scene, &[r], include_hidden, f),
        None => visit_from(scene, &scene.roots, include_hidden, f),
    }
}

/// [`visit`] from several start nodes in one pass (each node still visited once).
fn visit_from(
    scene: &Scene,
    starts: &[usize],
    include_hidden: bool,
    mut f: impl FnMut(usize, &[f64; 16]),
) {
    let n = scene.nodes.len();
    let world = scene.world_matrices();
    let reachable = scene.reachable();
    let mut seen = vec![false; n];
    for &s in starts {
        if s >= n {
            continue;
        }
        let m0 = if reachable[s] {
            world[s]
        } else {
            scene.nodes[s].matrix
        };
        let mut stack = vec![(s, m0.map(f64::from))];
        while let Some((x, m)) = stack.pop() {
            if seen[x] || (!include_hidden && scene.nodes[x].hidden) {
                continue;
            }
            seen[x] = true;
            let node = &scene.nodes[x];
            for &c in node.children.iter().rev() {
                if c < n {
                    stack.push((c, mul64(&m, &node_matrix(scene, c))));
                }
            }
            f(x, &m);
        }
    }
}

/// The triangles of node `x`'s mesh under the world matrix `m`, appended to `out`.
fn push_triangles(scene: &Scene, x: usize, m: &[f64; 16], out: &mut Vec<Triangle>) {
    let node = &scene.nodes[x];
    let Some(mesh) = node.mesh.and_then(|mi| scene.meshes.get(mi)) else {
        return;
    };
    let normal_m = inverse_transpose3(m);
    let mirrored = det3(m) < 0.0;
    for (pi, p) in mesh.primitives.iter().enumerate() {
        let nv = p.positions.len();
        let uvs = p.uvs.first().filter(|s| s.len() == nv);
        let cols = p.colors.first().filter(|s| s.len() == nv);
        let nrm = (p.normals.len() == nv && nv > 0).then_some(&p.normals);
        for (k, t) in p.indices.chunks_exact(3).enumerate() {
            if t.iter().any(|&i| i as usize >= nv) {
                continue;
            }
            let mut c = [t[0] as usize, t[1] as usize, t[2] as usize];
            if mirrored {
                c.swap(1, 2);
            }
            out.push(Triangle {
                node: x,
                node_name: node.name.clone(),
                primitive: pi,
                index: k,
                material: p.material,
                positions: c.map(|i| point(m, p.positions[i])),
                uvs: uvs.map(|s| c.map(|i| s[i])),
                colours: cols.map(|s| c.map(|i| s[i])),
                normals: nrm.map(|s| c.map(|i| normal(&normal_m, s[i]))),
            });
        }
    }
}

fn node_matrix(scene: &Scene, i: usize) -> [f64; 16] {
    scene
        .nodes
        .get(i)
        .map_or(IDENTITY, |n| n.matrix)
        .map(f64::from)
}

fn mul64(a: &[f64; 16], b: &[f64; 16]) -> [f64; 16] {
    let mut o = [0f64; 16];
    for c in 0..4 {
        for r in 0..4 {
            o[c * 4 + r] = (0..4).map(|k| a[k * 4 + r] * b[c * 4 + k]).sum();
        }
    }
    o
}

fn point(m: &[f64; 16], p: [f32; 3]) -> [f32; 3] {
    let [x, y, z] = p.map(f64::from);
    [0, 1, 2].map(|r| (m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r]) as f32)
}

fn det3(m: &[f64; 16]) -> f64 {
    let a = |r: usize, c: usize| m[c * 4 + r];
    a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1))
        - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0))
        + a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0))
}

/// Inverse-transpose of the upper 3×3 (row-major `[r][c]`), i.e. the cofactor matrix divided
/// by the determinant; the cofactor matrix alone when singular (direction still sensible).
fn inverse_transpose3(m: &[f64; 16]) -> [[f64; 3]; 3] {
    let a = |r: usize, c: usize| m[c * 4 + r];
    let mut cof = [[0f64; 3]; 3];
    for (r, row) in cof.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            let (r1, r2) = ((r + 1) % 3, (r + 2) % 3);
            let (c1, c2) = ((c + 1) % 3, (c + 2) % 3);
            *v = a(r1, c1) * a(r2, c2) - a(r1, c2) * a(r2, c1);
        }
    }
    let d = det3(m);
    if d != 0.0 && d.is_finite() {
        for row in &mut cof {
            for v in row {
                *v /= d;
            }
        }
    }
    cof
}

fn normal(it: &[[f64; 3]; 3], v: [f32; 3]) -> [f32; 3] {
    let v = v.map(f64::from);
    let w = [0, 1, 2].map(|r| it[r][0] * v[0] + it[r][1] * v[1] + it[r][2] * v[2]);
    let len = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
    if len > 0.0 && len.is_finite() {
        w.map(|x| (x / len) as f32)
    } else {
        w.map(|x| x as f32)
    }
}
