//! What an expand asks for: one hop ([`ExpandSpec`]) or a variable-length
//! path ([`VarExpandSpec`]) from a bound node. The payloads of
//! [`super::Op::Expand`] and [`super::Op::VarExpand`], kept apart from the
//! operator so rules (a join order reversing a hop, a relationship scan
//! replacing one) pass them around and match them whole. Not boxed: an
//! expand is no larger than its sibling operators that carry an
//! expression, and rules destructure the fields in patterns.

use super::PropertyPredicate;
use crate::expr::{Expr, Slot};
use nereid_values::Direction;

/// Each relationship of the node in `from` (in `dir`, of one of `types`,
/// any type when empty) into `rel` and its other end into `to`. When
/// `into` is true, `to` is already bound and only relationships reaching
/// that node are kept. A null `from` yields no rows.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpandSpec {
    pub from: Slot,
    pub rel: Slot,
    pub to: Slot,
    /// Seen from `from`.
    pub dir: Direction,
    /// Alternative relationship types; empty means any.
    pub types: Vec<String>,
    pub into: bool,
    /// Slots of the input row that the output rows leave null: none above
    /// reads them (filled in by the planner's dead-slot pass; empty copies
    /// every slot).
    pub dead: Vec<Slot>,
    /// A list (a slot of the input row, a parameter or a literal) the
    /// other end must be in for its row to be built: the pre-test of a
    /// `to IN list` filter kept above the expand (rule `far_end_in`), so
    /// rows that filter would drop are never built. `None`: no pre-test.
    /// Boxed: rarely present, and every operator pays for the largest.
    pub far_end_in: Option<Box<Expr>>,
    /// A node the other end must have a relationship with for its row to
    /// be built: the pre-test of an `ExpandInto` from the other end kept
    /// directly above the expand (rule `far_end_adjacent`), so rows it
    /// would drop are never built. `None`: no pre-test. Boxed as
    /// `far_end_in` is.
    pub far_end_adjacent: Option<Box<AdjacentTo>>,
    /// Comparisons of a property of the other end with a literal or
    /// parameter that must all be `true` for its row to be built: the
    /// pre-test of filters kept above the expand (rule `far_end_where`),
    /// so rows they would drop are never built. `None`: no pre-test.
    /// Boxed as `far_end_in` is.
    pub far_end_where: Option<Box<Vec<PropertyPredicate>>>,
}

/// Relationships of one of `types` (any when empty) in `dir`, seen from an
/// expand's other end, to the node in slot `node` of the input row.
#[derive(Clone, Debug, PartialEq)]
pub struct AdjacentTo {
    pub node: Slot,
    pub dir: Direction,
    pub types: Vec<String>,
}

impl ExpandSpec {
    /// The same hop walked from its other end: `from` and `to` swapped,
    /// the direction reversed (the same relationships, the same rows).
    pub fn reversed(self) -> ExpandSpec {
        ExpandSpec {
            from: self.to,
            to: self.from,
            dir: self.dir.reversed(),
            ..self
        }
    }

    /// The slots the expand binds.
    pub fn bound_here(&self) -> Vec<Slot> {
        if self.into {
            vec![self.rel]
        } else {
            vec![self.rel, self.to]
        }
    }
}

/// Every path of `min..=max` relationships (unbounded when `max` is
/// `None`) from the node in `from` in `dir`, of one of `types` (any when
/// empty), each relationship having `properties` (evaluated once per input
/// row), and no relationship used twice in one path. The list of
/// relationships goes into `rels`, the last node into `to` (with `into`,
/// `to` is bound and only paths ending there are kept). A zero-length path
/// binds `to` to the start node.
#[derive(Clone, Debug, PartialEq)]
pub struct VarExpandSpec {
    pub from: Slot,
    pub rels: Slot,
    pub to: Slot,
    /// Seen from `from`.
    pub dir: Direction,
    /// Alternative relationship types; empty means any.
    pub types: Vec<String>,
    pub min: u64,
    /// `None`: unbounded.
    pub max: Option<u64>,
    pub into: bool,
    pub properties: Vec<(String, Expr)>,
    /// No operator above reads `rels` (the planner's dead-slot pass): the
    /// paths' relationship lists are not built, `rels` stays null.
    pub rels_unread: bool,
    /// The pattern was written from the other end (`to` is the end the
    /// pattern names first): the walk from `from` finds each path last
    /// relationship first, so its list is reversed before it is bound, and
    /// `rels` holds the relationships in the written order (rule
    /// `or_to_union` walks a hop from its seekable end, [`Self::reversed`]).
    pub backwards: bool,
}

impl VarExpandSpec {
    /// The same paths walked from their other end: `from` and `to`
    /// swapped, the direction reversed, `backwards` flipped (so the
    /// relationship lists keep the written order). The paths are the same
    /// set: a path of `min..=max` distinct relationships read in the other
    /// direction is one of `min..=max` distinct relationships from the
    /// other end, zero-length paths included. Only for a walk whose
    /// `properties` read neither end (the new start is bound before the
    /// old one is), which the caller checks.
    pub fn reversed(self) -> VarExpandSpec {
        VarExpandSpec {
            from: self.to,
            to: self.from,
            dir: self.dir.reversed(),
            backwards: !self.backwards,
            ..self
        }
    }

    /// The slots the expand binds.
    pub fn bound_here(&self) -> Vec<Slot> {
        if self.into {
            vec![self.rels]
        } else {
            vec![self.rels, self.to]
        }
    }
}
