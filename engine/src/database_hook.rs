//! The engine's side of the executor's [`nereid_dfe::DatabaseHook`]: what
//! `CALL db.checkpoint()`, `CALL neptune.load(...)`, the transaction
//! listings and the user commands reach. It holds the
//! database weakly, so a running query never keeps a closing database open.

use crate::db::{Database, DbError};
use crate::loader::{InputFormat, LoadMode, LoadRequest, LoadState, LoadStatus};
use crate::transactions::Client;
use nereid_dfe::{ExecError, ExecResult, LoadOutcome, UserCommand, UserInfo};
use nereid_values::Value;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

pub(crate) struct DatabaseCalls {
    db: Weak<Database>,
    /// Who runs the query: its user (empty without authentication) is the
    /// one `SHOW CURRENT USER` shows, user commands act as, and nested
    /// queries run as.
    client: Client,
    /// The system updates the query's user commands made, which its
    /// summary reports.
    system_updates: Arc<AtomicU64>,
}

impl DatabaseCalls {
    /// The hook of one query, run by `client`, counting its system updates
    /// into `system_updates`.
    pub(crate) fn for_client(
        db: Weak<Database>,
        client: Client,
        system_updates: Arc<AtomicU64>,
    ) -> Self {
        DatabaseCalls {
            db,
            client,
            system_updates,
        }
    }
}

impl nereid_dfe::DatabaseHook for DatabaseCalls {
    fn checkpoint(&self) -> Result<String, String> {
        let db = self.db.upgrade().ok_or("the database is closing")?;
        let info = db.checkpoint().map_err(|e| e.to_string())?;
        Ok(crate::durable::describe(&info))
    }

    fn load(
        &self,
        config: &BTreeMap<String, Value>,
        stopped: &dyn Fn() -> bool,
    ) -> ExecResult<LoadOutcome> {
        let request = request_of(config).map_err(ExecError::ProcedureCallFailed)?;
        let db = self
            .db
            .upgrade()
            .ok_or_else(|| ExecError::ProcedureCallFailed("the database is closing".into()))?;
        let status = db
            .loader()
            .and_then(|loader| loader.run_until(request, stopped))
            .map_err(failed)?;
        match (status.state, &status.failure) {
            (LoadState::Failed, Some(failure)) => Err(failed(failure.clone())),
            (LoadState::Cancelled, _) => Err(ExecError::Cancelled),
            _ => Ok(outcome(status)),
        }
    }

    fn transactions(&self) -> Vec<nereid_dfe::RunningTransaction> {
        self.database()
            .map(|db| db.running_transactions())
            .unwrap_or_default()
    }

    fn terminate(&self, id: &str) -> bool {
        self.database()
            .is_some_and(|db| db.terminate_transaction(id))
    }

    fn users(&self) -> ExecResult<Vec<UserInfo>> {
        Ok(self.directory()?.users())
    }

    fn current_user(&self) -> ExecResult<Option<UserInfo>> {
        if self.client.username.is_empty() {
            return Ok(None);
        }
        Ok(self.directory()?.user(&self.client.username))
    }

    fn administer_users(&self, command: UserCommand) -> ExecResult<()> {
        let updates = self
            .directory()?
            .administer(&self.client.username, command)
            .map_err(failed)?;
        self.system_updates.fetch_add(updates, Ordering::Relaxed);
        Ok(())
    }

    fn settings(&self) -> Vec<nereid_dfe::Setting> {
        self.database()
            .map(|db| db.settings.to_vec())
            .unwrap_or_default()
    }

    fn run_nested(
        &self,
        txn: &Arc<nereid_dfe::Txn>,
        query: &str,
        params: BTreeMap<String, Value>,
        writes: bool,
        stopped: &dyn Fn() -> bool,
    ) -> ExecResult<Vec<BTreeMap<String, Value>>> {
        let db = self
            .database()
            .ok_or_else(|| ExecError::ProcedureCallFailed("the database is closing".into()))?;
        db.run_nested(txn, query, params, writes, &self.client, stopped)
    }

    fn run_batches(
        &self,
        plan: &nereid_dfe::BatchPlan,
        stopped: &dyn Fn() -> bool,
    ) -> ExecResult<nereid_dfe::BatchReport> {
        let db = self
            .database()
            .ok_or_else(|| ExecError::ProcedureCallFailed("the database is closing".into()))?;
        db.run_batches(plan, &self.client, stopped)
    }
}

/// Listing and terminating need the database itself; a closing one has
/// no transactions left to show.
impl DatabaseCalls {
    fn database(&self) -> Option<Arc<Database>> {
        self.db.upgrade()
    }

    /// The server's users; an embedded database has none to administer.
    fn directory(&self) -> ExecResult<Arc<dyn crate::users::UserDirectory>> {
        self.database()
            .and_then(|db| db.user_directory())
            .ok_or_else(|| {
                ExecError::ProcedureCallFailed(
                    "user administration needs the server's users: this database has none".into(),
                )
            })
    }
}

/// The options `neptune.load` takes (Neptune Analytics' names). `region`
/// and `concurrency` are accepted for compatibility: `s3://` sources are
/// reached through the server's `--s3-endpoint` / `--s3-region`, and the
/// loader sizes its parallelism itself. Every call loads every file of its
/// source (`LoadMode::New`): Neptune Analytics' batch load has no modes.
const OPTIONS: &[&str] = &["source", "format", "failOnError", "concurrency", "region"];

fn request_of(config: &BTreeMap<String, Value>) -> Result<LoadRequest, String> {
    if let Some(unknown) = config.keys().find(|k| !OPTIONS.contains(&k.as_str())) {
        return Err(format!(
            "neptune.load: unknown option `{unknown}` (known: {})",
            OPTIONS.join(", ")
        ));
    }
    let text = |key: &str| match config.get(key) {
        Some(Value::String(s)) => Ok(Some(s.clone())),
        None | Some(Value::Null) => Ok(None),
        Some(other) => Err(format!(
            "neptune.load: `{key}` must be a string, not {}",
            other.type_name()
        )),
    };
    let source = text("source")?.ok_or("neptune.load: `source` is required")?;
    let format_name = text("format")?.ok_or("neptune.load: `format` is required")?;
    let format = InputFormat::from_name(&format_name)
        .ok_or_else(|| format!("neptune.load: unknown format `{format_name}`"))?;
    let fail_on_error = match config.get("failOnError") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(t)) if t.eq_ignore_ascii_case("true") => true,
        Some(Value::String(t)) if t.eq_ignore_ascii_case("false") => false,
        Some(other) => {
            return Err(format!(
                "neptune.load: `failOnError` must be a boolean, not {other:?}"
            ))
        }
    };
    match config.get("concurrency") {
        None | Some(Value::Null) => {}
        Some(Value::Int(n)) if *n >= 1 => {}
        Some(other) => {
            return Err(format!(
                "neptune.load: `concurrency` must be a positive integer, not {other:?}"
            ))
        }
    }
    text("region")?;
    Ok(LoadRequest {
        source,
        format,
        fail_on_error,
        mode: LoadMode::New,
    })
}

/// A load that failed fails the query with the loader's status.
fn failed(DbError { status, message }: DbError) -> ExecError {
    ExecError::Commit { status, message }
}

fn outcome(status: LoadStatus) -> LoadOutcome {
    let count = |n: u64| Value::Int(i64::try_from(n).unwrap_or(i64::MAX));
    let errors = status
        .errors
        .iter()
        .map(|e| {
            Value::Map(BTreeMap::from([
                ("file".to_string(), Value::String(e.file.clone())),
                ("line".to_string(), count(e.line)),
                ("column".to_string(), count(e.column)),
                (
                    "code".to_string(),
                    Value::String(e.status.code().to_string()),
                ),
                ("message".to_string(), Value::String(e.message.clone())),
            ]))
        })
        .collect();
    LoadOutcome {
        load_id: status.id,
        state: status.state.name().to_string(),
        files: status.files_total,
        records: status.records,
        property_values: status.property_values,
        error_count: status.error_count,
        errors,
        seconds: status.elapsed.as_secs_f64(),
    }
}
