//! Bolt protocol versions and what each one changes for the server.

use nereid_packstream::StructFormat;
use std::fmt;

/// A negotiated Bolt version.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BoltVersion {
    pub major: u8,
    pub minor: u8,
}

impl BoltVersion {
    pub const fn new(major: u8, minor: u8) -> Self {
        BoltVersion { major, minor }
    }

    /// 4.0–4.4, 5.0–5.4 and 5.6–5.8. Bolt 5.5 was never used by any server
    /// and must never be negotiated.
    pub fn is_supported(self) -> bool {
        match self.major {
            4 => self.minor <= 4,
            5 => self.minor <= 8 && self.minor != 5,
            _ => false,
        }
    }

    /// From 5.1 on, credentials move from HELLO to a separate LOGON.
    pub fn has_logon(self) -> bool {
        self >= BoltVersion::new(5, 1)
    }

    /// From 5.7 on, FAILURE carries GQL status fields (`neo4j_code`, ...).
    pub fn has_gql_failures(self) -> bool {
        self >= BoltVersion::new(5, 7)
    }

    /// Whether the 4.3/4.4 `utc` patch can be agreed in HELLO.
    pub fn accepts_utc_patch(self) -> bool {
        self.major == 4 && self.minor >= 3
    }

    pub fn struct_format(self, utc_patch: bool) -> StructFormat {
        StructFormat::for_version(self.major, self.minor, utc_patch)
    }
}

impl fmt::Display for BoltVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supported_versions_skip_5_5_and_older_majors() {
        let supported: Vec<String> = (3..=6)
            .flat_map(|major| (0..=9).map(move |minor| BoltVersion::new(major, minor)))
            .filter(|v| v.is_supported())
            .map(|v| v.to_string())
            .collect();
        assert_eq!(
            supported,
            [
                "4.0", "4.1", "4.2", "4.3", "4.4", "5.0", "5.1", "5.2", "5.3", "5.4", "5.6", "5.7",
                "5.8"
            ]
        );
    }
}
