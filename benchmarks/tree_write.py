"""Time single-node writes into a session tree of a long run (about 100,000 nodes).

The tree has the shape of a real session: 1000 rounds, each a user input with three
bookkeeping events and three responses; a response holds a summary and ten blocks, each
block its block-result, each block-result an event (depth 5 below the root). The measured
writes go, in turn, under a random existing block, under a random round and under the root,
each into the version the previous write returned. Prints one line; exits 1 when the median
misses the target.

Run: ``uv run python benchmarks/tree_write.py``
"""

import random
import statistics
import sys
import time

from tai_core.tree import NodeKind, NodeSpec, SessionTree

ROUNDS = 1000
RESPONSES_PER_ROUND = 3
BLOCKS_PER_RESPONSE = 10
EVENTS_PER_ROUND = 3
WRITES = 5000
TARGET_NS = 20_000


def round_specs(number: int) -> list[NodeSpec]:
    """The specs of one round: 100 nodes, written as the loop would, in one batch."""
    round_name = f"round-{number}"
    specs = [NodeSpec(NodeKind.USER_INPUT, f"request {number}", name=round_name)]
    specs += [
        NodeSpec(NodeKind.EVENT, "usage", parent=round_name, attrs={"event": "usage"})
        for _ in range(EVENTS_PER_ROUND)
    ]
    for response in range(RESPONSES_PER_ROUND):
        response_name = f"r{number}.{response}"
        specs.append(NodeSpec(NodeKind.RESPONSE, "reply", name=response_name, parent=round_name))
        specs.append(NodeSpec(NodeKind.SUMMARY, "did things", parent=response_name))
        for block in range(BLOCKS_PER_RESPONSE):
            block_name = f"b{number}.{response}.{block}"
            result_name = f"{block_name}.result"
            specs += [
                NodeSpec(NodeKind.BLOCK, "ls", name=block_name, parent=response_name),
                NodeSpec(
                    NodeKind.BLOCK_RESULT,
                    "ok",
                    name=result_name,
                    parent=block_name,
                    attrs={"status": "ok"},
                ),
                NodeSpec(NodeKind.EVENT, "timing", parent=result_name),
            ]
    return specs


def build() -> SessionTree:
    tree = SessionTree()
    for number in range(1, ROUNDS + 1):
        tree, _ = tree.add_batch(round_specs(number))
    return tree


def main() -> int:
    tree = build()
    size = len(tree)
    blocks = [node.name for _, node in tree if node.kind is NodeKind.BLOCK]
    rounds = [node.name for _, node in tree if node.kind is NodeKind.USER_INPUT]
    rng = random.Random(20240601)
    specs = []
    for write in range(WRITES):
        match write % 3:
            case 0:
                specs.append(NodeSpec(NodeKind.EVENT, "retry", parent=rng.choice(blocks)))
            case 1:
                specs.append(
                    NodeSpec(NodeKind.FEEDBACK, "round feedback", parent=rng.choice(rounds))
                )
            case _:
                specs.append(NodeSpec(NodeKind.EVENT, "handoff"))
    timings = []
    for spec in specs:
        start = time.perf_counter_ns()
        tree, _ = tree.add(spec)
        timings.append(time.perf_counter_ns() - start)
    median = statistics.median(timings)
    p90 = statistics.quantiles(timings, n=10)[-1]
    print(
        f"tree: median write {median / 1000:.1f} µs with {size:,} nodes"
        f" (p90 {p90 / 1000:.1f} µs; target <= {TARGET_NS / 1000:.0f} µs)"
    )
    return 0 if median <= TARGET_NS else 1


if __name__ == "__main__":
    sys.exit(main())
