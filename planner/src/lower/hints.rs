//! A MATCH's `USING` hints resolved to the slots of their variables, for
//! the index rules (which honour them) and for `crate::plan` (which checks
//! that each was honoured).

use super::scope::{Scope, Slots, VarKind};
use crate::error::PlanError;
use crate::index_query::{IndexEntity, IndexHint, IndexKind};
use nereid_cypher::ast::Hint;

pub(super) fn resolve(hints: &[Hint], scope: &Scope, slots: &Slots) -> Result<(), PlanError> {
    for hint in hints {
        let (variable, label, index, span) = match hint {
            Hint::Index {
                variable,
                label,
                keys,
                text,
                span,
            } => {
                let kind = if *text {
                    IndexKind::Text
                } else {
                    IndexKind::Range
                };
                (variable, label, Some((keys.clone(), kind)), span)
            }
            Hint::Scan {
                variable,
                label,
                span,
            } => (variable, label, None, span),
        };
        let entity = match scope.get(&variable.name) {
            Some((_, VarKind::Node)) => IndexEntity::Node,
            Some((_, VarKind::Relationship)) if index.is_some() => IndexEntity::Relationship,
            Some(_) => {
                return Err(PlanError::semantic(
                    format!(
                        "Type mismatch: `{}` in a hint must be a node{}",
                        variable.name,
                        if index.is_some() {
                            " or a relationship"
                        } else {
                            ""
                        }
                    ),
                    span.start,
                ))
            }
            None => {
                return Err(PlanError::semantic(
                    format!("Variable `{}` not defined", variable.name),
                    variable.span.start,
                ))
            }
        };
        let (slot, _) = scope.get(&variable.name).expect("looked up above");
        slots.add_hint(IndexHint {
            slot,
            entity,
            label: label.clone(),
            index,
            variable: variable.name.clone(),
            offset: span.start,
        });
    }
    Ok(())
}
