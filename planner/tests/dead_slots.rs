//! The dead-slot pass: which slots an `Unwind`'s or an expand's output
//! rows leave null because no operator above reads them.

use nereid_planner::{plan, Catalog, Expr, Op, PhysicalPlan, ProcedureSignature, Slot};

struct EmptyCatalog;

impl Catalog for EmptyCatalog {
    fn estimate_nodes(&self, _label: Option<&str>) -> u64 {
        100
    }

    fn procedure_signature(&self, _name: &str) -> Option<ProcedureSignature> {
        None
    }
}

fn planned(query: &str) -> PhysicalPlan {
    let stmt = nereid_cypher::parse(query).expect("parses");
    plan(&stmt, &EmptyCatalog).expect("plans")
}

/// The `Unwind`s of the plan's operators and their nested plans (not of
/// pattern expressions), top first: (the slot its list expression is, when
/// it is one; its dead slots).
fn unwinds(op: &Op, found: &mut Vec<(Option<Slot>, Vec<Slot>)>) {
    if let Op::Unwind { expr, dead, .. } = op {
        let slot = match expr {
            Expr::Slot(s) => Some(*s),
            _ => None,
        };
        found.push((slot, dead.clone()));
    }
    if let Some(nested) = op.nested() {
        unwinds(nested, found);
    }
    if let Some(input) = op.input() {
        unwinds(input, found);
    }
}

fn only_unwind(query: &str) -> (PhysicalPlan, Slot, Vec<Slot>) {
    let plan = planned(query);
    let mut found = Vec::new();
    unwinds(&plan.root, &mut found);
    assert_eq!(found.len(), 1, "one Unwind in {query}");
    let (list, dead) = found.remove(0);
    (plan, list.expect("unwinds a slot"), dead)
}

fn output(plan: &PhysicalPlan, name: &str) -> Slot {
    plan.outputs
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, s)| *s)
        .expect("output column")
}

#[test]
fn a_list_read_by_nothing_above_is_dead() {
    let (plan, list, dead) =
        only_unwind("WITH range(1, 10) AS l UNWIND l AS x RETURN count(x) AS c");
    assert!(dead.contains(&list), "{dead:?}");
    assert!(!dead.contains(&output(&plan, "c")));
}

#[test]
fn the_collect_idiom_drops_the_collected_list() {
    let (_, list, dead) =
        only_unwind("MATCH (n) WITH collect(n) AS ns UNWIND ns AS m RETURN m.k AS k");
    assert!(dead.contains(&list), "{dead:?}");
}

#[test]
fn the_unwound_slot_and_slots_read_above_stay() {
    let (plan, list, dead) = only_unwind("WITH [1] AS l UNWIND l AS x RETURN x, size(l) AS n");
    assert!(!dead.contains(&list), "{dead:?}");
    let Op::Unwind { out, .. } = find_unwind(&plan.root) else {
        unreachable!()
    };
    assert!(!dead.contains(out));
    assert!(!dead.contains(&output(&plan, "x")));
}

fn find_unwind(op: &Op) -> &Op {
    let mut current = op;
    while !matches!(current, Op::Unwind { .. }) {
        current = current.input().expect("an Unwind below");
    }
    current
}

#[test]
fn return_star_keeps_every_variable() {
    let (plan, list, dead) = only_unwind("WITH [1, 2] AS l, 'k' AS k UNWIND l AS x RETURN *");
    assert!(!dead.contains(&list));
    for (_, slot) in &plan.outputs {
        assert!(!dead.contains(slot), "{slot} in {dead:?}");
    }
}

#[test]
fn an_inner_plan_sees_what_is_read_inside_and_after_it() {
    let inner_reads =
        "WITH [1, 2] AS l CALL (l) { UNWIND l AS x RETURN x, size(l) AS s } RETURN x, s";
    let (_, list, dead) = only_unwind(inner_reads);
    assert!(!dead.contains(&list), "{dead:?}");

    let read_after = "WITH [1, 2] AS l CALL (l) { UNWIND l AS x RETURN x } RETURN x, l";
    let (_, list, dead) = only_unwind(read_after);
    assert!(!dead.contains(&list), "{dead:?}");

    let read_nowhere = "WITH [1, 2] AS l CALL (l) { UNWIND l AS x RETURN x } RETURN x";
    let (_, list, dead) = only_unwind(read_nowhere);
    assert!(dead.contains(&list), "{dead:?}");
}

#[test]
fn a_pattern_expression_above_keeps_the_outer_slots_it_reads() {
    let query = "WITH [1, 2, 3] AS l UNWIND l AS x \
                 RETURN x, EXISTS { UNWIND l AS y WITH y WHERE y = x RETURN y } AS e";
    let (_, list, dead) = only_unwind(query);
    assert!(!dead.contains(&list), "{dead:?}");
}

#[test]
fn a_sort_key_above_keeps_its_slot() {
    let plan = planned("WITH [1] AS l, 2 AS k UNWIND l AS x RETURN x ORDER BY k");
    let Op::Unwind { dead, expr, .. } = find_unwind(&plan.root) else {
        unreachable!()
    };
    let Expr::Slot(list) = expr else {
        panic!("unwinds a slot")
    };
    assert!(dead.contains(list), "{dead:?}");
    // Every slot but `l` read above: the sort reads `k`, the output `x`.
    let mut sort_reads = Vec::new();
    let mut current = &plan.root;
    while !matches!(current, Op::Unwind { .. }) {
        if let Op::Sort { keys, .. } | Op::Top { keys, .. } = current {
            for key in keys {
                nereid_planner::slots_of(&key.expr, &mut sort_reads);
            }
        }
        current = current.input().expect("an Unwind below");
    }
    assert!(!sort_reads.is_empty());
    assert!(sort_reads.iter().all(|s| !dead.contains(s)), "{dead:?}");
}

#[test]
fn only_slots_the_unwind_reads_are_listed() {
    // `m` is dead too, but listing every dead slot at every UNWIND would
    // grow quadratically with the query's length.
    let (_, list, dead) = only_unwind("WITH [1] AS l, [2] AS m UNWIND l AS x RETURN x");
    assert_eq!(dead, vec![list]);
}

/// The `dead` lists of the plan's one-hop expands and those of its nested
/// plans (not of pattern expressions), top first.
fn expands(op: &Op, found: &mut Vec<Vec<Slot>>) {
    if let Op::Expand { spec, .. } = op {
        found.push(spec.dead.clone());
    }
    if let Some(nested) = op.nested() {
        expands(nested, found);
    }
    if let Some(input) = op.input() {
        expands(input, found);
    }
}

fn expand_dead_lists(plan: &PhysicalPlan) -> Vec<Vec<Slot>> {
    let mut found = Vec::new();
    expands(&plan.root, &mut found);
    found
}

#[test]
fn an_expand_drops_the_slots_of_earlier_hops_nobody_reads() {
    let plan = planned("MATCH (a)-[r]->(b)-[s]->(c)-[t]->(d) RETURN d AS d");
    let lists = expand_dead_lists(&plan);
    assert_eq!(lists.len(), 3, "{lists:?}");
    let d = output(&plan, "d");
    assert!(lists.iter().all(|dead| !dead.contains(&d)), "{lists:?}");
    // Deeper expands have fewer dead slots (more is read above them), and
    // the last hop's rows need none of the earlier hops' nodes (their
    // relationships stay: the uniqueness filters above read them).
    assert!(
        lists
            .windows(2)
            .all(|w| w[1].iter().all(|s| w[0].contains(s))),
        "{lists:?}"
    );
    assert!(
        lists[0].len() >= 3 && lists[2].len() < lists[0].len(),
        "{lists:?}"
    );
}

#[test]
fn an_expand_keeps_what_a_filter_or_an_output_above_reads() {
    let plan = planned("MATCH (a)-[r:R]->(b)-[s:S]->(c) WHERE a.k = c.k RETURN b AS b, c AS c");
    let (b, c) = (output(&plan, "b"), output(&plan, "c"));
    let mut reads = Vec::new();
    let mut current = Some(&plan.root);
    while let Some(op) = current {
        if let Op::Filter { predicate, .. } = op {
            nereid_planner::slots_of(predicate, &mut reads);
        }
        current = op.input();
    }
    assert!(!reads.is_empty());
    let lists = expand_dead_lists(&plan);
    for dead in &lists {
        assert!(!dead.contains(&b) && !dead.contains(&c), "{lists:?}");
    }
    // The top expand is below the filter (the filter reads both ends).
    assert!(reads.iter().all(|s| !lists[0].contains(s)), "{lists:?}");
}

#[test]
fn a_nested_expand_keeps_the_outer_slots_read_after_it() {
    let plan = planned("MATCH (a)-[r]->(b) OPTIONAL MATCH (b)-[s]->(c) RETURN a AS a, c AS c");
    let (a, c) = (output(&plan, "a"), output(&plan, "c"));
    let lists = expand_dead_lists(&plan);
    assert_eq!(lists.len(), 2, "{lists:?}");
    for dead in &lists {
        assert!(!dead.contains(&a) && !dead.contains(&c), "{lists:?}");
    }
}

#[test]
fn a_plan_of_very_many_slots_copies_its_rows_whole() {
    // Lists of every dead slot at every hop would grow with the square of
    // the pattern's length.
    let hops: String = (0..300).map(|i| format!("-->(n{i})")).collect();
    let plan = planned(&format!("MATCH (a){hops} RETURN a AS a"));
    assert!(plan.slot_count > 512);
    let lists = expand_dead_lists(&plan);
    assert!(lists.len() >= 299, "{}", lists.len());
    assert!(lists.iter().all(Vec::is_empty));
}

/// The plan and projection of the first pattern comprehension a `Project`
/// of `op`'s chain computes.
fn pattern_list(op: &Op) -> Option<(&Op, &Expr)> {
    if let Op::Project { items, .. } = op {
        for (_, expr) in items {
            if let Expr::PatternList {
                plan, projection, ..
            } = expr
            {
                return Some((plan, projection));
            }
        }
    }
    op.input().and_then(pattern_list)
}

#[test]
fn a_pattern_comprehension_s_expands_keep_only_what_its_projection_and_filters_read() {
    let plan =
        planned("MATCH (x) RETURN [(x)-[r]->(y)-[s]->(z)-[t]->(w) WHERE w.k = x.k | z.name] AS l");
    let (nested, projection) = pattern_list(&plan.root).expect("a pattern comprehension");
    let mut read = Vec::new();
    nereid_planner::slots_of(projection, &mut read);
    assert!(!read.is_empty());
    let mut lists = Vec::new();
    expands(nested, &mut lists);
    assert_eq!(lists.len(), 3, "{lists:?}");
    // What the projection reads reaches the top; the first hop's end `y`
    // is read by nothing above the hop that leaves it (the relationships
    // stay: the uniqueness filters above read them).
    for dead in &lists {
        assert!(read.iter().all(|s| !dead.contains(s)), "{lists:?}");
    }
    assert_eq!(lists[0].len(), 1, "{lists:?}");
    assert_eq!(lists[0], lists[1], "{lists:?}");
    assert!(lists[2].is_empty(), "{lists:?}");
    // The filter above reads the outer node: no expand below drops it.
    let mut filtered = Vec::new();
    let mut current = Some(nested);
    while let Some(op) = current {
        if let Op::Filter { predicate, .. } = op {
            nereid_planner::slots_of(predicate, &mut filtered);
        }
        current = op.input();
    }
    for dead in &lists {
        assert!(filtered.iter().all(|s| !dead.contains(s)), "{lists:?}");
    }
}

/// `rels_unread` of the plan's one `VarExpand` (outside pattern expressions).
fn var_expand_rels_unread(query: &str) -> bool {
    let plan = planned(query);
    let mut op = Some(&plan.root);
    while let Some(current) = op {
        if let Op::VarExpand { spec, .. } = current {
            return spec.rels_unread;
        }
        op = current.input();
    }
    panic!("no VarExpand in {query}")
}

#[test]
fn a_variable_length_expand_builds_relationship_lists_only_when_read() {
    assert!(var_expand_rels_unread(
        "MATCH (a:A)-[:T*1..3]->(b) RETURN b"
    ));
    assert!(!var_expand_rels_unread(
        "MATCH (a:A)-[r:T*1..3]->(b) RETURN r"
    ));
    assert!(!var_expand_rels_unread(
        "MATCH (a:A)-[r:T*1..3]->(b) WHERE size(r) > 1 RETURN b"
    ));
    assert!(!var_expand_rels_unread(
        "MATCH p = (a:A)-[:T*1..3]->(b) RETURN length(p)"
    ));
    // Relationship uniqueness against a later hop reads the list.
    assert!(!var_expand_rels_unread(
        "MATCH (a:A)-[:T*1..3]->(b)-[:T]->(c) RETURN c"
    ));
}
