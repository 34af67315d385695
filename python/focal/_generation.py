"""Text in, text out: Session.generate and Model.generate return a str for a str prompt
(token ids for ids), Model.detokenize returns a str. The compiled half (_generate,
_detokenize) does the work; this file checks the arguments as Python's own functions do
(TypeError for a wrong type or an unknown keyword, ValueError for a wrong value, each
naming the argument) and decodes the tokenizer's bytes."""
import numbers

from ._focal import Model, Session

_DEFAULT_MAX_NEW_TOKENS = 16


def _integer(name, value, low, high):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be from {low} to {high}, not {value}")
    return int(value)


def _real(name, value, low, high, low_inclusive=True):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    if not (low <= value if low_inclusive else low < value) or not value <= high:
        interval = f"{'[' if low_inclusive else '('}{low}, {high}]"
        raise ValueError(f"{name} must be in {interval}, not {value}")
    return float(value)


def _max_new_tokens(max_new_tokens, max_new):
    if max_new is not None and max_new_tokens is not None:
        raise TypeError("give max_new_tokens or its older name max_new, not both")
    value = max_new_tokens if max_new_tokens is not None else max_new
    name = "max_new_tokens" if max_new is None else "max_new"
    return _DEFAULT_MAX_NEW_TOKENS if value is None else _integer(name, value, 1, 2**64 - 1)


def _session_generate(self, prompt, max_new_tokens=None, temperature=0.0, top_k=0, top_p=1.0, seed=0, end_id=None,
                      on_token=None, *, max_new=None):
    """generate(prompt, max_new_tokens=16, temperature=0.0, top_k=0, top_p=1.0, seed=0,
             end_id=None, on_token=None) -> str or list of int

    Continues `prompt` with a decoder-only model. A str prompt goes through the model's
    tokenizer (with its special tokens, as transformers' generate) and the continuation
    comes back as a str (decoded as detokenize() does, without the end token that
    stopped it); token ids in (a list or array) give token ids out, the end token
    included. Greedy at temperature 0; else sampled with top_k (0: all), top_p and a
    fixed seed (same arguments, same tokens as `focal generate`).

    end_id: None stops at any of the model's end tokens (generation_config.json's eos ids,
    else the tokenizer's), an id stops at that token, -1 never stops early.
    on_token(id) is called with each token as it comes; returning False stops.
    max_new is the older name of max_new_tokens.

    The KV caches are empty before and after: every call is a new sequence, and a run()
    after it starts a new one too (transformers' behaviour)."""
    count = _max_new_tokens(max_new_tokens, max_new)
    temperature = _real("temperature", temperature, 0.0, float("inf"))
    top_k = _integer("top_k", top_k, 0, 2**31 - 1)
    top_p = _real("top_p", top_p, 0.0, 1.0, low_inclusive=False)
    seed = _integer("seed", seed, 0, 2**64 - 1)
    if on_token is not None and not callable(on_token):
        raise TypeError(f"on_token must be callable or None, not {type(on_token).__name__}")
    ids, ended = self._generate(prompt, count, temperature, top_k, top_p, seed, end_id, on_token)
    if not isinstance(prompt, str):
        return ids
    return self.model.detokenize(ids[:-1] if ended else ids)


def _model_generate(self, prompt, max_new_tokens=None, temperature=0.0, top_k=0, top_p=1.0, seed=0, end_id=None,
                    on_token=None, *, max_new=None, threads=1):
    """generate(prompt, max_new_tokens=16, temperature=0.0, top_k=0, top_p=1.0, seed=0,
             end_id=None, on_token=None, *, threads=1) -> str or list of int

    Session(model, threads=threads).generate(prompt, max_new_tokens, ...): a str in, a
    str out (see Session.generate). Each call makes a new Session (its arena and
    threads); hold a Session to generate many times without that cost."""
    return Session(self, threads=threads).generate(prompt, max_new_tokens, temperature, top_k, top_p, seed, end_id,
                                                   on_token, max_new=max_new)


def _detokenize(self, ids, target=False, errors="replace"):
    """detokenize(ids, target=False, errors="replace") -> str

    The text the stored tokenizer gives for `ids` (the target side's with target=True).
    Byte-level tokenizers (GPT-2, Llama 3) can end a token inside a UTF-8 character: the
    bytes are decoded with bytes.decode(errors=errors), so with "replace" an incomplete
    or invalid sequence becomes U+FFFD (decode all of a text's ids at once, not token by
    token); errors="strict" raises UnicodeDecodeError instead."""
    return self._detokenize(list(ids), bool(target)).decode("utf-8", errors)


# Named as they are called, so Python's own TypeErrors and help() say "Session.generate".
for _cls, _name, _function in ((Session, "generate", _session_generate), (Model, "generate", _model_generate),
                               (Model, "detokenize", _detokenize)):
    _function.__name__, _function.__qualname__ = _name, f"{_cls.__name__}.{_name}"
    setattr(_cls, _name, _function)
