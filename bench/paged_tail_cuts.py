#!/usr/bin/env python3
"""Cut-down specs of the paged run-time-tail draft, to find where its first
launch faults (bench/results/2026-12-06-paged-dispatcher.md, run 5).

    patch -o out/paged_dynamic.tile lib/Kernels/paged_mqa_logits.tile bench/paged_dynamic_tail.patch
    python3 bench/paged_tail_cuts.py out/paged_dynamic.tile out

writes out/pd_vN.tile:
  v1  the end markers and the math's tail loop, no global counters (faulted)
  v2  the counters only: no end markers, no math tail (ran)
  v3  the library's spec with the tail's two arguments and record only (ran)
  v4  v1 with the markers' arrive a plain arrive (no transaction count)
  v5  v1 with the math's loop reading the record but no item path
  v6  v1 with the math's tail one wait on its page's full barrier, no loop
  v7  v6 without the producer's (dead) item loop: no while loop is left, so
      the protocol check runs on it (`tilec out/pd_v7.tile ...`); on the
      draft before its pdone barrier it reported warp 0's end-marker wait on
      another warp's empty barrier passing at once on a fresh barrier (a
      parity wait a round early), with pdone it passes
Each runs with `bench/paged_ab.py --variant "spec=out/pd_vN.tile dyn=1056
pool=0" --cases 0 --reps 1 --rounds 1` (CUDA_LAUNCH_BLOCKING=1, one process
per spec: a fault poisons the process).
"""

import os
import sys


def index_of(lines, text, after=-1):
    return next(k for k, line in enumerate(lines) if k > after and text in line)


def math_tail(lines):
    """[first, end) of the math role's tail: its comment to the CLEAN block."""
    first = index_of(lines, "# The tail: the items the producer")
    end = next(k for k, line in enumerate(lines)
               if k > first and line.startswith("    if CLEAN == 1 {"))
    return first, end


def cuts(draft: str, library: str) -> dict:
    lines = draft.split("\n")
    v1 = list(lines)
    v1[index_of(v1, "let pool_len = POOL[0]")] = "      let pool_len = 0"
    v1[index_of(v1, "let g = atomic_add(POOL[1], 1)")] = "      let g = 0"
    at = index_of(v1, "let g_next = atomic_add(POOL[1], 1)")
    v1[at] = v1[at].replace("atomic_add(POOL[1], 1)", "g + 1")
    done = index_of(v1, "let done = atomic_add(POOL[2]")
    del v1[done:done + 5]  # the done count and the last CTA's reset
    v2 = list(lines)
    marker = index_of(v2, "store(REC[slot, 0], B)")
    del v2[marker - 3:marker + 3]  # the end markers' loop
    first, end = math_tail(v2)
    del v2[first:end]
    v3 = library.replace(
        "S: global i32[SR, 2], L: global OUT[LR, LC])",
        "S: global i32[SR, 2], L: global OUT[LR, LC],\n"
        "                        POOL: global i32[4], TAB: global i32[TR, 4])").replace(
        "  barrier kvempty: threads[KV_STAGES * MATH] arrivals 4\n",
        "  barrier kvempty: threads[KV_STAGES * MATH] arrivals 4\n"
        "  smem REC: i32[KV_STAGES * MATH, 2]\n", 1)
    v4 = list(v1)
    at = index_of(v4, "kvfull.arrive(slot, expect_tx = 0)")
    v4[at] = v4[at].replace("kvfull.arrive(slot, expect_tx = 0)", "kvfull.arrive(slot)")
    loop = index_of(v1, "while more == 1 {")
    after = next(k for k, line in enumerate(v1) if k > loop and line == "    if prev >= 0 {")
    v5 = v1[:loop] + ["    while more == 1 {",
                      "      let slot = kvs.stage * MATH + warpgroup_id",
                      "      kvfull.wait(slot, kvs.phase)",
                      "      let b = REC[slot, 0]",
                      "      if b >= B {",
                      "        more = 0",
                      "      } else {",
                      "        kvs.advance()",
                      "      }",
                      "    }"] + v1[after:]
    first, end = math_tail(v1)
    v6 = v1[:first] + ["    let slot = kvs.stage * MATH + warpgroup_id",
                       "    kvfull.wait(slot, kvs.phase)"] + v1[end:]
    loop = index_of(v6, "while g < pool_len {")
    depth, end = 0, loop
    for end in range(loop, len(v6)):
        depth += v6[end].count("{") - v6[end].count("}")
        if depth == 0:
            break
    v7 = v6[:loop] + v6[end + 1:]
    return {"v1": v1, "v2": v2, "v3": v3.split("\n"), "v4": v4, "v5": v5, "v6": v6,
            "v7": v7}


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    with open(sys.argv[1]) as f:
        draft = f.read()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "lib/Kernels/paged_mqa_logits.tile")) as f:
        library = f.read()
    for name, lines in cuts(draft, library).items():
        path = os.path.join(sys.argv[2], f"pd_{name}.tile")
        with open(path, "w") as f:
            f.write("\n".join(lines))
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
