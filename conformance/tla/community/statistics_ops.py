"""The Statistics community module, native as in TLC (its TLA+ text only says TRUE).

``ChiSquare(expected, actual, alpha)`` is Pearson's chi-square goodness-of-fit test of the
counts ``actual`` against the frequencies ``expected`` at significance ``alpha`` (a string
such as ``"0.05"``): FALSE when the test rejects the hypothesis that the counts follow the
frequencies (p-value below ``alpha``), TRUE otherwise. As TLC's override (which calls
Apache Commons Math's ``ChiSquareTest``): the two functions' values are paired in the order
of their domains; the expected values are scaled to the sum of the counts when the two
sums differ; the p-value is that of the chi-square distribution with one degree of freedom
fewer than there are values; at least two values, every expected value positive, every
count a natural number, ``alpha`` in (0, 0.5].
"""

from __future__ import annotations

import math
from typing import Any

from conformance.tla.stdlib import StdOp, show, want_fn, want_str
from conformance.tla.syntax import EvalError
from conformance.tla.values import Fn, sorted_values

_EPSILON = 1e-15
_TINY = 1e-300


def _values_in_domain_order(f: Any, what: str) -> list[int]:
    fn = want_fn(f, f"the {what} argument of ChiSquare")
    if type(fn) is tuple:
        values = list(fn)
    else:
        assert isinstance(fn, Fn)
        values = [fn.map[k] for k in sorted_values(fn.map)]
    for v in values:
        if type(v) is not int:
            raise EvalError(f"ChiSquare: the {what} argument must map to integers, got {show(v)}")
    return values


def regularized_lower_gamma(a: float, x: float) -> float:
    """P(a, x), the regularized lower incomplete gamma function (a > 0, x >= 0): its
    series below a + 1, one minus the continued fraction of Q above (Lentz's method)."""
    if x <= 0.0:
        return 0.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        n = a
        while abs(term) > abs(total) * _EPSILON:
            n += 1.0
            term *= x / n
            total += term
        return min(1.0, total * math.exp(log_front))
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    i = 0
    while True:
        i += 1
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPSILON or i > 100_000:
            break
    return max(0.0, 1.0 - math.exp(log_front) * h)


def chi_square_p_value(expected: list[int], actual: list[int]) -> float:
    """The p-value of Pearson's statistic for ``actual`` against ``expected`` (NaN when
    every count is 0, as in Java, where the test then never rejects)."""
    sum_expected, sum_actual = sum(expected), sum(actual)
    if sum_actual == 0:  # every scaled expected value 0: Java's 0 / 0, a NaN p-value
        return math.nan
    ratio = sum_actual / sum_expected if abs(sum_expected - sum_actual) > 1e-5 else 1.0
    statistic = 0.0
    for e, a in zip(expected, actual, strict=True):
        scaled = ratio * e
        statistic += (a - scaled) ** 2 / scaled
    return 1.0 - regularized_lower_gamma((len(expected) - 1) / 2.0, statistic / 2.0)


def chi_square(expected: Any, actual: Any, alpha: Any) -> bool:
    exp = _values_in_domain_order(expected, "first")
    act = _values_in_domain_order(actual, "second")
    text = want_str(alpha, "the third argument of ChiSquare (a number as a string)")
    try:
        level = float(text)
    except ValueError:
        raise EvalError(f"ChiSquare: the significance {text!r} is not a number") from None
    if not 0.0 < level <= 0.5:
        raise EvalError(f"ChiSquare: the significance {text} is not in (0, 0.5]")
    if len(exp) < 2:
        raise EvalError(f"ChiSquare: at least two values are needed, got {len(exp)}")
    if len(exp) != len(act):
        raise EvalError(f"ChiSquare: {len(exp)} expected values but {len(act)} counts")
    if any(e <= 0 for e in exp):
        raise EvalError(f"ChiSquare: every expected value must be positive, got {show(expected)}")
    if any(a < 0 for a in act):
        raise EvalError(f"ChiSquare: every count must be a natural number, got {show(actual)}")
    return not chi_square_p_value(exp, act) < level


OPERATORS: dict[str, StdOp] = {
    "ChiSquare": StdOp(chi_square, 3),
}
