//! `replace --routes`: a `routes.json` (as `export --objects` writes it,
//! [`crate::scene::routes::routes_json`]) read, checked against the level's routes, and its
//! positions, rotations and link words written into the MAP route nodes
//! (docs/formats/argonaut-wad.md §18.5).
//!
//! Per node, `routes[].nodes[]` gives `position` (3 × i32, 20.12 fixed point), `rotation`
//! (3 × u16, 4096ths of a turn), `next` and `prev` (u32); a key left out keeps the stored
//! value (a `routes.json` written before the file had rotations and links still reads). `id`,
//! `first_node` and `node` must name the level's own routes and nodes, and the number of routes
//! and of nodes per route must be the level's: nodes cannot be added or removed this way, but
//! the `next` words chain them (a non-zero `next` continues the route into the following node,
//! 0 ends it), so editing them splits or joins routes.
//!
//! The links must stay inside section 4, as the loader (ENG-RE `REVERSED/decompiled/
//! sub_42AC50.c`, the fix-up after the route-node loop) resolves them: it turns a non-zero
//! `next` into a pointer to the following record, so the last node of the list may not get a
//! non-zero `next`; and it replaces a node's `prev` by a pointer to the previous record only
//! when that record's `next` is non-zero, keeping the stored word as the link of a node that
//! starts a route, which may therefore not get a non-zero `prev`. Both rules apply to values
//! the file changes (a level that already breaks them rebuilds as it is); `check` then holds
//! the objects' routes to the list ([`crate::map::links`]).
//!
//! Every error names the byte offset and JSON path (`at byte 0x… ($.routes[3].nodes[1].next)`).
//! Nothing but the words of a node that changed is written differently.

use std::path::Path;

use super::json::{self, place, JsonSyntax};
use serde_json::Value;

use super::{LevelProblem, ReplaceError};
use crate::level::Level;
use crate::map::routes::routes;
use crate::map::RouteNode;

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
    /// A rotation or link word out of its range.
    #[error("{place}: {got} is not a whole number in 0..={max} ({what})")]
    Word {
        /// Where.
        place: String,
        /// The value given.
        got: String,
        /// The largest value the word holds.
        max: u32,
        /// What the word is.
        what: &'static str,
    },
    /// A non-zero `next` given to the last node of section 4.
    #[error(
        "{place}: node {node} is the last route node of the level: a non-zero next would link \
         it to a record past the list (the loader turns it into a pointer to the following \
         record); write 0 to end the route there"
    )]
    NextPastList {
        /// Where.
        place: String,
        /// The node.
        node: usize,
    },
    /// A non-zero `prev` given to a node that starts a route.
    #[error(
        "{place}: node {node} starts a route (it is the first node, or the node before it has \
         next 0): the loader keeps this word as its link to a previous record, so anything but \
         0 links outside the routes"
    )]
    PrevBeforeRoute {
        /// Where.
        place: String,
        /// The node.
        node: usize,
    },
}

/// What `replace --routes` changed, node numbers in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoutesChange {
    /// Nodes whose position changed.
    pub moved: Vec<usize>,
    /// Nodes whose rotation changed.
    pub turned: Vec<usize>,
    /// Nodes whose `next` or `prev` word changed.
    pub relinked: Vec<usize>,
}

fn parse(bytes: &[u8]) -> Result<Value, RoutesError> {
    Ok(json::parse(bytes, "routes")?)
}

/// The route nodes a routes JSON gives for a level whose nodes are `stored` (chained into the
/// routes `ranges`): each node as stored, with what the JSON gives in place of the stored
/// words, checked as the module docs say.
///
/// # Errors
/// [`RoutesError`], located.
pub fn read_nodes(
    bytes: &[u8],
    stored: &[RouteNode],
    ranges: &[std::ops::Range<usize>],
) -> Result<Vec<RouteNode>, RoutesError> {
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
    let mut out = stored.to_vec();
    // the JSON path of each node, for the link rules
    let mut paths = vec![String::new(); stored.len()];
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
            read_node(bytes, node, &np, &mut out[index])?;
            paths[index] = np;
        }
    }
    check_links(bytes, stored, &out, &paths)?;
    Ok(out)
}

/// The words node `node` (at JSON path `np`) gives, put into `n`.
fn read_node(bytes: &[u8], node: &Value, np: &str, n: &mut RouteNode) -> Result<(), RoutesError> {
    let at = |p: &str| place(bytes, p);
    let triple = |key: &str, what: &'static str| -> Result<Option<&Vec<Value>>, RoutesError> {
        match node.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_array()
                .filter(|p| p.len() == 3)
                .map(Some)
                .ok_or_else(|| RoutesError::Expected {
                    place: at(&format!("{np}.{key}")),
                    what,
                }),
        }
    };
    if let Some(pos) = triple("position", "\"position\": [x, y, z]")? {
        for (c, v) in pos.iter().enumerate() {
            n.pos[c] = v
                .as_i64()
                .and_then(|v| i32::try_from(v).ok())
                .ok_or_else(|| RoutesError::Coordinate {
                    place: at(&format!("{np}.position[{c}]")),
                    got: v.to_string(),
                })?;
        }
    }
    let word = |v: &Value, path: String, max: u32, what: &'static str| {
        v.as_u64()
            .and_then(|x| u32::try_from(x).ok())
            .filter(|&x| x <= max)
            .ok_or_else(|| RoutesError::Word {
                place: at(&path),
                got: v.to_string(),
                max,
                what,
            })
    };
    if let Some(rot) = triple("rotation", "\"rotation\": [rx, ry, rz]")? {
        for (c, v) in rot.iter().enumerate() {
            let path = format!("{np}.rotation[{c}]");
            n.rot[c] = word(v, path, u32::from(u16::MAX), "4096ths of a turn, a u16")? as u16;
        }
    }
    if let Some(v) = node.get("next") {
        n.next = word(v, format!("{np}.next"), u32::MAX, "a u32 link word")?;
    }
    if let Some(v) = node.get("prev") {
        n.prev = word(v, format!("{np}.prev"), u32::MAX, "a u32 link word")?;
    }
    Ok(())
}

/// The link rules of the module docs on the new nodes `new` (`stored` the level's, `paths`
/// each node's JSON path).
fn check_links(
    bytes: &[u8],
    stored: &[RouteNode],
    new: &[RouteNode],
    paths: &[String],
) -> Result<(), RoutesError> {
    let at = |i: usize, key: &str| place(bytes, &format!("{}.{key}", paths[i]));
    if let (Some(last), Some(was)) = (new.last(), stored.last()) {
        let i = new.len() - 1;
        if last.next != 0 && last.next != was.next {
            return Err(RoutesError::NextPastList {
                place: at(i, "next"),
                node: i,
            });
        }
    }
    for (i, (n, was)) in new.iter().zip(stored).enumerate() {
        let starts = i == 0 || new[i - 1].next == 0;
        if starts && n.prev != 0 && n.prev != was.prev {
            return Err(RoutesError::PrevBeforeRoute {
                place: at(i, "prev"),
                node: i,
            });
        }
    }
    Ok(())
}

/// Write the nodes of the routes JSON `path` into the level's route nodes; what changed.
pub(super) fn replace(
    level: &mut Level,
    path: &Path,
    lacks: impl Fn(LevelProblem) -> ReplaceError,
) -> Result<RoutesChange, ReplaceError> {
    let bytes = levelgeom_binary::read_regular(path, MAX_ROUTES_SIZE).map_err(|source| {
        ReplaceError::Io {
            path: path.to_path_buf(),
            source,
        }
    })?;
    let map = level.map_mut().ok_or_else(|| lacks(LevelProblem::NoMap))?;
    let ranges = routes(&map.route_nodes);
    let nodes =
        read_nodes(&bytes, &map.route_nodes, &ranges).map_err(|source| ReplaceError::Routes {
            file: path.to_path_buf(),
            source,
        })?;
    let mut change = RoutesChange::default();
    for (i, (old, new)) in map.route_nodes.iter().zip(&nodes).enumerate() {
        if old.pos != new.pos {
            change.moved.push(i);
        }
        if old.rot != new.rot {
            change.turned.push(i);
        }
        if (old.next, old.prev) != (new.next, new.prev) {
            change.relinked.push(i);
        }
    }
    map.route_nodes = nodes;
    Ok(change)
}
