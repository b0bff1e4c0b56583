//! An object whose body breaks off is read to its end by ranged
//! re-requests; one that keeps breaking without a byte fails the read.
//! The server is a few lines of HTTP/1.1 on a loopback socket that
//! answers each GetObject as the test scripts it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

use aws_sdk_s3::config::Credentials;

use super::super::{S3Location, S3Store};

/// How the server answers one request: the status line, the byte range
/// of the object it announces, and how many of those bytes it sends
/// before closing the connection.
struct Answer {
    partial: bool,
    from: usize,
    sent: usize,
}

/// The `Range: bytes=N-` start of a request (0 without one).
fn range_start(stream: &TcpStream) -> usize {
    let mut reader = BufReader::new(stream);
    let mut start = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            return start;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(range) = lower.strip_prefix("range: bytes=") {
            start = range.trim().trim_end_matches('-').parse().unwrap();
        }
    }
}

/// The next connection; `None` when none comes for a long while (the
/// reader asked fewer times than scripted: the test then fails on the
/// requests counted instead of hanging).
fn accept(listener: &TcpListener) -> Option<TcpStream> {
    listener.set_nonblocking(true).unwrap();
    for _ in 0..3000 {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).unwrap();
                return Some(stream);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => panic!("{e}"),
        }
    }
    None
}

/// Serves `object` to one connection per scripted answer, in order; the
/// ranges asked for are returned when the test ends.
fn serve(object: Vec<u8>, script: Vec<Answer>) -> (String, std::thread::JoinHandle<Vec<usize>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let mut asked = Vec::new();
        for answer in script {
            let Some(mut stream) = accept(&listener) else {
                break;
            };
            let start = range_start(&stream);
            asked.push(start);
            assert_eq!(start, answer.from, "requested from the byte reached");
            let rest = &object[answer.from..];
            let head = if answer.partial {
                format!(
                    "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {}-{}/{}\r\n\r\n",
                    rest.len(),
                    answer.from,
                    object.len() - 1,
                    object.len()
                )
            } else {
                format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", rest.len())
            };
            stream.write_all(head.as_bytes()).unwrap();
            stream.write_all(&rest[..answer.sent]).unwrap();
        }
        asked
    });
    (endpoint, server)
}

fn store(endpoint: String) -> S3Store {
    let location = S3Location::parse("s3://bucket", Some(endpoint), "us-east-1".into()).unwrap();
    let credentials = Credentials::new("key", "secret", None, None, "test");
    S3Store::connect_with(location, credentials).unwrap()
}

fn object() -> Vec<u8> {
    (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect()
}

#[test]
fn a_body_that_breaks_off_is_read_on_from_where_it_broke() {
    let object = object();
    let script = vec![
        Answer {
            partial: false,
            from: 0,
            sent: 150_000,
        },
        Answer {
            partial: true,
            from: 150_000,
            sent: 100_000,
        },
        Answer {
            partial: true,
            from: 250_000,
            sent: 150_000,
        },
    ];
    let (endpoint, server) = serve(object.clone(), script);
    let store = store(endpoint);
    let mut read = Vec::new();
    store.reader("data.bin").read_to_end(&mut read).unwrap();
    assert!(
        read == object,
        "{} bytes read of {}",
        read.len(),
        object.len()
    );
    assert_eq!(server.join().unwrap(), [0, 150_000, 250_000]);
}

#[test]
fn a_body_that_keeps_breaking_without_a_byte_fails_the_read() {
    let object = object();
    let mut script = vec![Answer {
        partial: false,
        from: 0,
        sent: 1000,
    }];
    script.extend((0..3).map(|_| Answer {
        partial: true,
        from: 1000,
        sent: 0,
    }));
    let (endpoint, server) = serve(object, script);
    let store = store(endpoint);
    let mut read = Vec::new();
    let error = store.reader("data.bin").read_to_end(&mut read).unwrap_err();
    assert!(
        error.to_string().contains("broke off at byte 1000"),
        "{error}"
    );
    assert_eq!(read.len(), 1000);
    assert_eq!(server.join().unwrap(), [0, 1000, 1000, 1000]);
}
