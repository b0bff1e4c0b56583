use super::*;
use crate::marker::tag;
use crate::{from_slice, pack_to_value, to_vec, PackMap};

fn encode(map: PackMap) -> Vec<u8> {
    to_vec(&PackValue::Map(map)).unwrap()
}

#[test]
fn decodes_the_same_values_as_the_pack_value_route() {
    let map = PackMap::new()
        .with(
            "ints",
            PackValue::List(
                (0..100_000)
                    .map(|i| PackValue::Int(i % 300 - 150))
                    .collect(),
            ),
        )
        .with("s", "text")
        .with(
            "nested",
            PackMap::new().with("f", 1.5).with("n", PackValue::Null),
        )
        .with("b", PackValue::Bytes(vec![1, 2, 3]))
        .with(
            "date",
            PackValue::Struct {
                tag: tag::DATE,
                fields: vec![PackValue::Int(1)],
            },
        );
    let bytes = encode(map.clone());
    let decoded = decode_params(&bytes, 0).unwrap();
    let expected: BTreeMap<String, Value> = map
        .into_iter()
        .map(|(k, v)| (k, pack_to_value(v).unwrap()))
        .collect();
    assert_eq!(decoded.values, expected);
    // Lists are allocated once at their final size, and charged for it.
    let Some(Value::List(ints)) = decoded.values.get("ints") else {
        panic!("ints is a list")
    };
    assert_eq!(ints.capacity(), 100_000);
    let footprint: usize = decoded.values.values().map(Value::heap_footprint).sum();
    assert!(
        decoded.bytes >= footprint,
        "{} < {footprint}",
        decoded.bytes
    );
}

#[test]
fn the_limit_refuses_before_allocating_and_names_the_parameter() {
    let bytes = encode(PackMap::new().with(
        "big",
        PackValue::List((0..10_000).map(|_| PackValue::Int(1)).collect()),
    ));
    let failure = decode_params(&bytes, 1000).unwrap_err();
    assert_eq!(failure.name.as_deref(), Some("big"));
    assert_eq!(failure.error, ParamError::OverBudget { limit: 1000 });
    assert!(decode_params(&bytes, 10_000 * size_of::<Value>() + 1000).is_ok());
}

#[test]
fn a_size_header_is_trusted_only_as_far_as_the_bytes_left() {
    // {"l": [<2^30 elements announced>, 1, 2]}
    let mut bytes = vec![0xA1, 0x81, b'l', LIST_32];
    bytes.extend_from_slice(&(1u32 << 30).to_be_bytes());
    bytes.extend_from_slice(&[1, 2]);
    let failure = decode_params(&bytes, 0).unwrap_err();
    assert!(matches!(
        failure.error,
        ParamError::Decode(DecodeError::SizeTooLarge { .. })
    ));
    assert!(skip_value(&mut Decoder::new(&bytes)).is_err());
}

#[test]
fn entities_are_refused_and_null_means_no_parameters() {
    let node = PackValue::Struct {
        tag: tag::NODE,
        fields: vec![PackValue::Int(0)],
    };
    let bytes = encode(PackMap::new().with("n", PackValue::List(vec![node])));
    let failure = decode_params(&bytes, 0).unwrap_err();
    assert_eq!(failure.error, ParamError::Entity("Node"));
    assert_eq!(decode_params(&[NULL], 0).unwrap().values, BTreeMap::new());
}

#[test]
fn skip_accepts_exactly_what_the_decoder_accepts() {
    let good = encode(PackMap::new().with("a", PackValue::List(vec![1.into(), "x".into()])));
    let mut d = Decoder::new(&good);
    skip_value(&mut d).unwrap();
    assert_eq!(d.remaining(), 0);
    let samples: Vec<Vec<u8>> = vec![
        vec![0xA1, 0x01, 0x01],       // non-string key
        vec![0x91],                   // list cut short
        vec![0x81, 0xFF],             // invalid UTF-8
        vec![0xC7],                   // reserved marker
        vec![0xB1, 0x44, 0xC9, 0x01], // a structure with a truncated field
    ];
    for bytes in samples {
        let skipped = skip_value(&mut Decoder::new(&bytes)).is_ok();
        let decoded = Decoder::new(&bytes).decode_value().is_ok();
        assert_eq!(skipped, decoded, "{bytes:02X?}");
        assert!(from_slice(&bytes).is_err());
    }
}
