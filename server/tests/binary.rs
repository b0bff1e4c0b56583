//! The `nereid` binary's handling of bad configuration: a one-line message
//! and a non-zero exit, never a panic.

use std::process::Command;

fn nereid() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_nereid"));
    for var in [
        "NEREID_DATA_DIR",
        "NEREID_BOLT_ADDRESS",
        "NEREID_HTTP_ADDRESS",
        "NEREID_CONFIG",
        "NEREID_PARTITIONS",
        "NEREID_EXEC_THREADS",
        "NEREID_QUERY_THREADS",
        "NEREID_LOG",
        "NEREID_AUTH",
        "NEREID_NO_AUTH",
    ] {
        command.env_remove(var);
    }
    command
}

#[test]
fn a_missing_config_file_is_reported() {
    let output = nereid()
        .args(["--config", "/nonexistent/nereid.toml"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot read the configuration file /nonexistent/nereid.toml"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn unknown_keys_in_the_config_file_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nereid.toml");
    std::fs::write(&path, "bolt_port = 7687\n").unwrap();
    let output = nereid().env("NEREID_CONFIG", &path).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bolt_port"), "{stderr}");
}

#[test]
fn help_lists_the_settings() {
    let output = nereid().arg("--help").output().unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    for flag in [
        "--data-dir",
        "--bolt-address",
        "--http-address",
        "--config",
        "--partitions",
        "--exec-threads",
        "--log",
        "--auth",
        "--no-auth",
    ] {
        assert!(stdout.contains(flag), "{flag} missing:\n{stdout}");
    }
}

#[test]
fn without_users_it_refuses_to_listen_beyond_loopback() {
    let dir = tempfile::tempdir().unwrap();
    // Refused before anything binds: this test never listens on 0.0.0.0.
    let output = nereid()
        .arg("--data-dir")
        .arg(dir.path())
        .args([
            "--bolt-address",
            "0.0.0.0:0",
            "--http-address",
            "127.0.0.1:0",
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("refusing to listen on 0.0.0.0:0"),
        "{stderr}"
    );
    assert!(stderr.contains("--no-auth"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
