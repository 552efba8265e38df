"""The Statistics module's ChiSquare, with p-values derived by hand: for one degree of
freedom the chi-square p-value of x is erfc(sqrt(x / 2)), for two it is exp(-x / 2)."""

from __future__ import annotations

import math

import pytest

from conformance.tla.community.statistics_ops import chi_square_p_value, regularized_lower_gamma
from conformance.tla.loader import ModuleLoader
from conformance.tla.model import Model
from conformance.tla.parser import parse_module_text
from conformance.tla.syntax import TlaError


@pytest.fixture(scope="module")
def model() -> Model:
    return Model(parse_module_text("---- MODULE S ----\nEXTENDS Statistics\n====\n", "S.tla"),
                 ModuleLoader([]))


@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 2.0, 3.841, 10.0, 40.0])
def test_p_value_with_one_and_two_degrees_of_freedom(x: float) -> None:
    assert 1 - regularized_lower_gamma(0.5, x / 2) == pytest.approx(math.erfc(math.sqrt(x / 2)),
                                                                   rel=1e-9, abs=1e-15)
    assert 1 - regularized_lower_gamma(1.0, x / 2) == pytest.approx(math.exp(-x / 2),
                                                                   rel=1e-9, abs=1e-15)


def test_statistic_scales_the_expected_values_to_the_counts() -> None:
    # expected 1 : 1, counts 110 and 90: scaled 100 and 100, statistic 2, one degree of
    # freedom: erfc(1)
    assert chi_square_p_value([1, 1], [110, 90]) == pytest.approx(math.erfc(1.0), rel=1e-9)
    # three values, two degrees of freedom: statistic (10^2 + 10^2 + 0) / 100 = 2
    assert chi_square_p_value([100, 100, 100], [110, 90, 100]) == pytest.approx(math.exp(-1.0))


@pytest.mark.parametrize(("expr", "expected"), [
    ('ChiSquare(<<10, 10>>, <<10, 10>>, "0.05")', True),     # statistic 0: p = 1
    ('ChiSquare(<<50, 50>>, <<90, 10>>, "0.05")', False),    # statistic 64: p about 1e-15
    ('ChiSquare(<<100, 100>>, <<110, 90>>, "0.05")', True),  # p = erfc(1) = 0.157
    ('ChiSquare(<<100, 100>>, <<110, 90>>, "0.5")', False),  # 0.157 < 0.5
    ('ChiSquare(<<1, 2>>, <<0, 0>>, "0.05")', True),  # no count: a NaN p-value, never below
    # a function's values in the order of its domain: [a |-> 100, b |-> 100] against
    # [b |-> 90, a |-> 110] pairs a with a
    ('ChiSquare([a |-> 100, b |-> 300], [b |-> 300, a |-> 100], "0.05")', True),
])
def test_chi_square(model: Model, expr: str, expected: bool) -> None:
    assert model.eval_constant(expr) is expected


@pytest.mark.parametrize(("expr", "message"), [
    ('ChiSquare(<<1, 1>>, <<1, 1>>, "0.6")', "not in"),
    ('ChiSquare(<<1, 1>>, <<1, 1>>, "x")', "not a number"),
    ('ChiSquare(<<1>>, <<1>>, "0.05")', "at least two"),
    ('ChiSquare(<<1, 1>>, <<1, 1, 1>>, "0.05")', "counts"),
    ('ChiSquare(<<0, 1>>, <<1, 1>>, "0.05")', "positive"),
    ('ChiSquare(<<1, 1>>, <<1, 1>>, 5)', "string"),
])
def test_chi_square_refuses_bad_arguments(model: Model, expr: str, message: str) -> None:
    with pytest.raises(TlaError, match=message):
        model.eval_constant(expr)
