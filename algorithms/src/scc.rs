//! Strongly connected components by Tarjan's algorithm, iterative (an
//! explicit stack, so a long path cannot overflow the thread's stack). It
//! is sequential: one pass over the edges, linear time. A component is
//! named by its smallest vertex, as WCC's are.

use crate::csr::Graph;

const UNSEEN: u32 = u32::MAX;

/// The strongly connected component (its smallest vertex) of every vertex.
pub fn scc(graph: &Graph) -> Vec<u32> {
    let n = graph.vertex_count();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut component = vec![UNSEEN; n];
    let mut next_index = 0u32;
    // (vertex, position of the next out-edge to look at)
    let mut calls: Vec<(u32, usize)> = Vec::new();
    for root in 0..n as u32 {
        if index[root as usize] != UNSEEN {
            continue;
        }
        calls.push((root, 0));
        while let Some(&mut (v, ref mut edge)) = calls.last_mut() {
            let vi = v as usize;
            if *edge == 0 && index[vi] == UNSEEN {
                index[vi] = next_index;
                low[vi] = next_index;
                next_index += 1;
                stack.push(v);
                on_stack[vi] = true;
            }
            let out = graph.out().neighbours(v);
            if let Some(&w) = out.get(*edge) {
                *edge += 1;
                let wi = w as usize;
                if index[wi] == UNSEEN {
                    calls.push((w, 0));
                } else if on_stack[wi] {
                    low[vi] = low[vi].min(index[wi]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent as usize] = low[parent as usize].min(low[vi]);
            }
            if low[vi] == index[vi] {
                let start = stack.iter().rposition(|&x| x == v).unwrap_or(0);
                let members = stack.split_off(start);
                let name = members.iter().copied().min().unwrap_or(v);
                for m in members {
                    on_stack[m as usize] = false;
                    component[m as usize] = name;
                }
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two vertices share a component when each reaches the other: the
    /// model, by a search from every vertex.
    #[test]
    fn agrees_with_mutual_reachability_on_random_graphs() {
        for (n, m, seed) in [(120, 150, 7), (120, 300, 8), (60, 400, 9)] {
            let g = crate::random_graph(n, m, seed);
            let reach: Vec<Vec<bool>> = (0..n)
                .map(|s| {
                    let mut seen = vec![false; n as usize];
                    let mut todo = vec![s];
                    seen[s as usize] = true;
                    while let Some(v) = todo.pop() {
                        for &w in g.out().neighbours(v) {
                            if !seen[w as usize] {
                                seen[w as usize] = true;
                                todo.push(w);
                            }
                        }
                    }
                    seen
                })
                .collect();
            let component = scc(&g);
            for v in 0..n as usize {
                let smallest = (0..n as usize)
                    .find(|&u| reach[v][u] && reach[u][v])
                    .unwrap() as u32;
                assert_eq!(component[v], smallest, "vertex {v}");
            }
        }
    }
}
