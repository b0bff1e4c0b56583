//! Points through a real connection: the Point2D and Point3D structures
//! come back unchanged in every Bolt version, and an unknown srid is a clean
//! parameter error.

use super::client::*;
use super::fake::FakeBackend;
use nereid_packstream::{PackMap, PackValue};

#[tokio::test]
async fn points_round_trip_as_parameters_in_every_version() {
    let ctx = context(FakeBackend::new(), 1);
    let point_2d = msg(
        0x58,
        vec![
            PackValue::Int(4326),
            PackValue::Float(12.5),
            PackValue::Float(56.25),
        ],
    );
    let point_3d = msg(
        0x59,
        vec![
            PackValue::Int(9157),
            PackValue::Float(1.0),
            PackValue::Float(-2.0),
            PackValue::Float(3.5),
        ],
    );
    for (major, minor) in [
        (4, 0),
        (4, 1),
        (4, 2),
        (4, 3),
        (4, 4),
        (5, 0),
        (5, 4),
        (5, 8),
    ] {
        let mut client = connect(&ctx, major, minor).await;
        client.login(major == 5 && minor >= 1).await;
        for point in [&point_2d, &point_3d] {
            let params = PackMap::new().with("x", point.clone());
            client.send(&[run_with("PARAM", params), pull(-1)]).await;
            client.recv().await.success();
            let (records, summary) = client.records().await;
            summary.success();
            assert_eq!(records, vec![vec![point.clone()]], "Bolt {major}.{minor}");
        }
        // An unknown srid is refused as a parameter, cleanly.
        let bad = msg(
            0x58,
            vec![
                PackValue::Int(1),
                PackValue::Float(0.0),
                PackValue::Float(0.0),
            ],
        );
        client
            .send(&[run_with("PARAM", PackMap::new().with("x", bad))])
            .await;
        let failure = client.recv().await.failure();
        assert_eq!(code(&failure), "Neo.ClientError.Statement.TypeError");
    }
}
