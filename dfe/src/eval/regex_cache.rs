//! `=~`: whole-string regular expression matching with compiled patterns
//! cached per query (a pattern usually repeats on every row).

use crate::error::{ExecError, ExecResult};
use nereid_values::Value;
use regex::Regex;
use std::collections::HashMap;

/// Bound on cached patterns, so a query that builds a new pattern per row
/// cannot grow the cache without limit.
const MAX_CACHED: usize = 256;

/// Compiled patterns of one query, keyed by their source text.
#[derive(Default, Debug)]
pub struct RegexCache {
    compiled: HashMap<String, Regex>,
}

impl RegexCache {
    /// `text =~ pattern`: null unless both are strings; the pattern must
    /// match the whole string (as Java's `String.matches`).
    pub fn matches(&mut self, text: &Value, pattern: &Value) -> ExecResult<Value> {
        let (Value::String(text), Value::String(pattern)) = (text, pattern) else {
            return Ok(Value::Null);
        };
        if let Some(re) = self.compiled.get(pattern) {
            return Ok(Value::Bool(re.is_match(text)));
        }
        let re = Regex::new(&format!("^(?:{pattern})$"))
            .map_err(|e| ExecError::Argument(format!("Invalid Regex: {e}")))?;
        let matched = re.is_match(text);
        if self.compiled.len() >= MAX_CACHED {
            self.compiled.clear();
        }
        self.compiled.insert(pattern.clone(), re);
        Ok(Value::Bool(matched))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_whole_string_only() {
        let mut cache = RegexCache::default();
        let text = Value::from("abc");
        assert_eq!(
            cache.matches(&text, &Value::from("a.c")),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            cache.matches(&text, &Value::from("b")),
            Ok(Value::Bool(false))
        );
        assert_eq!(cache.matches(&text, &Value::Int(1)), Ok(Value::Null));
        assert!(matches!(
            cache.matches(&text, &Value::from("(")),
            Err(ExecError::Argument(_))
        ));
    }
}
