"""How long does ``arena play`` take to refuse a seat that cannot play? (target: under 10 s)

Runs the real command, as a user would (a fresh ``python -m arena play`` process: interpreter
start and SDK imports included), against four broken endpoints on this machine:

- a **dead port** (nothing listens: the connection is refused);
- a **401** (a loopback server that refuses the key and quotes it back, as OpenAI does);
- an **unknown model** (the server lists other models and answers 404 to this one);
- a **hang** (a socket that takes the connection and never answers: the profile's
  ``check_timeout``, 3 s by default, decides).

Each case is run ``--repeat`` times; the script prints the wall time of each (min / median / max),
the exit code (2 expected), that no transcript was written, and the load average, since
the figures depend on what else runs on the cores.

    python benchmarks/preflight_bench.py
    python benchmarks/preflight_bench.py --repeat 5
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET = 10.0


def run(spec: str, env: dict[str, str], folder: Path) -> tuple[float, int, str]:
    argv = [sys.executable, "-m", "arena", "play", "classic", "--seed", "1", "--quiet", "--transcripts", str(folder)]
    started = time.perf_counter()
    done = subprocess.run([*argv, "--seat", f"Ann={spec}"], env=env, capture_output=True, text=True, check=False)
    return time.perf_counter() - started, done.returncode, done.stderr.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (default 3)")
    args = parser.parse_args()

    from tests.llm_server import FakeModelServer, Gate

    key = "-".join(["sk", "proj", secrets.token_hex(20)])
    env = {**os.environ, "BENCH_KEY": key, "PYTHONPATH": str(ROOT)}
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        env.pop(name, None)
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    dead = free.getsockname()[1]
    free.close()
    hang = socket.socket()
    hang.bind(("127.0.0.1", 0))
    hang.listen(64)
    refusing = FakeModelServer(gate=Gate(keys=frozenset({"another-key"}), models=frozenset({"m"})))
    listing = FakeModelServer(gate=Gate(models=frozenset({"small", "large"})))
    ok = True
    with refusing, listing, tempfile.TemporaryDirectory() as tmp:
        cases = {
            "dead port": f"openai:m@http://127.0.0.1:{dead}/v1",
            "401 (key echoed)": f"openai:m@{refusing.openai_url}?api_key_env=BENCH_KEY",
            "unknown model": f"anthropic:huge@{listing.anthropic_url}",
            "hang": f"openai:m@http://127.0.0.1:{hang.getsockname()[1]}/v1",
        }
        print(f"load average before: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
        for name, spec in cases.items():
            times, lines = [], set()
            for _ in range(args.repeat):
                seconds, code, err = run(spec, env, Path(tmp))
                times.append(seconds)
                lines.add(err)
                ok &= code == 2 and err.count("\n") == 0 and key not in err
            verdict = "ok" if max(times) < TARGET else f"over {TARGET:g} s"
            print(
                f"{name:17} min {min(times):5.2f} s  median {statistics.median(times):5.2f} s  max {max(times):5.2f} s  "
                f"({verdict}); exit 2, one line: {sorted(lines)[0][:110]}"
            )
        ok &= not list(Path(tmp).glob("*.jsonl"))
    hang.close()
    print(f"load average after: {os.getloadavg()[0]:.2f}; no transcript written: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
