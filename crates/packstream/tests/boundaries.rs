//! Integer and size boundaries (bolt-protocol.md §5 and §20).

use nereid_packstream::encode::{write_int, write_list_header, write_map_header};
use nereid_packstream::{from_slice, to_vec, DecodeError, PackMap, PackValue};

fn int_bytes(i: i64) -> Vec<u8> {
    let mut out = Vec::new();
    write_int(&mut out, i);
    out
}

#[test]
fn integers_use_the_smallest_form() {
    let cases: &[(i64, &[u8])] = &[
        (0, &[0x00]),
        (127, &[0x7F]),
        (128, &[0xC9, 0x00, 0x80]),
        (-16, &[0xF0]),
        (-1, &[0xFF]),
        (-17, &[0xC8, 0xEF]),
        (-128, &[0xC8, 0x80]),
        (-129, &[0xC9, 0xFF, 0x7F]),
        (200, &[0xC9, 0x00, 0xC8]),
        (32_767, &[0xC9, 0x7F, 0xFF]),
        (32_768, &[0xCA, 0x00, 0x00, 0x80, 0x00]),
        (-32_768, &[0xC9, 0x80, 0x00]),
        (-32_769, &[0xCA, 0xFF, 0xFF, 0x7F, 0xFF]),
        (2_147_483_647, &[0xCA, 0x7F, 0xFF, 0xFF, 0xFF]),
        (2_147_483_648, &[0xCB, 0, 0, 0, 0, 0x80, 0, 0, 0]),
        (-2_147_483_648, &[0xCA, 0x80, 0, 0, 0]),
        (
            -2_147_483_649,
            &[0xCB, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF],
        ),
        (
            i64::MAX,
            &[0xCB, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
        ),
        (i64::MIN, &[0xCB, 0x80, 0, 0, 0, 0, 0, 0, 0]),
    ];
    for (value, bytes) in cases {
        assert_eq!(int_bytes(*value), bytes.to_vec(), "encoding {value}");
        assert_eq!(
            from_slice(bytes),
            Ok(PackValue::Int(*value)),
            "decoding {value}"
        );
    }
}

#[test]
fn decoders_accept_wider_integer_forms() {
    assert_eq!(
        from_slice(&[0xCB, 0, 0, 0, 0, 0, 0, 0, 1]),
        Ok(PackValue::Int(1))
    );
    assert_eq!(from_slice(&[0xC8, 0x05]), Ok(PackValue::Int(5)));
    assert_eq!(
        from_slice(&[0xCA, 0xFF, 0xFF, 0xFF, 0xFF]),
        Ok(PackValue::Int(-1))
    );
}

#[test]
fn strings_cross_the_size_boundaries() {
    for (len, header) in [
        (0usize, vec![0x80]),
        (15, vec![0x8F]),
        (16, vec![0xD0, 0x10]),
        (255, vec![0xD0, 0xFF]),
        (256, vec![0xD1, 0x01, 0x00]),
        (65_535, vec![0xD1, 0xFF, 0xFF]),
        (65_536, vec![0xD2, 0x00, 0x01, 0x00, 0x00]),
    ] {
        let text = "a".repeat(len);
        let bytes = to_vec(&PackValue::String(text.clone())).unwrap();
        assert_eq!(&bytes[..header.len()], header.as_slice(), "string of {len}");
        assert_eq!(bytes.len(), header.len() + len);
        assert_eq!(from_slice(&bytes), Ok(PackValue::String(text)));
    }
}

#[test]
fn strings_count_utf8_bytes() {
    let bytes = to_vec(&PackValue::from("é")).unwrap();
    assert_eq!(bytes, vec![0x82, 0xC3, 0xA9]);
}

#[test]
fn lists_and_maps_cross_the_size_boundaries() {
    for (len, list_header, map_header) in [
        (15usize, vec![0x9F], vec![0xAF]),
        (16, vec![0xD4, 0x10], vec![0xD8, 0x10]),
        (255, vec![0xD4, 0xFF], vec![0xD8, 0xFF]),
        (256, vec![0xD5, 0x01, 0x00], vec![0xD9, 0x01, 0x00]),
        (65_536, vec![0xD6, 0, 1, 0, 0], vec![0xDA, 0, 1, 0, 0]),
    ] {
        let mut header = Vec::new();
        write_list_header(&mut header, len).unwrap();
        assert_eq!(header, list_header, "list of {len}");
        let mut header = Vec::new();
        write_map_header(&mut header, len).unwrap();
        assert_eq!(header, map_header, "map of {len}");

        let list = PackValue::List(vec![PackValue::Null; len]);
        assert_eq!(from_slice(&to_vec(&list).unwrap()), Ok(list));
        let map: PackMap = (0..len)
            .map(|i| (format!("{i}"), PackValue::Int(i as i64)))
            .collect();
        let map = PackValue::Map(map);
        assert_eq!(from_slice(&to_vec(&map).unwrap()), Ok(map));
    }
}

#[test]
fn bytes_have_no_tiny_form() {
    assert_eq!(to_vec(&PackValue::Bytes(vec![])).unwrap(), vec![0xCC, 0x00]);
    let bytes = to_vec(&PackValue::Bytes(vec![7; 256])).unwrap();
    assert_eq!(&bytes[..3], &[0xCD, 0x01, 0x00]);
}

#[test]
fn duplicate_dictionary_keys_last_wins() {
    // {a: 1, a: 2}
    let bytes = [0xA2, 0x81, b'a', 0x01, 0x81, b'a', 0x02];
    let expected = PackValue::Map(PackMap::new().with("a", 2));
    assert_eq!(from_slice(&bytes), Ok(expected));
}

#[test]
fn malformed_input_is_an_error() {
    assert!(matches!(
        from_slice(&[]),
        Err(DecodeError::UnexpectedEnd { .. })
    ));
    assert!(matches!(
        from_slice(&[0xC4]),
        Err(DecodeError::ReservedMarker { marker: 0xC4, .. })
    ));
    assert!(matches!(
        from_slice(&[0xE0]),
        Err(DecodeError::ReservedMarker { .. })
    ));
    // A list claiming 4 billion items in 5 bytes.
    assert!(matches!(
        from_slice(&[0xD6, 0xFF, 0xFF, 0xFF, 0xFF]),
        Err(DecodeError::SizeTooLarge { .. })
    ));
    assert!(matches!(
        from_slice(&[0xD2, 0x00, 0x00, 0x00, 0x05, b'a']),
        Err(DecodeError::SizeTooLarge { .. })
    ));
    assert!(matches!(
        from_slice(&[0x82, 0xC3, 0x28]),
        Err(DecodeError::InvalidUtf8 { .. })
    ));
    assert!(matches!(
        from_slice(&[0xA1, 0x01, 0x01]),
        Err(DecodeError::NonStringKey { .. })
    ));
    assert!(matches!(
        from_slice(&[0x01, 0x02]),
        Err(DecodeError::TrailingBytes { count: 1 })
    ));
    let deep: Vec<u8> = std::iter::repeat_n(0x91, 100).chain([0xC0]).collect();
    assert!(matches!(
        from_slice(&deep),
        Err(DecodeError::TooDeep { .. })
    ));
    let ok_depth: Vec<u8> = std::iter::repeat_n(0x91, 64).chain([0xC0]).collect();
    assert!(from_slice(&ok_depth).is_ok());
}

#[test]
fn structures_round_trip() {
    let value = PackValue::Struct {
        tag: 0x58,
        fields: vec![
            PackValue::Int(7203),
            PackValue::Float(1.0),
            PackValue::Float(2.0),
        ],
    };
    let bytes = to_vec(&value).unwrap();
    assert_eq!(&bytes[..3], &[0xB3, 0x58, 0xC9]);
    assert_eq!(from_slice(&bytes), Ok(value));
    let too_many = PackValue::Struct {
        tag: 1,
        fields: vec![PackValue::Null; 16],
    };
    assert!(to_vec(&too_many).is_err());
}
