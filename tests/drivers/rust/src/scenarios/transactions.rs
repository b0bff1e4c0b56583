//! Auto-commit queries, explicit transactions, neo4rs' own retry of a query
//! that failed with a TransientError, and failures followed by recovery.

use std::time::Duration;

use neo4rs::{query, Graph};

use crate::retry_log;
use crate::support::{ensure, fails_with, single_int, Checked, Context, Outcome};

pub async fn auto_commit(graph: &Graph) -> Checked {
    graph
        .run(query("CREATE (:Auto {v: 1})"))
        .await
        .context("write")?;
    let v = single_int(graph, "MATCH (a:Auto) RETURN a.v AS v", "v").await?;
    ensure(v == 1, || format!("v = {v}"))?;
    Ok(Outcome::Passed(None))
}

pub async fn explicit(graph: &Graph) -> Checked {
    let mut txn = graph.start_txn().await.context("BEGIN")?;
    txn.run(query("CREATE (:Explicit {v: 1})"))
        .await
        .context("write")?;
    txn.commit().await.context("COMMIT")?;
    let mut txn = graph.start_txn().await.context("BEGIN")?;
    txn.run(query("CREATE (:Explicit {v: 2})"))
        .await
        .context("write")?;
    txn.rollback().await.context("ROLLBACK")?;
    let values = single_int(graph, "MATCH (e:Explicit) RETURN sum(e.v) AS s", "s").await?;
    ensure(values == 1, || {
        format!("committed sum {values}, expected 1")
    })?;
    Ok(Outcome::Passed(None))
}

pub fn managed() -> Checked {
    Ok(Outcome::NotApplicable(
        "neo4rs 0.8 has no transaction functions (execute_read / execute_write); it retries auto-commit queries only",
    ))
}

/// A second connection holds an uncommitted write on the node; an
/// auto-commit `Graph::run` then writes the same node. A server that fails
/// the conflicting write at once sends a TransientError and neo4rs
/// retries with its exponential backoff (its one retry mechanism: explicit
/// transactions are never retried); one that waits for the holder (Neo4j,
/// and nereid since ADR 0126) proceeds once the holder commits. The holder commits at neo4rs' first
/// retry, or after 2 s. Either way the update lands once, after the
/// holder's.
pub async fn transient_retry(graph: &Graph) -> Checked {
    graph
        .run(query("CREATE (:Contended {v: 0})"))
        .await
        .context("create")?;
    let mut holder = graph.start_txn().await.context("holder BEGIN")?;
    holder
        .run(query("MATCH (c:Contended) SET c.v = 100"))
        .await
        .context("holder write")?;
    retry_log::clear();
    let release = tokio::spawn(async move {
        tokio::select! {
            _ = retry_log::next_retry() => {}
            _ = tokio::time::sleep(Duration::from_secs(2)) => {}
        }
        holder.commit().await
    });
    let increment = graph
        .run(query("MATCH (c:Contended) SET c.v = c.v + 1"))
        .await;
    let released = release.await.context("holder task")?;
    released.context("holder COMMIT")?;
    increment.context("increment")?;
    let retries = retry_log::retries();
    ensure(retries.iter().all(|r| r.contains("TransientError")), || {
        format!("a retry for a failure other than a TransientError: {retries:?}")
    })?;
    let v = single_int(graph, "MATCH (c:Contended) RETURN c.v AS v", "v").await?;
    let attempts = retries.len() + 1;
    ensure(v == 101, || format!("after {attempts} attempt(s): v = {v}"))?;
    Ok(Outcome::Passed(Some(if retries.is_empty() {
        "1 attempt, the server waited for the lock".into()
    } else {
        format!("{attempts} attempts by neo4rs' auto-commit retry")
    })))
}

/// Failed queries (auto-commit and in a transaction) carry the Neo4j status
/// code; the pool resets the connection and the next query succeeds.
pub async fn errors(graph: &Graph) -> Checked {
    for (text, code) in [
        ("MATCH (n RETURN n", "Neo.ClientError.Statement.SyntaxError"),
        (
            "RETURN 1 / 0 AS x",
            "Neo.ClientError.Statement.ArithmeticError",
        ),
    ] {
        let failure = match graph.execute(query(text)).await {
            Err(e) => e,
            Ok(mut rows) => match rows.next().await {
                Err(e) => e,
                Ok(_) => return Err(format!("{text} was accepted")),
            },
        };
        fails_with(&failure, code).map_err(|e| format!("{text}: {e}"))?;
    }
    let x = single_int(graph, "RETURN 1 AS x", "x").await?;
    ensure(x == 1, || format!("after the failures: {x}"))?;
    let mut txn = graph.start_txn().await.context("BEGIN")?;
    match txn.run(query("RETURN $missing AS x")).await {
        Ok(()) => return Err("a missing parameter was accepted".into()),
        Err(e) => fails_with(&e, "Neo.ClientError.Statement.ParameterMissing")?,
    }
    drop(txn);
    let x = single_int(graph, "RETURN 2 AS x", "x").await?;
    ensure(x == 2, || format!("after the failed transaction: {x}"))?;
    Ok(Outcome::Passed(None))
}
