pub(crate) fn check_statement(_s: &crate::ast::Statement) -> Result<(), crate::CypherError> { Ok(()) }
