//! The configuration map every algorithm takes, checked against the keys
//! the algorithm knows: an unknown key, a value of the wrong type or out
//! of range fails the call with a message naming the option, before any
//! work starts.

use super::context::call_failed;
use crate::error::{ExecError, ExecResult};
use nereid_algorithms::{Direction, ViewSpec};
use nereid_values::Value;
use std::collections::BTreeMap;

/// The numeric types Neptune names for `edgeWeightType`.
const WEIGHT_TYPES: &[&str] = &["int", "long", "float", "double"];

/// Keys every algorithm accepts.
pub(super) const COMMON_KEYS: &[&str] = &["edgeLabels", "vertexLabel", "concurrency"];

/// A validated configuration of one call.
pub(super) struct Config {
    procedure: &'static str,
    map: BTreeMap<String, Value>,
}

impl Config {
    /// Checks `value` (a map, or null for none) against `COMMON_KEYS` and
    /// the algorithm's own `keys`.
    pub(super) fn parse(
        procedure: &'static str,
        value: Option<&Value>,
        keys: &[&str],
    ) -> ExecResult<Config> {
        let map = match value {
            None | Some(Value::Null) => BTreeMap::new(),
            Some(Value::Map(map)) => map.clone(),
            Some(other) => {
                return Err(call_failed(
                    procedure,
                    &format!("the configuration must be a map, not {}", other.type_name()),
                ))
            }
        };
        let config = Config { procedure, map };
        if let Some(unknown) = config
            .map
            .keys()
            .find(|k| !COMMON_KEYS.contains(&k.as_str()) && !keys.contains(&k.as_str()))
        {
            let mut known: Vec<&str> = COMMON_KEYS.iter().chain(keys).copied().collect();
            known.sort_unstable();
            return Err(config.failed(&format!(
                "unknown configuration key `{unknown}` (known keys: {})",
                known.join(", ")
            )));
        }
        Ok(config)
    }

    /// The name of the procedure called.
    pub(super) fn procedure(&self) -> &'static str {
        self.procedure
    }

    pub(super) fn failed(&self, why: &str) -> ExecError {
        call_failed(self.procedure, why)
    }

    /// The value of `key`, if given and not null.
    pub(super) fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key).filter(|v| !matches!(v, Value::Null))
    }

    pub(super) fn string(&self, key: &str) -> ExecResult<Option<String>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.wrong_type(key, "a string", other)),
        }
    }

    /// A list-of-strings option (empty when left out).
    pub(super) fn strings(&self, key: &str) -> ExecResult<Vec<String>> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::List(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(self.wrong_type(key, "a list of strings", other)),
                })
                .collect(),
            Some(other) => Err(self.wrong_type(key, "a list of strings", other)),
        }
    }

    /// A list-of-integers option (empty when left out).
    pub(super) fn integers(&self, key: &str) -> ExecResult<Vec<i64>> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::List(items)) => items
                .iter()
                .map(|item| match item {
                    Value::Int(i) => Ok(*i),
                    other => Err(self.wrong_type(key, "a list of integers", other)),
                })
                .collect(),
            Some(other) => Err(self.wrong_type(key, "a list of integers", other)),
        }
    }

    /// A list-of-numbers option (integers widened), each at least 0;
    /// `None` when left out.
    pub(super) fn non_negative_numbers(&self, key: &str) -> ExecResult<Option<Vec<f64>>> {
        let expected = "a list of non-negative numbers";
        match self.get(key) {
            None => Ok(None),
            Some(Value::List(items)) => items
                .iter()
                .map(|item| match item {
                    Value::Int(i) if *i >= 0 => Ok(*i as f64),
                    Value::Float(f) if *f >= 0.0 && f.is_finite() => Ok(*f),
                    other => Err(self.wrong_type(key, expected, other)),
                })
                .collect::<ExecResult<Vec<f64>>>()
                .map(Some),
            Some(other) => Err(self.wrong_type(key, expected, other)),
        }
    }

    /// An integer option at least `min`.
    pub(super) fn integer(&self, key: &str, min: i64) -> ExecResult<Option<i64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Int(i)) if *i >= min => Ok(Some(*i)),
            Some(Value::Int(i)) => Err(self.failed(&format!(
                "configuration key `{key}` must be at least {min}, not {i}"
            ))),
            Some(other) => Err(self.wrong_type(key, "an integer", other)),
        }
    }

    /// A number option within `range` (integers are widened).
    pub(super) fn number(
        &self,
        key: &str,
        range: std::ops::RangeInclusive<f64>,
    ) -> ExecResult<Option<f64>> {
        let value = match self.get(key) {
            None => return Ok(None),
            Some(Value::Int(i)) => *i as f64,
            Some(Value::Float(f)) => *f,
            Some(other) => return Err(self.wrong_type(key, "a number", other)),
        };
        if !range.contains(&value) {
            return Err(self.failed(&format!(
                "configuration key `{key}` must be between {} and {}, not {value}",
                range.start(),
                range.end()
            )));
        }
        Ok(Some(value))
    }

    /// A boolean option.
    pub(super) fn boolean(&self, key: &str) -> ExecResult<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(self.wrong_type(key, "a boolean", other)),
        }
    }

    /// `edgeWeightProperty` and its `edgeWeightType` (one of Neptune's
    /// numeric type names, required with the property): the edge property
    /// read as weights, or `None` when the call gives none.
    pub(super) fn edge_weight(&self) -> ExecResult<Option<String>> {
        let Some(property) = self.string("edgeWeightProperty")? else {
            return Ok(None);
        };
        self.weight_type()?;
        Ok(Some(property))
    }

    /// Checks `edgeWeightType`, required with any weight property.
    pub(super) fn weight_type(&self) -> ExecResult<()> {
        match self.string("edgeWeightType")? {
            Some(t) if WEIGHT_TYPES.contains(&t.as_str()) => Ok(()),
            Some(t) => Err(self.failed(&format!(
                "configuration key `edgeWeightType` must be one of {}, not \"{t}\"",
                WEIGHT_TYPES.join(", ")
            ))),
            None => Err(self.failed("configuration key `edgeWeightType` is required")),
        }
    }

    /// `writeProperty` of a `.mutate` variant: required, not empty.
    pub(super) fn write_property(&self) -> ExecResult<String> {
        match self.string("writeProperty")? {
            Some(name) if !name.is_empty() => Ok(name),
            Some(_) => Err(self.failed("configuration key `writeProperty` must not be empty")),
            None => Err(self.failed("configuration key `writeProperty` is required")),
        }
    }

    /// `traversalDirection`: `outbound`, `inbound` or `both`.
    pub(super) fn direction(&self, default: Direction) -> ExecResult<Direction> {
        match self.string("traversalDirection")? {
            None => Ok(default),
            Some(name) => self.direction_named("traversalDirection", &name),
        }
    }

    /// A direction's name in option `key`.
    pub(super) fn direction_named(&self, key: &str, name: &str) -> ExecResult<Direction> {
        match name {
            "outbound" => Ok(Direction::Out),
            "inbound" => Ok(Direction::In),
            "both" => Ok(Direction::Both),
            other => Err(self.failed(&format!(
                "configuration key `{key}` must be \"outbound\", \"inbound\" or \"both\", not \"{other}\""
            ))),
        }
    }

    /// `concurrency`: worker threads, 0 (the default) for one per core.
    pub(super) fn concurrency(&self) -> ExecResult<usize> {
        Ok(self.integer("concurrency", 0)?.unwrap_or(0) as usize)
    }

    /// The view the options `edgeLabels` and `vertexLabel` ask for, with
    /// `weight` as the edge weight property.
    pub(super) fn view_spec(&self, weight: Option<String>) -> ExecResult<ViewSpec> {
        Ok(ViewSpec::new(
            self.strings("edgeLabels")?,
            self.string("vertexLabel")?,
            weight,
        ))
    }

    fn wrong_type(&self, key: &str, expected: &str, found: &Value) -> ExecError {
        self.failed(&format!(
            "configuration key `{key}` must be {expected}, not {}",
            found.type_name()
        ))
    }
}
