//! Connection setup, message encodings, failures and protocol violations.

use super::client::*;
use super::fake::{node_eid, FakeBackend, UUID};
use crate::bolt::framing::write_message;
use nereid_packstream::encode::write_string;
use nereid_packstream::{PackMap, PackValue};
use tokio::io::AsyncWriteExt;

fn s(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    write_string(&mut out, text).unwrap();
    out
}

#[tokio::test]
async fn hello_success_has_the_golden_shape_after_a_manifest_handshake() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect_manifest(&ctx, 5, 8).await;
    client.send(&[hello()]).await;
    let body = client.recv_raw().await.unwrap();
    let expected = [
        &[0xB1, 0x70, 0xA4][..],
        &s("server"),
        &s("Neo4j/5.26.0"),
        &s("connection_id"),
        &s("bolt-1"),
        &s("hints"),
        // {connection.recv_timeout_seconds: 120}, as Neo4j sends it (§13).
        &[0xA1, 0xD0, 0x1F],
        b"connection.recv_timeout_seconds",
        &[0x78],
        &s("protocol_version"),
        &s("5.8"),
    ]
    .concat();
    assert_eq!(body, expected);
    client.send(&[logon()]).await;
    assert_eq!(client.recv().await.success(), PackMap::new());
    client.send(&[run("RETURN 1"), pull(-1)]).await;
    client.recv().await.success();
    let (records, _) = client.records().await;
    assert_eq!(records, vec![vec![PackValue::Int(1)]]);
}

#[tokio::test]
async fn legacy_handshake_omits_protocol_version() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.send(&[hello()]).await;
    let meta = client.recv().await.success();
    assert!(meta.get("protocol_version").is_none());
    assert!(get(&meta, "server").as_str().unwrap().starts_with("Neo4j/"));
    assert!(get(&meta, "connection_id")
        .as_str()
        .unwrap()
        .starts_with("bolt-"));
}

/// The RECORD of bolt-protocol.md §13 (without the temporal values, which
/// the value model does not have yet), byte for byte, in 5.x and 4.4 shape.
#[tokio::test]
async fn record_of_the_golden_vector() {
    let list = [
        &[0x95, 0x01, 0xFF, 0xC9, 0x00, 0xC8, 0x81, b'x'][..],
        &[0xC1, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0],
    ]
    .concat();
    let eid = |e: String| [&[0xD0, 0x28][..], e.as_bytes()].concat();
    let v5 = [
        &[0xB1, 0x71, 0x93][..],
        &[0xB4, 0x4E, 0x00, 0x91, 0x81, b'P', 0xA1],
        &s("name"),
        &[0x81, b'a'],
        &eid(node_eid(0)),
        &[
            0xB8, 0x52, 0x00, 0x00, 0x01, 0x81, b'K', 0xA1, 0x81, b'w', 0x01,
        ],
        &eid(format!("5:{UUID}:0")),
        &eid(node_eid(0)),
        &eid(node_eid(1)),
        &list,
    ]
    .concat();
    let v4 = [
        &[0xB1, 0x71, 0x93][..],
        &[0xB3, 0x4E, 0x00, 0x91, 0x81, b'P', 0xA1],
        &s("name"),
        &[0x81, b'a'],
        &[
            0xB5, 0x52, 0x00, 0x00, 0x01, 0x81, b'K', 0xA1, 0x81, b'w', 0x01,
        ],
        &list,
    ]
    .concat();
    for (major, minor, expected) in [(5u8, 8u8, v5), (4, 4, v4)] {
        let ctx = context(FakeBackend::new(), 1);
        let mut client = connect(&ctx, major, minor).await;
        client.login(major == 5).await;
        client.send(&[run("GRAPH"), pull(-1)]).await;
        client.recv().await.success();
        assert_eq!(
            client.recv_raw().await.unwrap(),
            expected,
            "Bolt {major}.{minor}"
        );
        client.recv().await.success();
    }
}

#[tokio::test]
async fn utc_patch_is_echoed_on_4_4_only_when_asked() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 4, 4).await;
    let patched = msg(
        0x01,
        vec![PackMap::new()
            .with("user_agent", "t")
            .with("patch_bolt", PackValue::List(vec!["utc".into()]))
            .into()],
    );
    client.send(std::slice::from_ref(&patched)).await;
    let meta = client.recv().await.success();
    assert_eq!(
        get(&meta, "patch_bolt"),
        &PackValue::List(vec!["utc".into()])
    );

    let mut client = connect(&ctx, 4, 2).await;
    client.send(&[patched]).await;
    assert!(client.recv().await.success().get("patch_bolt").is_none());
}

#[tokio::test]
async fn one_failure_then_ignored_until_reset() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client.send(&[run("FAIL")]).await;
    let failure = client.recv().await.failure();
    assert_eq!(
        get(&failure, "code").as_str(),
        Some("Neo.ClientError.Statement.SyntaxError")
    );
    assert_eq!(
        get(&failure, "message").as_str(),
        Some("Invalid input 'FAIL'")
    );
    client.send(&[pull(-1)]).await;
    assert_eq!(client.recv().await, Reply::Ignored);
    client.send(&[run("RETURN 1"), pull(-1), begin()]).await;
    for _ in 0..3 {
        assert_eq!(client.recv().await, Reply::Ignored);
    }
    client.send(&[reset()]).await;
    assert_eq!(client.recv().await.success(), PackMap::new());
    client.send(&[run("RETURN 1"), pull(-1)]).await;
    client.recv().await.success();
    let (records, summary) = client.records().await;
    assert_eq!(records.len(), 1);
    summary.success();
}

#[tokio::test]
async fn failures_use_gql_fields_from_5_7() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 7).await;
    client.login(true).await;
    client.send(&[run("FAIL")]).await;
    let failure = client.recv().await.failure();
    assert!(failure.get("code").is_none());
    assert_eq!(
        get(&failure, "neo4j_code").as_str(),
        Some("Neo.ClientError.Statement.SyntaxError")
    );
    assert_eq!(get(&failure, "gql_status").as_str(), Some("42001"));
    assert!(get(&failure, "description").as_str().is_some());
    let record = get(&failure, "diagnostic_record").as_map().unwrap();
    assert_eq!(
        get(record, "_classification").as_str(),
        Some("CLIENT_ERROR")
    );
}

#[tokio::test]
async fn a_message_invalid_for_the_state_fails_and_closes() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client.send(&[pull(-1), run("RETURN 1")]).await;
    let failure = client.recv().await.failure();
    assert_eq!(
        get(&failure, "code").as_str(),
        Some("Neo.ClientError.Request.Invalid")
    );
    client.expect_closed().await;

    // RUN before HELLO, and LOGON on a version without LOGON.
    let mut client = connect(&ctx, 5, 4).await;
    client.send(&[run("RETURN 1")]).await;
    client.recv().await.failure();
    client.expect_closed().await;
    let mut client = connect(&ctx, 4, 4).await;
    client.send(&[hello(), logon()]).await;
    client.recv().await.success();
    client.recv().await.failure();
    client.expect_closed().await;
}

#[tokio::test]
async fn hello_before_5_1_leads_straight_to_ready() {
    let ctx = context(FakeBackend::new(), 1);
    for (major, minor) in [(5, 0), (4, 0)] {
        let mut client = connect(&ctx, major, minor).await;
        client.send(&[hello(), run("RETURN 1"), pull(-1)]).await;
        client.recv().await.success();
        client.recv().await.success();
        let (records, _) = client.records().await;
        assert_eq!(records.len(), 1);
    }
}

#[tokio::test]
async fn garbage_after_the_handshake_closes_only_that_connection() {
    let ctx = context(FakeBackend::new(), 1);
    let mut bad = connect(&ctx, 5, 4).await;
    // A well-framed message that is not PackStream.
    let mut frame = Vec::new();
    write_message(&[0xC4, 0x01, 0x02], &mut frame);
    bad.io.write_all(&frame).await.unwrap();
    let failure = bad.recv().await.failure();
    assert_eq!(
        get(&failure, "code").as_str(),
        Some("Neo.ClientError.Request.Invalid")
    );
    bad.expect_closed().await;

    // An unknown message tag.
    let mut bad = connect(&ctx, 5, 4).await;
    bad.send(&[msg(0x55, vec![])]).await;
    bad.recv().await.failure();
    bad.expect_closed().await;

    // A truncated frame followed by a disconnect.
    let mut bad = connect(&ctx, 5, 4).await;
    bad.io.write_all(&[0x00, 0x10, 0xB1]).await.unwrap();
    bad.io.shutdown().await.unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(5), &mut bad.server)
        .await
        .expect("the server task must end")
        .unwrap();

    let mut good = connect(&ctx, 5, 4).await;
    good.login(true).await;
}

#[tokio::test]
async fn goodbye_closes_without_a_reply() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client.send(&[goodbye(), run("RETURN 1")]).await;
    client.expect_closed().await;
}

#[tokio::test]
async fn route_names_the_client_address_or_the_advertised_one() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 8).await;
    client.login(true).await;
    let route = |routing: PackMap| {
        msg(
            0x66,
            vec![
                routing.into(),
                PackValue::List(vec![]),
                PackMap::new().into(),
            ],
        )
    };
    client
        .send(&[route(PackMap::new().with("address", "db.example:1234"))])
        .await;
    let meta = client.recv().await.success();
    let table = get(&meta, "rt").as_map().unwrap();
    assert_eq!(get(table, "ttl"), &PackValue::Int(300));
    assert_eq!(get(table, "db").as_str(), Some("neo4j"));
    let servers = get(table, "servers").as_list().unwrap();
    let roles: Vec<_> = servers
        .iter()
        .map(|s| {
            get(s.as_map().unwrap(), "role")
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(roles, ["WRITE", "READ", "ROUTE"]);
    for server in servers {
        assert_eq!(
            get(server.as_map().unwrap(), "addresses"),
            &PackValue::List(vec!["db.example:1234".into()])
        );
    }

    client.send(&[route(PackMap::new())]).await;
    let meta = client.recv().await.success();
    let table = get(&meta, "rt").as_map().unwrap();
    let first = &get(table, "servers").as_list().unwrap()[0];
    assert_eq!(
        get(first.as_map().unwrap(), "addresses"),
        &PackValue::List(vec![ADVERTISED.into()])
    );
}

#[tokio::test]
async fn telemetry_and_logoff_are_accepted_in_ready() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client
        .send(&[
            msg(0x54, vec![PackValue::Int(2)]),
            msg(0x6B, vec![]),
            logon(),
        ])
        .await;
    for _ in 0..3 {
        client.recv().await.success();
    }
}

#[tokio::test]
async fn parameters_are_converted_and_entities_refused() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    let params = PackMap::new().with("x", PackValue::List(vec![1.into(), "a".into()]));
    client.send(&[run_with("PARAM", params), pull(-1)]).await;
    client.recv().await.success();
    let (records, _) = client.records().await;
    assert_eq!(
        records,
        vec![vec![PackValue::List(vec![1.into(), "a".into()])]]
    );

    let node = PackValue::Struct {
        tag: 0x4E,
        fields: vec![0.into(), PackValue::List(vec![]), PackMap::new().into()],
    };
    client
        .send(&[run_with("PARAM", PackMap::new().with("x", node))])
        .await;
    let failure = client.recv().await.failure();
    assert_eq!(
        get(&failure, "code").as_str(),
        Some("Neo.ClientError.Statement.TypeError")
    );
    assert!(get(&failure, "message").as_str().unwrap().contains("Node"));
}
