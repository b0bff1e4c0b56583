//! Front-end cost per query: parse and analyse (the plan cache will skip
//! both for repeated parameterised queries).

use criterion::{criterion_group, criterion_main, Criterion};

const QUERY: &str = "MATCH (a:Person)-[k:KNOWS]->(b) WHERE a.age > $min \
                     RETURN a, k, b, a.name AS name ORDER BY name LIMIT 10";

fn parse_and_analyze(c: &mut Criterion) {
    c.bench_function("cypher/parse_analyze", |b| {
        b.iter(|| {
            let stmt = nereid_cypher::parse(QUERY).expect("parses");
            nereid_cypher::analyze(&stmt).expect("valid");
            stmt
        })
    });
}

criterion_group!(benches, parse_and_analyze);
criterion_main!(benches);
