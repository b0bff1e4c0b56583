//! The listeners over real sockets, with the in-memory test backend.

use super::*;
use crate::bolt::tests_support::FakeBackend;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn config() -> Config {
    Config {
        data_dir: "./unused".into(),
        import_dir: "./unused/import".into(),
        bolt_address: "127.0.0.1:0".into(),
        http_address: "127.0.0.1:0".into(),
        partitions: 1,
        exec_threads: 1,
        query_threads: 1,
        log: "info".into(),
        log_format: crate::config::LogFormat::Text,
        statistics_update_percent: 10,
        query_log: None,
        http_tls: false,
        query_max_memory: 0,
        transaction_timeout: None,
        prefixes: Vec::new(),
        durable: Default::default(),
        s3_endpoint: None,
        s3_region: "us-east-1".into(),
        auth: None,
        auth_hashing: Default::default(),
        no_auth: false,
        tls_cert: None,
        tls_key: None,
        bolt_limits: Default::default(),
    }
}

async fn http_get(address: SocketAddr, path: &str) -> String {
    let mut stream = TcpStream::connect(address).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    response
}

#[tokio::test]
async fn health_bolt_and_shutdown_over_tcp() {
    let server = start(FakeBackend::new(), &config()).await.unwrap();

    let response = http_get(server.http_address, "/health").await;
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
    let json: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(json["status"], "ok");
    assert_eq!(json["bolt_address"], server.bolt_address.to_string());

    let mut bolt = TcpStream::connect(server.bolt_address).await.unwrap();
    let mut opening = crate::bolt::handshake::MAGIC.to_vec();
    opening.extend_from_slice(&[0, 0, 4, 4]);
    opening.resize(20, 0);
    bolt.write_all(&opening).await.unwrap();
    let mut reply = [0u8; 4];
    bolt.read_exact(&mut reply).await.unwrap();
    assert_eq!(reply, [0, 0, 4, 4]);

    let response = http_get(server.bolt_address, "/").await;
    assert!(response.starts_with("HTTP/1.1 400"), "{response}");

    let bolt_address = server.bolt_address;
    tokio::time::timeout(std::time::Duration::from_secs(10), server.shutdown())
        .await
        .expect("shutdown must finish");
    assert!(TcpStream::connect(bolt_address).await.is_err());
}

#[tokio::test]
async fn an_address_in_use_is_a_clear_error() {
    let taken = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut config = config();
    config.bolt_address = taken.local_addr().unwrap().to_string();
    let err = match start(FakeBackend::new(), &config).await {
        Err(e) => e,
        Ok(_) => panic!("binding a taken port must fail"),
    };
    let text = err.to_string();
    assert!(
        text.starts_with("cannot listen for Bolt on 127.0.0.1:"),
        "{text}"
    );
}

#[tokio::test]
async fn bolt_over_tls_with_a_self_signed_certificate() {
    use rustls::pki_types::ServerName;
    let dir = tempfile::tempdir().unwrap();
    let generated = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let cert_path = dir.path().join("cert.pem");
    let key_path = dir.path().join("key.pem");
    std::fs::write(&cert_path, generated.cert.pem()).unwrap();
    std::fs::write(&key_path, generated.key_pair.serialize_pem()).unwrap();
    let mut config = config();
    config.tls_cert = Some(cert_path);
    config.tls_key = Some(key_path);
    let server = start(FakeBackend::new(), &config).await.unwrap();

    // A client trusting exactly this certificate (what bolt+s:// with a
    // custom CA does) completes the TLS and the Bolt handshakes.
    let mut roots = rustls::RootCertStore::empty();
    roots.add(generated.cert.der().clone()).unwrap();
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let client_config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(client_config));
    let tcp = TcpStream::connect(server.bolt_address).await.unwrap();
    let mut bolt = connector
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .unwrap();
    let mut opening = crate::bolt::handshake::MAGIC.to_vec();
    opening.extend_from_slice(&[0, 0, 4, 4]);
    opening.resize(20, 0);
    bolt.write_all(&opening).await.unwrap();
    let mut reply = [0u8; 4];
    bolt.read_exact(&mut reply).await.unwrap();
    assert_eq!(reply, [0, 0, 4, 4]);

    // A plaintext client gets no Bolt reply from a TLS listener.
    let mut plain = TcpStream::connect(server.bolt_address).await.unwrap();
    plain.write_all(&opening).await.unwrap();
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        plain.read_to_end(&mut buf),
    )
    .await
    .expect("the server closes the plaintext connection");
    assert_ne!(buf.get(..4), Some(&[0u8, 0, 4, 4][..]));

    server.shutdown().await;
}

async fn http_post(address: SocketAddr, path: &str, headers: &str) -> String {
    let mut stream = TcpStream::connect(address).await.unwrap();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\n{headers}Content-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    response
}

#[tokio::test]
async fn the_admin_endpoint_refuses_other_origins_and_names_no_paths() {
    let server = start(FakeBackend::new(), &config()).await.unwrap();
    let own = format!("Origin: http://{}\r\n", server.http_address);
    for refused in [
        "Origin: http://evil.example\r\n",
        "Origin: null\r\n",
        "Sec-Fetch-Site: cross-site\r\n",
    ] {
        let response = http_post(server.http_address, "/admin/checkpoint", refused).await;
        assert!(
            response.starts_with("HTTP/1.1 403"),
            "{refused}: {response}"
        );
    }
    // Same origin and no origin (curl) reach the checkpoint, which the
    // test backend cannot take; the answer does not echo its reason.
    for allowed in [own.as_str(), ""] {
        let response = http_post(server.http_address, "/admin/checkpoint", allowed).await;
        assert!(
            response.starts_with("HTTP/1.1 500"),
            "{allowed}: {response}"
        );
        assert!(!response.contains("backend"), "{response}");
    }
    server.shutdown().await;
}
