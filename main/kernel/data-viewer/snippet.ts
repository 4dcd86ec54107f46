import { createHash } from 'node:crypto';

/*
 * The Python side of the data viewer, installed in the kernel as a private module (sys.modules only, never a name
 * in the operator's namespace), as the Variables view's is. Every answer is bounded: a page of at most `limit`
 * rows, cells cut to 200 characters, top values of at most 5. Sorting and filtering run here over positions
 * (one int64 array per view), never by copying the frame; the newest view of each variable is kept for paging.
 */

export const DATA_VIEWER_PY = String.raw`import sys as _sys
import weakref as _weakref

_CELL = 200
# name -> (identity check, table, {view key: positions}); one table and a few views per variable.
_cache = {}


def _pd():
    import pandas
    return pandas


def _np():
    import numpy
    return numpy


def _kind_of(value):
    pd = _sys.modules.get('pandas')
    np = _sys.modules.get('numpy')
    pl = _sys.modules.get('polars')
    if pd is not None and isinstance(value, pd.DataFrame):
        return 'DataFrame'
    if pd is not None and isinstance(value, pd.Series):
        return 'Series'
    if np is not None and isinstance(value, np.ndarray):
        return 'ndarray' if value.ndim in (1, 2) else None
    if pl is not None and isinstance(value, pl.DataFrame):
        return 'polars'
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value[:1000]):
        return 'records'
    return None


class _Table:
    """A pandas DataFrame over the value (no copy for frames, series and arrays) and how its index reads."""

    def __init__(self, value, kind):
        pd = _pd()
        self.kind = kind
        self.index_name = None
        if kind == 'DataFrame':
            self.frame = value
            self.index = value.index
        elif kind == 'Series':
            self.frame = pd.DataFrame({value.name if value.name is not None else 0: value.array}, copy=False)
            self.index = value.index
        elif kind == 'ndarray':
            self.frame = pd.DataFrame(value if value.ndim == 2 else value.reshape(-1, 1), copy=False)
            self.index = None
        elif kind == 'polars':
            self.frame = pd.DataFrame({c: value.get_column(c).to_numpy() for c in value.columns})
            self.index = None
        else:
            self.frame = pd.DataFrame(value)
            self.index = None
        if self.index is not None and self.index.name is not None:
            self.index_name = str(self.index.name)

    def column(self, j):
        return self.frame.iloc[:, j]


def _identity(value):
    try:
        ref = _weakref.ref(value)
        return lambda other: ref() is other
    except TypeError:
        # A list of dicts takes no weak reference: its id and length stand for it.
        n, i = len(value), id(value)
        return lambda other: id(other) == i and len(other) == n


def _lookup(namespace, name):
    """A name in the namespace, or 'Out[n]': a cell's result kept in IPython's output history (an output's handle)."""
    if name in namespace:
        return True, namespace[name]
    if name.startswith('Out[') and name.endswith(']') and name[4:-1].isdigit():
        out = namespace.get('Out')
        if isinstance(out, dict) and int(name[4:-1]) in out:
            return True, out[int(name[4:-1])]
    return False, None


def _table(namespace, name):
    found, value = _lookup(namespace, name)
    if not found:
        return None, 'gone'
    kind = _kind_of(value)
    if kind is None:
        return None, type(value).__name__
    held = _cache.get(name)
    if held is not None and held[0](value):
        return held[1], held
    table = _Table(value, kind)
    held = (_identity(value), table, {})
    _cache[name] = held
    return table, held


def _dtype_kind(series):
    pd = _pd()
    t = pd.api.types
    if t.is_bool_dtype(series.dtype):
        return 'bool'
    if t.is_numeric_dtype(series.dtype):
        return 'number'
    if t.is_datetime64_any_dtype(series.dtype) or t.is_timedelta64_dtype(series.dtype):
        return 'datetime'
    if t.is_string_dtype(series.dtype) or t.is_object_dtype(series.dtype) or isinstance(series.dtype, pd.CategoricalDtype):
        return 'string'
    return 'other'


def _columns(table):
    return [
        {'name': str(c), 'dtype': str(table.frame.dtypes.iloc[j]), 'kind': _dtype_kind(table.column(j))}
        for j, c in enumerate(table.frame.columns)
    ]


def _mask(series, kind, op, value):
    pd = _pd()
    if op == 'missing':
        return series.isna().to_numpy()
    if op == 'present':
        return series.notna().to_numpy()
    if op == 'contains':
        text = series.astype(str) if kind != 'string' or series.dtype == object else series
        return text.str.contains(str(value), case=False, regex=False, na=False).to_numpy(dtype=bool)
    if kind == 'number' or kind == 'bool':
        number = float(value)
    elif kind == 'datetime':
        number = pd.Timestamp(value)
    else:
        number = str(value)
    left = series if kind != 'string' else series.astype(str)
    result = {'eq': left == number, 'ne': left != number, 'lt': left < number, 'le': left <= number,
              'gt': left > number, 'ge': left >= number}[op]
    return result.to_numpy(dtype=bool, na_value=False) if hasattr(result, 'to_numpy') else result


def _positions(table, held, sort, filters, need=None):
    """(positions of the view's rows in order, or None for all rows in their own order; the view's row count).

    With need, a numeric sort may order only the first need rows (argpartition, then a sort of those): the top
    of 10 million rows in a fraction of a full sort. A page past them sorts in full.
    """
    key = (None if sort is None else (sort['column'], bool(sort['descending'])),
           tuple((f['column'], f['op'], str(f.get('value'))) for f in filters))
    views = held[2]
    hit = views.get(key)
    if hit is not None and (hit[2] or (need is not None and need <= len(hit[0]))):
        return hit[0], hit[1]
    np = _np()
    pd = _pd()
    positions = None
    for f in filters:
        series = table.column(f['column'])
        mask = _mask(series, _dtype_kind(series), f['op'], f.get('value'))
        positions = np.flatnonzero(mask) if positions is None else positions[mask[positions]]
    rows = len(table.frame) if positions is None else len(positions)
    complete = True
    if sort is not None:
        series = table.column(sort['column'])
        values = series.array if positions is None else series.array.take(positions)
        keyed = pd.Series(values, copy=False)
        raw = keyed.to_numpy() if keyed.dtype.kind in 'iufb' else None
        if raw is not None:
            # numpy on the plain values (NaN last both ways; ~x reverses ints without overflow).
            ranked = raw if not sort['descending'] else (-raw if raw.dtype.kind == 'f' else ~raw)
            k = None if need is None else max(need, 1000)
            if k is not None and k * 4 < len(ranked):
                top = np.argpartition(ranked, k - 1)[:k]
                order = top[np.argsort(ranked[top], kind='stable')]
                complete = False
            else:
                order = np.argsort(ranked)
        else:
            try:
                order = keyed.sort_values(ascending=not sort['descending'], kind='stable', na_position='last').index.to_numpy()
            except TypeError:
                # Mixed types in one object column: ordered as text.
                order = keyed.astype(str).sort_values(ascending=not sort['descending'], kind='stable').index.to_numpy()
        positions = order if positions is None else positions[order]
    # The newest few views stay for paging; each is one int64 per row at most.
    views.pop(key, None)
    while len(views) >= 3:
        views.pop(next(iter(views)))
    views[key] = (positions, rows, complete)
    return positions, rows


def _cell_values(series, kind):
    np = _np()
    pd = _pd()
    if kind == 'number':
        values = series.to_numpy(dtype='float64', na_value=np.nan) if series.dtype.kind not in 'iu' else series.to_numpy()
        out = values.tolist()
        if series.dtype.kind == 'f' or series.dtype.kind not in 'iu':
            out = [None if v != v or v in (float('inf'), float('-inf')) else v for v in out]
        return out
    if kind == 'bool':
        return [None if v is None or v is pd.NA or v != v else bool(v) for v in series.tolist()]
    out = []
    for v in series.tolist():
        if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and v != v):
            out.append(None)
        else:
            text = v.isoformat() if hasattr(v, 'isoformat') else str(v)
            out.append(text if len(text) <= _CELL else text[: _CELL - 1] + '…')
    return out


def page(namespace, name, offset, limit, sort, filters):
    table, held = _table(namespace, name)
    if table is None:
        return {'gone': True} if held == 'gone' else {'unsupported': held}
    positions, rows = _positions(table, held, sort, filters, offset + limit)
    total = len(table.frame)
    at = positions[offset: offset + limit] if positions is not None else slice(offset, min(offset + limit, total))
    part = table.frame.iloc[at]
    columns = _columns(table)
    data = [_cell_values(part.iloc[:, j], columns[j]['kind']) for j in range(len(columns))]
    if table.index is None:
        index = (list(range(offset, offset + len(part))) if positions is None else positions[offset: offset + limit].tolist())
    else:
        index = _cell_values(table.index[at].to_series(), 'string')
    return {'kind': table.kind, 'total': total, 'rows': rows, 'offset': offset, 'columns': columns,
            'indexName': table.index_name, 'index': index, 'data': data}


def summary(namespace, name):
    table, held = _table(namespace, name)
    if table is None:
        return {'gone': True} if held == 'gone' else {'unsupported': held}
    out = []
    n = len(table.frame)
    for j in range(len(table.frame.columns)):
        series = table.column(j)
        kind = _dtype_kind(series)
        missing = int(series.isna().sum())
        entry = {'count': n - missing, 'missing': missing, 'min': None, 'max': None, 'top': None, 'sampled': False}
        try:
            if kind in ('number', 'datetime') and n - missing > 0:
                lo, hi = _cell_values(_pd().Series([series.min(), series.max()]), kind if kind == 'number' else 'string')
                entry.update(min=lo, max=hi)
            else:
                # Counting every distinct string of a 10-million-row column takes seconds: a spread sample of 1M says the top.
                sample = series if n <= 1_000_000 else series.iloc[:: n // 1_000_000 + 1]
                counts = sample.astype(str).value_counts(dropna=True).head(5) if kind != 'bool' else sample.value_counts().head(5)
                entry.update(top=[[str(k)[:_CELL], int(v)] for k, v in counts.items()], sampled=len(sample) < n)
        except Exception as err:
            entry['error'] = type(err).__name__
        out.append(entry)
    return {'summaries': out}


def export_csv(namespace, name, sort, filters, limit):
    table, held = _table(namespace, name)
    if table is None:
        return {'gone': True} if held == 'gone' else {'unsupported': held}
    positions, rows = _positions(table, held, sort, filters)
    if rows > limit:
        return {'tooMany': rows}
    part = table.frame if positions is None else table.frame.iloc[positions]
    return {'csv': part.to_csv(index=table.index is not None), 'rows': rows}


class Answer:
    def __init__(self, data):
        self.data = data

    def __repr__(self):
        return '<kiln data viewer>'

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {'application/vnd.kiln.data-viewer+json': self.data}
`;

/** Named after its source: a kernel that installed an older Kiln's version gets this one beside it. */
export const DATA_VIEWER_MODULE = `_kiln_data_viewer_${createHash('sha256').update(DATA_VIEWER_PY).digest('hex').slice(0, 12)}`;
