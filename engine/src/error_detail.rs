//! The openCypher error detail (`UndefinedVariable`, ...) an error's
//! message starts with (ADR 0010), told apart from the text after it.
//!
//! Inside the engine a message keeps the detail as its prefix: the parser,
//! planner and executor name it where they raise the error, and the
//! in-process TCK and golden runners read it there. Clients match Neo4j's
//! text instead (langchain and LlamaIndex test a failure's message), so the
//! front ends send the message without the prefix and the detail in the
//! GQL status description (docs/adr/0138-virtual-entities-and-error-details.md).
//!
//! Only the known names count as a prefix: a message a user wrote
//! (`apoc.util.validate`'s, a procedure's) may start with `Word: ` too.

use nereid_cypher::Detail;

/// The detail `message` starts with, if any, and the text after it.
pub(crate) fn split(message: &str) -> (Option<&'static str>, &str) {
    let Some((head, rest)) = message.split_once(": ") else {
        return (None, message);
    };
    let known = Detail::ALL
        .iter()
        .map(|detail| detail.name())
        .find(|name| *name == head);
    match known {
        Some(name) => (Some(name), rest),
        None => (None, message),
    }
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn only_known_details_are_split_off() {
        assert_eq!(
            split("UndefinedVariable: Variable `x` not defined"),
            (Some("UndefinedVariable"), "Variable `x` not defined")
        );
        assert_eq!(
            split("InvalidArgumentValue: Type mismatch: expected Node but was Integer"),
            (
                Some("InvalidArgumentValue"),
                "Type mismatch: expected Node but was Integer"
            )
        );
        assert_eq!(
            split("Type mismatch: expected Node"),
            (None, "Type mismatch: expected Node")
        );
        assert_eq!(
            split("MyRule: a user's own text"),
            (None, "MyRule: a user's own text")
        );
        assert_eq!(split("/ by zero"), (None, "/ by zero"));
    }
}
