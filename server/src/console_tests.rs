//! The console's files over a real socket: each with its content type and
//! the restrictive policy, and every file the page or a module names served.

use super::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

async fn fetch(address: std::net::SocketAddr, path: &str) -> (String, String) {
    let mut stream = TcpStream::connect(address).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (head.to_ascii_lowercase(), body.to_string())
}

async fn serving() -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, routes()).await });
    address
}

#[tokio::test]
async fn the_page_and_its_files_are_served_with_their_types_and_the_policy() {
    let address = serving().await;
    for (path, kind) in [
        ("/", "text/html"),
        ("/console/main.js", "text/javascript"),
        ("/console/graph.js", "text/javascript"),
        ("/console/console.css", "text/css"),
    ] {
        let (head, body) = fetch(address, path).await;
        assert!(head.starts_with("http/1.1 200"), "{path}: {head}");
        assert!(
            head.contains(&format!("content-type: {kind}; charset=utf-8")),
            "{path}: {head}"
        );
        assert!(
            head.contains("content-security-policy: default-src 'none'; script-src 'self';"),
            "{path}: {head}"
        );
        assert!(head.contains("x-content-type-options: nosniff"), "{head}");
        assert!(!body.is_empty(), "{path}");
    }
    let (head, _) = fetch(address, "/console/missing.js").await;
    assert!(head.starts_with("http/1.1 404"), "{head}");
}

/// `./name.js` and `/console/name` references in a file's text.
fn references(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (marker, prefix) in [("'./", "/console/"), ("\"/console/", "/console/")] {
        for piece in text.split(marker).skip(1) {
            let name: String = piece
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
                .collect();
            found.push(format!("{prefix}{name}"));
        }
    }
    found
}

#[test]
fn every_file_the_page_or_a_module_names_is_served() {
    let served: Vec<String> = FILES.iter().map(|(name, _)| path_of(name)).collect();
    let mut named = Vec::new();
    for (name, body) in FILES {
        let text = std::str::from_utf8(body).unwrap();
        for reference in references(text) {
            assert!(
                served.contains(&reference),
                "{name} names {reference}, which is not served"
            );
            named.push(reference);
        }
    }
    // And no file is served that nothing uses.
    for path in &served[1..] {
        assert!(named.iter().any(|n| n == path), "nothing names {path}");
    }
    // No inline script or style, which the policy would block.
    assert_eq!(served[0], "/");
    let page = std::str::from_utf8(FILES[0].1).unwrap();
    assert!(!page.contains("<script>") && !page.contains("style="));
}
