//! Property tests: encode → decode is the identity, and decoding arbitrary
//! bytes never panics.

use nereid_packstream::{from_slice, to_vec, Decoder, PackMap, PackValue};
use proptest::prelude::*;

fn pack_value() -> impl Strategy<Value = PackValue> {
    let leaf = prop_oneof![
        Just(PackValue::Null),
        any::<bool>().prop_map(PackValue::Bool),
        any::<i64>().prop_map(PackValue::Int),
        (-300i64..300).prop_map(PackValue::Int),
        any::<f64>()
            .prop_filter("NaN is never equal to itself", |f| !f.is_nan())
            .prop_map(PackValue::Float),
        proptest::collection::vec(any::<u8>(), 0..300).prop_map(PackValue::Bytes),
        ".{0,40}".prop_map(PackValue::String),
    ];
    leaf.prop_recursive(4, 64, 20, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..20).prop_map(PackValue::List),
            proptest::collection::vec(("[a-z]{0,3}", inner.clone()), 0..20)
                .prop_map(|entries| PackValue::Map(entries.into_iter().collect::<PackMap>())),
            (any::<u8>(), proptest::collection::vec(inner, 0..=15))
                .prop_map(|(tag, fields)| PackValue::Struct { tag, fields }),
        ]
    })
}

proptest! {
    #[test]
    fn encode_then_decode_is_identity(value in pack_value()) {
        let bytes = to_vec(&value).unwrap();
        prop_assert_eq!(from_slice(&bytes), Ok(value));
    }

    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = from_slice(&bytes);
        let mut decoder = Decoder::new(&bytes);
        while decoder.remaining() > 0 && decoder.decode_value().is_ok() {}
    }

    #[test]
    fn decoding_mutated_valid_bytes_never_panics(
        value in pack_value(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let mut bytes = to_vec(&value).unwrap();
        if !bytes.is_empty() {
            for (at, byte) in flips {
                let i = at.index(bytes.len());
                bytes[i] = byte;
            }
        }
        let _ = from_slice(&bytes);
        let _ = from_slice(&bytes[..bytes.len() / 2]);
    }
}
