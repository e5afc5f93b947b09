//! `replace --routes`: a `routes.json` (as `export --objects` writes it,
//! [`crate::scene::routes::routes_json`]) read, checked against the level's routes, and its
//! positions written into the MAP route nodes (docs/formats/argonaut-wad.md §18.5).
//!
//! Only `routes[].nodes[].position` is taken; `id`, `first_node` and `node` must name the
//! level's own routes and nodes, and the number of routes and of nodes per route must be the
//! level's (a route cannot be added, removed or re-chained this way). Every error names the
//! byte offset and JSON path (`at byte 0x… ($.routes[3].nodes[1].position[1])`). Nothing but the
//! twelve position bytes of a node whose position changed is written differently.

use std::path::Path;

use super::json::{self, place, JsonSyntax};
use serde_json::Value;

use super::{LevelProblem, ReplaceError};
use crate::level::Level;
use crate::map::routes::routes;

/// The largest `routes.json` `replace --routes` reads: 16 MiB (a level's routes, as `export`
/// writes them, take a few tens of KB).
pub const MAX_ROUTES_SIZE: u64 = 16 << 20;

/// What is wrong in a routes JSON; `place` is `at byte 0x… ($.path)`.
#[derive(Debug, thiserror::Error)]
pub enum RoutesError {
    /// Not a JSON document.
    #[error(transparent)]
    Syntax(#[from] JsonSyntax),
    /// A value missing or of the wrong kind.
    #[error("{place}: expected {what} (write the file with levelgeom export --objects)")]
    Expected {
        /// Where.
        place: String,
        /// What should be there.
        what: &'static str,
    },
    /// A count that is not the level's.
    #[error(
        "{place}: {what} {got}, the level has {want}; routes can be moved, not added or removed"
    )]
    Count {
        /// Where.
        place: String,
        /// What is counted.
        what: &'static str,
        /// The JSON's count.
        got: usize,
        /// The level's.
        want: usize,
    },
    /// An id or node number that is not the level's at that place.
    #[error("{place}: {what} is {got}, the level's is {want}")]
    Id {
        /// Where.
        place: String,
        /// Which number.
        what: &'static str,
        /// The JSON's value.
        got: String,
        /// The level's.
        want: usize,
    },
    /// A coordinate that is no 32-bit integer.
    #[error("{place}: {got} is not a whole number in −2147483648..=2147483647 (20.12 fixed point, 4096 per cell)")]
    Coordinate {
        /// Where.
        place: String,
        /// The value given.
        got: String,
    },
}

fn parse(bytes: &[u8]) -> Result<Value, RoutesError> {
    Ok(json::parse(bytes, "routes")?)
}

/// The positions a routes JSON gives, one per route node of a level whose routes are
/// `ranges`, checked as the module docs say.
///
/// # Errors
/// [`RoutesError`], located.
pub fn read_positions(
    bytes: &[u8],
    ranges: &[std::ops::Range<usize>],
) -> Result<Vec<[i32; 3]>, RoutesError> {
    let doc = parse(bytes)?;
    let at = |p: &str| place(bytes, p);
    let list = doc["routes"]
        .as_array()
        .ok_or_else(|| RoutesError::Expected {
            place: at("$"),
            what: "a \"routes\" array",
        })?;
    if list.len() != ranges.len() {
        return Err(RoutesError::Count {
            place: at("$.routes"),
            what: "routes",
            got: list.len(),
            want: ranges.len(),
        });
    }
    let mut out = Vec::with_capacity(ranges.last().map_or(0, |r| r.end));
    for (k, (route, range)) in list.iter().zip(ranges).enumerate() {
        let rp = format!("$.routes[{k}]");
        for (key, want) in [("id", k), ("first_node", range.start)] {
            if route[key].as_u64() != Some(want as u64) {
                return Err(RoutesError::Id {
                    place: at(&format!("{rp}.{key}")),
                    what: key,
                    got: route[key].to_string(),
                    want,
                });
            }
        }
        let nodes = route["nodes"]
            .as_array()
            .ok_or_else(|| RoutesError::Expected {
                place: at(&rp),
                what: "a \"nodes\" array",
            })?;
        if nodes.len() != range.len() {
            return Err(RoutesError::Count {
                place: at(&format!("{rp}.nodes")),
                what: "nodes",
                got: nodes.len(),
                want: range.len(),
            });
        }
        for (j, (node, index)) in nodes.iter().zip(range.clone()).enumerate() {
            let np = format!("{rp}.nodes[{j}]");
            if node["node"].as_u64() != Some(index as u64) {
                return Err(RoutesError::Id {
                    place: at(&format!("{np}.node")),
                    what: "node",
                    got: node["node"].to_string(),
                    want: index,
                });
            }
            let pos = node["position"]
                .as_array()
                .filter(|p| p.len() == 3)
                .ok_or_else(|| RoutesError::Expected {
                    place: at(&format!("{np}.position")),
                    what: "\"position\": [x, y, z]",
                })?;
            let mut p = [0i32; 3];
            for (c, v) in pos.iter().enumerate() {
                p[c] = v
                    .as_i64()
                    .and_then(|v| i32::try_from(v).ok())
                    .ok_or_else(|| RoutesError::Coordinate {
                        place: at(&format!("{np}.position[{c}]")),
                        got: v.to_string(),
                    })?;
            }
            out.push(p);
        }
    }
    Ok(out)
}

/// Write the positions of the routes JSON `path` into the level's route nodes; the nodes
/// whose position changed.
pub(super) fn replace(
    level: &mut Level,
    path: &Path,
    lacks: impl Fn(LevelProblem) -> ReplaceError,
) -> Result<Vec<usize>, ReplaceError> {
    let bytes = levelgeom_binary::read_regular(path, MAX_ROUTES_SIZE).map_err(|source| {
        ReplaceError::Io {
            path: path.to_path_buf(),
            source,
        }
    })?;
    let map = level.map_mut().ok_or_else(|| lacks(LevelProblem::NoMap))?;
    let ranges = routes(&map.route_nodes);
    let positions = read_positions(&bytes, &ranges).map_err(|source| ReplaceError::Routes {
        file: path.to_path_buf(),
        source,
    })?;
    let mut changed = Vec::new();
    for (i, (node, p)) in map.route_nodes.iter_mut().zip(positions).enumerate() {
        if node.pos != p {
            node.pos = p;
            changed.push(i);
        }
    }
    Ok(changed)
}
