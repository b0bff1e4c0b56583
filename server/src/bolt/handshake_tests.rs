//! Every applicable row of the handshake table (bolt-protocol.md §3.4),
//! byte for byte.

use super::*;
use tokio::io::AsyncWriteExt;

const DRIVER_DEFAULT: [u8; 16] = [
    0x00, 0x00, 0x01, 0xFF, 0x00, 0x08, 0x08, 0x05, 0x00, 0x02, 0x04, 0x04, 0x00, 0x00, 0x00, 0x03,
];

fn opening(slots: &[[u8; 4]]) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    for slot in slots {
        bytes.extend_from_slice(slot);
    }
    bytes.resize(20, 0);
    bytes
}

/// Runs the handshake over `input`, delivered one byte per read when
/// `split`; returns the outcome, the bytes the server wrote, and what is
/// left unread.
async fn run(
    input: Vec<u8>,
    split: bool,
) -> (Result<Negotiated, HandshakeError>, Vec<u8>, Vec<u8>) {
    let (mut client, server) = tokio::io::duplex(1024);
    let feeder = tokio::spawn(async move {
        if split {
            for byte in input {
                client.write_all(&[byte]).await.unwrap();
                tokio::task::yield_now().await;
            }
        } else {
            client.write_all(&input).await.unwrap();
        }
        client
    });
    let mut reader = tokio::io::BufReader::new(server);
    let mut written = Vec::new();
    let outcome = negotiate(&mut reader, &mut written).await;
    drop(feeder.await.unwrap());
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest).await.unwrap();
    (outcome, written, rest)
}

#[tokio::test]
async fn driver_default_gets_the_manifest_in_one_piece_and_hello_stays_buffered() {
    let mut input = opening(&[]);
    input[4..].copy_from_slice(&DRIVER_DEFAULT);
    input.extend_from_slice(&[0x00, 0x00, 0x08, 0x05, 0x00]);
    input.extend_from_slice(&[0x00, 0x02, 0xB1, 0x01, 0x00, 0x00]); // a HELLO frame
    for split in [false, true] {
        let (outcome, written, rest) = run(input.clone(), split).await;
        assert_eq!(
            written,
            vec![
                0x00, 0x00, 0x01, 0xFF, 0x03, 0x00, 0x04, 0x04, 0x04, 0x00, 0x04, 0x04, 0x05, 0x00,
                0x02, 0x08, 0x05, 0x00
            ]
        );
        let negotiated = outcome.unwrap();
        assert_eq!(negotiated.version, BoltVersion::new(5, 8));
        assert!(negotiated.manifest);
        assert_eq!(rest, vec![0x00, 0x02, 0xB1, 0x01, 0x00, 0x00]);
    }
}

#[tokio::test]
async fn manifest_with_multi_byte_capabilities_is_consumed() {
    let mut input = opening(&[MANIFEST_V1]);
    input.extend_from_slice(&[0x00, 0x00, 0x04, 0x04, 0xFF, 0x82, 0x71, 0xAB]);
    let (outcome, _, rest) = run(input, false).await;
    assert_eq!(outcome.unwrap().version, BoltVersion::new(4, 4));
    assert_eq!(rest, vec![0xAB]);
}

#[tokio::test]
async fn manifest_choice_of_an_unsupported_version_fails() {
    let mut input = opening(&[MANIFEST_V1]);
    input.extend_from_slice(&[0x00, 0x00, 0x05, 0x05, 0x00]);
    let (outcome, _, _) = run(input, false).await;
    assert!(matches!(outcome, Err(HandshakeError::BadChoice(_))));
}

#[tokio::test]
async fn legacy_offers_pick_the_first_supported_slot_and_highest_minor() {
    let rows: &[(&[[u8; 4]], [u8; 4])] = &[
        (
            &[
                [0x00, 0x08, 0x08, 0x05],
                [0x00, 0x02, 0x04, 0x04],
                [0x00, 0x00, 0x00, 0x03],
            ],
            [0x00, 0x00, 0x08, 0x05],
        ),
        (
            &[[0x00, 0x00, 0x05, 0x05], [0x00, 0x00, 0x04, 0x05]],
            [0x00, 0x00, 0x04, 0x05],
        ),
        (
            &[[0x00, 0x00, 0x01, 0x04], [0x00, 0x00, 0x00, 0x04]],
            [0x00, 0x00, 0x01, 0x04],
        ),
        (
            &[
                [0x00, 0x00, 0x04, 0x04],
                [0x00, 0x00, 0x03, 0x04],
                [0x00, 0x00, 0x01, 0x04],
                [0x00, 0x00, 0x00, 0x04],
            ],
            [0x00, 0x00, 0x04, 0x04],
        ),
        // A range over 5.6..5.5 answers 5.6; over 5.5..5.4 skips 5.5.
        (&[[0x00, 0x01, 0x06, 0x05]], [0x00, 0x00, 0x06, 0x05]),
        (&[[0x00, 0x01, 0x05, 0x05]], [0x00, 0x00, 0x04, 0x05]),
        // Zero padding first is skipped.
        (
            &[[0, 0, 0, 0], [0x00, 0x00, 0x02, 0x04]],
            [0x00, 0x00, 0x02, 0x04],
        ),
    ];
    for (slots, reply) in rows {
        for split in [false, true] {
            let (outcome, written, _) = run(opening(slots), split).await;
            assert_eq!(written, reply.to_vec(), "offer {slots:02X?}");
            assert_eq!(
                outcome.unwrap().version,
                BoltVersion::new(reply[3], reply[2])
            );
        }
    }
}

#[tokio::test]
async fn no_common_version_answers_zeros() {
    for slots in [
        &[[0x00, 0x00, 0x05, 0x05]][..],
        &[[0x00, 0x00, 0x00, 0x03]],
        &[[0x00, 0x00, 0x00, 0x09]],
        &[],
    ] {
        let (outcome, written, _) = run(opening(slots), false).await;
        assert_eq!(written, vec![0, 0, 0, 0], "offer {slots:02X?}");
        assert!(matches!(outcome, Err(HandshakeError::NoMatch(_))));
    }
}

#[tokio::test]
async fn a_range_below_minor_zero_closes_without_bytes() {
    let (outcome, written, _) = run(opening(&[[0x00, 0x09, 0x08, 0x05]]), false).await;
    assert!(written.is_empty());
    assert!(matches!(outcome, Err(HandshakeError::Malformed(_))));
}

#[tokio::test]
async fn bad_magic_closes_without_bytes() {
    let mut input = opening(&[[0x00, 0x00, 0x04, 0x04]]);
    input[0] = 0x61;
    let (outcome, written, _) = run(input, false).await;
    assert!(written.is_empty());
    assert!(matches!(outcome, Err(HandshakeError::BadMagic(_))));
}

#[tokio::test]
async fn http_requests_get_an_http_answer() {
    let (outcome, written, _) = run(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), false).await;
    assert!(matches!(outcome, Err(HandshakeError::Http)));
    assert!(written.starts_with(b"HTTP/1.1 "));
    let text = String::from_utf8(written).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    assert!(head.contains(&format!("content-length: {}", body.len())));
}

#[test]
fn choose_prefers_client_order() {
    let slots = [
        [0x00, 0x00, 0x04, 0x04],
        MANIFEST_V1,
        [0, 0, 0, 0],
        [0, 0, 0, 0],
    ];
    assert_eq!(choose(&slots), Offer::Version(BoltVersion::new(4, 4)));
}
