import { createHash } from 'node:crypto';

/*
 * The Python side of the Variables view, installed in the kernel as a private module (sys.modules only, never a
 * name in the operator's namespace) by the user expression main sends. Kept bounded: a summary is at most 120
 * characters and never the repr of an array, a frame or an unknown array-like (whose repr may format every element).
 */

export const VARIABLES_PY = String.raw`import reprlib as _reprlib
import sys as _sys
import types as _types
from itertools import islice as _islice

_HIDDEN_NAMES = {'In', 'Out', 'exit', 'quit', 'get_ipython'}
_SCALARS = (int, float, complex, bool, str, bytes, type(None))
_SUMMARY = 120
_repr = _reprlib.Repr()
_repr.maxstring = _SUMMARY
_repr.maxother = _SUMMARY
_repr.maxlist = _repr.maxtuple = _repr.maxset = _repr.maxfrozenset = _repr.maxdeque = 10
_repr.maxdict = 10
_repr.maxlevel = 2


def _kind(name, value):
    if name.startswith('_') or name in _HIDDEN_NAMES:
        return 'ipython'
    if isinstance(value, _types.ModuleType):
        return 'module'
    if isinstance(value, type):
        return 'class'
    if callable(value) and isinstance(
        value, (_types.FunctionType, _types.BuiltinFunctionType, _types.MethodType, _types.BuiltinMethodType)
    ) or type(value).__name__ in ('partial', 'method-wrapper', 'wrapper_descriptor'):
        return 'function'
    return 'data'


def _type_name(value):
    t = type(value)
    if not isinstance(getattr(t, '__module__', None), str):
        return t.__name__
    mod = t.__module__
    return t.__name__ if mod in ('builtins', '__main__') else t.__name__ if mod.split('.')[0] in ('numpy', 'pandas') else f'{mod}.{t.__name__}'


def _short(text):
    text = ' '.join(str(text).split())
    return text if len(text) <= _SUMMARY else text[: _SUMMARY - 1] + '…'


def _numpy(value):
    np = _sys.modules.get('numpy')
    return np is not None and isinstance(value, np.ndarray)


def _pandas(value, kind):
    pd = _sys.modules.get('pandas')
    return pd is not None and isinstance(value, getattr(pd, kind))


def _shape(value):
    shape = getattr(value, 'shape', None)
    if isinstance(shape, tuple) and all(isinstance(n, int) for n in shape) and not isinstance(value, _SCALARS):
        return ' × '.join(str(n) for n in shape) if shape else None
    if isinstance(value, (str, bytes, bytearray)) or value is None or isinstance(value, (int, float, complex)):
        return None
    if isinstance(value, (list, tuple, dict, set, frozenset, range)) or type(value).__name__ == 'deque':
        return f'len {len(value)}'
    return None


def _size(value):
    try:
        if _numpy(value):
            return int(value.nbytes)
        if _pandas(value, 'DataFrame'):
            # What memory_usage(index=True, deep=False).sum() answers, without the Series it builds per column
            # (milliseconds per frame: most of a 100-variable listing's time).
            arrays = getattr(getattr(value, '_mgr', None), 'arrays', None)
            if arrays is None:
                return int(value.memory_usage(index=True, deep=False).sum())
            return int(sum(a.nbytes for a in arrays) + value.index.nbytes)
        if _pandas(value, 'Series'):
            return int(value.nbytes + value.index.nbytes)
        if isinstance(value, _SCALARS):
            return _sys.getsizeof(value)
    except Exception:
        pass
    return None


def _summary(value):
    try:
        if _numpy(value):
            np = _sys.modules['numpy']
            # array2string formats only the edge items past the threshold: a 10-million-element array costs no more than a small one.
            return _short(np.array2string(value, threshold=20, edgeitems=3, max_line_width=_SUMMARY * 2))
        if _pandas(value, 'DataFrame'):
            cols = ', '.join(str(c) for c in _islice(value.columns, 8))
            more = ', …' if len(value.columns) > 8 else ''
            return _short(f'{len(value)} rows × {len(value.columns)} columns: {cols}{more}')
        if _pandas(value, 'Series'):
            return _short(f'{value.dtype}: ' + _repr.repr(value.iloc[:10].tolist()))
        if isinstance(value, (bytes, bytearray)):
            # reprlib has no bound for bytes: it would repr them whole before cutting.
            head = repr(bytes(value[:_SUMMARY]))
            return _short(head + ('…' if len(value) > _SUMMARY else ''))
        shape = getattr(value, 'shape', None)
        # Array-likes we do not know (tensors, xarray, polars): their repr may format every element.
        if isinstance(shape, tuple) and shape and not isinstance(value, _SCALARS):
            return _short(f'{type(value).__name__} of shape {tuple(shape)}')
        return _short(_repr.repr(value))
    except Exception as err:
        return f'<repr failed: {type(err).__name__}>'


def _expandable(value):
    if isinstance(value, _SCALARS) or isinstance(value, (type, _types.FunctionType, _types.BuiltinFunctionType)):
        return False
    if _numpy(value):
        return value.ndim > 0 and value.size > 0
    if isinstance(value, (list, tuple, dict, set, frozenset)) or _pandas(value, 'DataFrame') or _pandas(value, 'Series'):
        return len(value) > 0
    return bool(getattr(value, '__dict__', None))


def _row(name, value, kind='data', ref=None):
    row = {'name': name, 'type': _type_name(value), 'kind': kind, 'ref': ref if ref is not None else [name]}
    try:
        row.update(shape=_shape(value), size=_size(value), summary=_summary(value), expandable=_expandable(value))
    except Exception as err:
        # An object whose shape, len or __dict__ raises still gets its row: one bad object must not hide the rest.
        row.update(shape=None, size=None, summary=f'<not readable: {type(err).__name__}>', expandable=False)
    return row


def listing(namespace, show_all, limit):
    rows = []
    total = 0
    for name, value in list(namespace.items()):
        kind = _kind(name, value)
        if kind != 'data' and not show_all:
            continue
        total += 1
        if len(rows) < limit:
            rows.append(_row(name, value, kind))
    return {'variables': rows, 'total': total}


def _children(value):
    """(label, step, child) for each child, lazily; and how many there are."""
    if _pandas(value, 'DataFrame'):
        return len(value.columns), ((str(c), ['c', i], value.iloc[:, i]) for i, c in enumerate(value.columns))
    if _pandas(value, 'Series'):
        return len(value), ((str(label), ['i', i], value.iloc[i]) for i, label in enumerate(value.index))
    if _numpy(value):
        return len(value), ((f'[{i}]', ['i', i], value[i]) for i in range(len(value)))
    if isinstance(value, dict):
        return len(value), ((_short(_repr.repr(k)), ['k', i], v) for i, (k, v) in enumerate(value.items()))
    if isinstance(value, (list, tuple)):
        return len(value), ((f'[{i}]', ['i', i], v) for i, v in enumerate(value))
    if isinstance(value, (set, frozenset)):
        return len(value), ((f'{{{i}}}', ['i', i], v) for i, v in enumerate(value))
    attrs = getattr(value, '__dict__', None)
    if isinstance(attrs, dict):
        # Instance attributes only: dir() would list (and getattr would run) properties.
        return len(attrs), ((str(k), ['a', str(k)], v) for k, v in attrs.items())
    return 0, iter(())


def _step(value, step):
    kind, at = step
    if kind == 'a':
        return value.__dict__[at]
    if kind == 'c':
        return value.iloc[:, at]
    if kind == 'k':
        return next(_islice(value.values(), at, None))
    if _pandas(value, 'Series'):
        return value.iloc[at]
    if isinstance(value, (set, frozenset)):
        return next(_islice(value, at, None))
    return value[at]


def expand(namespace, ref, offset, limit):
    if not ref or ref[0] not in namespace:
        return {'gone': True}
    value = namespace[ref[0]]
    try:
        for step in ref[1:]:
            value = _step(value, step)
    except (KeyError, IndexError, StopIteration, AttributeError, TypeError):
        return {'gone': True}
    total, children = _children(value)
    rows = [_row(label, child, 'data', ref + [step]) for label, step, child in _islice(children, offset, offset + limit)]
    return {'children': rows, 'total': total, 'offset': offset}


class Answer:
    """What a user expression returns: its data as a JSON bundle; a short repr so text/plain costs nothing."""

    def __init__(self, data):
        self.data = data

    def __repr__(self):
        return '<kiln variables>'

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {'application/vnd.kiln.variables+json': self.data}
`;

/** Named after its source: a kernel that installed an older Kiln's version gets this one beside it, not the stale one. */
export const VARIABLES_MODULE = `_kiln_variables_${createHash('sha256').update(VARIABLES_PY).digest('hex').slice(0, 12)}`;
