//! Bulk-load input parsing (issue #25): one generated openCypher CSV node
//! file and one relationship file of 1M rows each, parsed from memory into
//! records (`loader/parse_opencypher_nodes_1m`: 5 property values a row;
//! `loader/parse_opencypher_relationships_1m`: 2; `..._decimal_ends`: the
//! same file with ends in canonical decimal as numbers,
//! docs/adr/0200-relationship-ends-as-decimal-numbers.md; `..._bulk`: as
//! the bulk path reads it, also without the ends' id spaces per record,
//! `Reader::end_spaces_apart`).
//! Throughput is reported in
//! rows; property values per second = rows/s × values per row. The issue's
//! end-to-end target is 3M property values/s on two cores, so the parser
//! alone must be far above it.

use std::fmt::Write;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nereid_loader_formats::{Format, Options, Reader, Record};

/// The server's allocator, so allocation costs what it costs there.
#[global_allocator]
static ALLOCATOR: nereid_alloc::Allocator = nereid_alloc::Allocator;

const ROWS: usize = 1_000_000;

/// A header and `ROWS` rows written by `row`.
fn generate(header: &str, row: impl Fn(&mut String, usize) -> std::fmt::Result) -> Vec<u8> {
    let mut text = format!("{header}\n");
    for i in 0..ROWS {
        row(&mut text, i).unwrap();
    }
    text.into_bytes()
}

fn nodes() -> Vec<u8> {
    generate(
        ":ID(Person),:LABEL,name,age:Int,score:Double,born:Date,tags:String[]",
        |text, i| {
            writeln!(
                text,
                "{i},Person;Employee,\"Name {i}, Jr\",{},{}.25,19{:02}-0{}-1{},t{};u{}",
                i % 100,
                i % 1000,
                i % 100,
                1 + i % 9,
                i % 10,
                i % 7,
                i % 13
            )
        },
    )
}

fn relationships() -> Vec<u8> {
    generate(
        ":START_ID(Person),:END_ID(Person),:TYPE,since:long,weight:Double",
        |text, i| {
            let since = 1_262_304_000_000u64 + i as u64;
            writeln!(text, "{i},{},KNOWS,{since},0.{}", (i * 7919) % ROWS, i % 97)
        },
    )
}

fn parse_all(bytes: &[u8], decimal_ends: bool, spaces_apart: bool) -> usize {
    let mut reader =
        Reader::new("bench.csv", bytes, Format::OpenCypher, &Options::default()).expect("header");
    if decimal_ends {
        reader = reader.decimal_ends();
    }
    if spaces_apart {
        reader = reader.end_spaces_apart();
    }
    let mut values = 0;
    for record in reader {
        values += match record.expect("row") {
            Record::Node(n) => n.properties.len(),
            Record::Relationship(r) => r.properties.len(),
        };
    }
    values
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("loader");
    group.sample_size(10);
    group.throughput(Throughput::Elements(ROWS as u64));
    let nodes = nodes();
    group.bench_function("parse_opencypher_nodes_1m", |b| {
        b.iter(|| parse_all(&nodes, false, false))
    });
    let relationships = relationships();
    group.bench_function("parse_opencypher_relationships_1m", |b| {
        b.iter(|| parse_all(&relationships, false, false))
    });
    group.bench_function("parse_opencypher_relationships_1m_decimal_ends", |b| {
        b.iter(|| parse_all(&relationships, true, false))
    });
    group.bench_function("parse_opencypher_relationships_1m_bulk", |b| {
        b.iter(|| parse_all(&relationships, true, true))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
