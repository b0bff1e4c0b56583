//! `GET /metrics`: the engine's numbers and the Bolt listener's in the
//! Prometheus text exposition format (version 0.0.4), written by hand: the
//! format is a few line shapes, and the numbers come from the engine
//! (`nereid_engine::Database::metrics`), which keeps no registry.
//!
//! Names follow Prometheus' conventions: a `nereid_` prefix, base units in
//! the name (`_seconds`, `_bytes`), `_total` on counters.

use crate::bolt::{Backend, BoltContext};
use nereid_engine::{HistogramSnapshot, Metrics};
use std::fmt::Write;

/// The media type Prometheus scrapers ask for.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// What one scrape shows.
pub fn render<B: Backend>(ctx: &BoltContext<B>) -> String {
    let mut out = Text::default();
    bolt(&mut out, ctx);
    if let Some(metrics) = ctx.backend.metrics() {
        engine(&mut out, &metrics);
    }
    if let Some(bytes) = resident_bytes() {
        out.gauge(
            "process_resident_memory_bytes",
            "Resident memory of the server process.",
            bytes,
        );
    }
    out.0
}

fn bolt<B: Backend>(out: &mut Text, ctx: &BoltContext<B>) {
    let (open, unauthenticated) = ctx.connection_counts();
    out.gauge(
        "nereid_bolt_connections_open",
        "Bolt connections being served, authenticated or not.",
        open,
    );
    out.gauge(
        "nereid_bolt_connections_unauthenticated",
        "Open Bolt connections that have not authenticated yet.",
        unauthenticated,
    );
    out.counter(
        "nereid_bolt_connections_total",
        "Bolt connections accepted since start.",
        ctx.connections_accepted(),
    );
}

fn engine(out: &mut Text, m: &Metrics) {
    out.family(
        "nereid_queries_total",
        "counter",
        "Queries by how they ended: success, failure (database or transient), client_error.",
    );
    for (outcome, n) in [
        ("success", m.queries.succeeded),
        ("failure", m.queries.failed),
        ("client_error", m.queries.client_errors),
    ] {
        out.sample("nereid_queries_total", &[("outcome", outcome)], n);
    }
    out.histogram(
        "nereid_query_duration_seconds",
        "Time from a query's start to the end of its result, client pacing included.",
        &m.query_seconds,
    );
    out.gauge(
        "nereid_transactions_active",
        "Transactions begun and not yet ended, explicit and auto-commit.",
        m.transactions.active,
    );
    out.counter(
        "nereid_transactions_committed_total",
        "Transactions committed.",
        m.transactions.committed,
    );
    out.counter(
        "nereid_transactions_rolled_back_total",
        "Transactions ended without a commit (rolled back, failed or abandoned).",
        m.transactions.rolled_back,
    );
    out.counter(
        "nereid_write_conflicts_total",
        "Transactions refused because a concurrent one wrote the same data first.",
        m.write_conflicts,
    );
    out.counter(
        "nereid_log_written_bytes_total",
        "Bytes written to the transaction log.",
        m.log.bytes_written,
    );
    out.histogram(
        "nereid_log_fsync_duration_seconds",
        "Latency of the transaction log's group fsyncs.",
        &m.log.fsync_seconds,
    );
    out.counter(
        "nereid_checkpoints_total",
        "Checkpoints taken since start.",
        m.checkpoints.taken,
    );
    if let Some(last) = m.checkpoints.last {
        out.gauge(
            "nereid_checkpoint_age_seconds",
            "Time since the last checkpoint of this process was complete.",
            last.age.as_secs_f64(),
        );
        out.gauge(
            "nereid_checkpoint_last_duration_seconds",
            "How long the last checkpoint took.",
            last.took.as_secs_f64(),
        );
    }
    out.counter(
        "nereid_plan_cache_hits_total",
        "Queries run from a cached plan.",
        m.plan_cache.hits,
    );
    out.counter(
        "nereid_plan_cache_misses_total",
        "Queries planned because no usable cached plan existed.",
        m.plan_cache.misses,
    );
    out.gauge(
        "nereid_plan_cache_entries",
        "Plans in the plan cache.",
        m.plan_cache.entries,
    );
    loads(out, &m.loads);
    out.family(
        "nereid_store_memory_bytes",
        "gauge",
        "Memory the store takes by part, from capacities: relations (tuples), adjacency \
         (their S, O and I indexes), dictionaries, indexes (property, text, vector), statistics.",
    );
    for (part, bytes) in m.store_memory.parts() {
        out.sample("nereid_store_memory_bytes", &[("part", part)], bytes);
    }
}

fn loads(out: &mut Text, loads: &nereid_engine::Loads) {
    out.family(
        "nereid_loads",
        "gauge",
        "Bulk loads the loader keeps, by state (Neptune's LOAD_* names).",
    );
    for (state, n) in [
        ("LOAD_IN_QUEUE", loads.in_queue),
        ("LOAD_IN_PROGRESS", loads.in_progress),
        ("LOAD_COMPLETED", loads.completed),
        ("LOAD_FAILED", loads.failed),
        ("LOAD_CANCELLED", loads.cancelled),
    ] {
        out.sample("nereid_loads", &[("state", state)], n);
    }
    out.counter(
        "nereid_load_records_total",
        "Rows read by bulk loads since start (good and bad).",
        loads.records,
    );
    out.counter(
        "nereid_load_property_values_total",
        "Property values of the rows bulk loads loaded since start.",
        loads.property_values,
    );
    out.gauge(
        "nereid_load_running_read_bytes",
        "Bytes the running loads have read of their files.",
        loads.running_bytes_read,
    );
    out.gauge(
        "nereid_load_running_file_bytes",
        "Size of the running loads' files (read bytes / file bytes is their progress).",
        loads.running_bytes_total,
    );
}

/// The process's resident set from `/proc/self/status` (Linux only).
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The exposition text being written. Label values here are fixed words,
/// so they need no escaping.
#[derive(Default)]
struct Text(String);

impl Text {
    fn family(&mut self, name: &str, kind: &str, help: &str) {
        // Writing to a String cannot fail.
        let _ = writeln!(self.0, "# HELP {name} {help}\n# TYPE {name} {kind}");
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: impl std::fmt::Display) {
        self.0.push_str(name);
        if !labels.is_empty() {
            let pairs: Vec<String> = labels.iter().map(|(k, v)| format!("{k}=\"{v}\"")).collect();
            let _ = write!(self.0, "{{{}}}", pairs.join(","));
        }
        let _ = writeln!(self.0, " {value}");
    }

    fn counter(&mut self, name: &str, help: &str, value: u64) {
        self.family(name, "counter", help);
        self.sample(name, &[], value);
    }

    fn gauge(&mut self, name: &str, help: &str, value: impl std::fmt::Display) {
        self.family(name, "gauge", help);
        self.sample(name, &[], value);
    }

    fn histogram(&mut self, name: &str, help: &str, h: &HistogramSnapshot) {
        self.family(name, "histogram", help);
        let bucket = format!("{name}_bucket");
        let bounds = h.bounds.iter().map(f64::to_string);
        for (le, n) in bounds.chain(["+Inf".to_string()]).zip(&h.cumulative) {
            self.sample(&bucket, &[("le", &le)], n);
        }
        self.sample(&format!("{name}_sum"), &[], h.sum_seconds);
        self.sample(&format!("{name}_count"), &[], h.count());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_histogram_is_cumulative_buckets_then_sum_and_count() {
        static BOUNDS: &[f64] = &[0.5, 1.0];
        let h = HistogramSnapshot {
            bounds: BOUNDS,
            cumulative: vec![1, 1, 3],
            sum_seconds: 4.25,
        };
        let mut out = Text::default();
        out.histogram("x_seconds", "Help.", &h);
        assert_eq!(
            out.0,
            "# HELP x_seconds Help.\n# TYPE x_seconds histogram\n\
             x_seconds_bucket{le=\"0.5\"} 1\nx_seconds_bucket{le=\"1\"} 1\n\
             x_seconds_bucket{le=\"+Inf\"} 3\nx_seconds_sum 4.25\nx_seconds_count 3\n"
        );
    }
}
