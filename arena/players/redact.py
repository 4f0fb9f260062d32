"""Keys never reach a file or the screen: one function, :func:`redact`, for every string that
leaves a provider (error text, headers, reprs, exception messages) before it is logged, printed,
stored in an event or a call record, or written to a database.

Two things are removed: every key this process was given (registered by
:func:`arena.players.llm.profiles.api_key` when it reads one from the environment, and by each
model player), and anything shaped like a key even when we never saw it: ``sk-…`` (OpenAI,
``sk-proj-…``, Anthropic's ``sk-ant-…``), ``Bearer …`` and ``x-api-key: …`` / ``api_key=…``. A key
shorter than :data:`MIN_KEY` characters is not registered (``"test"`` is not a secret, and
removing every "test" from a log would hide more than it protects).

:func:`install_log_redaction` adds the same function in front of :mod:`logging` (a record
factory), so a record from any library (the SDKs, httpx, vcrpy) is cleaned before any handler
sees it, tracebacks included.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable
from typing import Any

REDACTED = "[redacted key]"
MIN_KEY = 8
_SHAPES = re.compile(
    r"(?P<sk>\bsk-[A-Za-z0-9_\-*]{8,})"  # sk-…, sk-proj-…, sk-ant-api03-… (OpenAI masks with *)
    r"|(?P<bearer>\b(?-i:Bearer)\s+)(?!\[redacted)[^\s'\",;}\]]+"  # an Authorization header's value
    r"|(?P<named>\b(?:x-api-key|api[-_]key)[\"']?\s*[:=]\s*[\"']?)(?!\[redacted)[^\s'\",;}\]]+",  # x-api-key: …, api_key=…
    re.IGNORECASE,
)
_keys: set[str] = set()
_keys_lock = threading.Lock()
_pattern: re.Pattern[str] | None = None


def register_key(key: str | None) -> None:
    """Remember a configured key so that :func:`redact` removes it wherever it appears."""
    global _pattern
    if not key or len(key.strip()) < MIN_KEY:
        return
    with _keys_lock:
        if key.strip() in _keys:
            return
        _keys.add(key.strip())
        # longest first: a key that contains another is removed whole
        _pattern = re.compile("|".join(re.escape(k) for k in sorted(_keys, key=len, reverse=True)))


def _shape(match: re.Match[str]) -> str:
    prefix = match.group("bearer") or match.group("named")
    return (prefix or "") + REDACTED


def redact(text: Any) -> str:
    """``text`` as a string with every known key and key-shaped token replaced by ``[redacted key]``."""
    out = text if isinstance(text, str) else str(text)
    pattern = _pattern
    if pattern is not None:
        out = pattern.sub(REDACTED, out)
    return _SHAPES.sub(_shape, out)


def redact_all(texts: Iterable[Any]) -> list[str]:
    return [redact(t) for t in texts]


_installed = False


def install_log_redaction() -> None:
    """Clean every log record at creation (message, arguments and traceback); idempotent."""
    global _installed
    if _installed:
        return
    _installed = True
    previous = logging.getLogRecordFactory()
    formatter = logging.Formatter()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: leave it to logging to report
            return record
        clean = redact(message)
        if clean != message:  # records without a key keep their arguments (handlers may read them)
            record.msg, record.args = clean, ()
        if record.exc_info:
            # formatters print exc_text when set; the exception object itself (its message may
            # hold a key) is dropped so no handler can format it again
            record.exc_text = redact(formatter.formatException(record.exc_info))
            record.exc_info = None
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return record

    logging.setLogRecordFactory(factory)


#: query names in a seat spec whose values are never shown (a spec's options are settings, not keys,
#: but a URL pasted from elsewhere may carry one)
SECRET_NAMES = ("key", "token", "secret", "password")


def redact_spec(spec: str) -> str:
    """A seat spec as a page may show it: the endpoint without a URL's ``user:password@`` and
    without the values of key-like options, then :func:`redact` (``openai:m@http://127.0.0.1:18080/v1``
    stays as it is: it tells two servers apart)."""
    out = spec
    scheme = out.find("://")
    if scheme >= 0:
        start = scheme + 3
        ends = [i for i in (out.find("/", start), out.find("?", start)) if i >= 0]
        end = min(ends) if ends else len(out)
        host = out[start:end]
        out = out[:start] + host.rpartition("@")[2] + out[end:]
    head, sep, query = out.partition("?")
    if sep:
        parts = []
        for item in query.split("&"):
            name, eq, _value = item.partition("=")
            secret = eq and any(word in name.lower() for word in SECRET_NAMES)
            parts.append(f"{name}={REDACTED}" if secret else item)
        out = head + sep + "&".join(parts)
    return redact(out)
