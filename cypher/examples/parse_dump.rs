//! Prints the AST (or the error) of the query given as the first argument; a debugging aid.
fn main() {
    let query = std::env::args().nth(1).unwrap_or_default();
    match nereid_cypher::parse(&query) {
        Ok(statement) => {
            println!("{statement:#?}");
            match nereid_cypher::analyze(&statement) {
                Ok(()) => println!("analysis: ok"),
                Err(error) => println!("analysis error ({:?}):\n{}", error.kind, error.message),
            }
        }
        Err(error) => println!("parse error ({:?}):\n{}", error.kind, error.message),
    }
}
