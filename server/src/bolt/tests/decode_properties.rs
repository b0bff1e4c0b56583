//! The same decode entry points as the cargo-fuzz targets in `fuzz/`
//! (message parsing, then parameter conversion as RUN does it), fed
//! arbitrary bytes and arbitrary well-formed messages on stable Rust: none
//! may panic, and every message is either a request or a `RequestError`.

use crate::bolt::request::Request;
use nereid_packstream::{to_vec, PackMap, PackValue};
use proptest::prelude::*;

/// Every message tag a client may send, plus a few that it may not.
const TAGS: &[u8] = &[
    0x01, 0x02, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x2F, 0x3F, 0x54, 0x66, 0x6A, 0x6B, 0x00, 0xFF,
];

/// Structure tags that mean something in values (graph, temporal, spatial).
const STRUCT_TAGS: &[u8] = &[
    0x4E, 0x52, 0x72, 0x50, 0x44, 0x54, 0x74, 0x49, 0x69, 0x46, 0x66, 0x64, 0x45, 0x58, 0x59,
];

fn value() -> impl Strategy<Value = PackValue> {
    let leaf = prop_oneof![
        Just(PackValue::Null),
        any::<bool>().prop_map(PackValue::Bool),
        any::<i64>().prop_map(PackValue::Int),
        prop_oneof![
            Just(7203i64),
            Just(4326),
            Just(9157),
            Just(4979),
            -2i64..100
        ]
        .prop_map(PackValue::Int),
        any::<f64>().prop_map(PackValue::Float),
        "[a-zA-Z/_:+0-9]{0,12}".prop_map(PackValue::String),
        Just(PackValue::String("Europe/Stockholm".into())),
    ];
    leaf.prop_recursive(3, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(PackValue::List),
            proptest::collection::vec(
                (
                    prop_oneof![
                        Just("n".to_string()),
                        Just("qid".to_string()),
                        Just("db".to_string()),
                        Just("bookmarks".to_string()),
                        Just("scheme".to_string()),
                        "[a-z]{1,3}"
                    ],
                    inner.clone()
                ),
                0..6
            )
            .prop_map(|entries| PackValue::Map(entries.into_iter().collect::<PackMap>())),
            (
                proptest::sample::select(STRUCT_TAGS),
                proptest::collection::vec(inner, 0..5)
            )
                .prop_map(|(tag, fields)| PackValue::Struct { tag, fields }),
        ]
    })
}

/// What the session does with a parsed request's client values.
fn decode_fully(body: &[u8]) {
    if let Ok(Request::Run { params, .. }) = Request::parse(body) {
        let _ = nereid_packstream::decode_params(&params.0, 0);
    }
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        decode_fully(&bytes);
        // Most arbitrary bytes are not even a structure; a structure
        // header in front makes the parser look at the fields.
        let mut framed = vec![0xB3, 0x10];
        framed.extend_from_slice(&bytes);
        decode_fully(&framed);
    }

    #[test]
    fn arbitrary_messages_parse_or_fail_cleanly(
        tag in proptest::sample::select(TAGS),
        fields in proptest::collection::vec(value(), 0..4),
    ) {
        let body = to_vec(&PackValue::Struct { tag, fields }).unwrap();
        decode_fully(&body);
        decode_fully(&body[..body.len() / 2]);
    }

    #[test]
    fn run_parameters_of_any_shape_convert_or_fail_cleanly(params in proptest::collection::vec(("[a-z]{1,2}", value()), 0..6)) {
        let params: PackMap = params.into_iter().collect();
        let run = PackValue::Struct {
            tag: 0x10,
            fields: vec!["RETURN $a".into(), PackValue::Map(params), PackMap::new().into()],
        };
        let body = to_vec(&run).unwrap();
        let parsed = matches!(Request::parse(&body), Ok(Request::Run { .. }));
        prop_assert!(parsed, "a well-formed RUN must parse");
        decode_fully(&body);
    }
}
