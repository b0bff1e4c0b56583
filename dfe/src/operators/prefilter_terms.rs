//! The parts of a candidate-filtering procedure's `YIELD ... WHERE`
//! predicate that name what the candidate entity must have: conjuncts
//! `e:L` and `e.key = <value>` where the value does not depend on the
//! candidate. They let the procedure start from the entities with that
//! label or value (`procedures::vector_prefilter`); the whole predicate is
//! still tested on every candidate, so they only narrow where it looks.

use crate::batch::Batch;
use crate::error::ExecResult;
use crate::eval::Evaluator;
use crate::procedures::Prefilter;
use nereid_planner::{slots_of, BinaryOp, Expr, Slot};

/// Terms about the entity in one slot.
#[derive(Debug, Default, Clone)]
pub(crate) struct PrefilterTerms {
    labels: Vec<String>,
    equalities: Vec<(String, Expr)>,
}

impl PrefilterTerms {
    /// The terms of `filter` about the entity in `entity`; `candidate` are
    /// every slot the procedure writes per candidate (the entity's, its
    /// score's), which a value may not read.
    pub(crate) fn of(filter: &Expr, entity: Slot, candidate: &[Slot]) -> PrefilterTerms {
        let mut terms = PrefilterTerms::default();
        terms.collect(filter, entity, candidate);
        terms
    }

    fn collect(&mut self, e: &Expr, entity: Slot, candidate: &[Slot]) {
        match e {
            Expr::Binary {
                op: BinaryOp::And,
                lhs,
                rhs,
            } => {
                self.collect(lhs, entity, candidate);
                self.collect(rhs, entity, candidate);
            }
            Expr::HasLabels { expr, labels } if **expr == Expr::Slot(entity) => {
                self.labels.extend(labels.iter().cloned());
            }
            Expr::Binary {
                op: BinaryOp::Equal,
                lhs,
                rhs,
            } => {
                for (side, other) in [(lhs, rhs), (rhs, lhs)] {
                    if let Some(key) = property_of(side, entity) {
                        if independent(other, candidate) {
                            self.equalities.push((key.to_string(), (**other).clone()));
                            return;
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// The terms' values for input row `row` of `batch`.
    pub(crate) fn evaluate(
        &self,
        evaluator: &mut Evaluator<'_>,
        batch: &Batch,
        row: usize,
    ) -> ExecResult<Prefilter> {
        let mut equalities = Vec::with_capacity(self.equalities.len());
        for (key, value) in &self.equalities {
            equalities.push((key.clone(), evaluator.eval_row(value, batch, row)?));
        }
        Ok(Prefilter {
            labels: self.labels.clone(),
            equalities,
        })
    }
}

/// `key` when `e` is `entity.key`.
fn property_of(e: &Expr, entity: Slot) -> Option<&str> {
    match e {
        Expr::Property { expr, key } if **expr == Expr::Slot(entity) => Some(key),
        _ => None,
    }
}

/// Whether `e` has one value per input row: literals, parameters and the
/// input row's slots (or their properties) other than the candidate's.
fn independent(e: &Expr, candidate: &[Slot]) -> bool {
    let simple = match e {
        Expr::Literal(_) | Expr::Param(_) | Expr::Slot(_) => true,
        Expr::Property { expr, .. } => matches!(**expr, Expr::Slot(_)),
        _ => false,
    };
    let mut reads = Vec::new();
    slots_of(e, &mut reads);
    simple && reads.iter().all(|s| !candidate.contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nereid_values::Value;

    fn prop(slot: Slot, key: &str) -> Expr {
        Expr::Property {
            expr: Box::new(Expr::Slot(slot)),
            key: key.into(),
        }
    }

    fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        }
    }

    #[test]
    fn takes_labels_and_independent_equalities_of_conjuncts() {
        // node in slot 1, score in 2, an outer variable in 0.
        let filter = binary(
            BinaryOp::And,
            binary(
                BinaryOp::And,
                Expr::HasLabels {
                    expr: Box::new(Expr::Slot(1)),
                    labels: vec!["En".into()],
                },
                binary(BinaryOp::Equal, Expr::Param("lang".into()), prop(1, "lang")),
            ),
            binary(
                BinaryOp::And,
                binary(BinaryOp::Equal, prop(1, "year"), prop(0, "year")),
                binary(BinaryOp::Equal, prop(1, "rank"), Expr::Slot(2)),
            ),
        );
        let terms = PrefilterTerms::of(&filter, 1, &[1, 2]);
        assert_eq!(terms.labels, vec!["En".to_string()]);
        let keys: Vec<&str> = terms.equalities.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["lang", "year"]);
    }

    #[test]
    fn a_disjunction_names_nothing() {
        let filter = binary(
            BinaryOp::Or,
            binary(
                BinaryOp::Equal,
                prop(1, "lang"),
                Expr::Literal(Value::Int(1)),
            ),
            Expr::HasLabels {
                expr: Box::new(Expr::Slot(1)),
                labels: vec!["En".into()],
            },
        );
        let terms = PrefilterTerms::of(&filter, 1, &[1, 2]);
        assert!(terms.labels.is_empty() && terms.equalities.is_empty());
    }
}
