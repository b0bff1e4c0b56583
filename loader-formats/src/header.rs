//! Header rows: which column is the id, the labels, the endpoints, and what
//! type each property column has. Both header vocabularies are read here;
//! the rest of the reader sees only [`Column`]s.

use std::sync::Arc;

use crate::value_type::ValueType;
use crate::Format;

/// Whether a file holds nodes or relationships, decided by its header.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FileKind {
    Nodes,
    Relationships,
}

/// Neptune's `(single)` / `(set)` suffix: how a loader merges a value into
/// a property that already has one. Records carry values only; a loader
/// that merges asks the header.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cardinality {
    Single,
    Set,
}

/// A typed property column.
#[derive(Clone, Debug, PartialEq)]
pub struct PropertyColumn {
    pub name: Arc<str>,
    pub value_type: ValueType,
    /// `type[]`: the field is a list split on the array delimiter.
    pub array: bool,
    /// `None` where the format has no such notion (openCypher CSV).
    pub cardinality: Option<Cardinality>,
}

#[derive(Clone, Debug)]
pub(crate) enum Column {
    /// The node id (or a relationship's own id); `property` also stores it
    /// as a string property (`name:ID`).
    Id {
        space: Option<Arc<str>>,
        property: Option<Arc<str>>,
    },
    Label,
    Start(Option<Arc<str>>),
    End(Option<Arc<str>>),
    Type,
    Ignore,
    /// Index into [`Header::properties`].
    Property(usize),
}

/// A parsed header row.
#[derive(Clone, Debug)]
pub struct Header {
    kind: FileKind,
    pub(crate) columns: Vec<Column>,
    properties: Vec<PropertyColumn>,
}

impl Header {
    pub fn kind(&self) -> FileKind {
        self.kind
    }

    pub fn properties(&self) -> &[PropertyColumn] {
        &self.properties
    }

    /// The id spaces of a relationship file's start and end columns
    /// (`None`: the global space, or no such column).
    pub fn end_spaces(&self) -> [Option<Arc<str>>; 2] {
        let mut spaces = [None, None];
        for column in &self.columns {
            match column {
                Column::Start(space) => spaces[0] = space.clone(),
                Column::End(space) => spaces[1] = space.clone(),
                _ => {}
            }
        }
        spaces
    }
}

/// A header problem, placed by the caller (which knows line and columns).
pub(crate) enum HeaderError {
    /// Field index and reason.
    Bad(usize, &'static str),
    UnknownType(usize, String),
    Missing(&'static str),
}

pub(crate) fn parse(format: Format, fields: &[&str]) -> Result<Header, HeaderError> {
    let mut columns = Vec::with_capacity(fields.len());
    let mut properties: Vec<PropertyColumn> = Vec::new();
    for (i, text) in fields.iter().enumerate() {
        let column = match format {
            Format::OpenCypher => open_cypher_column(text),
            Format::NeptuneCsv => neptune_column(text),
        }
        .map_err(|e| match e {
            ColumnError::Bad(reason) => HeaderError::Bad(i, reason),
            ColumnError::UnknownType(t) => HeaderError::UnknownType(i, t),
        })?;
        let column = match column {
            Parsed::System(c) => {
                let twice = columns
                    .iter()
                    .any(|o| std::mem::discriminant(o) == std::mem::discriminant(&c))
                    && !matches!(c, Column::Ignore);
                if twice {
                    return Err(HeaderError::Bad(i, "this system column appears twice"));
                }
                c
            }
            Parsed::Property(p) => {
                if properties.iter().any(|o| o.name == p.name) {
                    return Err(HeaderError::Bad(i, "this property appears twice"));
                }
                properties.push(p);
                Column::Property(properties.len() - 1)
            }
        };
        columns.push(column);
    }
    let start = position(&columns, |c| matches!(c, Column::Start(_)));
    let end = position(&columns, |c| matches!(c, Column::End(_)));
    let (from, to, ty, id) = match format {
        Format::OpenCypher => (":START_ID", ":END_ID", ":TYPE", ":ID"),
        Format::NeptuneCsv => ("~from", "~to", "~label", "~id"),
    };
    let kind = if start.is_some() || end.is_some() {
        if start.is_none() {
            return Err(HeaderError::Missing(from));
        }
        if end.is_none() {
            return Err(HeaderError::Missing(to));
        }
        // Neptune's `~label` of an edge is optional (it defaults to `edge`).
        if format == Format::OpenCypher
            && position(&columns, |c| matches!(c, Column::Type)).is_none()
        {
            return Err(HeaderError::Missing(ty));
        }
        if let Some(i) = position(&columns, |c| matches!(c, Column::Label)) {
            if format == Format::OpenCypher {
                return Err(HeaderError::Bad(i, "labels belong in a node file"));
            }
            // Neptune's `~label` of an edge is its type.
            columns[i] = Column::Type;
        }
        if format == Format::NeptuneCsv {
            if let Some(p) = properties.iter().position(|p| p.array) {
                let i = columns
                    .iter()
                    .position(|c| matches!(c, Column::Property(q) if *q == p))
                    .unwrap_or(0);
                return Err(HeaderError::Bad(i, "an edge property has a single value"));
            }
            if let Some(p) = properties
                .iter()
                .position(|p| p.cardinality == Some(Cardinality::Set))
            {
                let i = columns
                    .iter()
                    .position(|c| matches!(c, Column::Property(q) if *q == p))
                    .unwrap_or(0);
                return Err(HeaderError::Bad(
                    i,
                    "an edge property has cardinality single",
                ));
            }
        }
        FileKind::Relationships
    } else {
        if position(&columns, |c| matches!(c, Column::Id { .. })).is_none() {
            return Err(HeaderError::Missing(id));
        }
        if let Some(i) = position(&columns, |c| matches!(c, Column::Type)) {
            return Err(HeaderError::Bad(i, "a type belongs in a relationship file"));
        }
        FileKind::Nodes
    };
    if format == Format::NeptuneCsv {
        let default = match kind {
            FileKind::Nodes => Cardinality::Set,
            FileKind::Relationships => Cardinality::Single,
        };
        for p in &mut properties {
            p.cardinality.get_or_insert(default);
        }
    }
    Ok(Header {
        kind,
        columns,
        properties,
    })
}

fn position(columns: &[Column], f: fn(&Column) -> bool) -> Option<usize> {
    columns.iter().position(f)
}

enum Parsed {
    System(Column),
    Property(PropertyColumn),
}

enum ColumnError {
    Bad(&'static str),
    UnknownType(String),
}

/// `name:TYPE(space)` in the neo4j-admin / Neptune openCypher vocabulary.
fn open_cypher_column(text: &str) -> Result<Parsed, ColumnError> {
    if text.ends_with('}') {
        return Err(ColumnError::Bad("header options `{...}` are not supported"));
    }
    let (rest, group) = split_group(text)?;
    let (name, ty) = match rest.rfind(':') {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let space = || group.map(Arc::<str>::from);
    let system = match ty {
        Some("ID") => Some(Column::Id {
            space: space(),
            property: (!name.is_empty()).then(|| Arc::from(name)),
        }),
        Some("START_ID") => Some(Column::Start(space())),
        Some("END_ID") => Some(Column::End(space())),
        Some("LABEL") => Some(Column::Label),
        Some("TYPE") => Some(Column::Type),
        Some("IGNORE") => Some(Column::Ignore),
        _ => None,
    };
    if let Some(column) = system {
        let takes_group = matches!(
            column,
            Column::Id { .. } | Column::Start(_) | Column::End(_)
        );
        if group.is_some() && !takes_group {
            return Err(ColumnError::Bad(
                "only :ID, :START_ID and :END_ID take an id space",
            ));
        }
        return Ok(Parsed::System(column));
    }
    if group.is_some() {
        return Err(ColumnError::Bad(
            "only :ID, :START_ID and :END_ID take an id space",
        ));
    }
    property(name, ty, None)
}

/// `~id`, `~label`, `~from`, `~to` or `name:Type(cardinality)[]` in
/// Neptune's Gremlin CSV vocabulary (`\:` escapes a colon in the name).
fn neptune_column(text: &str) -> Result<Parsed, ColumnError> {
    let system = match text {
        "~id" => Some(Column::Id {
            space: None,
            property: None,
        }),
        "~label" => Some(Column::Label),
        "~from" => Some(Column::Start(None)),
        "~to" => Some(Column::End(None)),
        _ => None,
    };
    if let Some(column) = system {
        return Ok(Parsed::System(column));
    }
    if text.starts_with('~') {
        return Err(ColumnError::Bad("unknown system column"));
    }
    // The last colon not escaped by a backslash separates the type.
    let bytes = text.as_bytes();
    let split = (0..bytes.len())
        .rev()
        .find(|&i| bytes[i] == b':' && (i == 0 || bytes[i - 1] != b'\\'));
    let (raw_name, ty) = match split {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    let name = raw_name.replace("\\:", ":");
    let Some(ty) = ty else {
        return property(&name, None, None);
    };
    // `Type(card)[]` or `Type[](card)`.
    let (ty, array_first) = match ty.strip_suffix("[]") {
        Some(t) => (t, true),
        None => (ty, false),
    };
    let (ty, group) = split_group(ty)?;
    // Unspecified until the file's kind is known (nodes: set, edges: single).
    let cardinality = match group.map(str::to_ascii_lowercase).as_deref() {
        None => None,
        Some("single") => Some(Cardinality::Single),
        Some("set") => Some(Cardinality::Set),
        Some(_) => return Err(ColumnError::Bad("cardinality is `single` or `set`")),
    };
    let ty = if array_first {
        format!("{ty}[]")
    } else {
        ty.to_string()
    };
    let mut parsed = property(&name, Some(&ty), cardinality)?;
    if let Parsed::Property(p) = &mut parsed {
        // Neptune's Gremlin `Date` is an instant, not a calendar date.
        if p.value_type == ValueType::Date {
            p.value_type = ValueType::DateTime;
        }
    }
    Ok(parsed)
}

/// Splits a trailing `(...)` off; `Ok((text, None))` without one.
fn split_group(text: &str) -> Result<(&str, Option<&str>), ColumnError> {
    let Some(body) = text.strip_suffix(')') else {
        return Ok((text, None));
    };
    match body.rfind('(') {
        Some(i) => Ok((&body[..i], Some(&body[i + 1..]))),
        None => Err(ColumnError::Bad("unbalanced parenthesis")),
    }
}

fn property(
    name: &str,
    ty: Option<&str>,
    cardinality: Option<Cardinality>,
) -> Result<Parsed, ColumnError> {
    if name.is_empty() {
        return Err(ColumnError::Bad("a property column needs a name"));
    }
    let (value_type, array) = match ty {
        None => (ValueType::String, false),
        Some(t) => {
            let (base, array) = match t.strip_suffix("[]") {
                Some(b) => (b, true),
                None => (t, false),
            };
            let value_type = ValueType::from_name(base)
                .ok_or_else(|| ColumnError::UnknownType(t.to_string()))?;
            (value_type, array)
        }
    };
    Ok(Parsed::Property(PropertyColumn {
        name: Arc::from(name),
        value_type,
        array,
        cardinality,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(format: Format, fields: &[&str]) -> Header {
        match parse(format, fields) {
            Ok(h) => h,
            Err(_) => panic!("{fields:?} should parse"),
        }
    }

    #[test]
    fn both_vocabularies_give_the_same_properties() {
        let h = header(
            Format::OpenCypher,
            &[
                "id:ID(Person)",
                ":LABEL",
                "age:Int",
                "n:long",
                "tags:string[]",
                "x",
            ],
        );
        assert_eq!(h.kind(), FileKind::Nodes);
        let types: Vec<_> = h
            .properties()
            .iter()
            .map(|p| (&*p.name, p.value_type, p.array))
            .collect();
        assert_eq!(
            types,
            vec![
                ("age", ValueType::Int, false),
                ("n", ValueType::Long, false),
                ("tags", ValueType::String, true),
                ("x", ValueType::String, false),
            ]
        );
    }

    #[test]
    fn neptune_names_unescape_colons_and_read_cardinality() {
        let h = header(
            Format::NeptuneCsv,
            &["~id", "a\\:b:Int(single)", "t:String(set)[]", "d:Date"],
        );
        let p = h.properties();
        assert_eq!(&*p[0].name, "a:b");
        assert_eq!(p[0].cardinality, Some(Cardinality::Single));
        assert!(p[1].array);
        assert_eq!(p[2].value_type, ValueType::DateTime);
    }

    #[test]
    fn a_relationship_file_needs_both_ends_and_a_type() {
        assert!(matches!(
            parse(Format::OpenCypher, &[":START_ID", ":TYPE"]),
            Err(HeaderError::Missing(":END_ID"))
        ));
        assert!(matches!(
            parse(Format::OpenCypher, &[":START_ID", ":END_ID"]),
            Err(HeaderError::Missing(":TYPE"))
        ));
        assert!(matches!(
            parse(Format::OpenCypher, &["name"]),
            Err(HeaderError::Missing(":ID"))
        ));
    }
}
