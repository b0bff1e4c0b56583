//! An index read from one end through a transaction (module
//! `schema::ends`): what `min(n.p)` / `max(n.p)` read instead of a scan.

use super::Txn;
use crate::schema::{from_end, EntityKind};
use nereid_values::Value;

impl Txn {
    /// Hands `visit` the key values of the entities the online index
    /// `name` (over `entity`) holds in this transaction's view, from its
    /// lowest entry up (`descending`: highest down), until `visit` answers
    /// `false`. `None`, with nothing read, when there is no such online
    /// index or its key order is not value order (the caller then scans).
    pub fn index_from_end(
        &self,
        name: &str,
        entity: EntityKind,
        descending: bool,
        visit: &mut dyn FnMut(&[Value]) -> bool,
    ) -> Option<()> {
        self.read_index(name, entity, |index| {
            from_end(&self.reader(), index, descending, visit)
        })?
    }
}
