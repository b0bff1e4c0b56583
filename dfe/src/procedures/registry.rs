//! The per-database procedure registry. Each database instance owns one:
//! the built-ins are always there, and table-backed procedures can be added
//! while it runs. Nothing is global, so two databases in one process (the
//! TCK runs hundreds in parallel) never see each other's procedures.
//!
//! Invariant: a name resolves to at most one procedure; a registered
//! procedure never shadows a built-in.

use super::algo::with_views;
use super::vector::{self, CandidateTest};
use super::vector_prefilter::Prefilter;
use super::{lookup, show, Procedure, TableProcedure};
use crate::error::{ExecError, ExecResult};
use nereid_algorithms::ViewCache;
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
    /// CSR views the graph algorithms reuse while the graph is unchanged.
    views: Arc<ViewCache>,
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

    /// Calls a procedure this registry resolved. `SHOW PROCEDURES` lists
    /// the registered procedures next to the built-ins, in name order.
    pub(crate) fn call(
        &self,
        procedure: &Resolved,
        txn: &Txn,
        args: &[Value],
    ) -> ExecResult<Vec<Vec<Value>>> {
        let mut rows = with_views(&self.views, || procedure.call(txn, args))?;
        if matches!(procedure, Resolved::Builtin(p) if p.name == show::LIST_PROCEDURES) {
            rows.extend(self.registered_listing());
            rows.sort_by(|a, b| listed_name(a).cmp(listed_name(b)));
        }
        Ok(rows)
    }

    /// Calls a procedure that filters its candidates
    /// ([`ProcedureSignature::filters_candidates`]) with `test` deciding
    /// each candidate result row; any other procedure's rows are filtered
    /// by `test` after the call. `prefilter` names what every passing
    /// candidate has (labels, property values), for a pre-filtered search.
    pub(crate) fn call_filtered(
        &self,
        procedure: &Resolved,
        txn: &Txn,
        args: &[Value],
        test: &mut CandidateTest<'_>,
        prefilter: &Prefilter,
    ) -> ExecResult<Vec<Vec<Value>>> {
        if let Resolved::Builtin(p) = procedure {
            if let Some(body) = vector::filtered_body(p.name) {
                return with_views(&self.views, || body(txn, args, test, prefilter));
            }
        }
        let mut kept = Vec::new();
        for row in self.call(procedure, txn, args)? {
            if test(&row)? {
                kept.push(row);
            }
        }
        Ok(kept)
    }

    /// `SHOW PROCEDURES` rows (name, description, mode, worksOnSystem) of
    /// the registered procedures; the description is the signature.
    fn registered_listing(&self) -> Vec<Vec<Value>> {
        let registered = self
            .registered
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        registered
            .values()
            .map(|procedure| {
                let signature = procedure.signature();
                vec![
                    Value::from(signature.name.as_str()),
                    Value::from(signature_text(signature).as_str()),
                    Value::from("READ"),
                    Value::Bool(false),
                ]
            })
            .collect()
    }

    /// CSR views built so far for this database's algorithm calls (a
    /// call served from the cache builds none).
    pub fn views_built(&self) -> u64 {
        self.views.builds()
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

/// The name column of a `SHOW PROCEDURES` row.
fn listed_name(row: &[Value]) -> &str {
    match row.first() {
        Some(Value::String(name)) => name,
        _ => "",
    }
}

/// Neo4j's notation for a signature: `name(in :: INTEGER?) :: (out :: STRING?)`.
fn signature_text(signature: &ProcedureSignature) -> String {
    let fields = |fields: &[nereid_planner::ProcedureField]| {
        fields
            .iter()
            .map(|f| format!("{} :: {}?", f.name, f.ty.name()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "{}({}) :: ({})",
        signature.name,
        fields(&signature.inputs),
        fields(&signature.outputs)
    )
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
