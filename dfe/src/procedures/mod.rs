//! Procedures (`CALL name(args)`): the built-ins, one module per
//! namespace, and the per-database [`ProcedureRegistry`] that resolves a
//! name to a built-in or to a procedure registered at run time.
//!
//! A procedure declares its inputs and output columns and returns its result
//! rows in that column order; `YIELD` picks columns by name.

mod algo;
mod apoc_args;
mod apoc_create;
mod apoc_merge;
mod apoc_meta;
mod apoc_meta_graph;
mod apoc_meta_stats;
mod apoc_periodic;
mod apoc_schema;
mod apoc_util;
mod apoc_when;
mod checkpoint;
mod database_hook;
mod db;
mod dbms;
mod fulltext_analyzers;
mod fulltext_options;
mod fulltext_query;
mod fulltext_refresh;
mod neptune_load;
mod neptune_vector_crud;
mod neptune_vector_distance;
mod neptune_vectors;
mod neptune_vertex_filter;
mod registry;
mod schema;
mod schema_await;
mod schema_ddl;
mod schema_names;
mod schema_notice;
mod schema_show;
mod schema_types;
mod schema_visualization;
mod settings;
mod show;
mod table;
mod transactions;
mod tx;
mod user_admin;
mod users;
mod users_show;
mod vector;
mod vector_options;
mod vector_prefilter;

pub use apoc_periodic::PERIODIC_ITERATE;
pub(crate) use database_hook::with_hook as with_database_hook;
pub use database_hook::{
    BatchMode, BatchPlan, BatchReport, DatabaseHook, LoadOutcome, RunningQuery, RunningTransaction,
    Setting,
};
pub use neptune_load::NEPTUNE_LOAD;
pub(crate) use registry::{coerce_arguments, Resolved};
pub use registry::{ProcedureRegistry, RegistryError};
pub use schema_ddl::is_schema_command;
pub(crate) use schema_notice::Notices;
pub use schema_notice::SchemaNotice;
pub use show::{set_advertised_address, DEFAULT_DATABASE, SYSTEM_DATABASE};
pub use table::TableProcedure;
pub(crate) use tx::with_metadata as with_tx_metadata;
pub use tx::TxMetadata;
pub use user_admin::{
    is_self_service, is_user_command, Password, UserCommand, UserInfo, BUILT_IN_ROLES,
};
pub(crate) use vector_prefilter::Prefilter;

use crate::error::ExecResult;
use nereid_planner::{ProcedureField, ProcedureSignature, ProcedureType};
use nereid_storage::Txn;
use nereid_values::Value;

/// The body of a procedure: arguments in, rows (in `outputs` order) out.
pub(crate) type ProcedureBody = fn(&Txn, &[Value]) -> ExecResult<Vec<Vec<Value>>>;

/// A registered procedure.
pub(crate) struct Procedure {
    /// Fully qualified name, e.g. `db.ping`.
    pub name: &'static str,
    /// Its parameters, in order: name (the parameter an implicit-argument
    /// call reads) and type. `name = 300` declares a trailing parameter's
    /// default (Neo4j's notation), passed when a call leaves it out.
    pub inputs: &'static [(&'static str, ProcedureType)],
    /// Output column names.
    pub outputs: &'static [&'static str],
    /// One sentence for `SHOW PROCEDURES`.
    pub description: &'static str,
    /// Neo4j's procedure mode: `READ`, `WRITE`, `DBMS`, ...
    pub mode: &'static str,
    pub body: ProcedureBody,
}

impl Procedure {
    /// The signature the planner checks calls against. Built-in outputs are
    /// declared untyped (`ANY`): nothing checks them.
    pub(crate) fn signature(&self) -> ProcedureSignature {
        ProcedureSignature {
            name: self.name.to_string(),
            inputs: self
                .inputs
                .iter()
                .map(|&(name, ty)| input_field(name, ty))
                .collect(),
            outputs: self
                .outputs
                .iter()
                .map(|&name| ProcedureField::new(name, ProcedureType::Any))
                .collect(),
            filters_candidates: vector::filtered_body(self.name).is_some(),
        }
    }
}

/// Every namespace's procedures.
const NAMESPACES: &[&[Procedure]] = &[
    apoc_create::PROCEDURES,
    apoc_merge::PROCEDURES,
    apoc_meta::PROCEDURES,
    apoc_meta_graph::PROCEDURES,
    schema_visualization::PROCEDURES,
    apoc_meta_stats::PROCEDURES,
    apoc_schema::PROCEDURES,
    apoc_util::PROCEDURES,
    apoc_periodic::PROCEDURES,
    apoc_when::PROCEDURES,
    db::PROCEDURES,
    checkpoint::PROCEDURES,
    dbms::PROCEDURES,
    fulltext_analyzers::PROCEDURES,
    fulltext_query::PROCEDURES,
    fulltext_refresh::PROCEDURES,
    schema::PROCEDURES,
    schema_await::PROCEDURES,
    schema_ddl::PROCEDURES,
    schema_show::PROCEDURES,
    schema_types::PROCEDURES,
    show::PROCEDURES,
    transactions::PROCEDURES,
    settings::PROCEDURES,
    tx::PROCEDURES,
    users::PROCEDURES,
    users_show::PROCEDURES,
    vector::PROCEDURES,
    neptune_vectors::PROCEDURES,
    neptune_vector_crud::PROCEDURES,
    neptune_vector_distance::PROCEDURES,
    neptune_load::PROCEDURES,
    algo::BFS,
    algo::SSSP,
    algo::SSSP_PATH,
    algo::PAGE_RANK,
    algo::WCC,
    algo::LABEL_PROPAGATION,
    algo::LOCAL_CLUSTERING,
    algo::TRIANGLE_COUNT,
    algo::DEGREE,
    algo::DEGREE_DISTRIBUTION,
    algo::SIMILARITY,
    algo::CLOSENESS,
    algo::LOUVAIN,
    algo::EGONET,
    algo::TOPK_SSSP,
];

/// The procedure called `name` (exact, case-sensitive as in Neo4j).
pub(crate) fn lookup(name: &str) -> Option<&'static Procedure> {
    NAMESPACES
        .iter()
        .flat_map(|procedures| procedures.iter())
        .find(|p| p.name == name)
}

/// Whether `name` is a built-in procedure of mode `WRITE` (its calls make
/// a statement's query type `w`/`rw`, as Neo4j reports them).
pub fn is_write_procedure(name: &str) -> bool {
    lookup(name).is_some_and(|p| p.mode == "WRITE")
}

/// A declared input, `name`, `name = <integer default>`, `name = {}` (the
/// empty map, APOC's default config) or `name = ''` (the empty string).
fn input_field(declared: &str, ty: ProcedureType) -> ProcedureField {
    match declared.split_once(" = ") {
        Some((name, "{}")) => {
            ProcedureField::new(name, ty).with_default(Some(Value::Map(Default::default())))
        }
        Some((name, "''")) => {
            ProcedureField::new(name, ty).with_default(Some(Value::String(String::new())))
        }
        Some((name, default)) => {
            let default = default.parse::<i64>().map(Value::Int).ok();
            ProcedureField::new(name, ty).with_default(default)
        }
        None => ProcedureField::new(declared, ty),
    }
}
