"""The ``local`` provider: a language model run in this process by llama.cpp (llama-cpp-python).

Why: a game where models talk and vote needs no key and no network. ``local`` (= ``local:smollm2``)
is SmolLM2-135M-Instruct, ``local:gemma3-270m`` Gemma 3 270M, ``local:/path/to/model.gguf`` any
other GGUF model (which file a spec names: :mod:`.local_models`).

- **Every answer parses, and free text is words.** The decision's schema becomes a grammar
  (:mod:`.local_grammar`): every field required in the engine's order, free text held to words
  within exact length bounds, an answer's fixed opening appended to the prompt. A word guard
  (:mod:`.local_words`) holds every word of a speech to the word list or a seat name as it is
  written, so no made-up word is said and copied. A repetition penalty keeps a small model from
  looping. The engine still validates the answer as for any other provider.
- **One model, one call at a time.** The weights are loaded once per process and shared by every
  local seat; calls are serialised by a lock (two cores gain nothing from interleaving two
  evaluations) and run in a worker thread, so the event loop stays free.
- **Only new events are evaluated.** The prompt is append-only (:mod:`.prompt`), so each seat's
  previous prompt is a prefix of its next one. The seat's evaluated prefix (its KV cache and
  tokens) is saved when another seat takes the context and restored when it comes back, and
  llama.cpp then evaluates only the tokens after the common prefix. A seat's first call starts
  from whatever the context holds: the short system prompt (profile ``prompt = "short"``, the
  local default) names the seat only at its end, so every seat after the first reuses the rest.
  ``cached_tokens`` in the usage counts the reused tokens, so ``cache_hit_rate`` is the share of
  prompt tokens not evaluated again.
- **A full context drops the oldest turns**, half of them at a time, so the new prefix lasts for
  many calls before the next drop (each drop costs one full evaluation).

llama.cpp writes diagnostics on file descriptor 2 that ``verbose=False`` does not silence; they are
kept off the user's terminal by pointing that descriptor at /dev/null while the model loads and
answers (whatever another thread writes to stderr in that window is lost too).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import hashlib
import importlib.util
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from arena.players.registry import SpecError
from arena.players.wordlist import dictionary

from .local_grammar import SPEECH_CHARS, grammar_schema, json_schema_to_grammar, split_opening
from .local_models import INSTALL_HINT, default_context, model_file
from .local_words import TokenTexts, WordGuard, Words, speech_bounds
from .profiles import Profile
from .providers import Reply
from .schema import KindSchemas
from .usage import FIELDS

DEFAULT_TEMPERATURE = 0.8
#: llama.cpp's repetition penalty: the logits of tokens already in the answer are divided by it, so a
#: small model moves on instead of looping ("no yes yes yes no yes"); the answer's own tokens only
#: (the sampler is new for each answer), at most the last REPEAT_WINDOW of them
DEFAULT_REPEAT_PENALTY = 1.3
REPEAT_WINDOW = 64
#: llama.cpp's min-p sampling: tokens less likely than this share of the likeliest are never drawn.
#: Measured: at llama.cpp's 0.05 SmolLM2 sometimes draws an unlikely word piece and makes up a word
#: ("Debiamah") that the other seats then repeat; at 0.2 a 7-player game had none (docs/llm.md)
MIN_P = 0.2
OPENING_ROOM = 16  # tokens of an answer's fixed opening, appended to the prompt (see split_opening)
DROPPED_NOTE = "\n\n(The oldest turns of this game are left out: the model's context is full.)"

_LOCK = threading.Lock()  # one evaluation at a time in this process, whatever the model
_MODELS: dict[tuple[str, int | None], LocalModel] = {}


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """Point file descriptor 2 at /dev/null for the duration (llama.cpp prints there directly)."""
    try:
        saved = os.dup(2)
    except OSError:  # no stderr at all: nothing to hide
        yield
        return
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


# ---- the shared model ----------------------------------------------------------------------------
@dataclass(slots=True)
class LocalStats:
    """What one seat's calls cost the model (seconds are the model's own, without waiting in line)."""

    calls: int = 0
    prompt_tokens: int = 0
    reused_tokens: int = 0  # prompt tokens found in the seat's saved prefix (not evaluated again)
    output_tokens: int = 0
    prompt_seconds: float = 0.0  # evaluating new prompt tokens
    output_seconds: float = 0.0  # generating: evaluation, sampling under the grammar, detokenizing
    switch_seconds: float = 0.0  # saving the previous seat's prefix and restoring this one's
    dropped_turns: int = 0  # turns left out because the context was full
    guard_steps: int = 0  # sampling steps the word guard checked (in or next to a speech)
    guard_checked: int = 0  # candidate tokens it checked
    guard_seconds: float = 0.0  # its own time (part of output_seconds)

    def as_dict(self) -> dict[str, Any]:
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in asdict(self).items()}


@dataclass(slots=True, eq=False)
class Seat:
    """One player's place in the shared context: its saved prefix, and how many turns it dropped."""

    tokens: list[int] = field(default_factory=list)
    state: Any = None  # llama.cpp's sequence state (a ctypes buffer) while another seat holds the context
    dropped: int = 0
    stats: LocalStats = field(default_factory=LocalStats)


class LocalModel:
    """One loaded GGUF model and its context, shared by every seat that names it."""

    def __init__(self, path: Path, context: int | None) -> None:
        import llama_cpp
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self.llama_cpp = llama_cpp
        self.path = path
        threads = min(max(os.cpu_count() or 1, 1), 4)  # a 135M model gains little past 4
        with quiet_stderr():
            self.llama = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=context or 0,
                n_threads=threads,
                n_threads_batch=threads,
                seed=0,
                last_n_tokens_size=REPEAT_WINDOW,
                swa_full=True,  # sliding-window models (Gemma 3) keep every token, so a prefix can be reused
                verbose=False,
            )
        self.n_ctx = self.llama.n_ctx()
        template = self.llama.metadata.get("tokenizer.chat_template") or CHATML
        vocab = self.llama._model
        self.bos = vocab.token_get_text(self.llama.token_bos()) if self.llama.token_bos() >= 0 else ""
        self.eos = vocab.token_get_text(self.llama.token_eos()) if self.llama.token_eos() >= 0 else ""
        self.formatter = Jinja2ChatFormatter(template=template, eos_token=self.eos, bos_token=self.bos)
        self.add_bos = bool(vocab.add_bos_token()) and self.llama.token_bos() >= 0
        self.owner: Seat | None = None
        self.grammars: OrderedDict[str, Any] = OrderedDict()
        self._texts: TokenTexts | None = None

    @property
    def texts(self) -> TokenTexts:
        """Every token's text, for the word guard (built at the first speech: 0.1-0.9 s)."""
        if self._texts is None:
            self._texts = TokenTexts.of_model(self.llama_cpp, self.llama._model.vocab, self.llama.n_vocab())
        return self._texts

    def guard(self, request: dict[str, Any], opening: str, start: int) -> WordGuard | None:
        """The word guard of an answer that holds a speech (:mod:`.local_words`), else None."""
        bounds = speech_bounds(request["schema"])
        if bounds is None:
            return None
        words = Words.of(dictionary(), request.get("names") or ())
        return WordGuard(
            self.texts,
            words,
            opening=opening,
            start=start,
            bounds=bounds,
            repeat_penalty=request.get("repeat_penalty", 1.0),
            min_p=MIN_P,
        )

    @classmethod
    def get(cls, path: Path, context: int | None) -> LocalModel:
        key = (str(path.resolve()), context)
        with _LOCK:
            if key not in _MODELS:
                if not _MODELS:
                    atexit.register(_free_models)
                _MODELS[key] = cls(path, context)
            return _MODELS[key]

    async def close(self) -> None:
        """Kept loaded: the next game in this process uses it again (the pooled-client protocol)."""

    # -- prompt and grammar
    def tokens(self, system: str, messages: list[dict[str, str]]) -> list[int]:
        prompt = self.formatter(messages=[{"role": "system", "content": system}, *messages]).prompt
        tokens = self.llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        if self.add_bos and (not tokens or tokens[0] != self.llama.token_bos()):
            tokens.insert(0, self.llama.token_bos())
        return tokens

    def grammar(self, schema: dict[str, Any]) -> tuple[str, Any]:
        """The answer's fixed opening and the grammar of the rest (kept: the same few schemas come
        back all game). See :func:`split_opening`; no grammar when the whole answer is fixed."""
        text = json.dumps(schema)  # the property order is the order the model writes them in
        if text not in self.grammars:
            gbnf = json_schema_to_grammar(schema)
            opening, rest = split_opening(schema, gbnf)
            grammar = self.llama_cpp.LlamaGrammar.from_string(rest, verbose=False) if rest else None
            self.grammars[text] = (opening, grammar)
            if len(self.grammars) > 128:
                self.grammars.popitem(last=False)
        self.grammars.move_to_end(text)
        return self.grammars[text]

    def fit(self, seat: Seat, system: str, messages: list[dict[str, str]], room: int) -> list[int]:
        """The prompt's tokens, leaving out the oldest turns (half at a time) if it would not fit."""
        while True:
            kept = messages[seat.dropped :]
            tokens = self.tokens(system + (DROPPED_NOTE if seat.dropped else ""), kept)
            if len(tokens) + room <= self.n_ctx:
                return tokens
            pairs = (len(kept) - 1) // 2  # earlier (question, answer) pairs before the newest question
            if pairs < 1:
                raise ValueError(f"the prompt needs {len(tokens)} tokens; the model's context holds {self.n_ctx}")
            step = 2 * ((pairs + 1) // 2)
            seat.dropped += step
            seat.stats.dropped_turns += step

    # -- switching seats
    def _switch(self, seat: Seat) -> None:
        """Make ``seat``'s prefix the context's: save the holder's, restore this one's."""
        if self.owner is seat:
            return
        lib, llama = self.llama_cpp, self.llama
        ctx = llama.ctx
        holder = self.owner
        if holder is not None and llama.n_tokens > 0:
            size = lib.llama_state_seq_get_size(ctx, 0)
            buffer = (ctypes.c_uint8 * size)()
            if lib.llama_state_seq_get_data(ctx, buffer, size, 0) == size:
                holder.state, holder.tokens = buffer, llama.input_ids[: llama.n_tokens].tolist()
        self.owner = None
        if seat.state is not None and seat.tokens:
            llama._ctx.kv_cache_clear()
            llama.reset()
            if lib.llama_state_seq_set_data(ctx, seat.state, len(seat.state), 0):
                llama.input_ids[: len(seat.tokens)] = seat.tokens
                llama.n_tokens = len(seat.tokens)
            else:  # not restorable: evaluate from scratch
                llama._ctx.kv_cache_clear()
        # A seat with nothing saved starts from the holder's prefix: llama.cpp keeps the part they
        # share (the system prompt up to the seat's name, in the short prompt) and evaluates the rest.
        seat.state, seat.tokens = None, []  # the context holds it now
        self.owner = seat

    # -- one completion
    def complete(self, seat: Seat, request: dict[str, Any]) -> dict[str, Any]:
        """Answer one prompt under the grammar (called in a worker thread)."""
        lib, llama = self.llama_cpp, self.llama
        max_tokens = int(request["max_tokens"])
        with _LOCK, quiet_stderr():
            opening, grammar = self.grammar(request["schema"])
            if grammar is None:  # a single legal answer: nothing to ask the model
                return {"text": opening, "finish": "stop", "usage": dict.fromkeys(FIELDS, 0)}
            started = time.perf_counter()
            tokens = self.fit(seat, request["system"], request["messages"], max_tokens + OPENING_ROOM)
            tokens += llama.tokenize(opening.encode("utf-8"), add_bos=False, special=False)
            self._switch(seat)
            switched = time.perf_counter()
            held = llama.input_ids[: llama.n_tokens].tolist()
            reused = 0
            for a, b in zip(held, tokens, strict=False):
                if a != b:
                    break
                reused += 1
            reused = min(reused, len(tokens) - 1)  # llama.cpp evaluates at least the last prompt token again
            guard = self.guard(request, opening, len(tokens))
            lib.llama_perf_context_reset(llama.ctx)
            began = time.perf_counter()
            out = llama.create_completion(
                tokens,
                max_tokens=max_tokens,
                logits_processor=self.llama_cpp.LogitsProcessorList([guard]) if guard else None,
                temperature=request["temperature"],
                seed=request["seed"],
                grammar=grammar,
                repeat_penalty=request.get("repeat_penalty", 1.0),
                min_p=MIN_P,
                stop=[self.eos] if self.eos else [],
            )
            took = time.perf_counter() - began
            prompt_seconds = lib.llama_perf_context(llama.ctx).t_p_eval_ms / 1000
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        stats = seat.stats
        stats.calls += 1
        stats.prompt_tokens += len(tokens)
        stats.reused_tokens += reused
        stats.output_tokens += int(usage.get("completion_tokens", 0))
        stats.prompt_seconds += prompt_seconds
        stats.output_seconds += max(took - prompt_seconds, 0.0)
        stats.switch_seconds += switched - started
        if guard is not None:
            stats.guard_steps += guard.stats.steps
            stats.guard_checked += guard.stats.checked
            stats.guard_seconds += guard.stats.seconds
        return {
            "text": opening + (choice.get("text") or ""),
            "finish": choice.get("finish_reason"),
            "usage": {
                "input_tokens": len(tokens),
                "cached_tokens": reused,
                "cache_write_tokens": 0,
                "output_tokens": int(usage.get("completion_tokens", 0)),
                "reasoning_tokens": 0,
            },
        }


def _free_models() -> None:
    """Free the shared models at exit, while llama_cpp still works (its __del__ fails in teardown)."""
    with _LOCK:
        for model in _MODELS.values():
            model.llama.close()
        _MODELS.clear()


CHATML = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


# ---- the backend (same interface as providers.OpenAIBackend) ---------------------------------------
class LocalBackend:
    """One seat's adapter: builds the request, runs it on the shared model, reads the reply."""

    def __init__(self, profile: Profile, max_speech: int | None = None) -> None:
        path = model_file(profile.model)
        if importlib.util.find_spec("llama_cpp") is None:
            raise SpecError(INSTALL_HINT)
        self.profile = profile
        self.speech = min(SPEECH_CHARS, max_speech) if max_speech else SPEECH_CHARS
        try:
            dictionary()  # the word guard's list: a bad ARENA_WORDS is one line now, not a failed call later
        except OSError as exc:
            raise SpecError(f"the word list: {exc}") from None
        try:
            self.model = LocalModel.get(path, profile.context or default_context(profile.model))
        except (ValueError, RuntimeError, OSError) as exc:
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise SpecError(f"cannot load the local model {str(path)!r}: {why}") from None
        self.seat = Seat()
        self.sent = 0

    @property
    def stats(self) -> LocalStats:
        return self.seat.stats

    def make_client(self, key: str | None) -> LocalModel:
        return self.model

    def structured(self, schemas: KindSchemas) -> dict[str, Any]:
        return {"schema": grammar_schema(schemas, self.speech)}

    def build(self, system: str, messages: list[dict[str, str]], structured: dict[str, Any], cache_key: str) -> dict[str, Any]:
        """The request; the seed follows the seat and its call count, so a seeded game repeats.
        The player adds ``names`` (the game's seats: words a speech may use beside the dictionary)."""
        self.sent += 1
        seed = int.from_bytes(hashlib.sha256(f"{cache_key}:{self.sent}".encode()).digest()[:4], "big")
        temperature = DEFAULT_TEMPERATURE if self.profile.temperature is None else self.profile.temperature
        return {
            "system": system,
            "messages": [dict(m) for m in messages],
            "schema": structured["schema"],
            "max_tokens": self.profile.max_tokens,
            "temperature": temperature,
            "repeat_penalty": DEFAULT_REPEAT_PENALTY if self.profile.repeat_penalty is None else self.profile.repeat_penalty,
            "seed": seed,
        }

    async def send(self, client: LocalModel, kwargs: dict[str, Any]) -> dict[str, Any]:
        return await asyncio.to_thread(client.complete, self.seat, kwargs)

    def extract(self, response: dict[str, Any]) -> Reply:
        return Reply(response["text"], None, None, response["usage"], response["finish"])
