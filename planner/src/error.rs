//! Planner errors.

use nereid_cypher::Detail;

/// Why a statement could not be planned. `offset` is the byte offset in the
/// query of the offending construct, when known; the server turns it into a
/// line and column.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// A semantic problem the analyser does not catch (e.g. an unknown
    /// function).
    #[error("{message}")]
    Semantic {
        message: String,
        offset: Option<usize>,
    },
    /// `CALL` of a procedure the database does not have.
    #[error("ProcedureNotFound: There is no procedure with the name `{name}` registered for this database instance. Please ensure you've spelled the procedure name correctly and that the procedure is properly deployed.")]
    ProcedureNotFound { name: String, offset: Option<usize> },
    /// A valid openCypher construct the engine does not execute yet.
    #[error("{message} is not supported yet")]
    Unsupported {
        message: String,
        offset: Option<usize>,
    },
}

impl PlanError {
    /// A semantic error; its message gets the openCypher detail prefix its description
    /// implies (see [`detail_of`]), the same convention the front end follows.
    pub(crate) fn semantic(message: impl Into<String>, offset: usize) -> Self {
        let message = message.into();
        let message = match detail_of(&message) {
            Some(detail) => format!("{detail}: {message}"),
            None => message,
        };
        PlanError::Semantic {
            message,
            offset: Some(offset),
        }
    }

    pub(crate) fn unsupported(message: impl Into<String>, offset: usize) -> Self {
        PlanError::Unsupported {
            message: message.into(),
            offset: Some(offset),
        }
    }

    /// Byte offset in the query, if known.
    pub fn offset(&self) -> Option<usize> {
        match self {
            PlanError::Semantic { offset, .. }
            | PlanError::Unsupported { offset, .. }
            | PlanError::ProcedureNotFound { offset, .. } => *offset,
        }
    }
}

/// The openCypher error detail (the TCK's name, see docs/adr/0010-tck-verdicts.md) a planner
/// description stands for. The planner's checks repeat some of the analyser's as a safety
/// net; this one table keeps their messages in the analyser's form without every call site
/// naming its detail.
fn detail_of(description: &str) -> Option<&'static str> {
    const DETAILS: &[(&str, &str, Detail)] = &[
        // (starts with, contains, detail)
        ("Variable `", "` not defined", Detail::UndefinedVariable),
        (
            "Variable `",
            "` already declared",
            Detail::VariableAlreadyBound,
        ),
        (
            "Type mismatch:",
            "conflicting type",
            Detail::VariableTypeConflict,
        ),
        (
            "Exactly one relationship type",
            "",
            Detail::NoSingleRelationshipType,
        ),
        (
            "Only directed relationships",
            "",
            Detail::RequiresDirectedRelationship,
        ),
        (
            "Variable length relationships cannot",
            "",
            Detail::CreatingVarLength,
        ),
        ("RETURN * is not allowed", "", Detail::NoVariablesInScope),
        ("Unknown function '", "", Detail::UnknownFunction),
        ("Multiple result columns", "", Detail::ColumnNameConflict),
        (
            "All sub queries in an UNION",
            "",
            Detail::DifferentColumnsInUnion,
        ),
        (
            "In a WITH/RETURN with DISTINCT or an aggregation",
            "",
            Detail::UndefinedVariable,
        ),
    ];
    DETAILS
        .iter()
        .find(|(start, middle, _)| description.starts_with(start) && description.contains(middle))
        .map(|(_, _, detail)| detail.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semantic_errors_carry_their_detail() {
        let undefined = PlanError::semantic("Variable `r` not defined", 3);
        assert_eq!(
            undefined.to_string(),
            "UndefinedVariable: Variable `r` not defined"
        );
        let bound = PlanError::semantic("Variable `r` already declared", 3);
        assert!(bound.to_string().starts_with("VariableAlreadyBound: "));
        let other = PlanError::semantic("Unknown procedure output: `x`", 0);
        assert_eq!(other.to_string(), "Unknown procedure output: `x`");
    }
}
