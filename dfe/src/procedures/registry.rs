//! The per-database procedure registry. Each database instance owns one:
//! the built-ins are always there, and table-backed procedures can be added
//! while it runs. Nothing is global, so two databases in one process (the
//! TCK runs hundreds in parallel) never see each other's procedures.
//!
//! Invariant: a name resolves to at most one procedure; a registered
//! procedure never shadows a built-in.

use super::{lookup, Procedure, TableProcedure};
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureSignature;
use nereid_storage::Txn;
use nereid_values::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

/// Why a procedure could not be registered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RegistryError {
    #[error("a procedure named `{0}` already exists")]
    AlreadyExists(String),
}

/// The procedures one database can call.
#[derive(Default)]
pub struct ProcedureRegistry {
    registered: RwLock<BTreeMap<String, Arc<TableProcedure>>>,
}

/// A procedure found by name, ready to call.
#[derive(Clone)]
pub(crate) enum Resolved {
    Builtin(&'static Procedure),
    Table(Arc<TableProcedure>),
}

impl ProcedureRegistry {
    /// A registry holding just the built-ins.
    pub fn new() -> Self {
        ProcedureRegistry::default()
    }

    /// Adds a table-backed procedure under its signature's name.
    pub fn register_table(&self, procedure: TableProcedure) -> Result<(), RegistryError> {
        let name = procedure.signature().name.clone();
        if lookup(&name).is_some() {
            return Err(RegistryError::AlreadyExists(name));
        }
        let mut registered = self
            .registered
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if registered.contains_key(&name) {
            return Err(RegistryError::AlreadyExists(name));
        }
        registered.insert(name, Arc::new(procedure));
        Ok(())
    }

    /// The signature of the procedure called `name` (exact,
    /// case-sensitive as in Neo4j), for the planner's catalog.
    pub fn signature(&self, name: &str) -> Option<ProcedureSignature> {
        self.resolve(name).map(|r| r.signature())
    }

    pub(crate) fn resolve(&self, name: &str) -> Option<Resolved> {
        if let Some(builtin) = lookup(name) {
            return Some(Resolved::Builtin(builtin));
        }
        let registered = self
            .registered
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        registered.get(name).cloned().map(Resolved::Table)
    }
}

impl Resolved {
    pub(crate) fn signature(&self) -> ProcedureSignature {
        match self {
            Resolved::Builtin(p) => p.signature(),
            Resolved::Table(t) => t.signature().clone(),
        }
    }

    /// Calls the procedure with arguments already checked against (and
    /// coerced to) its input types; rows come in output-column order.
    pub(crate) fn call(&self, txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
        match self {
            Resolved::Builtin(p) => (p.body)(txn, args),
            Resolved::Table(t) => Ok(t.call(args)),
        }
    }
}

/// A call's arguments checked against the declared input types: INTEGERs
/// widened for FLOAT parameters, anything else that does not fit an
/// `InvalidArgumentType` error (the planner already rejects literals that
/// cannot fit; this catches values only known per row).
pub(crate) fn coerce_arguments(
    signature: &ProcedureSignature,
    args: Vec<Value>,
) -> ExecResult<Vec<Value>> {
    args.into_iter()
        .zip(&signature.inputs)
        .map(|(arg, input)| {
            input.ty.coerce(&arg).ok_or_else(|| {
                ExecError::Type(format!(
                    "InvalidArgumentType: Type mismatch for argument `{}` of `{}`: expected {} but was {}",
                    input.name,
                    signature.name,
                    input.ty.name(),
                    arg.type_name()
                ))
            })
        })
        .collect()
}
