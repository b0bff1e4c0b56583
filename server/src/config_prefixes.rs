//! `--prefix NAME=IRI`: OneGraph prefixes declared for every query, so that
//! a client does not repeat `PREFIX name: <iri>` lines in each one. A Bolt
//! session has no place a driver could put them (drivers send no custom
//! session fields, and a pooled driver runs a session's transactions on
//! whichever connection is free), so they are the server's: every session
//! and the Query API see the same ones. A query's own `PREFIX` of the same
//! name wins, so a query text means the same on any server.

use super::ConfigError;
use std::collections::BTreeMap;

/// The setting's name in errors and in the TOML file (a `[prefixes]` table).
const NAME: &str = "prefixes";

/// The flag's (or environment's) `NAME=IRI` entries over the file's table,
/// a flag replacing the file's entry of the same name; in name order.
pub fn resolve(
    cli: &[String],
    file: Option<&BTreeMap<String, String>>,
) -> Result<Vec<(String, String)>, ConfigError> {
    let mut prefixes = file.cloned().unwrap_or_default();
    for entry in cli {
        let (name, iri) = entry.split_once('=').ok_or_else(|| {
            invalid(format!(
                "`{entry}` is not NAME=IRI (e.g. ex=http://example.org/)"
            ))
        })?;
        prefixes.insert(name.trim().to_string(), iri.trim().to_string());
    }
    for (name, iri) in &prefixes {
        check_name(name)?;
        check_iri(name, iri)?;
    }
    Ok(prefixes.into_iter().collect())
}

/// A prefix name as a query writes it before `::`: a plain identifier.
fn check_name(name: &str) -> Result<(), ConfigError> {
    let mut chars = name.chars();
    let starts = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_');
    if starts && chars.all(|c| c.is_alphanumeric() || c == '_') {
        Ok(())
    } else {
        Err(invalid(format!(
            "prefix name `{name}` must be a letter or `_` followed by letters, digits or `_`"
        )))
    }
}

/// An absolute IRI (a scheme and `:`), without the characters that cannot
/// stand inside `<...>`.
fn check_iri(name: &str, iri: &str) -> Result<(), ConfigError> {
    let scheme = iri.split_once(':').map_or("", |(scheme, _)| scheme);
    let has_scheme = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    let forbidden = iri
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || "<>\"{}|^`\\".contains(*c));
    match (has_scheme, forbidden) {
        (true, None) => Ok(()),
        (false, _) => Err(invalid(format!(
            "the IRI of prefix `{name}` must be absolute (e.g. http://example.org/), not `{iri}`"
        ))),
        (true, Some(c)) => Err(invalid(format!(
            "the IRI of prefix `{name}` may not contain {c:?}"
        ))),
    }
}

fn invalid(message: String) -> ConfigError {
    ConfigError::Invalid {
        name: NAME,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn flags_add_to_the_file_and_replace_its_names() {
        let file = BTreeMap::from([
            ("ex".to_string(), "http://example.org/".to_string()),
            ("foaf".to_string(), "http://xmlns.com/foaf/0.1/".to_string()),
        ]);
        let resolved = resolve(
            &entries(&["ex=http://other.org/", "schema=https://schema.org/"]),
            Some(&file),
        )
        .unwrap();
        assert_eq!(
            resolved,
            vec![
                ("ex".to_string(), "http://other.org/".to_string()),
                ("foaf".to_string(), "http://xmlns.com/foaf/0.1/".to_string()),
                ("schema".to_string(), "https://schema.org/".to_string()),
            ]
        );
        assert_eq!(resolve(&[], None).unwrap(), vec![]);
    }

    #[test]
    fn bad_entries_are_refused_by_name() {
        for (entry, says) in [
            ("ex", "is not NAME=IRI"),
            ("1ex=http://example.org/", "prefix name `1ex`"),
            ("e-x=http://example.org/", "prefix name `e-x`"),
            ("ex=example.org/", "must be absolute"),
            ("ex=", "must be absolute"),
            ("ex=http://exa mple.org/", "may not contain"),
            ("ex=http://example.org/<", "may not contain"),
        ] {
            let error = resolve(&entries(&[entry]), None).unwrap_err().to_string();
            assert!(
                error.contains("prefixes") && error.contains(says),
                "{entry}: {error}"
            );
        }
    }
}
