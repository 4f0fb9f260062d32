"""What one saved state of llama-cpp-python's prompt cache weighs, counted and not (docs/llm.md).

``Llama.save_state`` copies llama.cpp's state (counted against the server's ``--cache_size``) and the
model's output scores (not counted): ``n_batch`` rows of the vocabulary with ``logits_all=False``.
For each ``n_batch`` the model evaluates a prompt of ``--tokens`` tokens (timed: prompt evaluation
speed) and saves its state once.

    python benchmarks/cache_state.py                        # Gemma 3 270M, n_batch 512 128 64 32
    python benchmarks/cache_state.py --model smollm2 --batches 512 64
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    from llama_cpp import Llama

    from arena.players.llm.local_models import model_file

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="gemma3-270m", help="a packaged model (smollm2, gemma3-270m)")
    parser.add_argument("--batches", type=int, nargs="+", default=[512, 128, 64, 32])
    parser.add_argument("--tokens", type=int, default=1500)
    args = parser.parse_args()
    path = str(model_file(args.model))
    for n_batch in args.batches:
        llm = Llama(model_path=path, n_ctx=4096, n_batch=n_batch, logits_all=False, verbose=False)
        tokens = llm.tokenize(("The table votes on Ann; Bob says she lied about the check. " * 400).encode())
        tokens = tokens[: args.tokens]
        started = time.perf_counter()
        llm.eval(tokens)
        speed = len(tokens) / (time.perf_counter() - started)
        state = llm.save_state()
        print(
            f"{args.model} n_batch {n_batch}: {speed:.0f} prompt tokens/s; counted {state.llama_state_size / 1e6:.1f} MB, "
            f"uncounted scores {state.scores.nbytes / 1e6:.1f} MB ({len(tokens)} tokens)"
        )
        del llm
    return 0


if __name__ == "__main__":
    sys.exit(main())
