//! TLS for the Bolt listener (`bolt+s://`, `neo4j+s://`, and `+ssc` with a
//! self-signed certificate): rustls with the `ring` provider, from a PEM
//! certificate chain and a PEM private key.

use rustls::ServerConfig;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;
use tokio_rustls::TlsAcceptor;

#[derive(Debug, Error)]
pub enum TlsError {
    #[error("cannot read the TLS certificate {path}: {message}")]
    Certificate { path: PathBuf, message: String },
    #[error("cannot read the TLS private key {path}: {message}")]
    Key { path: PathBuf, message: String },
    #[error("the TLS certificate and key do not form a usable configuration: {0}")]
    Config(String),
}

/// An acceptor serving the certificate chain in `cert` (PEM, leaf first)
/// with the private key in `key` (PEM: PKCS#8, PKCS#1 or SEC1).
pub fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, TlsError> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| TlsError::Certificate {
            path: cert.to_path_buf(),
            message: e.to_string(),
        })?;
    if chain.is_empty() {
        return Err(TlsError::Certificate {
            path: cert.to_path_buf(),
            message: "no certificate found in the file".into(),
        });
    }
    let key_der = PrivateKeyDer::from_pem_file(key).map_err(|e| TlsError::Key {
        path: key.to_path_buf(),
        message: e.to_string(),
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Config(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(chain, key_der)
        .map_err(|e| TlsError::Config(e.to_string()))?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_pair_loads_and_garbage_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let generated = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let cert = dir.path().join("cert.pem");
        let key = dir.path().join("key.pem");
        std::fs::write(&cert, generated.cert.pem()).unwrap();
        std::fs::write(&key, generated.key_pair.serialize_pem()).unwrap();
        assert!(acceptor(&cert, &key).is_ok());

        let junk = dir.path().join("junk.pem");
        std::fs::write(&junk, "not a pem file").unwrap();
        assert!(matches!(
            acceptor(&junk, &key),
            Err(TlsError::Certificate { .. })
        ));
        assert!(matches!(acceptor(&cert, &junk), Err(TlsError::Key { .. })));
        assert!(matches!(
            acceptor(&cert, &dir.path().join("missing.pem")),
            Err(TlsError::Key { .. })
        ));
    }
}
