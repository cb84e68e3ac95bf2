"""What every scipy-named function does around its filter, as scipy does it: the input taken as its
kind (numpy, torch, CuPy; DLPack-only arrays viewed through torch or CuPy), ``output`` resolved
(an array, a dtype, or the input's dtype), ``axes`` and per-axis sequences checked, complex
arrays filtered as two real ones, a stream entered, and the result cast (truncated, for integers)
into the output."""

from __future__ import annotations

import contextlib
import functools
import warnings
import operator
from collections import OrderedDict

import numpy as np

from . import _engine, _fold, _numpy, _params, _xp
from ._cuda import _is_cuda, _is_dlpack_cuda, dlpack_view


# numpy's AxisError (a ValueError and an IndexError), where numpy >= 1.25 keeps it.
_AXIS_ERROR = getattr(getattr(np, "exceptions", np), "AxisError")


def seq(value, rank: int, name: str):
    """scipy's ``_normalize_sequence``: one value for every axis, or a sequence of ``rank``."""
    if not isinstance(value, str) and np.iterable(value):
        values = list(value)
        if len(values) != rank:
            raise RuntimeError(f"{name}: sequence argument must have length equal to input rank ({rank}), got {len(values)}")
        return values
    return [value] * rank


def axis_index(axis, ndim: int, name: str = "axis") -> int:
    a = _params.integer(axis, name)
    if not -ndim <= a < ndim:
        raise _AXIS_ERROR(f"{name} {a} is out of bounds for array of dimension {ndim}")
    return a % ndim


def check_axes(axes, ndim: int, channel_axis=None):
    """scipy's ``axes`` (None: every axis; one integer; or unique integers) as non-negative
    indices in the given order, less ``channel_axis`` (an axis of channels, not filtered)."""
    c = None if channel_axis is None else axis_index(channel_axis, ndim, "channel_axis")
    if axes is None:
        return tuple(a for a in range(ndim) if a != c)
    if np.isscalar(axes) or isinstance(axes, np.ndarray) and axes.ndim == 0:
        axes = (axes,)
    elif not np.iterable(axes) or isinstance(axes, str):
        raise ValueError("axes must be an integer, iterable of integers, or None")
    out = tuple(axis_index(a, ndim, "axes") for a in axes)
    if len(set(out)) != len(out):
        raise ValueError("axes must be unique")
    if c is not None and c in out:
        raise ValueError(f"channel_axis {channel_axis} is one of the filtered axes {tuple(axes)}")
    return out


def modes(value, rank: int):
    return [_params.mode(m) for m in seq(value, rank, "mode")]


def _stream(kind, stream):
    """The context in which the framework's current stream is ``stream`` (a raw handle)."""
    if stream is None or kind.name == "numpy":
        return contextlib.nullcontext()
    if kind.name == "torch":
        return kind.xp.cuda.stream(kind.xp.cuda.ExternalStream(stream))
    return kind.xp.cuda.ExternalStream(stream)


def _from_dlpack(input, output, call):
    """A DLPack-only CUDA array, viewed without a copy through torch (or CuPy), filtered, and
    given back through its own namespace's ``from_dlpack`` (or written into ``output``)."""
    view = dlpack_view()
    out = output if output is None or isinstance(output, (str, type, np.dtype)) else view(output)
    result = call(view(input), out)
    if out is not None and out is not output:
        return output
    namespace = getattr(input, "__array_namespace__", None)
    return result if namespace is None else namespace().from_dlpack(result)


# Programs kept (per function, parameters, array kind, shape and dtypes): the least recently used
# goes past this many. A program holds its taps and the keys of its plans, not the plans.
PROGRAMS = 256
_programs = OrderedDict()


# The types of most arguments, which ``typed`` takes as they are (first, the quickest test).
_SCALARS = frozenset({int, float, str, bool, type(None)})


def typed(value):
    """``value`` as part of a key: each number with its type (1, 1.0 and True are equal keys, but
    not equal arguments: scipy takes some and refuses others), sequences as tuples."""
    t = type(value)
    if t in _SCALARS:
        return (t, value)
    if isinstance(value, (tuple, list)):
        return (type(value), tuple([typed(v) for v in value]))
    return (type(value), value)


def _key(prepare, shape, in_name, out_name, args, params):
    """The key of a kept program: the arguments and keyword parameters each typed."""
    return (prepare, shape, in_name, out_name, typed(args), tuple([(k, typed(v)) for k, v in params.items()]))


def _program(prepare, shape, in_name, out_name, args, params):
    """``prepare``'s program for these arguments, kept where they can be a key."""
    key = _key(prepare, shape, in_name, out_name, args, params)
    try:
        prog = _programs.get(key)
    except TypeError:  # an argument that cannot be a key (large weights are not)
        return prepare(shape, in_name, out_name, *args, **params)
    if prog is None:
        prog = prepare(shape, in_name, out_name, *args, **params)
        _programs[key] = prog
        if len(_programs) > PROGRAMS:
            _programs.popitem(last=False)
    else:
        _programs.move_to_end(key)
    return prog


def front(prepare=None, *, real_output=False):
    """The decorator of a scipy-named function's ``prepare(shape, in_name, out_name, *args,
    **params)``, which checks the parameters and returns the program ``prog(kind, x)`` of its
    filter (a result of any dtype, cast here): ``input`` and ``output`` resolved, the program
    kept, empty arrays answered without work, complex input filtered by parts, the result
    written into ``output``. ``real_output``: a real dtype given as ``output`` for complex input
    makes a real result, as in scipy's functions of several passes (:func:`_real_output`);
    without it the dtype is promoted to complex, as in scipy's others."""
    if prepare is None:
        return functools.partial(front, real_output=real_output)
    prepare.real_output = real_output

    @functools.wraps(prepare)
    def call(input, *args, output=None, stream=None, device=None, complex_weights=False, **params):
        if device is not None:
            with _numpy.on_device(device, input):
                return call(input, *args, output=output, stream=stream, complex_weights=complex_weights, **params)
        if output is None and stream is None and not complex_weights:
            # The common call, in as few steps as Python allows: a real array of a shape and
            # dtype seen before with these parameters, into a new result.
            kind, x = _xp.kind_of(input)
            if kind is not None:
                name = kind.name_of(x)
                try:
                    prog = _programs.get(_key(prepare, x.shape, name, name, args, params))
                except TypeError:
                    prog = None
                if prog is not None:
                    result = kind.cast(prog(kind, x), name)
                    return kind.copy(result) if result is x else result
        return _call(prepare, input, args, output, stream, complex_weights, params)

    return call


def _call(prepare, input, args, output, stream, complex_weights, params):
    """The general call of ``front``."""
    call = functools.partial(_call, prepare)
    if _is_dlpack_cuda(input) and not _is_cuda(input):
        return _from_dlpack(
            input,
            output,
            lambda i, o: call(i, args, o, stream, complex_weights, params),
        )
    kind, x = _xp.kind_of(input)
    name = kind.name_of(x)
    _xp.check_dtype(name)
    out_name = _xp.output_name(kind, output, name, complex_weights)
    if (complex_weights or name in _xp.COMPLEX_PARTS) and out_name not in _xp.COMPLEX_PARTS:
        if not isinstance(output, (type, np.dtype)):
            raise RuntimeError(f"output must have a complex dtype for complex input or weights, got {out_name}")
        if prepare.real_output:
            return _real_output(prepare, kind, x, name, out_name, args, params)
        warnings.warn("promoting specified output dtype to complex", stacklevel=3)
        output = np.promote_types(output, np.complex64)
        out_name = output.name
    out = None if output is None or isinstance(output, (str, type, np.dtype)) or not hasattr(output, "shape") else output
    if out is not None:
        _xp.check_output(kind, out, x)
    stream = _params.stream(stream)
    if isinstance(params.get("cval"), complex) and name not in _xp.COMPLEX_PARTS and not complex_weights:
        raise ValueError("Cannot provide a complex-valued cval when the input is real.")
    shape = tuple(int(s) for s in x.shape)
    if 0 in shape:
        # Nothing to filter: the parameters checked (as on one sample an axis), the result empty.
        _program(prepare, tuple(max(s, 1) for s in shape), name, _xp.COMPLEX_PARTS.get(out_name, out_name), args, params)
        result = kind.empty(shape, out_name, x)
        return result if out is None else out
    with _stream(kind, stream):
        if out_name in _xp.COMPLEX_PARTS:
            part = _xp.COMPLEX_PARTS[out_name]
            if complex_weights:
                prog = _program(prepare, shape, name, part, args, params)
                re, im = prog(kind, x)
            else:
                re, im = _parts(kind, x, name, part, prepare, args, params)
            result = kind.complex(kind.cast(re, part), kind.cast(im, part), out_name)
        else:
            prog = _program(prepare, shape, name, out_name, args, params)
            if out is not None and getattr(prog, "into", None) == kind.name_of(out) and kind.is_contiguous(out):
                # The last pass writes the caller's array (computed apart where it overlaps the input).
                return prog(kind, x, out)
            result = prog(kind, x)
        if out is None:
            cast = kind.cast(result, out_name)
            # A filter that changes nothing still returns a new array, as scipy's does.
            return kind.copy(cast) if cast is x else cast
        return kind.copy_into(out, result)


def identity(kind, x):
    """The program of a filter that changes nothing."""
    return x


def _real_output(prepare, kind, x, name, out_name, args, params):
    """A real dtype ``out_name`` asked of complex ``x`` (dtype ``name``) where scipy makes a real
    result: the real part where the parameters filter nothing (scipy copies the input), else
    scipy's error."""
    shape = tuple(max(int(s), 1) for s in x.shape)
    if _program(prepare, shape, _xp.COMPLEX_PARTS[name], out_name, args, params) is not identity:
        raise RuntimeError(f"output must have a complex dtype for complex input, got {out_name}")
    warnings.warn("Casting complex values to real discards the imaginary part", np.exceptions.ComplexWarning, stacklevel=4)
    if 0 in x.shape:
        return kind.empty(tuple(int(s) for s in x.shape), out_name, x)
    return kind.copy(kind.cast(kind.contiguous(kind.parts(x)[0]), out_name))


def _parts(kind, x, name, part, prepare, args, params):
    """(real, imaginary) results of a complex ``x`` (or of a real one: its imaginary part 0)."""
    shape = tuple(int(s) for s in x.shape)
    if name not in _xp.COMPLEX_PARTS:
        re = _program(prepare, shape, name, part, args, params)(kind, x)
        return re, re * 0
    re, im = kind.parts(x)
    cval = params.get("cval", 0.0)
    out = []
    for p, c in ((re, np.real(cval)), (im, np.imag(cval))):
        if "cval" in params:
            params = dict(params, cval=float(c))
        out.append(_program(prepare, shape, part, part, args, params)(kind, kind.contiguous(p)))
    return tuple(out)


def real_cval(value, complex_input: bool):
    """``cval``: a real number, or a complex one for complex input (checked per part)."""
    if type(value) is float and abs(value) <= _params.F32_MAX:
        return value
    if complex_input and isinstance(value, (complex, np.complexfloating)):
        _params.cval(value.real)
        _params.cval(value.imag)
        return complex(value)
    return _params.cval(value)


def passes(shape, in_name, out_name, steps, cval):
    """The program of one 1D pass after another, ``steps`` a list of ``(axis, taps, centre, mode,
    divisor)`` (taps folded for the axis, a result then divided by ``divisor`` where given): as
    scipy runs them, each pass's result stored in the output's dtype where that is an integer
    (truncated); computed in float32 or float64 (``_xp.compute_name``), two neighbouring axes of
    one mode as one 2D filter."""
    if not steps:
        return identity
    comp = _xp.compute_name(out_name, in_name)
    direct = _direct(shape, in_name, out_name, steps, cval)
    if direct is not None:
        return direct
    if _xp.is_int(out_name):
        # The widening of each pass's result rides on its taps (the same to float32's rounding).
        runs = [
            (_engine.line_step(shape, comp, a, np.asarray(t) * _xp.widening(comp, out_name, t), c, m, cval), d)
            for a, t, c, m, d in steps
        ]

        def stored(kind, x):
            work = kind.astype(x, comp)
            for i, (step, divisor) in enumerate(runs):
                r = step(kind, work)
                if divisor is not None:
                    r = r / divisor
                result = kind.cast(r, out_name)
                if i + 1 < len(runs):
                    work = kind.astype(result, comp)
            return result

        return stored
    pair = None
    # Passes commute, and two of them fuse, unless one reads a nonzero cval past the edges of
    # the other's result.
    if comp == "float32" and (cval == 0 or all(p[3] != "constant" for p in steps)):
        steps = sorted(steps, key=operator.itemgetter(0))
        for p, q in zip(steps, steps[1:]):
            if q[0] == p[0] + 1 and p[3] == q[3] and _engine.fusable(shape, p[0]):
                pair = (p, q)
    if in_name == out_name and in_name in _engine.HALF_DTYPES and len(steps) == 1 + (pair is not None):
        # Half floats in one run: the kernels read and write them as they are.
        native = _half_run(shape, in_name, steps[0] if pair is None else pair, cval)
        if native is not None:
            return writes_into(lambda kind, x, out=None: native(kind, kind.contiguous(x), *([out] if out is not None else [])), native, in_name)
    runs = []
    for p in steps:
        if pair is not None and p is pair[1]:
            continue
        if pair is not None and p is pair[0]:
            (a, ta, ca, mode, _), (_, tb, cb, _, _) = pair
            runs.append(_engine.plane_step(shape, comp, a, np.outer(ta, tb), (ca, cb), mode, cval, fallback=False))
            if runs[-1] is None:  # not a filter the kernels take as one: two passes
                runs[-1:] = [_engine.line_step(shape, comp, q[0], q[1], q[2], q[3], cval) for q in pair]
        else:
            runs.append(_engine.line_step(shape, comp, p[0], p[1], p[2], p[3], cval))

    def computed(kind, x, out=None):
        work = kind.astype(x, comp)
        for step in runs[:-1]:
            work = step(kind, work)
        return runs[-1](kind, work) if out is None else runs[-1](kind, work, out)

    prog = writes_into(computed, runs[-1], comp)
    if len(runs) == 1 and comp == "float32" and getattr(runs[0], "hypot", None) is not None:
        # One run on the kernels: it can store the root of its squared result plus another's.
        prog.hypot = lambda kind, x, with_: runs[0].hypot(kind, kind.astype(x, comp), with_)
    return prog


def _half_run(shape, name, run, cval):
    """The kernels' step of one pass, or of a fused pair of passes ``(p, q)``, on half-float
    samples ``name`` as they are; None where they do not take it."""
    if isinstance(run[0], tuple):
        (a, ta, ca, mode, _), (_, tb, cb, _, _) = run
        return _engine.plane_step(shape, name, a, np.outer(ta, tb), (ca, cb), mode, cval, fallback=False)
    a, t, c, mode, _ = run
    return _engine.line_step(shape, name, a, t, c, mode, cval)


def whole_level(name, mode, cval) -> bool:
    """Whether 8- or 16-bit samples ``name`` run on the kernels as they are under ``mode``: its
    constant, where it reads one, is a whole level of the type."""
    return name in ("uint8", "uint16") and (
        mode != "constant" or (float(cval).is_integer() and 0 <= cval <= np.iinfo(np.dtype(name)).max)
    )


def _direct(shape, in_name, out_name, steps, cval):
    """The program of 1D passes on 8- or 16-bit samples into their own dtype, each pass read
    and written as it is by the kernels (truncated as scipy casts), or None where they do not
    take it."""
    if in_name != out_name or in_name not in _engine.KERNEL_DTYPES or not all(whole_level(in_name, p[3], cval) for p in steps):
        return None
    runs = []
    for a, t, c, m, d in steps:
        step = _engine.line_step(shape, in_name, a, t if d is None else t / d, c, m, cval)
        if step is None:
            return None
        runs.append(step)

    def direct(kind, x, out=None):
        work = kind.contiguous(x)
        for step in runs[:-1]:
            work = step(kind, work)
        return runs[-1](kind, work) if out is None else runs[-1](kind, work, out)

    return writes_into(direct, runs[-1], in_name)


def writes_into(prog, last, name):
    """``prog``, marked as writing into an ``out`` of dtype ``name`` where its ``last`` step can."""
    if getattr(last, "into", False):
        prog.into = name
    return prog


def folded(taps, centre, n, mode):
    """(taps, centre) folded for an axis of ``n`` samples."""
    return _fold.fold_taps(np.asarray(taps, dtype=np.float64), centre, n, mode)
