//! What every scenario shares: the run's settings, the outcome type, the
//! connection builder and the small helpers that turn neo4rs results into
//! failure messages (a scenario reports a failure, it never panics, so the
//! next scenario still runs).

use std::fmt::Display;

use neo4rs::{query, ConfigBuilder, Graph, Row};

/// Where the scenarios connect and what this run offers (see main.rs); the
/// user name is read where connections are made (`connect_with`).
pub struct Settings {
    pub uri: String,
    pub password: String,
    pub auth_enforced: bool,
    pub tls_uri: Option<String>,
    pub tls_ca: Option<String>,
}

impl Settings {
    pub fn from_env(uri: String) -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        Settings {
            uri,
            password: var("SCENARIO_PASSWORD").unwrap_or_else(|| "x".into()),
            auth_enforced: var("SCENARIO_AUTH_ENFORCED").as_deref() == Some("1"),
            tls_uri: var("SCENARIO_TLS_URI"),
            tls_ca: var("SCENARIO_TLS_CA"),
        }
    }
}

/// How a scenario ended when it did not fail (a failure is `Err(message)`).
pub enum Outcome {
    /// It passed; the note says how (attempts, what neo4rs did on the wire).
    Passed(Option<String>),
    /// This run lacks what the scenario needs (no TLS listener, no auth).
    Skipped(String),
    /// neo4rs 0.8 has no API for what the scenario exercises: the reason.
    NotApplicable(&'static str),
}

pub type Checked = Result<Outcome, String>;

/// Connects with the run's user and the given password; small fetch pages
/// so that every result below needs several PULLs (has_more).
pub async fn connect(uri: &str, password: &str, max_connections: usize) -> neo4rs::Result<Graph> {
    connect_with(
        ConfigBuilder::default().uri(uri).password(password),
        max_connections,
    )
    .await
}

/// Finishes a config the scenarios started (URI, password, trusted CA).
pub async fn connect_with(config: ConfigBuilder, max_connections: usize) -> neo4rs::Result<Graph> {
    let user = std::env::var("SCENARIO_USER")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "neo4j".into());
    let config = config
        .user(user)
        .db("neo4j")
        .fetch_size(2)
        .max_connections(max_connections)
        .build()?;
    Graph::connect(config).await
}

/// Adds what was being done to an error, as the failure message.
pub trait Context<T> {
    fn context(self, what: &str) -> Result<T, String>;
}

impl<T, E: Display> Context<T> for Result<T, E> {
    fn context(self, what: &str) -> Result<T, String> {
        self.map_err(|e| format!("{what}: {e}"))
    }
}

/// Fails the scenario with the message unless the condition holds.
pub fn ensure(condition: bool, message: impl FnOnce() -> String) -> Result<(), String> {
    if condition {
        Ok(())
    } else {
        Err(message())
    }
}

/// Runs an auto-commit query that must return exactly one row.
pub async fn single(graph: &Graph, q: neo4rs::Query) -> Result<Row, String> {
    let mut rows = all(graph, q).await?;
    ensure(rows.len() == 1, || {
        format!("{} rows, expected one", rows.len())
    })?;
    Ok(rows.remove(0))
}

/// Runs an auto-commit query and reads every row (several PULLs).
pub async fn all(graph: &Graph, q: neo4rs::Query) -> Result<Vec<Row>, String> {
    let mut stream = graph.execute(q).await.context("RUN")?;
    let mut rows = Vec::new();
    while let Some(row) = stream.next().await.context("PULL")? {
        rows.push(row);
    }
    Ok(rows)
}

/// One integer column of a one-row query.
pub async fn single_int(graph: &Graph, text: &str, column: &str) -> Result<i64, String> {
    let row = single(graph, query(text)).await?;
    row.get::<i64>(column).context(column)
}

/// Whether a failed call carries the Neo4j status `code`. neo4rs 0.8 makes
/// a FAILURE to RUN a `Neo4j` error with the code, but a FAILURE to PULL an
/// "unexpected response" error whose text holds the whole FAILURE message.
pub fn fails_with(error: &neo4rs::Error, code: &str) -> Result<(), String> {
    let matches = match error {
        neo4rs::Error::Neo4j(e) => e.code() == code,
        neo4rs::Error::UnexpectedMessage(text) => text.contains(&format!("\"{code}\"")),
        _ => false,
    };
    ensure(matches, || format!("expected {code}, got: {error}"))
}
