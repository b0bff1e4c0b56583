//! A tiny backend understanding a handful of fixed "queries", enough to
//! drive every path of the session. It records what it was asked to do.

use crate::bolt::backend::{Backend, ResultStream};
use nereid_dfe::Deadline;
use nereid_engine::{DbError, Params, Summary};
use nereid_engine::{Notification, Position, Severity};
use nereid_errors::Status;
use nereid_storage::WriteStats;
use nereid_values::{EntityResolver, List, NodeData, NodeId, RelData, RelId, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const UUID: &str = "7666574c-0000-4000-8000-000000000000";

#[derive(Default)]
pub struct FakeBackend {
    pub log: Mutex<Vec<String>>,
    /// Rows produced by all pulls so far (to check laziness).
    pub produced: Arc<AtomicUsize>,
    /// Pulls of `SLOW` that have started / finished sleeping.
    pub slow_started: Arc<AtomicUsize>,
    pub slow_done: Arc<AtomicUsize>,
    /// What `visible_commit_ts` reports (bookmark tests move it).
    pub visible: AtomicU64,
    /// The deadline the latest RUN was given.
    pub last_deadline: Mutex<Option<Deadline>>,
    next_tx: AtomicU64,
}

impl FakeBackend {
    pub fn new() -> Arc<Self> {
        Arc::new(FakeBackend::default())
    }

    pub fn log(&self) -> Vec<String> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    fn record(&self, event: String) {
        if let Ok(mut log) = self.log.lock() {
            log.push(event);
        }
    }
}

pub struct FakeTx(u64);

/// What `FAIL` gets, at RUN or when classified.
fn fail_error() -> DbError {
    DbError {
        status: Status::SyntaxError,
        message: "Invalid input 'FAIL'".into(),
    }
}

/// Queries:
/// - `RETURN 1`: one column `1`, one row;
/// - `COUNT n`: column `x`, rows 1..=n produced lazily;
/// - `GRAPH`: columns `a`, `r`, `l`: node 0, relationship 0 and a list;
/// - `PARAM`: column `x`, one row with `$x`;
/// - `CREATE`: no columns, a write of one node;
/// - `SLOW`: like `RETURN 1`, but pulling takes a second;
/// - `FAIL`: a syntax error at RUN; `PULLFAIL`: an error at PULL.
pub struct FakeResults {
    fields: Vec<String>,
    rows: Box<dyn FnMut(i64) -> Vec<Value> + Send>,
    next: i64,
    total: i64,
    write: bool,
    auto_commit: bool,
    slow: bool,
    /// Produces nothing until stopped (`BLOCKED`): a long sort or
    /// aggregation before the first row.
    blocked: bool,
    fail_on_pull: bool,
    /// Fails when the row with this index is due (after those before it).
    fail_at: Option<i64>,
    /// Reported in the summary (`WARN` queries).
    notifications: Vec<Notification>,
    produced: Arc<AtomicUsize>,
    slow_started: Arc<AtomicUsize>,
    slow_done: Arc<AtomicUsize>,
    cancel: Arc<AtomicBool>,
    /// Checked before each row, as the executor checks it before each batch.
    deadline: Option<Deadline>,
}

impl Backend for FakeBackend {
    type Tx = FakeTx;
    type Results = FakeResults;

    fn begin(self: &Arc<Self>, metadata: Params, _client: &nereid_engine::Client) -> FakeTx {
        let id = self.next_tx.fetch_add(1, Ordering::Relaxed) + 1;
        self.record(format!("begin {id}{}", described(&metadata)));
        FakeTx(id)
    }

    /// Of the fake's queries only `CREATE` writes; `FAIL` fails to plan.
    /// Classified without running, as the engine plans without executing.
    fn writes(self: &Arc<Self>, query: &str) -> Result<bool, DbError> {
        match query.split_once(' ').map_or(query, |(verb, _)| verb) {
            "CREATE" => Ok(true),
            "FAIL" => Err(fail_error()),
            _ => Ok(false),
        }
    }

    fn run(
        self: &Arc<Self>,
        tx: Option<&FakeTx>,
        query: &str,
        params: Params,
        deadline: Option<Deadline>,
        metadata: Params,
        _client: &nereid_engine::Client,
    ) -> Result<FakeResults, DbError> {
        if let Ok(mut last) = self.last_deadline.lock() {
            *last = deadline;
        }
        let scope = tx.map_or("auto".to_string(), |t| format!("tx{}", t.0));
        self.record(format!("run {query} in {scope}{}", described(&metadata)));
        let mut results = FakeResults {
            fields: vec!["x".into()],
            rows: Box::new(|i| vec![Value::Int(i)]),
            next: 0,
            total: 1,
            write: false,
            auto_commit: tx.is_none(),
            slow: false,
            blocked: false,
            fail_on_pull: false,
            fail_at: None,
            notifications: Vec::new(),
            produced: self.produced.clone(),
            slow_started: self.slow_started.clone(),
            slow_done: self.slow_done.clone(),
            cancel: Arc::new(AtomicBool::new(false)),
            deadline,
        };
        match query.split_once(' ').map_or((query, ""), |(a, b)| (a, b)) {
            ("RETURN", "1") => {
                results.fields = vec!["1".into()];
                results.rows = Box::new(|_| vec![Value::Int(1)]);
            }
            ("COUNT", n) => {
                results.total = n.parse().unwrap_or(0);
                results.rows = Box::new(|i| vec![Value::Int(i + 1)]);
            }
            ("GRAPH", _) => {
                results.fields = vec!["a".into(), "r".into(), "l".into()];
                results.rows = Box::new(|_| {
                    vec![
                        Value::Node(NodeId(0)),
                        Value::Relationship(RelId(0)),
                        Value::List(List::from(vec![
                            Value::Int(1),
                            Value::Int(-1),
                            Value::Int(200),
                            Value::from("x"),
                            Value::Float(1.5),
                        ])),
                    ]
                });
            }
            ("PARAM", _) => {
                let x = params.get("x").cloned().unwrap_or(Value::Null);
                results.rows = Box::new(move |_| vec![x.clone()]);
            }
            ("CREATE", _) => {
                results.fields = vec![];
                results.total = 0;
                results.write = true;
            }
            ("SLOW", _) => results.slow = true,
            ("BLOCKED", _) => results.blocked = true,
            ("ENDLESS", _) => {
                results.fields = vec!["x".into()];
                results.total = i64::MAX;
                results.rows = Box::new(|i| vec![Value::Int(i)]);
            }
            ("FAIL", _) => return Err(fail_error()),
            ("PULLFAIL", _) => results.fail_on_pull = true,
            ("FAILAT", n) => {
                results.total = 10;
                results.fail_at = n.parse().ok();
            }
            ("WARN", n) => {
                results.total = n.parse().unwrap_or(0);
                results.notifications.push(Notification {
                    code: "Neo.ClientNotification.Statement.RuntimeUnsupportedWarning",
                    title: "title".into(),
                    description: "description".into(),
                    severity: Severity::Warning,
                    category: "UNSUPPORTED",
                    gql_status: "01N40",
                    status_description: "warn: unsupported runtime.".into(),
                    position: Some(Position {
                        offset: 7,
                        line: 1,
                        column: 8,
                    }),
                });
            }
            _ => {
                return Err(DbError {
                    status: Status::General,
                    message: format!("the fake backend does not know {query:?}"),
                })
            }
        }
        Ok(results)
    }

    fn commit(self: &Arc<Self>, tx: FakeTx) -> Result<String, DbError> {
        self.record(format!("commit {}", tx.0));
        Ok(format!("FB:{}", tx.0))
    }

    fn rollback(self: &Arc<Self>, tx: FakeTx) {
        self.record(format!("rollback {}", tx.0));
    }

    fn visible_commit_ts(&self) -> u64 {
        self.visible.load(Ordering::Acquire)
    }
}

impl ResultStream for FakeResults {
    fn fields(&self) -> &[String] {
        &self.fields
    }

    fn pull(
        &mut self,
        n: i64,
        sink: &mut dyn FnMut(&[Value], &dyn EntityResolver),
    ) -> Result<bool, DbError> {
        if self.fail_on_pull {
            return Err(DbError {
                status: Status::ArithmeticError,
                message: "/ by zero".into(),
            });
        }
        if self.blocked {
            while !self.cancel.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(1));
            }
            return Err(DbError {
                status: Status::General,
                message: "terminated".into(),
            });
        }
        if self.slow {
            self.slow_started.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_secs(1));
            self.slow_done.fetch_add(1, Ordering::SeqCst);
        }
        let mut taken = 0;
        while self.next < self.total && (n < 0 || taken < n) {
            if self.cancel.load(Ordering::Relaxed) {
                return Err(DbError {
                    status: Status::General,
                    message: "terminated".into(),
                });
            }
            if let Some(deadline) = &self.deadline {
                deadline.check().map_err(nereid_engine::from_exec)?;
            }
            if self.fail_at == Some(self.next) {
                return Err(DbError {
                    status: Status::ArithmeticError,
                    message: "/ by zero".into(),
                });
            }
            let row = (self.rows)(self.next);
            self.produced.fetch_add(1, Ordering::Relaxed);
            sink(&row, &GraphResolver);
            self.next += 1;
            taken += 1;
        }
        Ok(self.next < self.total)
    }

    fn discard(&mut self, n: i64) -> Result<bool, DbError> {
        self.next = if n < 0 {
            self.total
        } else {
            (self.next + n).min(self.total)
        };
        Ok(self.next < self.total)
    }

    fn summary(&self) -> Summary {
        Summary {
            stats: WriteStats {
                nodes_created: u64::from(self.write),
                ..WriteStats::default()
            },
            system_updates: 0,
            query_type: if self.write { "w" } else { "r" },
            bookmark: (self.write && self.auto_commit).then(|| "FB:auto".to_string()),
            plan: None,
            profile: None,
            notifications: self.notifications.clone().into(),
        }
    }

    fn cancel_handle(&self) -> Option<Arc<AtomicBool>> {
        Some(self.cancel.clone())
    }
}

pub fn node_eid(n: u64) -> String {
    format!("4:{UUID}:{n}")
}

/// Node 0 `(:P {name:'a'})`, node 1 `()`, relationship 0 `[:K {w:1}]` 0→1
/// (the graph of bolt-protocol.md §13).
pub struct GraphResolver;

impl EntityResolver for GraphResolver {
    fn node(&self, id: NodeId) -> Option<NodeData> {
        let (labels, properties) = match id.0 {
            0 => (
                vec!["P".to_string()],
                BTreeMap::from([("name".to_string(), Value::from("a"))]),
            ),
            1 => (vec![], BTreeMap::new()),
            _ => return None,
        };
        Some(NodeData {
            id,
            element_id: node_eid(id.0),
            labels,
            properties,
        })
    }

    fn relationship(&self, id: RelId) -> Option<RelData> {
        (id.0 == 0).then(|| RelData {
            id,
            element_id: format!("5:{UUID}:0"),
            start: NodeId(0),
            start_element_id: node_eid(0),
            end: NodeId(1),
            end_element_id: node_eid(1),
            rel_type: "K".into(),
            properties: BTreeMap::from([("w".to_string(), Value::Int(1))]),
        })
    }
}

/// ` with metadata {k: v, ...}` for the event log, or nothing for none.
fn described(metadata: &Params) -> String {
    if metadata.is_empty() {
        return String::new();
    }
    let entries: Vec<String> = metadata.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    format!(" with metadata {{{}}}", entries.join(", "))
}
