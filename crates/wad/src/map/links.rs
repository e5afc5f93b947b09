//! What a MAP object's `section2_index` and `section4_index` name, resolved as the game
//! resolves them, and why a pair of indices cannot be resolved ([`LinkError`], what `check`
//! reports): docs/formats/argonaut-wad.md §8, docs/formats/argonaut-wad.md §18.3,
//! docs/formats/argonaut-wad.md §18.5.
//!
//! From ENG-RE's decompile (`REVERSED/decompiled/`):
//!
//! * `sub_42AC50.c`, the object loop (58 bytes on disk, 72 in memory): `section2_index`
//!   (file 0x1a) becomes a pointer `params + 4·index`, or none for `0xFFFFFFFF`, with no bound
//!   check; `section4_index` (file 0x2e) becomes a pointer `nodes + 0x30·index`, or none for
//!   `0xFFFFFFFF`, again unchecked. The loop after it walks, for every object with a route,
//!   the `next` pointers from that node to the last one (`for (p = *route; p; p = *p)`) and
//!   keeps it at +0x40. The route-node fix-up before turned each non-zero `next` into a pointer
//!   to the *following* record, so the last record of section 4 with a non-zero `next` points
//!   one record past the list.
//! * `sub_54CFC0.c` (spawning the map's objects): the spawn stack's top is
//!   `params pointer + 4·local_count` (`local_count`, file 0x16); `sub_54BFC0.c` then pops
//!   `local_count` words from it (`sub_54BC00.c`: `top -= 4; return *top`) into the actor's
//!   locals. So an object's parameters are the `local_count` words of section 2 from its
//!   index on; with no list (`0xFFFFFFFF`) and a count above 0 the pops read from address
//!   `4·(count − 1)` down to 0.

use std::ops::Range;

use super::{MapObject, RouteNode};

/// The index word meaning "none" (the loader stores a null pointer).
pub const NO_INDEX: u32 = u32::MAX;
/// Index of `local_count` (the number of section-2 parameters) in [`MapObject::fields`].
pub const LOCAL_COUNT_FIELD: usize = 0;
/// Index of `section2_index` in [`MapObject::fields`].
pub const SECTION2_INDEX_FIELD: usize = 1;
/// Index of `section4_index` in [`MapObject::fields`].
pub const SECTION4_INDEX_FIELD: usize = 6;

/// Which index of an object a [`LinkError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkField {
    /// `section2_index` (with `local_count`).
    Section2Index,
    /// `section4_index`.
    Section4Index,
}

impl LinkField {
    /// The field's name, as docs/formats/argonaut-wad.md §8 and `check`'s paths spell it.
    pub fn name(self) -> &'static str {
        match self {
            LinkField::Section2Index => "section2_index",
            LinkField::Section4Index => "section4_index",
        }
    }
}

/// Why an object's indices cannot be resolved as the game resolves them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// No parameter list (`0xFFFFFFFF`), but a `local_count` above 0: the spawn pops that many
    /// words from just above address 0.
    #[error(
        "is 0xFFFFFFFF (no parameters), but local_count is {count}: spawning the object reads \
         {count} words at address 0 (the game crashes)"
    )]
    CountWithoutList {
        /// `local_count`.
        count: u32,
    },
    /// The parameters run past section 2.
    #[error(
        "{index} + local_count {count} runs past section 2's {len} words: spawning the \
         object reads parameters from memory after the list"
    )]
    ParamsPastList {
        /// `section2_index`.
        index: u32,
        /// `local_count`.
        count: u32,
        /// Words in section 2.
        len: usize,
    },
    /// An index past section 2 with no parameter to read: a pointer nothing reads through.
    #[error(
        "{index} lies past section 2's {len} words; harmless while local_count is 0 (nothing \
         is read through it)"
    )]
    UnreadPastList {
        /// `section2_index`.
        index: u32,
        /// Words in section 2.
        len: usize,
    },
    /// The route's first node is not in section 4.
    #[error(
        "{index} is not below section 4's {len} route nodes: loading the level follows the \
         links of a record outside the list"
    )]
    NodeOutside {
        /// `section4_index`.
        index: u32,
        /// Nodes in section 4.
        len: usize,
    },
    /// The route from the object's node reaches the list's last node, whose `next` is not 0.
    #[error(
        "{index} starts a route that reaches node {last}, the last of section 4, whose next \
         word is {next} (not 0): loading the level walks the route past the list"
    )]
    RouteUnended {
        /// `section4_index`.
        index: u32,
        /// The last node of section 4.
        last: usize,
        /// Its `next` word.
        next: u32,
    },
}

impl LinkError {
    /// The index the error is about.
    pub fn field(self) -> LinkField {
        match self {
            LinkError::CountWithoutList { .. }
            | LinkError::ParamsPastList { .. }
            | LinkError::UnreadPastList { .. } => LinkField::Section2Index,
            LinkError::NodeOutside { .. } | LinkError::RouteUnended { .. } => {
                LinkField::Section4Index
            }
        }
    }

    /// True when the game reads memory outside the lists (an error); false when it only
    /// keeps a pointer it never reads through (a warning).
    pub fn game_reads_outside(self) -> bool {
        !matches!(self, LinkError::UnreadPastList { .. })
    }
}

impl MapObject {
    /// `local_count`: how many section-2 words the object's spawn reads.
    pub fn local_count(&self) -> u32 {
        self.fields[LOCAL_COUNT_FIELD]
    }

    /// `section2_index`: where the object's parameters start in section 2 ([`NO_INDEX`]: none).
    pub fn section2_index(&self) -> u32 {
        self.fields[SECTION2_INDEX_FIELD]
    }

    /// `section4_index`: the route node the object starts on ([`NO_INDEX`]: none).
    pub fn section4_index(&self) -> u32 {
        self.fields[SECTION4_INDEX_FIELD]
    }

    /// The object's parameters: the range of section 2's `len` words its spawn reads (empty
    /// when it reads none; `None` without a list).
    ///
    /// # Errors
    /// [`LinkError::CountWithoutList`], [`LinkError::ParamsPastList`],
    /// [`LinkError::UnreadPastList`] (see the module docs).
    pub fn params(&self, len: usize) -> Result<Option<Range<usize>>, LinkError> {
        let (index, count) = (self.section2_index(), self.local_count());
        if index == NO_INDEX {
            return match count {
                0 => Ok(None),
                _ => Err(LinkError::CountWithoutList { count }),
            };
        }
        let start = index as usize;
        let end = start.saturating_add(count as usize);
        if end <= len {
            Ok(Some(start..end))
        } else if count == 0 {
            Err(LinkError::UnreadPastList { index, len })
        } else {
            Err(LinkError::ParamsPastList { index, count, len })
        }
    }

    /// The object's route in `nodes`: from its node to the node the loader keeps as the
    /// route's end (`None` without a route).
    ///
    /// # Errors
    /// [`LinkError::NodeOutside`], [`LinkError::RouteUnended`] (see the module docs).
    pub fn route(&self, nodes: &[RouteNode]) -> Result<Option<Range<usize>>, LinkError> {
        let index = self.section4_index();
        if index == NO_INDEX {
            return Ok(None);
        }
        let start = index as usize;
        if start >= nodes.len() {
            return Err(LinkError::NodeOutside {
                index,
                len: nodes.len(),
            });
        }
        match nodes[start..].iter().position(|n| n.next == 0) {
            Some(k) => Ok(Some(start..start + k + 1)),
            None => Err(LinkError::RouteUnended {
                index,
                last: nodes.len() - 1,
                next: nodes[nodes.len() - 1].next,
            }),
        }
    }

    /// Every reason the object's indices cannot be resolved against `map`'s section 2 (`params`
    /// words) and section 4 (`nodes`).
    pub fn link_errors(&self, params: usize, nodes: &[RouteNode]) -> Vec<LinkError> {
        [self.params(params).err(), self.route(nodes).err()]
            .into_iter()
            .flatten()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(count: u32, s2: u32, s4: u32) -> MapObject {
        let mut o = MapObject::default();
        o.fields[LOCAL_COUNT_FIELD] = count;
        o.fields[SECTION2_INDEX_FIELD] = s2;
        o.fields[SECTION4_INDEX_FIELD] = s4;
        o
    }

    fn node(next: u32) -> RouteNode {
        RouteNode {
            next,
            ..RouteNode::default()
        }
    }

    #[test]
    fn params_are_the_count_words_from_the_index() {
        assert_eq!(object(2, 1, NO_INDEX).params(4), Ok(Some(1..3)));
        assert_eq!(object(0, 4, NO_INDEX).params(4), Ok(Some(4..4)));
        assert_eq!(object(0, NO_INDEX, NO_INDEX).params(0), Ok(None));
        assert_eq!(
            object(3, 2, NO_INDEX).params(4),
            Err(LinkError::ParamsPastList {
                index: 2,
                count: 3,
                len: 4
            })
        );
        assert_eq!(
            object(1, NO_INDEX, NO_INDEX).params(4),
            Err(LinkError::CountWithoutList { count: 1 })
        );
        let e = object(0, 9, NO_INDEX).params(4).unwrap_err();
        assert_eq!(e, LinkError::UnreadPastList { index: 9, len: 4 });
        assert!(!e.game_reads_outside());
    }

    #[test]
    fn a_route_runs_to_its_first_zero_next() {
        let n = [node(1), node(1), node(0), node(1), node(0)];
        assert_eq!(object(0, NO_INDEX, 1).route(&n), Ok(Some(1..3)));
        assert_eq!(object(0, NO_INDEX, 4).route(&n), Ok(Some(4..5)));
        assert_eq!(
            object(0, NO_INDEX, 5).route(&n),
            Err(LinkError::NodeOutside { index: 5, len: 5 })
        );
        let open = [node(0), node(1), node(2)];
        assert_eq!(
            object(0, NO_INDEX, 1).route(&open),
            Err(LinkError::RouteUnended {
                index: 1,
                last: 2,
                next: 2
            })
        );
    }
}
