//! The client's transaction metadata (`tx_metadata` in BEGIN, or in RUN for
//! an auto-commit transaction): a map the transaction carries, which
//! `CALL tx.getMetaData()` returns and `tx.setMetaData` replaces.

use crate::bolt::failure::Failure;
use nereid_engine::Params;
use nereid_packstream::{PackMap, PackValue};

/// The metadata `extra` carries (absent or null: none). Anything but a map
/// of values a query could take as a parameter is refused, like a malformed
/// parameter.
pub fn from_extra(extra: &PackMap) -> Result<Params, Failure> {
    match extra.get("tx_metadata") {
        None | Some(PackValue::Null) => Ok(Params::new()),
        Some(PackValue::Map(map)) => map
            .iter()
            .map(|(key, value)| {
                nereid_packstream::pack_to_value(value.clone())
                    .map(|value| (key.to_string(), value))
                    .map_err(|e| {
                        Failure::from(crate::protocol_status::from_param("tx_metadata", e))
                    })
            })
            .collect(),
        Some(other) => Err(Failure::invalid_request(format!(
            "tx_metadata must be a map, got {}",
            other.type_name()
        ))),
    }
}
