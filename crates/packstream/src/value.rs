//! The wire-level value model.

use std::collections::HashMap;

/// A PackStream value as it appears on the wire.
///
/// Unlike [`nereid_values::Value`] it keeps dictionary entry order (so that
/// messages encode deterministically, in the order the server wrote them)
/// and has an open `Struct` variant for every tagged structure.
#[derive(Clone, Debug, PartialEq)]
pub enum PackValue {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Bytes(Vec<u8>),
    String(String),
    List(Vec<PackValue>),
    Map(PackMap),
    Struct { tag: u8, fields: Vec<PackValue> },
}

impl PackValue {
    /// A short name for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            PackValue::Null => "Null",
            PackValue::Bool(_) => "Boolean",
            PackValue::Int(_) => "Integer",
            PackValue::Float(_) => "Float",
            PackValue::Bytes(_) => "Bytes",
            PackValue::String(_) => "String",
            PackValue::List(_) => "List",
            PackValue::Map(_) => "Dictionary",
            PackValue::Struct { .. } => "Structure",
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            PackValue::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            PackValue::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&PackMap> {
        match self {
            PackValue::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_list(&self) -> Option<&[PackValue]> {
        match self {
            PackValue::List(l) => Some(l),
            _ => None,
        }
    }
}

impl From<&str> for PackValue {
    fn from(s: &str) -> Self {
        PackValue::String(s.to_string())
    }
}
impl From<String> for PackValue {
    fn from(s: String) -> Self {
        PackValue::String(s)
    }
}
impl From<i64> for PackValue {
    fn from(i: i64) -> Self {
        PackValue::Int(i)
    }
}
impl From<bool> for PackValue {
    fn from(b: bool) -> Self {
        PackValue::Bool(b)
    }
}
impl From<f64> for PackValue {
    fn from(f: f64) -> Self {
        PackValue::Float(f)
    }
}
impl From<PackMap> for PackValue {
    fn from(m: PackMap) -> Self {
        PackValue::Map(m)
    }
}
impl From<Vec<PackValue>> for PackValue {
    fn from(l: Vec<PackValue>) -> Self {
        PackValue::List(l)
    }
}

/// A PackStream dictionary: string keys, insertion order kept, keys unique.
///
/// Invariant: no key appears twice. A duplicate key replaces the earlier
/// value in place ("last one wins", as the specification requires).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackMap {
    entries: Vec<(String, PackValue)>,
}

impl PackMap {
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds a map from entries that may repeat keys; the last value wins.
    /// Linear in the number of entries (decoders feed it untrusted input).
    pub fn from_entries_last_wins(raw: Vec<(String, PackValue)>) -> Self {
        if raw.len() <= 8 {
            let mut map = PackMap {
                entries: Vec::with_capacity(raw.len()),
            };
            for (k, v) in raw {
                map.insert(k, v);
            }
            return map;
        }
        let mut index: HashMap<String, usize> = HashMap::with_capacity(raw.len());
        let mut entries: Vec<(String, PackValue)> = Vec::with_capacity(raw.len());
        for (k, v) in raw {
            match index.get(&k) {
                Some(&at) => {
                    if let Some(slot) = entries.get_mut(at) {
                        slot.1 = v;
                    }
                }
                None => {
                    index.insert(k.clone(), entries.len());
                    entries.push((k, v));
                }
            }
        }
        PackMap { entries }
    }

    /// Inserts or replaces (keeping the key's original position).
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<PackValue>) {
        let key = key.into();
        let value = value.into();
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    /// Builder-style [`PackMap::insert`].
    pub fn with(mut self, key: impl Into<String>, value: impl Into<PackValue>) -> Self {
        self.insert(key, value);
        self
    }

    pub fn get(&self, key: &str) -> Option<&PackValue> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn remove(&mut self, key: &str) -> Option<PackValue> {
        let at = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(at).1)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &PackValue)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }
}

impl IntoIterator for PackMap {
    type Item = (String, PackValue);
    type IntoIter = std::vec::IntoIter<(String, PackValue)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl FromIterator<(String, PackValue)> for PackMap {
    fn from_iter<I: IntoIterator<Item = (String, PackValue)>>(iter: I) -> Self {
        PackMap::from_entries_last_wins(iter.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_keep_the_last_value_in_the_first_position() {
        let small = PackMap::from_entries_last_wins(vec![
            ("a".into(), PackValue::Int(1)),
            ("b".into(), PackValue::Int(2)),
            ("a".into(), PackValue::Int(3)),
        ]);
        assert_eq!(small.len(), 2);
        assert_eq!(small.get("a"), Some(&PackValue::Int(3)));
        assert_eq!(small.iter().next().map(|(k, _)| k), Some("a"));

        let mut raw: Vec<(String, PackValue)> = (0..20)
            .map(|i| (format!("k{i}"), PackValue::Int(i)))
            .collect();
        raw.push(("k3".into(), PackValue::Null));
        let large = PackMap::from_entries_last_wins(raw);
        assert_eq!(large.len(), 20);
        assert_eq!(large.get("k3"), Some(&PackValue::Null));
    }
}
