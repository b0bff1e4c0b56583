//! The dependency rules ARCHITECTURE.md states, read from the workspace's
//! Cargo.toml files so that a new dependency that breaks them fails a test
//! instead of waiting for someone to notice:
//! - no workspace crate depends on `nereid-server` (the binary crate knows
//!   every layer; a crate that needed it would pull in all front ends);
//! - the engine reaches no protocol crate, directly or through another
//!   workspace crate (it is embedded by front ends other than Bolt, which
//!   should not pay for PackStream, HTTP or TLS);
//! - the input formats (`nereid-loader-formats`) use no workspace crate but
//!   the value model (every loader shares them; they know nothing of
//!   storage, the engine or Cypher).
//!
//! Only the workspace's own manifests are read: what an external crate
//! pulls in is its business, and `Cargo.lock` would not say which
//! workspace crate asked for it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crates that speak a client protocol or serve one.
const PROTOCOL_CRATES: &[&str] = &[
    "nereid-packstream",
    "nereid-server",
    "axum",
    "rustls",
    "tokio-rustls",
];

/// Dependencies of one workspace crate, by kind.
#[derive(Default)]
struct Declared {
    /// `[dependencies]` and `[build-dependencies]`: what ships with it.
    shipped: BTreeSet<String>,
    /// Every table, `[dev-dependencies]` included.
    all: BTreeSet<String>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace root")
        .to_path_buf()
}

fn read_toml(path: &Path) -> toml::Table {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The package names a dependency table names (a `package = ...` rename
/// counts under the package's own name).
fn names(table: Option<&toml::Value>) -> impl Iterator<Item = String> + '_ {
    table
        .and_then(toml::Value::as_table)
        .into_iter()
        .flatten()
        .map(|(key, spec)| {
            spec.get("package")
                .and_then(toml::Value::as_str)
                .unwrap_or(key)
                .to_string()
        })
}

/// Every workspace member's package name and declared dependencies.
fn workspace() -> BTreeMap<String, Declared> {
    let root = root();
    let manifest = read_toml(&root.join("Cargo.toml"));
    let members = manifest["workspace"]["members"]
        .as_array()
        .expect("workspace.members is a list");
    let mut crates = BTreeMap::new();
    for member in members {
        let dir = member.as_str().expect("a member is a path");
        let manifest = read_toml(&root.join(dir).join("Cargo.toml"));
        let name = manifest["package"]["name"]
            .as_str()
            .expect("package.name")
            .to_string();
        // Platform-specific tables (`[target.'cfg(..)'.dependencies]`)
        // count like the plain ones.
        let mut sections = vec![&manifest];
        if let Some(targets) = manifest.get("target").and_then(toml::Value::as_table) {
            sections.extend(targets.values().filter_map(toml::Value::as_table));
        }
        let mut declared = Declared::default();
        for section in sections {
            for kind in ["dependencies", "build-dependencies"] {
                declared.shipped.extend(names(section.get(kind)));
            }
            for kind in ["dependencies", "build-dependencies", "dev-dependencies"] {
                declared.all.extend(names(section.get(kind)));
            }
        }
        crates.insert(name, declared);
    }
    crates
}

/// [`workspace`], after checking that `subject` is in it (a renamed crate
/// must not make a rule about it pass vacuously).
fn workspace_with(subject: &str) -> BTreeMap<String, Declared> {
    let crates = workspace();
    assert!(crates.contains_key(subject), "{subject} is not a member");
    crates
}

#[test]
fn no_workspace_crate_depends_on_the_server() {
    let crates = workspace_with("nereid-server");
    let dependents: Vec<&String> = crates
        .iter()
        .filter(|(name, declared)| {
            *name != "nereid-server" && declared.all.contains("nereid-server")
        })
        .map(|(name, _)| name)
        .collect();
    assert!(
        dependents.is_empty(),
        "these crates depend on nereid-server: {dependents:?}"
    );
}

/// Every crate `root` ships with, reached through the workspace's own
/// crates, each with the crate that declared it.
fn shipped_closure(crates: &BTreeMap<String, Declared>, root: &str) -> BTreeMap<String, String> {
    let mut declared_by: BTreeMap<String, String> = BTreeMap::new();
    let mut reached = BTreeSet::new();
    let mut todo = vec![root.to_string()];
    while let Some(name) = todo.pop() {
        if !reached.insert(name.clone()) {
            continue;
        }
        if let Some(declared) = crates.get(&name) {
            for dependency in &declared.shipped {
                declared_by
                    .entry(dependency.clone())
                    .or_insert_with(|| name.clone());
                todo.push(dependency.clone());
            }
        }
    }
    declared_by
}

#[test]
fn the_engine_reaches_no_protocol_crate() {
    let crates = workspace_with("nereid-engine");
    let reached = shipped_closure(&crates, "nereid-engine");
    let offending: Vec<String> = PROTOCOL_CRATES
        .iter()
        .filter_map(|protocol| {
            reached
                .get(*protocol)
                .map(|by| format!("{protocol} (declared by {by})"))
        })
        .collect();
    assert!(
        offending.is_empty(),
        "the engine reaches protocol crates: {offending:?}"
    );
}

/// The input formats are shared by every loader and must stay a leaf:
/// of the workspace they may use only the value model and what it stands
/// on (not storage, the engine, the Cypher front end, the executor or the
/// log), in any table.
#[test]
fn the_input_formats_use_only_the_value_model() {
    const VALUE_MODEL: [&str; 2] = ["nereid-values", "nereid-stack"];
    let crates = workspace_with("nereid-loader-formats");
    let mut offending: Vec<String> = shipped_closure(&crates, "nereid-loader-formats")
        .into_iter()
        .filter(|(name, _)| crates.contains_key(name) && !VALUE_MODEL.contains(&name.as_str()))
        .map(|(name, by)| format!("{name} (declared by {by})"))
        .collect();
    offending.extend(
        crates["nereid-loader-formats"]
            .all
            .iter()
            .filter(|name| crates.contains_key(*name) && !VALUE_MODEL.contains(&name.as_str()))
            .map(|name| format!("{name} (a dev-dependency)")),
    );
    assert!(
        offending.is_empty(),
        "nereid-loader-formats depends on workspace crates beyond the value model: {offending:?}"
    );
}

/// Graph kernels know CSR arrays and read the store for their views; they
/// know nothing of Cypher, plans, the executor, the log or the engine
/// (the procedures that expose them live in the executor), in any table.
#[test]
fn the_algorithms_know_no_query_layer() {
    const QUERY_LAYERS: &[&str] = &[
        "nereid-cypher",
        "nereid-planner",
        "nereid-dfe",
        "nereid-functions",
        "nereid-wal",
        "nereid-engine",
    ];
    let crates = workspace_with("nereid-algorithms");
    let mut offending: Vec<String> = shipped_closure(&crates, "nereid-algorithms")
        .into_iter()
        .filter(|(name, _)| QUERY_LAYERS.contains(&name.as_str()))
        .map(|(name, by)| format!("{name} (declared by {by})"))
        .collect();
    offending.extend(
        crates["nereid-algorithms"]
            .all
            .iter()
            .filter(|name| QUERY_LAYERS.contains(&name.as_str()))
            .map(|name| format!("{name} (a dev-dependency)")),
    );
    assert!(
        offending.is_empty(),
        "nereid-algorithms depends on query layers: {offending:?}"
    );
}
