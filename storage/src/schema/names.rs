//! The names Neo4j 5 gives an index or constraint created without one:
//! `index_` or `constraint_` and the hex digits of a 32-bit hash of the
//! rule's schema (entity kind, label or type name, property names, kind).
//! A user who drops `index_2f0a0b6e` in a script written against Neo4j
//! finds the same name here, so the hash is Neo4j's, reproduced from what
//! it shows: an xxHash64 round per 8-byte block (no 32-byte stripes),
//! seeded with Java's `Boolean.hashCode` of "is a constraint", fed the
//! entity ordinal, the schema kind, each name list as its length then
//! each name's Java `String.hashCode`, then the index kind and "unique"
//! (indexes) or the constraint kind and its index kind or property type
//! (constraints); the 64-bit result is folded to 32 bits and printed as
//! Java's `%x` prints an int (no leading zeros). Checked against names
//! the reference Neo4j 5.26 generated for range, text, point, vector and
//! full-text indexes and uniqueness constraints on nodes and
//! relationships (the tests below); existence, key and property-type
//! constraints exist only in Neo4j's Enterprise Edition, so their inputs
//! follow the same pattern but only a single property type (`INTEGER`)
//! was confirmed: unions and lists may name differently from Neo4j, and
//! stay deterministic.

use super::defs::{ConstraintDef, ConstraintKind, EntityKind, IndexDef, IndexKind};

const PRIME1: u64 = 0x9E37_79B1_85EB_CA87;
const PRIME2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const PRIME3: u64 = 0x1656_67B1_9E37_79F9;
const PRIME4: u64 = 0x85EB_CA77_C2B2_AE63;
const PRIME5: u64 = 0x27D4_EB2F_1656_67C5;

/// Neo4j's index kinds as the hash numbers them.
const RANGE: i64 = 4;
const TEXT: i64 = 3;
const VECTOR: i64 = 6;
const FULLTEXT: i64 = 1;
/// Java's `Boolean.hashCode(true)` / `(false)`.
const JAVA_TRUE: i64 = 1231;
const JAVA_FALSE: i64 = 1237;

/// The incremental hash state.
struct Hash(u64);

impl Hash {
    fn new(seed: i64) -> Hash {
        Hash((seed as u64).wrapping_add(PRIME5))
    }

    fn add(mut self, block: i64) -> Hash {
        let block = (block as u64)
            .wrapping_mul(PRIME2)
            .rotate_left(31)
            .wrapping_mul(PRIME1);
        let h = self.0.wrapping_add(8) ^ block;
        self.0 = h.rotate_left(27).wrapping_mul(PRIME1).wrapping_add(PRIME4);
        self
    }

    fn add_names(self, names: &[&str]) -> Hash {
        let mut h = self.add(names.len() as i64);
        for name in names {
            h = h.add(i64::from(java_string_hash(name)));
        }
        h
    }

    /// The avalanche, folded to 32 bits.
    fn finish(self) -> u32 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(PRIME2);
        h ^= h >> 29;
        h = h.wrapping_mul(PRIME3);
        h ^= h >> 32;
        ((h >> 32) ^ h) as u32
    }
}

/// Java's `String.hashCode`: over UTF-16 code units.
fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// `matching`: the schema kind, 0 for a rule over all its labels and keys,
/// 1 for one over any of them (a full-text index's).
fn schema(seed: i64, entity: EntityKind, matching: i64, labels: &[&str], keys: &[String]) -> Hash {
    let entity = match entity {
        EntityKind::Node => 0,
        EntityKind::Relationship => 1,
    };
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    Hash::new(seed)
        .add(entity)
        .add(matching)
        .add_names(labels)
        .add_names(&keys)
}

/// The name of an unnamed index.
pub(crate) fn index_name(def: &IndexDef) -> String {
    let kind = match def.kind {
        IndexKind::Range => RANGE,
        IndexKind::Text => TEXT,
        IndexKind::Vector { .. } => VECTOR,
        IndexKind::Fulltext { .. } => FULLTEXT,
    };
    let labels: Vec<&str> = def.labels().map(String::as_str).collect();
    let matching = i64::from(def.kind.is_fulltext());
    let hash = schema(JAVA_FALSE, def.entity, matching, &labels, &def.keys)
        .add(kind)
        .add(JAVA_FALSE)
        .finish();
    format!("index_{hash:x}")
}

/// The name of an unnamed constraint; `property_types` is how a
/// property-type constraint shows its types (`INTEGER`, `STRING | INTEGER`).
pub(crate) fn constraint_name(def: &ConstraintDef, property_types: &str) -> String {
    let h = schema(JAVA_TRUE, def.entity, 0, &[def.label.as_str()], &def.keys);
    let h = match def.kind {
        ConstraintKind::Unique => h.add(0).add(RANGE),
        ConstraintKind::Exists => h.add(1),
        ConstraintKind::Key => h.add(2).add(RANGE),
        ConstraintKind::PropertyType(_) => {
            h.add(3).add(i64::from(java_string_hash(property_types)))
        }
    };
    format!("constraint_{:x}", h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(kind: IndexKind, entity: EntityKind, label: &str, keys: &[&str]) -> String {
        index_name(&IndexDef {
            name: String::new(),
            kind,
            entity,
            label: label.into(),
            more_labels: Vec::new(),
            keys: keys.iter().map(|k| k.to_string()).collect(),
        })
    }

    fn constraint(kind: ConstraintKind, entity: EntityKind, label: &str, keys: &[&str]) -> String {
        let def = ConstraintDef {
            name: String::new(),
            kind,
            entity,
            label: label.into(),
            keys: keys.iter().map(|k| k.to_string()).collect(),
        };
        constraint_name(&def, "INTEGER")
    }

    /// Names the reference Neo4j 5.26.30 generated for full-text indexes.
    #[test]
    fn unnamed_fulltext_indexes_are_named_as_neo4j_names_them() {
        let fulltext = |entity, labels: [&str; 2]| {
            index_name(&IndexDef {
                name: String::new(),
                kind: IndexKind::Fulltext {
                    analyzer: nereid_fulltext::Analyzer::StandardNoStopWords,
                    eventually_consistent: false,
                },
                entity,
                label: labels[0].into(),
                more_labels: vec![labels[1].into()],
                keys: vec!["title".into()],
            })
        };
        assert_eq!(
            fulltext(EntityKind::Node, ["Book", "Film"]),
            "index_e74d092f"
        );
        assert_eq!(
            fulltext(EntityKind::Relationship, ["R", "S"]),
            "index_ae401a5f"
        );
    }

    /// Names the reference Neo4j 5.26.30 generated for these rules.
    #[test]
    fn unnamed_indexes_are_named_as_neo4j_names_them() {
        use EntityKind::{Node, Relationship};
        let vector = IndexKind::Vector {
            dimensions: Some(3),
            similarity: nereid_vector::Similarity::Cosine,
        };
        let cases = [
            (index(IndexKind::Range, Node, "A", &["p"]), "index_2f0a0b6e"),
            (index(IndexKind::Range, Node, "B", &["p"]), "index_e77ccf6b"),
            (index(IndexKind::Range, Node, "A", &["q"]), "index_699f2e71"),
            (
                index(IndexKind::Range, Node, "A", &["p", "q"]),
                "index_7b452167",
            ),
            (
                index(IndexKind::Range, Node, "Person", &["name"]),
                "index_4b2e9408",
            ),
            (index(IndexKind::Range, Node, "U", &["e"]), "index_3c510236"),
            (
                index(
                    IndexKind::Range,
                    Node,
                    "Ünïcode label",
                    &["prop with spaces and a long name that goes on"],
                ),
                "index_861e0082",
            ),
            (index(IndexKind::Text, Node, "A", &["p"]), "index_6453f8cc"),
            (
                index(IndexKind::Range, Relationship, "T", &["p"]),
                "index_12080d61",
            ),
            (
                index(IndexKind::Range, Relationship, "T", &["p", "q", "s"]),
                "index_efd43274",
            ),
            (
                index(IndexKind::Text, Relationship, "T", &["p"]),
                "index_a63e6a80",
            ),
            (
                index(IndexKind::Text, Relationship, "T", &["t"]),
                "index_f80daf6a",
            ),
            (index(vector, Node, "A", &["v"]), "index_b861cf79"),
        ];
        for (ours, neo4j) in cases {
            assert_eq!(ours, neo4j);
        }
    }

    #[test]
    fn unnamed_constraints_are_named_as_neo4j_names_them() {
        use ConstraintKind::{PropertyType, Unique};
        use EntityKind::{Node, Relationship};
        let cases = [
            (constraint(Unique, Node, "U", &["e"]), "constraint_8f1f9a68"),
            (
                constraint(Unique, Node, "U", &["a", "b"]),
                "constraint_e486d68e",
            ),
            (
                constraint(Unique, Node, "Person", &["email"]),
                "constraint_8c27bf15",
            ),
            (
                constraint(Unique, Relationship, "R", &["e"]),
                "constraint_29b408cf",
            ),
            (
                constraint(Unique, Relationship, "R", &["e", "f"]),
                "constraint_72fc9fea",
            ),
            (
                constraint(PropertyType(vec![]), Node, "P", &["e"]),
                "constraint_efc60ec5",
            ),
        ];
        for (ours, neo4j) in cases {
            assert_eq!(ours, neo4j);
        }
    }

    #[test]
    fn java_string_hashes_count_utf16_units() {
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("a"), 97);
        // Overflow wraps as Java's int does.
        assert_eq!(java_string_hash("polygenelubricants"), i32::MIN);
    }
}
