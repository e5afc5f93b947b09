//! The routes level: the modder's level ([`super::modder_level`]) with known MAP sections 2–4
//! (docs/formats/argonaut-wad.md §18.3–§18.5): a parameter list, strat records that point at
//! the objects' definitions and two routes with hand-chosen positions, links and rotations
//! that objects start on.

use levelgeom_binary::WriteError;

use super::{modder_level, ModderFacts};
use crate::level::Level;
use crate::map::{RouteNode, StratRecord};

/// The section-2 parameters of [`routes_level`].
pub const ROUTES_PARAMS: [u32; 4] = [10, 20, 30, 40];

/// The route nodes of [`routes_level`] in export space (x, y, z; cells), route by route: the
/// first route has three nodes, the second two; all above the island's terrain and objects
/// (heights ≤ 1.5), so a picture shows them.
pub const ROUTE_POSITIONS: [&[[f32; 3]]; 2] = [
    &[[5.5, 2.0, -5.5], [7.5, 2.0, -5.5], [7.5, 3.0, -7.5]],
    &[[4.5, 2.5, -8.5], [8.5, 2.5, -8.5]],
];

/// The yaw (`rot[1]`, 4096ths of a turn) of node k of [`routes_level`] (numbered over both
/// routes); `rot[0]` is k, `rot[2]` is 0.
pub fn route_yaw(k: usize) -> u16 {
    (k as u16) * 512
}

/// What [`routes_level`] put where, beyond the modder level's facts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoutesFacts {
    /// The modder level's facts (objects 0 and 3 use `direct`, 1 `delegating`, 2 `plain`).
    pub modder: ModderFacts,
    /// The strat record that names object 0's (and 3's) definition.
    pub strat_of_direct: usize,
    /// The strat record that names object 2's definition.
    pub strat_of_plain: usize,
}

/// The modder level with: section 2 = [`ROUTES_PARAMS`]; three strat records (record 0 names
/// the `direct` definition, flags 8, range pairs `[4096, 8192]` and `[0, 0]`; record 1 no
/// script; record 2 names the `plain` definition with range pairs `[1, 2]` and `[3, 4]`);
/// route nodes at [`ROUTE_POSITIONS`] chained by their `next` words (1 inside a route, 0 at
/// its end), `prev` 0, rotation `[k, route_yaw(k), 0]`, `unknown_0x1a = 0x100 + k`,
/// `unknown_0x1e = 0`. Object 1 starts on route 0 (`section4_index` 0), object 2 on route 1
/// (`section4_index` 3), and objects 1 and 2 take parameters from index 1 (`section2_index`).
pub fn routes_level() -> Result<(Level, RoutesFacts), WriteError> {
    let (mut level, modder) = modder_level()?;
    let map = level.map_mut().expect("the demo has MAP");
    map.params = ROUTES_PARAMS.to_vec();
    let fx = |v: f32| (f64::from(v) * 4096.0).round() as i32;
    map.strat_records = vec![
        StratRecord {
            flags: 8,
            script_offset: modder.direct,
            range_min: [4096, 8192],
            ..StratRecord::default()
        },
        StratRecord {
            unknown_0x00: 7,
            ..StratRecord::default()
        },
        StratRecord {
            script_offset: modder.plain,
            range_min: [1, 2],
            range_max: [3, 4],
            ..StratRecord::default()
        },
    ];
    let mut nodes = Vec::new();
    for route in ROUTE_POSITIONS {
        for (j, p) in route.iter().enumerate() {
            let k = nodes.len();
            nodes.push(RouteNode {
                next: u32::from(j + 1 < route.len()),
                prev: 0,
                rot: [k as u16, route_yaw(k), 0],
                pos: [fx(p[0]), fx(p[1]), fx(-p[2])],
                unknown_0x1a: 0x100 + k as u32,
                unknown_0x1e: 0,
            });
        }
    }
    map.route_nodes = nodes;
    for (object, first) in [(1, 0u32), (2, 3)] {
        map.objects[object].fields[1] = 1; // section2_index
        map.objects[object].fields[6] = first; // section4_index
    }
    let facts = RoutesFacts {
        modder,
        strat_of_direct: 0,
        strat_of_plain: 2,
    };
    Ok((level, facts))
}
