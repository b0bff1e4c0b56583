//! Planner errors.

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
    #[error("There is no procedure with the name `{name}` registered for this database instance. Please ensure you've spelled the procedure name correctly and that the procedure is properly deployed.")]
    ProcedureNotFound { name: String, offset: Option<usize> },
    /// A valid openCypher construct the engine does not execute yet.
    #[error("{message} is not supported yet")]
    Unsupported {
        message: String,
        offset: Option<usize>,
    },
}

impl PlanError {
    pub(crate) fn semantic(message: impl Into<String>, offset: usize) -> Self {
        PlanError::Semantic {
            message: message.into(),
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
