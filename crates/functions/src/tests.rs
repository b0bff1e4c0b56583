use crate::{
    implemented, resolve, AggregateFunction, Implementation, ScalarFunction, SpatialFunction,
    TemporalFunction, TemporalKind, CATALOGUE,
};

#[test]
fn names_resolve_case_insensitively_and_through_aliases() {
    assert_eq!(
        ScalarFunction::from_name("TOUPPER"),
        Some(ScalarFunction::ToUpper)
    );
    assert_eq!(
        ScalarFunction::from_name("datetime.fromEpochMillis"),
        Some(ScalarFunction::Temporal(TemporalFunction::FromEpochMillis))
    );
    assert_eq!(
        ScalarFunction::from_name("localtime.statement"),
        Some(ScalarFunction::Temporal(TemporalFunction::Now(
            TemporalKind::LocalTime
        )))
    );
    assert_eq!(
        ScalarFunction::from_name("distance"),
        Some(ScalarFunction::Spatial(SpatialFunction::Distance))
    );
    assert_eq!(
        AggregateFunction::from_name("stDevP"),
        Some(AggregateFunction::StDevP)
    );
    assert_eq!(ScalarFunction::from_name("count"), None);
    assert_eq!(resolve("reduce"), Some(Implementation::Syntax));
    // Documented, not implemented.
    assert_eq!(resolve("toBooleanOrNull"), None);
    assert_eq!(resolve("date.fromepoch"), None);
    assert_eq!(resolve("nosuchfunction"), None);
}

#[test]
fn arities_span_every_signature() {
    use ScalarFunction as S;
    assert_eq!(S::Round.arity(), (1, 3));
    assert_eq!(S::Range.arity(), (2, 3));
    assert_eq!(S::Coalesce.arity(), (1, usize::MAX));
    assert_eq!(S::Pi.arity(), (0, 0));
    assert_eq!(S::LTrim.arity(), (1, 1));
    assert_eq!(
        S::Temporal(TemporalFunction::Now(TemporalKind::Date)).arity(),
        (0, 1)
    );
    assert_eq!(S::Spatial(SpatialFunction::WithinBBox).arity(), (3, 3));
    assert_eq!(AggregateFunction::Count.arity(), (1, 1));
    assert_eq!(AggregateFunction::PercentileDisc.arity(), (2, 2));
}

#[test]
fn the_catalogue_is_sorted_by_name_and_a_name_has_one_meaning() {
    for pair in CATALOGUE.windows(2) {
        let (a, b) = (
            pair[0].name.to_ascii_lowercase(),
            pair[1].name.to_ascii_lowercase(),
        );
        assert!(a <= b, "{a} before {b}");
        if a == b {
            assert_eq!(pair[0].implementation, pair[1].implementation, "{a}");
        }
    }
    assert!(implemented().all(|s| resolve(s.name) == s.implementation));
}
