//! Values that are not temporal: the primitive types (null to nested maps),
//! spatial points, and graph entities (Node, Relationship, Path).

use neo4rs::{
    query, BoltFloat, BoltInteger, BoltList, BoltMap, BoltPoint2D, BoltPoint3D, BoltType, Graph,
    Node, Path, Relation,
};

use crate::support::{ensure, single, Checked, Context, Outcome};

/// Sends every parameter and returns the one row `RETURN $k AS k, ...`.
async fn echo(graph: &Graph, params: &[(&str, BoltType)]) -> Result<neo4rs::Row, String> {
    let columns: Vec<String> = params.iter().map(|(k, _)| format!("${k} AS {k}")).collect();
    let mut q = query(&format!("RETURN {}", columns.join(", ")));
    for (key, value) in params {
        q = q.param(key, value.clone());
    }
    single(graph, q).await
}

/// Reads a column as `T` and compares it with what was sent.
fn expect<'row, T>(row: &'row neo4rs::Row, key: &str, sent: T) -> Result<(), String>
where
    T: serde::Deserialize<'row> + PartialEq + std::fmt::Debug,
{
    expect_eq(key, row.get::<T>(key).context(key)?, sent)
}

fn expect_eq<T: PartialEq + std::fmt::Debug>(key: &str, got: T, sent: T) -> Result<(), String> {
    ensure(got == sent, || format!("{key}: sent {sent:?}, got {got:?}"))
}

fn map(entries: Vec<(&str, BoltType)>) -> BoltType {
    BoltType::Map(
        entries
            .into_iter()
            .map(|(k, v)| (k.into(), v))
            .collect::<BoltMap>(),
    )
}

fn list(items: Vec<BoltType>) -> BoltType {
    BoltType::List(BoltList::from(items))
}

pub async fn primitives(graph: &Graph) -> Checked {
    let nested = map(vec![
        ("a", BoltType::from(1_i64)),
        (
            "b",
            map(vec![
                ("c", BoltType::from("d")),
                (
                    "e",
                    list(vec![BoltType::from(2_i64), map(vec![("f", list(vec![]))])]),
                ),
            ]),
        ),
    ]);
    let row = echo(
        graph,
        &[
            ("nothing", BoltType::from(None::<i64>)),
            ("yes", BoltType::from(true)),
            ("small", BoltType::from(-17_i64)),
            ("tiny", BoltType::from(-16_i64)),
            ("big", BoltType::from(1_i64 << 62)),
            ("float", BoltType::from(1.5_f64)),
            ("text", BoltType::from("héllo")),
            ("bytes", BoltType::from(vec![1_u8, 2, 255])),
            (
                "list",
                list(vec![
                    BoltType::from(1_i64),
                    BoltType::from("two"),
                    list(vec![BoltType::from(3.5_f64)]),
                ]),
            ),
            ("map", nested.clone()),
        ],
    )
    .await?;
    // Typed reads, the way a neo4rs application reads values (neo4rs'
    // untyped `BoltType` read turns a negative tiny integer into its
    // unsigned byte, so only the map, of small positive integers, is read
    // untyped).
    expect(&row, "nothing", None::<i64>)?;
    expect(&row, "yes", true)?;
    expect(&row, "small", -17_i64)?;
    // neo4rs 0.8 decodes the one-byte integers -16..-1 as 240..255 (it
    // widens the marker byte unsigned), so -16 is checked where it lands.
    let tiny = single(
        graph,
        query("RETURN $tiny = -16 AS ok").param("tiny", -16_i64),
    )
    .await?;
    expect(&tiny, "ok", true)?;
    expect(&row, "big", 1_i64 << 62)?;
    expect(&row, "float", 1.5_f64)?;
    expect(&row, "text", "héllo".to_string())?;
    let bytes: neo4rs::BoltBytes = row.get("bytes").context("bytes")?;
    expect_eq("bytes", bytes.value.as_ref(), [1_u8, 2, 255].as_slice())?;
    expect(&row, "list", (1_i64, "two".to_string(), vec![3.5_f64]))?;
    expect(&row, "map", nested)?;
    Ok(Outcome::Passed(Some(
        "-16 checked on the server: neo4rs 0.8 misreads negative tiny integers".into(),
    )))
}

fn point2d(srid: i64, x: f64, y: f64) -> BoltType {
    BoltType::Point2D(BoltPoint2D {
        sr_id: BoltInteger::new(srid),
        x: BoltFloat::new(x),
        y: BoltFloat::new(y),
    })
}

fn point3d(srid: i64, x: f64, y: f64, z: f64) -> BoltType {
    BoltType::Point3D(BoltPoint3D {
        sr_id: BoltInteger::new(srid),
        x: BoltFloat::new(x),
        y: BoltFloat::new(y),
        z: BoltFloat::new(z),
    })
}

/// Cartesian and WGS-84 points in 2D and 3D (neo4rs' BoltPoint2D/3D carry
/// the SRID: 7203, 9157, 4326, 4979), plus a server-side distance and CRS.
pub async fn spatial(graph: &Graph) -> Checked {
    let params = [
        ("c", point2d(7203, 1.0, 2.5)),
        ("c3", point3d(9157, 1.0, 2.0, 3.0)),
        ("g", point2d(4326, 12.994341, 55.611784)),
        ("g3", point3d(4979, 12.5, 56.25, 100.0)),
    ];
    let row = echo(graph, &params).await?;
    // neo4rs reads points as Point2D / Point3D: (srid, x, y[, z]).
    for key in ["c", "g"] {
        let p: neo4rs::Point2D = row.get(key).context(key)?;
        let sent = match &params.iter().find(|(k, _)| *k == key).map(|(_, v)| v) {
            Some(BoltType::Point2D(p)) => (p.sr_id.value, p.x.value, p.y.value),
            _ => return Err(format!("{key} was not sent as a 2D point")),
        };
        expect_eq(key, (p.sr_id(), p.x(), p.y()), sent)?;
    }
    for key in ["c3", "g3"] {
        let p: neo4rs::Point3D = row.get(key).context(key)?;
        let sent = match &params.iter().find(|(k, _)| *k == key).map(|(_, v)| v) {
            Some(BoltType::Point3D(p)) => (p.sr_id.value, p.x.value, p.y.value, p.z.value),
            _ => return Err(format!("{key} was not sent as a 3D point")),
        };
        expect_eq(key, (p.sr_id(), p.x(), p.y(), p.z()), sent)?;
    }
    let mut q = query(
        "RETURN point.distance(point({x: 0, y: 0}), point({x: 3, y: 4})) AS d, $g.crs AS crs, \
         point({x: 1, y: 2, z: 3}) AS made",
    );
    q = q.param("g", params[2].1.clone());
    let row = single(graph, q).await?;
    let d: f64 = row.get("d").context("d")?;
    let crs: String = row.get("crs").context("crs")?;
    ensure(d == 5.0 && crs == "wgs-84", || {
        format!("distance {d}, crs {crs}")
    })?;
    let made: neo4rs::Point3D = row.get("made").context("made")?;
    let made = (made.sr_id(), made.x(), made.y(), made.z());
    ensure(made == (9157, 1.0, 2.0, 3.0), || {
        format!("point({{x: 1, y: 2, z: 3}}) came back as (srid, x, y, z) {made:?}")
    })?;
    Ok(Outcome::Passed(None))
}

pub async fn entities(graph: &Graph) -> Checked {
    graph
        .run(query(
            "CREATE (:Person {name: 'Ann', age: 42})-[:KNOWS {since: 2020}]->(:Person {name: 'Bob'})",
        ))
        .await
        .context("create")?;
    let row = single(
        graph,
        query("MATCH p = (a:Person)-[k:KNOWS]->(b) RETURN a, k, b, p"),
    )
    .await?;
    let a: Node = row.get("a").context("a")?;
    let k: Relation = row.get("k").context("k")?;
    let b: Node = row.get("b").context("b")?;
    let p: Path = row.get("p").context("p")?;
    ensure(
        a.labels() == vec!["Person"] && a.get::<i64>("age").ok() == Some(42),
        || format!("node a: {a:?}"),
    )?;
    ensure(
        k.typ() == "KNOWS"
            && k.start_node_id() == a.id()
            && k.end_node_id() == b.id()
            && k.get::<i64>("since").ok() == Some(2020),
        || format!("relationship k: {k:?}"),
    )?;
    let node_ids: Vec<i64> = p.nodes().iter().map(Node::id).collect();
    let rels = p.rels();
    ensure(
        node_ids == vec![a.id(), b.id()] && rels.len() == 1 && rels[0].typ() == "KNOWS",
        || format!("path p: {p:?}"),
    )?;
    Ok(Outcome::Passed(None))
}
