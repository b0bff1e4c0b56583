"""NetworKit's kernels on the graph of the algorithms bench (benches/benches/algorithms.rs), so
that its figures stand beside nereid's and GAPBS's from the same run.

Usage: kernels.py EDGE_LIST THREADS SOURCES
EDGE_LIST is GAPBS's `converter -w -e` output (`src dst weight`, every undirected edge both ways),
SOURCES the comma-separated source vertices the bench uses (its first 16 serve BFS and SSSP).
Prints one line `kernel seconds` per kernel: the mean of as many trials as the bench runs (BFS and
SSSP one per source, 16; PageRank and connected components 4; triangle count 1, its
per-edge scores taking tens of seconds). The graph is read
once, untimed, as an undirected weighted graph (each edge once): the same graph the bench's
symmetric edge list describes, as GAPBS builds it."""

import sys
import time

import networkit as nk
import numpy as np


def read_graph(path):
    numbers = np.fromfile(path, dtype=np.int64, sep=" ").reshape(-1, 3)
    once = numbers[numbers[:, 0] < numbers[:, 1]]
    n = int(numbers[:, :2].max()) + 1
    rows = once[:, 0].astype(np.uint64)
    cols = once[:, 1].astype(np.uint64)
    weights = once[:, 2].astype(np.float64)
    return nk.GraphFromCoo((weights, (rows, cols)), n=n, directed=False, weighted=True)


def mean_seconds(trials, run):
    started = time.perf_counter()
    for trial in range(trials):
        run(trial)
    return (time.perf_counter() - started) / trials


def main():
    path, threads, sources = sys.argv[1], int(sys.argv[2]), [int(s) for s in sys.argv[3].split(",")]
    nk.setNumberOfThreads(threads)
    graph = read_graph(path)

    def bfs(i):
        nk.distance.BFS(graph, sources[i], storePaths=False).run()

    def sssp(i):
        nk.distance.Dijkstra(graph, sources[i], storePaths=False).run()

    def pagerank(_):
        rank = nk.centrality.PageRank(graph, damp=0.85, tol=1e-4)
        rank.maxIterations = 20
        rank.run()

    def components(_):
        nk.components.ParallelConnectedComponents(graph).run()

    graph.indexEdges()

    def triangles(_):
        nk.sparsification.TriangleEdgeScore(graph).run()

    for name, trials, run in [("bfs", 16, bfs), ("pr", 4, pagerank), ("cc", 4, components),
                              ("sssp", 16, sssp), ("tc", 1, triangles)]:
        print(f"{name} {mean_seconds(trials, run):.6f}", flush=True)


if __name__ == "__main__":
    main()
