//! What the planner knows about a procedure: its name, its inputs and its
//! outputs, each with a declared type. The catalog hands these out (from the
//! database's procedure registry); the planner uses them to check a `CALL`
//! at compile time (argument count, literal argument types, yielded columns)
//! and the executor to check and coerce argument values per row.

use nereid_values::Value;

/// A procedure's declared signature, in Neo4j's notation
/// `name(in :: INTEGER?) :: (out :: STRING?)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcedureSignature {
    /// Fully qualified name, e.g. `db.labels`.
    pub name: String,
    pub inputs: Vec<ProcedureField>,
    /// Empty for a VOID procedure (`:: ()`): a call passes every input row
    /// through once and yields nothing.
    pub outputs: Vec<ProcedureField>,
    /// A search whose `YIELD ... WHERE` predicate is tested on its
    /// candidates inside the call, so that it returns its `k` best rows
    /// that *match* (the vector index queries, issue 28), instead of
    /// filtering its `k` best rows afterwards.
    pub filters_candidates: bool,
}

impl ProcedureSignature {
    /// Parses Neo4j's notation, `test.my.proc(in :: INTEGER?) :: (out :: STRING?)`
    /// (`:: ()` for a VOID procedure; a trailing `:` is ignored), as the
    /// TCK and test fixtures write signatures.
    pub fn parse_notation(text: &str) -> Result<ProcedureSignature, String> {
        let text = text.trim().trim_end_matches(':').trim();
        let open = text.find('(').ok_or("no `(` after the procedure name")?;
        let name = text[..open].trim().to_string();
        let (inputs, rest) = fields_in_parens(&text[open..])?;
        let rest = rest
            .trim()
            .strip_prefix("::")
            .ok_or("no `::` before the outputs")?;
        let (outputs, tail) = fields_in_parens(rest.trim())?;
        if !tail.trim().is_empty() {
            return Err(format!("unexpected `{tail}` after the outputs"));
        }
        Ok(ProcedureSignature {
            name,
            inputs,
            outputs,
            filters_candidates: false,
        })
    }

    /// The output column names in declaration order.
    pub fn output_names(&self) -> Vec<String> {
        self.outputs.iter().map(|f| f.name.clone()).collect()
    }

    /// VOID procedures declare no outputs.
    pub fn is_void(&self) -> bool {
        self.outputs.is_empty()
    }
}

/// `(a :: T, b :: U)` at the start of `text`, and what follows it.
fn fields_in_parens(text: &str) -> Result<(Vec<ProcedureField>, &str), String> {
    let inner = text.strip_prefix('(').ok_or("expected `(`")?;
    let close = inner.find(')').ok_or("no closing `)`")?;
    let fields = inner[..close]
        .split(',')
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(|field| {
            let (name, ty) = field
                .split_once("::")
                .ok_or_else(|| format!("field `{field}` has no `::`"))?;
            let ty = ProcedureType::parse(ty).ok_or_else(|| format!("unknown type `{ty}`"))?;
            Ok(ProcedureField::new(name.trim(), ty))
        })
        .collect::<Result<_, String>>()?;
    Ok((fields, &inner[close + 1..]))
}

/// One input or output: a name and a declared type.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcedureField {
    pub name: String,
    pub ty: ProcedureType,
    /// What a call that leaves this (trailing) input out passes
    /// (`db.awaitIndexes()` waits 300 seconds).
    pub default: Option<Value>,
}

impl ProcedureField {
    pub fn new(name: impl Into<String>, ty: ProcedureType) -> Self {
        ProcedureField {
            name: name.into(),
            ty,
            default: None,
        }
    }

    pub fn with_default(mut self, default: Option<Value>) -> Self {
        self.default = default;
        self
    }
}

/// The declared type of a procedure field. Every type admits null (Neo4j's
/// `?` suffix; the TCK declares every field nullable).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProcedureType {
    Any,
    Boolean,
    Integer,
    Float,
    Number,
    String,
    List,
    Map,
    Node,
    Relationship,
    Path,
}

impl ProcedureType {
    /// Parses a type name as written in a signature (`INTEGER?`, `FLOAT`,
    /// `LIST OF STRING?`); `None` for a name it does not know.
    pub fn parse(text: &str) -> Option<ProcedureType> {
        let text = text.trim().trim_end_matches('?').trim();
        let upper = text.to_ascii_uppercase();
        if upper.starts_with("LIST") {
            return Some(ProcedureType::List);
        }
        Some(match upper.as_str() {
            "ANY" => ProcedureType::Any,
            "BOOLEAN" => ProcedureType::Boolean,
            "INTEGER" => ProcedureType::Integer,
            "FLOAT" => ProcedureType::Float,
            "NUMBER" => ProcedureType::Number,
            "STRING" => ProcedureType::String,
            "MAP" => ProcedureType::Map,
            "NODE" => ProcedureType::Node,
            "RELATIONSHIP" => ProcedureType::Relationship,
            "PATH" => ProcedureType::Path,
            _ => return None,
        })
    }

    /// The type's name as Neo4j prints it.
    pub fn name(self) -> &'static str {
        match self {
            ProcedureType::Any => "ANY",
            ProcedureType::Boolean => "BOOLEAN",
            ProcedureType::Integer => "INTEGER",
            ProcedureType::Float => "FLOAT",
            ProcedureType::Number => "NUMBER",
            ProcedureType::String => "STRING",
            ProcedureType::List => "LIST",
            ProcedureType::Map => "MAP",
            ProcedureType::Node => "NODE",
            ProcedureType::Relationship => "RELATIONSHIP",
            ProcedureType::Path => "PATH",
        }
    }

    /// `value` as an argument of this type: unchanged when it already is
    /// one (null always is), an INTEGER widened for a FLOAT parameter (as
    /// Neo4j does), `None` when it does not fit.
    pub fn coerce(self, value: &Value) -> Option<Value> {
        let fits = match (self, value) {
            (_, Value::Null) | (ProcedureType::Any, _) => true,
            (ProcedureType::Float, Value::Int(i)) => return Some(Value::Float(*i as f64)),
            (ProcedureType::Boolean, Value::Bool(_)) => true,
            (ProcedureType::Integer, Value::Int(_)) => true,
            (ProcedureType::Float, Value::Float(_)) => true,
            (ProcedureType::Number, Value::Int(_) | Value::Float(_)) => true,
            (ProcedureType::String, Value::String(_)) => true,
            (ProcedureType::List, Value::List(_)) => true,
            (ProcedureType::Map, Value::Map(_)) => true,
            (ProcedureType::Node, Value::Node(_)) => true,
            (ProcedureType::Relationship, Value::Relationship(_)) => true,
            (ProcedureType::Path, Value::Path(_)) => true,
            _ => false,
        };
        fits.then(|| value.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nullable_and_list_types() {
        assert_eq!(
            ProcedureType::parse("INTEGER?"),
            Some(ProcedureType::Integer)
        );
        assert_eq!(
            ProcedureType::parse(" number "),
            Some(ProcedureType::Number)
        );
        assert_eq!(
            ProcedureType::parse("LIST? OF STRING?"),
            Some(ProcedureType::List)
        );
        assert_eq!(ProcedureType::parse("WIDGET"), None);
    }

    #[test]
    fn integers_widen_to_float_but_not_the_reverse() {
        assert_eq!(
            ProcedureType::Float.coerce(&Value::Int(42)),
            Some(Value::Float(42.0))
        );
        assert_eq!(ProcedureType::Integer.coerce(&Value::Float(4.2)), None);
        assert_eq!(
            ProcedureType::Number.coerce(&Value::Int(1)),
            Some(Value::Int(1))
        );
        assert_eq!(ProcedureType::Integer.coerce(&Value::Bool(true)), None);
        assert_eq!(
            ProcedureType::Integer.coerce(&Value::Null),
            Some(Value::Null)
        );
    }
}
