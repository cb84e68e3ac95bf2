"""Filters longer than the image, folded to what the image costs.

On an axis of ``n`` samples every mode's extension repeats or stops: ``reflect`` has period
``2n``, ``mirror`` ``2n - 2`` (1 where ``n`` is 1), ``wrap`` ``n``; ``nearest`` reads the edge
sample at every offset past ``n - 1`` (each side), ``constant`` reads ``cval`` at every offset
past ``n``. So the taps of a filter that reach farther sum, exactly, into a window of at most
``2n + 1`` offsets: by residue modulo the period, or into the last tap of the window on each side
(which, for ``constant``, lies wholly outside the image and reads ``cval`` only). In 2D the
extension of every mode is the product of the axes' extensions, so folding each axis on its own
(rows, then columns) folds a 2D filter, and an ``outer(wy, wx)`` filter folds into the outer
product of its folded factors. A folded axis is centred on its window's middle tap (origin 0).

The Gaussian's and the box's factors are folded without being formed: sums of a Gaussian over
an arithmetic progression by Euler-Maclaurin (exact to float64 where the step is small against
sigma), of a box by counting."""

from __future__ import annotations

import math

import numpy as np

# Explicit taps at most this many are summed as they are (in chunks of this many).
_DIRECT = 1 << 20
# Euler-Maclaurin serves where sigma is at least this many steps: its error after the B6 term
# is of the order of (step / sigma)**7 of the sum.
_EM_STEPS = 20


def window(n: int, mode: str):
    """(lo, hi, period): the offsets a folded axis of ``n`` samples keeps, and the mode's period
    (None for ``nearest`` and ``constant``)."""
    if mode == "nearest":
        return -(n - 1), n - 1, None
    if mode == "constant":
        return -n, n, None
    p = {"reflect": 2 * n, "mirror": max(2 * n - 2, 1), "wrap": n}[mode]
    lo = -(p // 2)
    return lo, lo + p - 1, p


def folds(k: int, centre: int, n: int, mode: str) -> bool:
    """Whether a filter of ``k`` taps centred on tap ``centre`` reaches past the window."""
    lo, hi, _ = window(n, mode)
    return -centre < lo or k - 1 - centre > hi


def folded_shape(k: int, centre: int, n: int, mode: str):
    """(taps, centre) of the filter as it runs on an axis of ``n`` samples."""
    if not folds(k, centre, n, mode):
        return k, centre
    lo, hi, _ = window(n, mode)
    return hi - lo + 1, -lo


def _index(offsets, lo, hi, period):
    if period is None:
        return np.clip(offsets, lo, hi) - lo
    return (offsets - lo) % period


def _fold_axis(w, axis: int, centre: int, n: int, mode: str):
    """``w`` folded along ``axis`` (taps centred on ``centre``) for ``n`` samples: each place
    of the window the sum of the taps that land on it, in time and memory of the taps' count."""
    lo, hi, period = window(n, mode)
    w = np.moveaxis(np.asarray(w, dtype=np.float64), axis, 0)
    k, first = w.shape[0], -centre
    if period is None:
        # The centre tap (offset 0) is within both the filter and the window.
        out = np.zeros((hi - lo + 1,) + w.shape[1:])
        a, b = max(first, lo), min(first + k - 1, hi)
        out[a - lo : b - lo + 1] = w[a - first : b - first + 1]
        if first < lo:
            out[0] += w[: lo - first].sum(axis=0)
        if first + k - 1 > hi:
            out[-1] += w[hi - first + 1 :].sum(axis=0)
    else:
        shift = (first - lo) % period
        rows = -(-(shift + k) // period) * period
        buf = np.zeros((rows,) + w.shape[1:])
        buf[shift : shift + k] = w
        out = buf.reshape((rows // period, period) + w.shape[1:]).sum(axis=0)
    return np.moveaxis(out, 0, axis), -lo


def fold_taps(taps, centre: int, n: int, mode: str):
    """(taps, centre): explicit 1D taps folded for an axis of ``n`` samples (as they are where
    they fit)."""
    if not folds(len(taps), centre, n, mode):
        return np.asarray(taps, dtype=np.float64), centre
    return _fold_axis(taps, 0, centre, n, mode)


def fold_weights(w, centre, shape, mode):
    """(weights, centre): 2D weights folded on each axis they overreach, for images of ``shape``
    (height, width)."""
    out, centres = w, list(centre)
    for axis in (0, 1):
        if folds(out.shape[axis], centres[axis], shape[axis], mode):
            out, centres[axis] = _fold_axis(out, axis, centres[axis], shape[axis], mode)
    return out, tuple(centres)


def _mass(ua: float, ub: float) -> float:
    """erf(ub) - erf(ua), without cancellation in the tails."""
    if ua >= 0:
        return math.erfc(ua) - math.erfc(ub)
    if ub <= 0:
        return math.erfc(-ub) - math.erfc(-ua)
    return math.erf(ub) - math.erf(ua)


def _gauss_sums(first, step: int, count, s: float):
    """``sum(exp(-(f + i * step)**2 / (2 s**2)) for i in range(c))`` for each ``f`` of ``first``
    and ``c`` of ``count`` (Python ints, lists of equal length): by Euler-Maclaurin (the
    integral by erf, the end corrections to the B6 term) where ``s`` is at least ``_EM_STEPS``
    steps and every count past 4096, else term by term."""
    if s < _EM_STEPS * step or min(count) <= 4096:
        sums = []
        for f, c in zip(first, count):
            total = 0.0
            for start in range(0, c, _DIRECT):
                i = np.arange(start, min(c, start + _DIRECT), dtype=np.float64)
                x = (float(f) + i * step) / s
                total += float(np.exp(-0.5 * x * x).sum())
            sums.append(total)
        return np.array(sums)
    a = np.array([float(f) for f in first])
    b = np.array([float(f + (c - 1) * step) for f, c in zip(first, count)])
    root = s * math.sqrt(2)
    mass = np.array([_mass(p, q) for p, q in zip(a / root, b / root)])
    integral = s * math.sqrt(math.pi / 2) * mass / step

    def corrections(t):
        # h^n times the n-th derivative (n = 1, 3, 5) of exp(-t^2 / 2s^2) at t: with q = h / s,
        # u = t / s, it is (-1)^n q^n He_n(u) exp(-u^2 / 2).
        u, q = t / s, step / s
        g = np.exp(-0.5 * u * u)
        return g, -q * u * g, q**3 * (3 * u - u**3) * g, -(q**5) * (u**5 - 10 * u**3 + 15 * u) * g

    (ga, c1a, c3a, c5a), (gb, c1b, c3b, c5b) = corrections(a), corrections(b)
    return integral + (ga + gb) / 2 + (c1b - c1a) / 12 - (c3b - c3a) / 720 + (c5b - c5a) / 30240


def gaussian_reach(s: float, r: int) -> int:
    """The radius of the taps of scipy's Gaussian (standard deviation ``s``, radius ``r``) that
    are not 0: past 40 sigma every tap is exactly 0.0 in float64 (exp of less than -745)."""
    cap = 40.0 * s
    return r if cap >= r else min(r, int(cap) + 2)


def gaussian(s: float, r: int, n: int, mode: str, c=None):
    """(taps, centre): scipy's Gaussian of standard deviation ``s`` and radius ``r`` (at most
    :func:`gaussian_reach`), normalized to sum 1, folded for an axis of ``n`` samples; ``c`` is
    scipy's ``-0.5 / s**2`` (rounded as the sigma's type rounds it), by default in float64."""
    c = -0.5 / (s * s) if c is None else c
    if c == 0:
        # scipy's taps exp(-0.5 / s**2 * x**2) are then all exactly 1: a box.
        return uniform(2 * r + 1, n, mode)
    lo, hi, period = window(n, mode)
    if -r >= lo and r <= hi:
        x = np.arange(-r, r + 1)
        phi = np.exp(c * x**2)
        return phi / phi.sum(), r
    size = hi - lo + 1
    if 2 * r + 1 <= _DIRECT or s < _EM_STEPS * (period or 1):
        acc = np.zeros(size)
        for start in range(-r, r + 1, _DIRECT):
            x = np.arange(start, min(r + 1, start + _DIRECT), dtype=np.int64)
            phi = np.exp(c * (x * x).astype(np.float64))
            acc += np.bincount(_index(x, lo, hi, period), weights=phi, minlength=size)
    elif period is not None:
        # Offsets m + k * period within [-r, r], k from k0 to k1, for each m of the window.
        k0 = [-((m + r) // period) for m in range(lo, hi + 1)]
        k1 = [(r - m) // period for m in range(lo, hi + 1)]
        first = [m + k * period for m, k in zip(range(lo, hi + 1), k0)]
        acc = _gauss_sums(first, period, [b - a + 1 for a, b in zip(k0, k1)], s)
    else:
        inner = np.arange(lo + 1, hi, dtype=np.float64)
        tail = float(_gauss_sums([hi], 1, [r - hi + 1], s)[0])
        acc = np.concatenate(([tail], np.exp(-0.5 * (inner / s) ** 2), [tail]))
    return acc / acc.sum(), -lo


def uniform(k: int, n: int, mode: str, c=None):
    """(taps, centre): scipy's box of ``k`` taps centred on tap ``c`` (default ``k // 2``),
    folded for an axis of ``n`` samples, each tap the count of the box's taps folded onto it
    over ``k``."""
    c = k // 2 if c is None else c
    if not folds(k, c, n, mode):
        return np.full(k, 1.0 / k), c
    lo, hi, period = window(n, mode)
    a, b = -c, k - 1 - c
    if lo == hi:
        counts = [k]
    elif period is None:
        counts = [1 if a <= m <= b else 0 for m in range(lo, hi + 1)]
        counts[0] = max(0, min(b, lo) - a + 1)
        counts[-1] = max(0, b - max(a, hi) + 1)
    else:
        counts = [(b - m) // period + (m - a) // period + 1 for m in range(lo, hi + 1)]
    return np.array([float(t) for t in counts]) / k, -lo
