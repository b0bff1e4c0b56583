//! The encoding of schema changes (format version 1, tags 9-12 of
//! `codec`): names and keys as length-prefixed strings, kinds as one byte
//! each (a vector index's followed by its dimensions, 0 for none, and its
//! similarity; a full-text index's by its analyzer's name, whether it is
//! eventually consistent and its labels after the first); property types as a tag per type, a list's element type after
//! its tag.

use super::{put_str, put_varint, Reader};
use nereid_fulltext::Analyzer;
use nereid_storage::{ConstraintDef, ConstraintKind, EntityKind, IndexDef, IndexKind, ValueType};
use nereid_vector::Similarity;

pub(super) fn put_index(out: &mut Vec<u8>, def: &IndexDef) {
    put_str(out, &def.name);
    match def.kind {
        IndexKind::Range => out.push(0),
        IndexKind::Text => out.push(1),
        IndexKind::Vector {
            dimensions,
            similarity,
        } => {
            out.push(2);
            put_varint(out, dimensions.map_or(0, u64::from));
            out.push(match similarity {
                Similarity::Cosine => 0,
                Similarity::Euclidean => 1,
            });
        }
        IndexKind::Fulltext {
            analyzer,
            eventually_consistent,
        } => {
            out.push(3);
            put_str(out, analyzer.name());
            out.push(u8::from(eventually_consistent));
            put_varint(out, def.more_labels.len() as u64);
            for label in &def.more_labels {
                put_str(out, label);
            }
        }
    }
    put_target(out, def.entity, &def.label, &def.keys);
}

pub(super) fn put_constraint(out: &mut Vec<u8>, def: &ConstraintDef) {
    put_str(out, &def.name);
    match &def.kind {
        ConstraintKind::Unique => out.push(0),
        ConstraintKind::Exists => out.push(1),
        ConstraintKind::Key => out.push(2),
        ConstraintKind::PropertyType(types) => {
            out.push(3);
            put_varint(out, types.len() as u64);
            for t in types {
                put_type(out, t);
            }
        }
    }
    put_target(out, def.entity, &def.label, &def.keys);
}

fn put_target(out: &mut Vec<u8>, entity: EntityKind, label: &str, keys: &[String]) {
    out.push(match entity {
        EntityKind::Node => 0,
        EntityKind::Relationship => 1,
    });
    put_str(out, label);
    put_varint(out, keys.len() as u64);
    for key in keys {
        put_str(out, key);
    }
}

fn put_type(out: &mut Vec<u8>, t: &ValueType) {
    let tag = match t {
        ValueType::Boolean => 0,
        ValueType::String => 1,
        ValueType::Integer => 2,
        ValueType::Float => 3,
        ValueType::Date => 4,
        ValueType::LocalTime => 5,
        ValueType::ZonedTime => 6,
        ValueType::LocalDateTime => 7,
        ValueType::ZonedDateTime => 8,
        ValueType::Duration => 9,
        ValueType::Point => 10,
        ValueType::List(inner) => {
            out.push(11);
            put_type(out, inner);
            return;
        }
    };
    out.push(tag);
}

pub(super) fn index(r: &mut Reader<'_>) -> Result<IndexDef, String> {
    let name = r.string()?;
    let mut more_labels = Vec::new();
    let kind = match r.byte()? {
        0 => IndexKind::Range,
        1 => IndexKind::Text,
        2 => {
            let dimensions = match r.varint()? {
                0 => None,
                d => Some(u32::try_from(d).map_err(|_| format!("vector dimensions {d}"))?),
            };
            let similarity = match r.byte()? {
                0 => Similarity::Cosine,
                1 => Similarity::Euclidean,
                other => return Err(format!("unknown vector similarity {other}")),
            };
            IndexKind::Vector {
                dimensions,
                similarity,
            }
        }
        3 => {
            let analyzer_name = r.string()?;
            let analyzer = Analyzer::from_name(&analyzer_name)
                .ok_or_else(|| format!("unknown full-text analyzer {analyzer_name}"))?;
            let eventually_consistent = r.byte()? != 0;
            for _ in 0..r.varint()? {
                more_labels.push(r.string()?);
            }
            IndexKind::Fulltext {
                analyzer,
                eventually_consistent,
            }
        }
        other => return Err(format!("unknown index kind {other}")),
    };
    let (entity, label, keys) = target(r)?;
    Ok(IndexDef {
        name,
        kind,
        entity,
        label,
        more_labels,
        keys,
    })
}

pub(super) fn constraint(r: &mut Reader<'_>) -> Result<ConstraintDef, String> {
    let name = r.string()?;
    let kind = match r.byte()? {
        0 => ConstraintKind::Unique,
        1 => ConstraintKind::Exists,
        2 => ConstraintKind::Key,
        3 => {
            let n = r.varint()?;
            let mut types = Vec::new();
            for _ in 0..n {
                types.push(value_type(r, 0)?);
            }
            ConstraintKind::PropertyType(types)
        }
        other => return Err(format!("unknown constraint kind {other}")),
    };
    let (entity, label, keys) = target(r)?;
    Ok(ConstraintDef {
        name,
        kind,
        entity,
        label,
        keys,
    })
}

fn target(r: &mut Reader<'_>) -> Result<(EntityKind, String, Vec<String>), String> {
    let entity = match r.byte()? {
        0 => EntityKind::Node,
        1 => EntityKind::Relationship,
        other => return Err(format!("unknown entity kind {other}")),
    };
    let label = r.string()?;
    let n = r.varint()?;
    let mut keys = Vec::new();
    for _ in 0..n {
        keys.push(r.string()?);
    }
    Ok((entity, label, keys))
}

fn value_type(r: &mut Reader<'_>, depth: usize) -> Result<ValueType, String> {
    if depth > super::MAX_DEPTH {
        return Err("property type nested too deeply".into());
    }
    Ok(match r.byte()? {
        0 => ValueType::Boolean,
        1 => ValueType::String,
        2 => ValueType::Integer,
        3 => ValueType::Float,
        4 => ValueType::Date,
        5 => ValueType::LocalTime,
        6 => ValueType::ZonedTime,
        7 => ValueType::LocalDateTime,
        8 => ValueType::ZonedDateTime,
        9 => ValueType::Duration,
        10 => ValueType::Point,
        11 => ValueType::List(Box::new(value_type(r, depth + 1)?)),
        other => return Err(format!("unknown property type {other}")),
    })
}
