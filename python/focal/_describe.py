"""repr() of Model and Session: what a user checks first (which file, which family, its
inputs and outputs with dtypes and planned shapes), on one line."""
from collections import Counter

from ._focal import Model, Session


def _tensor(t):
    """input_ids: i32[batch<=1, seq<=128]: each dim with its symbol and planned maximum."""
    dims = ", ".join(f"{symbol}<={size}" if symbol else str(size) for symbol, size in zip(t.dims, t.shape))
    return f"{t.name}: {t.dtype}[{dims}]"


def _weight_dtypes(model):
    """The weights' dtypes, the most common first ("int8, f32")."""
    counts = Counter(t.dtype for t in model.tensors if t.role == "constant")
    return ", ".join(dtype for dtype, _ in counts.most_common()) or "none"


def _source(model):
    return repr(model.path) if model.path is not None else "from bytes"


def _model_repr(model):
    return (f"<focal.Model {_source(model)}: {model.architecture or 'graph'}, {model.parameter_count:,} parameters "
            f"({_weight_dtypes(model)}); inputs {', '.join(map(_tensor, model.inputs))}; "
            f"outputs {', '.join(map(_tensor, model.outputs))}>")


def _session_repr(session):
    model = session.model
    cache = f", KV cache {session.cached_length}/{session.cache_capacity} tokens" if session.cache_capacity else ""
    return (f"<focal.Session of {_source(model)} ({model.architecture or 'graph'}): threads={session.threads}, "
            f"arena {session.arena_bytes / 2**20:.1f} MiB{cache}>")


Model.__repr__ = _model_repr
Session.__repr__ = _session_repr
