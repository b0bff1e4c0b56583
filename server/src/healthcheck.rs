//! `nereid healthcheck`: one `GET /health` against the configured HTTP
//! address, for container health checks. The slim runtime image has no
//! curl or wget, and a probe in the binary reads the same settings
//! (flags, NEREID_* variables, the TOML file) as the server it checks, so
//! it always asks the right port.
//!
//! Plain blocking std I/O: the request is one line and the answer's status
//! line is all that matters.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// How long connecting, sending and reading may each take.
const TIMEOUT: Duration = Duration::from_secs(5);

/// `Ok(())` when `GET /health` on `http_address` answers 200; otherwise
/// why not. `tls`: the server serves HTTPS there (`--http-tls`).
pub fn check(http_address: &str, tls: bool) -> Result<(), String> {
    let target = reachable(http_address)?;
    let stream = TcpStream::connect_timeout(&target, TIMEOUT)
        .map_err(|e| format!("cannot connect to {target}: {e}"))?;
    let io = |e: std::io::Error| format!("{target}: {e}");
    stream.set_read_timeout(Some(TIMEOUT)).map_err(io)?;
    stream.set_write_timeout(Some(TIMEOUT)).map_err(io)?;
    match tls {
        false => ask(stream, target),
        true => ask(probe_tls::wrap(stream, target)?, target),
    }
}

/// Sends `GET /health` over `stream` and reads the status line.
fn ask(mut stream: impl Read + Write, target: SocketAddr) -> Result<(), String> {
    let io = |e: std::io::Error| format!("{target}: {e}");
    let request = format!("GET /health HTTP/1.1\r\nHost: {target}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).map_err(io)?;
    // The status line fits in the first bytes; the body does not matter.
    let mut head = [0u8; 64];
    let mut len = 0;
    while len < head.len() {
        match stream.read(&mut head[len..]).map_err(io)? {
            0 => break,
            n => len += n,
        }
        if head[..len].contains(&b'\n') {
            break;
        }
    }
    let status_line = String::from_utf8_lossy(&head[..len]);
    let status_line = status_line.lines().next().unwrap_or_default();
    match status_line.split_whitespace().nth(1) {
        Some("200") => Ok(()),
        _ => Err(format!("GET /health on {target} answered {status_line:?}")),
    }
}

/// TLS for the probe. It does not verify the certificate: the probe runs
/// beside the server (in its container) and asks only whether it answers,
/// and the certificate names the public host, not loopback.
mod probe_tls {
    use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
    use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
    use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
    use rustls::{ClientConfig, ClientConnection, DigitallySignedStruct, SignatureScheme};
    use std::net::{SocketAddr, TcpStream};
    use std::sync::Arc;

    pub(super) fn wrap(
        stream: TcpStream,
        target: SocketAddr,
    ) -> Result<rustls::StreamOwned<ClientConnection, TcpStream>, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
            .with_no_client_auth();
        let name = ServerName::IpAddress(target.ip().into());
        let connection =
            ClientConnection::new(Arc::new(config), name).map_err(|e| e.to_string())?;
        Ok(rustls::StreamOwned::new(connection, stream))
    }

    /// Accepts any certificate, checking only the handshake's signatures.
    #[derive(Debug)]
    struct AnyCertificate(Arc<CryptoProvider>);

    impl ServerCertVerifier for AnyCertificate {
        fn verify_server_cert(
            &self,
            _end_entity: &CertificateDer<'_>,
            _intermediates: &[CertificateDer<'_>],
            _server_name: &ServerName<'_>,
            _ocsp_response: &[u8],
            _now: UnixTime,
        ) -> Result<ServerCertVerified, rustls::Error> {
            Ok(ServerCertVerified::assertion())
        }

        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            verify_tls12_signature(
                message,
                cert,
                dss,
                &self.0.signature_verification_algorithms,
            )
        }

        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            verify_tls13_signature(
                message,
                cert,
                dss,
                &self.0.signature_verification_algorithms,
            )
        }

        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.0.signature_verification_algorithms.supported_schemes()
        }
    }
}

/// The address to connect to for a listen address: the wildcard addresses
/// (listen on every interface) are reached through loopback.
fn reachable(http_address: &str) -> Result<SocketAddr, String> {
    let mut addr = http_address
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {http_address}: {e}"))?
        .next()
        .ok_or_else(|| format!("{http_address} resolves to no address"))?;
    if addr.ip().is_unspecified() {
        let loopback = match addr {
            SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        };
        addr.set_ip(loopback);
    }
    Ok(addr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_addresses_are_checked_through_loopback() {
        assert_eq!(
            reachable("0.0.0.0:7474").unwrap(),
            "127.0.0.1:7474".parse().unwrap()
        );
        assert_eq!(
            reachable("[::]:7474").unwrap(),
            "[::1]:7474".parse().unwrap()
        );
        assert_eq!(
            reachable("127.0.0.2:1").unwrap(),
            "127.0.0.2:1".parse().unwrap()
        );
    }

    #[test]
    fn nothing_listening_is_unhealthy() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        drop(listener);
        assert!(check(&address, false).is_err());
    }
}
