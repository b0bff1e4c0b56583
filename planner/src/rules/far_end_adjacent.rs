//! `far_end_adjacent`: an `ExpandInto` between the node an expand just
//! reached and a node bound before it hands the expand that node, so the
//! expand builds rows only for neighbours with a relationship to it. LDBC
//! IC6 walks from ~580 friends and friends of friends to their ~151,000
//! posts, then keeps those tagged with one known tag:
//! `(friend)<-[:HAS_CREATOR]-(post)-[:HAS_TAG]->(knownTag)`. Each of the
//! 151,000 posts became a row (every slot of the input row copied) only for
//! the `ExpandInto` above to drop all but a few hundred; with the pre-test
//! the expand compares each post with the known tag's posts (read once when
//! many rows share the tag: `dfe/src/operators/far_end_adjacent.rs`).
//!
//! Exact: the `ExpandInto` stays and still builds every row it built (one
//! per relationship, whatever its uniqueness filters say); the expand only
//! leaves out neighbours with no relationship of those types in that
//! direction to that node, for which the `ExpandInto` yields nothing. The
//! node must be bound below the expand (not the relationship or neighbour
//! it binds). Filters between the two are looked through (they neither
//! bind nor change slots). Runs late, after the join order and operator
//! choices, like `far_end_in`, since a hop reversed or replaced would
//! otherwise carry a test meant for its other end.

use super::{transform_up, RewriteRule};
use crate::expr::Slot;
use crate::plan::{AdjacentTo, ExpandSpec, Op};
use crate::Catalog;

pub struct FarEndAdjacent;

impl RewriteRule for FarEndAdjacent {
    fn name(&self) -> &'static str {
        "far_end_adjacent"
    }

    fn rewrite(&self, plan: Op, _catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Expand { mut input, spec } if spec.into => {
                hand_to_expand(&mut input, &spec);
                Op::Expand { input, spec }
            }
            other => other,
        })
    }
}

/// Marks the expand under the run of filters at `op` when `into` tests
/// the node it reaches against a node bound before it.
fn hand_to_expand(op: &mut Op, into: &ExpandSpec) {
    match op {
        Op::Filter { input, .. } => hand_to_expand(input, into),
        Op::Expand { spec, .. } if !spec.into && spec.far_end_adjacent.is_none() => {
            if let Some(adjacent) = adjacent_to(spec, into) {
                spec.far_end_adjacent = Some(Box::new(adjacent));
            }
        }
        _ => {}
    }
}

/// What `into` asks of the node `below` reaches, seen from that node.
fn adjacent_to(below: &ExpandSpec, into: &ExpandSpec) -> Option<AdjacentTo> {
    let reached = below.to;
    let (node, dir) = if into.from == reached {
        (into.to, into.dir)
    } else if into.to == reached {
        (into.from, into.dir.reversed())
    } else {
        return None;
    };
    let bound_before = |slot: Slot| slot != below.rel && slot != below.to;
    bound_before(node).then(|| AdjacentTo {
        node,
        dir,
        types: into.types.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Catalog, ProcedureSignature};
    use nereid_values::Direction;

    /// The rule reads no statistics.
    struct NoCatalog;

    impl Catalog for NoCatalog {
        fn estimate_nodes(&self, _label: Option<&str>) -> u64 {
            0
        }

        fn procedure_signature(&self, _name: &str) -> Option<ProcedureSignature> {
            None
        }
    }

    fn expand(from: Slot, rel: Slot, to: Slot, dir: Direction, into: bool) -> ExpandSpec {
        ExpandSpec {
            from,
            rel,
            to,
            dir,
            types: vec![format!("T{rel}")],
            into,
            dead: Vec::new(),
            far_end_in: None,
            far_end_adjacent: None,
            far_end_where: None,
        }
    }

    fn plan(upper: ExpandSpec) -> Op {
        Op::Expand {
            input: Box::new(Op::Expand {
                input: Box::new(Op::Argument),
                spec: expand(0, 1, 2, Direction::Incoming, false),
            }),
            spec: upper,
        }
    }

    fn marked(op: &Op) -> Option<AdjacentTo> {
        let Op::Expand { input, .. } = op else {
            panic!("not an expand: {op:?}")
        };
        let Op::Expand { spec, .. } = &**input else {
            panic!("not an expand: {input:?}")
        };
        spec.far_end_adjacent.as_deref().cloned()
    }

    #[test]
    fn an_expand_into_from_the_reached_node_marks_the_expand() {
        let out =
            FarEndAdjacent.rewrite(plan(expand(2, 3, 4, Direction::Outgoing, true)), &NoCatalog);
        assert_eq!(
            marked(&out),
            Some(AdjacentTo {
                node: 4,
                dir: Direction::Outgoing,
                types: vec!["T3".into()]
            })
        );
    }

    #[test]
    fn an_expand_into_towards_the_reached_node_is_seen_from_it() {
        let out =
            FarEndAdjacent.rewrite(plan(expand(4, 3, 2, Direction::Outgoing, true)), &NoCatalog);
        assert_eq!(
            marked(&out).map(|a| (a.node, a.dir)),
            Some((4, Direction::Incoming))
        );
    }

    #[test]
    fn other_shapes_are_left_alone() {
        // Not about the reached node; a plain expand above; a test against
        // the relationship's own slot.
        for upper in [
            expand(0, 3, 4, Direction::Outgoing, true),
            expand(2, 3, 4, Direction::Outgoing, false),
            expand(2, 3, 1, Direction::Outgoing, true),
        ] {
            assert_eq!(
                marked(&FarEndAdjacent.rewrite(plan(upper), &NoCatalog)),
                None
            );
        }
    }
}
