//! What drivers' conformance suite (testkit) checks of a session: records
//! computed before a failing row arrive before the FAILURE, the client's
//! `tx_metadata` reaches the transaction, and notifications reach the
//! summary in each version's shape (issue 32).

use super::client::*;
use super::fake::FakeBackend;
use nereid_packstream::{PackMap, PackValue};

#[tokio::test]
async fn records_before_a_failing_row_come_first_and_the_session_recovers() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 8).await;
    client.login(true).await;
    client.send(&[run("FAILAT 2"), pull(1000)]).await;
    client.recv().await.success();
    let (records, summary) = client.records().await;
    assert_eq!(
        records,
        vec![vec![PackValue::Int(0)], vec![PackValue::Int(1)]]
    );
    assert_eq!(
        code(&summary.failure()),
        "Neo.ClientError.Statement.ArithmeticError"
    );
    client.send(&[reset(), run("RETURN 1"), pull(-1)]).await;
    client.recv().await.success();
    client.recv().await.success();
    let (records, summary) = client.records().await;
    assert_eq!(records, vec![vec![PackValue::Int(1)]]);
    summary.success();
}

#[tokio::test]
async fn tx_metadata_reaches_explicit_and_auto_commit_transactions() {
    let backend = FakeBackend::new();
    let ctx = context(backend.clone(), 1);
    let mut client = connect(&ctx, 5, 8).await;
    client.login(true).await;
    let metadata = PackMap::new().with("foo", 1.5).with("bar", "baz");
    client
        .send(&[
            begin_with(PackMap::new().with("tx_metadata", metadata.clone())),
            run("RETURN 1"),
            pull(-1),
            commit(),
            run_with_extra("RETURN 1", PackMap::new().with("tx_metadata", metadata)),
            pull(-1),
        ])
        .await;
    client.recv().await.success();
    client.recv().await.success();
    client.records().await.1.success();
    client.recv().await.success();
    client.recv().await.success();
    client.records().await.1.success();
    assert_eq!(
        backend.log(),
        [
            "begin 1 with metadata {bar: 'baz', foo: 1.5}",
            "run RETURN 1 in tx1",
            "commit 1",
            "run RETURN 1 in auto with metadata {bar: 'baz', foo: 1.5}",
        ]
    );

    client
        .send(&[begin_with(PackMap::new().with("tx_metadata", 7))])
        .await;
    assert_eq!(
        code(&client.recv().await.failure()),
        "Neo.ClientError.Request.Invalid"
    );
}

/// The summary of `query` pulled whole on a session of `minor` (Bolt 5).
async fn summary_of(query: &str, minor: u8) -> PackMap {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, minor).await;
    client.login(true).await;
    client.send(&[run(query), pull(-1)]).await;
    client.recv().await.success();
    client.records().await.1.success()
}

#[tokio::test]
async fn notifications_are_a_list_before_bolt_5_5() {
    let meta = summary_of("WARN 1", 4).await;
    assert!(meta.get("statuses").is_none());
    let PackValue::List(list) = get(&meta, "notifications") else {
        panic!("a list");
    };
    let n = list[0].as_map().expect("a map");
    assert_eq!(
        get(n, "code").as_str(),
        Some("Neo.ClientNotification.Statement.RuntimeUnsupportedWarning")
    );
    assert_eq!(get(n, "severity").as_str(), Some("WARNING"));
    assert_eq!(get(n, "category").as_str(), Some("UNSUPPORTED"));
    let position = get(n, "position").as_map().expect("a position");
    assert_eq!(get(position, "column"), &PackValue::Int(8));
    assert!(summary_of("RETURN 1", 4)
        .await
        .get("notifications")
        .is_none());
}

#[tokio::test]
async fn notifications_are_gql_statuses_with_the_result_status_from_bolt_5_6() {
    let meta = summary_of("WARN 1", 6).await;
    assert!(meta.get("notifications").is_none());
    let PackValue::List(statuses) = get(&meta, "statuses") else {
        panic!("a list");
    };
    let codes: Vec<&str> = statuses
        .iter()
        .map(|s| get(s.as_map().unwrap(), "gql_status").as_str().unwrap())
        .collect();
    assert_eq!(codes, ["01N40", "00000"], "warnings before success");
    let warning = statuses[0].as_map().unwrap();
    assert_eq!(
        get(warning, "neo4j_code").as_str(),
        Some("Neo.ClientNotification.Statement.RuntimeUnsupportedWarning")
    );
    let record = get(warning, "diagnostic_record").as_map().unwrap();
    assert_eq!(get(record, "_severity").as_str(), Some("WARNING"));
    assert_eq!(get(record, "_classification").as_str(), Some("UNSUPPORTED"));
    assert_eq!(
        get(get(record, "_position").as_map().unwrap(), "offset"),
        &PackValue::Int(7)
    );

    // No record: the result status is "no data", and it comes first.
    let meta = summary_of("WARN 0", 8).await;
    let PackValue::List(statuses) = get(&meta, "statuses") else {
        panic!("a list");
    };
    let first = statuses[0].as_map().unwrap();
    assert_eq!(get(first, "gql_status").as_str(), Some("02000"));
    // Without notifications drivers derive the result status themselves.
    assert!(summary_of("RETURN 1", 8).await.get("statuses").is_none());
}
