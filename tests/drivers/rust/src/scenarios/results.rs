//! Result streams: several open in one transaction (PULL with qid), paging
//! (has_more), DISCARD, and RESET of a connection with a stream still open.

use neo4rs::{query, Graph};

use crate::support::{self, all, ensure, single_int, Checked, Context, Outcome, Settings};

/// Two streams of one transaction read in turn: every PULL names its
/// stream's qid (fetch size 2, so each stream needs several PULLs).
pub async fn several_open(graph: &Graph) -> Checked {
    let mut txn = graph.start_txn().await.context("BEGIN")?;
    let mut first = txn
        .execute(query("UNWIND range(1, 5) AS x RETURN x"))
        .await
        .context("first RUN")?;
    let mut second = txn
        .execute(query("UNWIND range(10, 14) AS y RETURN y"))
        .await
        .context("second RUN")?;
    let mut total = 0;
    loop {
        let a = first.next(txn.handle()).await.context("first PULL")?;
        let b = second.next(txn.handle()).await.context("second PULL")?;
        match (a, b) {
            (Some(a), Some(b)) => {
                total += a.get::<i64>("x").context("x")? + b.get::<i64>("y").context("y")?;
            }
            (None, None) => break,
            _ => return Err("the two streams ended at different rows".into()),
        }
    }
    txn.commit().await.context("COMMIT")?;
    ensure(total == 15 + 60, || format!("total {total}"))?;
    Ok(Outcome::Passed(None))
}

pub async fn paging(graph: &Graph) -> Checked {
    let rows = all(graph, query("UNWIND range(1, 10) AS x RETURN x")).await?;
    let xs = rows
        .iter()
        .map(|r| r.get::<i64>("x"))
        .collect::<Result<Vec<_>, _>>()
        .context("x")?;
    ensure(xs == (1..=10).collect::<Vec<_>>(), || format!("{xs:?}"))?;
    Ok(Outcome::Passed(None))
}

/// `Graph::run` sends RUN then DISCARD (n = -1): the writes happen, no
/// record is sent.
pub async fn discard(graph: &Graph) -> Checked {
    graph
        .run(query(
            "UNWIND range(1, 50) AS i CREATE (:Discarded {i: i}) RETURN i",
        ))
        .await
        .context("RUN + DISCARD")?;
    let count = single_int(graph, "MATCH (d:Discarded) RETURN count(d) AS c", "c").await?;
    ensure(count == 50, || format!("{count} nodes created"))?;
    Ok(Outcome::Passed(Some(
        "Graph::run discards the result".into(),
    )))
}

/// neo4rs has no RESET call of its own: a connection goes back to the pool
/// as it is, and the pool sends RESET before lending it again. With a pool
/// of one connection, dropping a transaction whose stream still has rows
/// (has_more) means the next query's connection is RESET first, which must
/// roll the transaction back and abandon the stream.
pub async fn reset_mid_stream(settings: &Settings) -> Checked {
    let graph = support::connect(&settings.uri, &settings.password, 1)
        .await
        .context("connect")?;
    let mut txn = graph.start_txn().await.context("BEGIN")?;
    txn.run(query("CREATE (:Abandoned)"))
        .await
        .context("write")?;
    let mut stream = txn
        .execute(query("UNWIND range(1, 10000000) AS x RETURN x"))
        .await
        .context("RUN")?;
    let mut xs = Vec::new();
    for _ in 0..3 {
        let row = stream.next(txn.handle()).await.context("PULL")?;
        let row = row.ok_or("the stream ended early")?;
        xs.push(row.get::<i64>("x").context("x")?);
    }
    ensure(xs == [1, 2, 3], || format!("{xs:?}"))?;
    drop(stream);
    drop(txn);
    let x = single_int(&graph, "RETURN 1 AS x", "x").await?;
    ensure(x == 1, || format!("after RESET: {x}"))?;
    let left = single_int(&graph, "MATCH (a:Abandoned) RETURN count(a) AS c", "c").await?;
    ensure(left == 0, || {
        format!("the abandoned transaction's write is visible ({left})")
    })?;
    Ok(Outcome::Passed(Some(
        "the pool RESETs the dropped transaction's connection".into(),
    )))
}
