"""Declarative validation of public function parameters, with one message form.

A public function declares its constraints once, next to its signature::

    @validate_params({"q": [Interval(float, 0, 1, closed="neither")], "seed": [Interval(int, 0, None)]})
    def compute_privacy_stats(data_train, data_test, data_synth, *, q=0.1, seed=0): ...

and a bad value raises ``InvalidParameterError`` with the message
"The 'q' parameter of compute_privacy_stats must be a float in the range (0, 1). Got 1.5 instead."
A call that does not fit the signature (an argument missing, given twice, or one too many) raises
``TypeError`` with the call form, so that data passed in another function's order fails loudly:
"compute_membership(): multiple values for argument 'data_test'. Call it as
compute_membership(data_train, data_test, data_synth, *, ...): the data in report()'s order,
training, holdout, synthetic."
"""

from __future__ import annotations

import functools
import inspect
import numbers
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from reportgen.errors import InvalidParameterError

F = TypeVar("F", bound=Callable[..., Any])

_TYPE_WORDS = {int: "an int", float: "a float", str: "a str", bool: "a bool"}
ROLES = {"data_train": "training", "data_test": "holdout", "data_synth": "synthetic"}  # report()'s order


@dataclass(frozen=True)
class Interval:
    """A real or integer number within bounds (``None`` = unbounded on that side)."""

    kind: type
    low: float | None
    high: float | None
    closed: Literal["both", "left", "right", "neither"] = "both"

    def accepts(self, value: Any) -> bool:
        if isinstance(value, bool):
            return False
        if self.kind is int and not isinstance(value, numbers.Integral):
            return False
        if self.kind is float and not isinstance(value, numbers.Real):
            return False
        low_ok = self.low is None or (
            value >= self.low if self.closed in ("both", "left") else value > self.low
        )
        high_ok = self.high is None or (
            value <= self.high if self.closed in ("both", "right") else value < self.high
        )
        return bool(low_ok and high_ok)

    def describe(self) -> str:
        word = _TYPE_WORDS[self.kind]
        if self.low is None and self.high is None:
            return word
        left = "[" if self.closed in ("both", "left") and self.low is not None else "("
        right = "]" if self.closed in ("both", "right") and self.high is not None else ")"
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        return f"{word} in the range {left}{low}, {high}{right}"


@dataclass(frozen=True)
class Options:
    """One of a fixed set of values."""

    values: tuple[Any, ...]

    def accepts(self, value: Any) -> bool:
        return any(value == v and type(value) is type(v) for v in self.values)

    def describe(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)


@dataclass(frozen=True)
class InstanceOf:
    """An instance of one of the given types."""

    types: tuple[type, ...]
    words: str

    def accepts(self, value: Any) -> bool:
        return isinstance(value, self.types)

    def describe(self) -> str:
        return self.words


@dataclass(frozen=True)
class NoneValue:
    """The value ``None``."""

    def accepts(self, value: Any) -> bool:
        return value is None

    def describe(self) -> str:
        return "None"


Constraint = Interval | Options | InstanceOf | NoneValue


def check_param(func_name: str, name: str, value: Any, constraints: Iterable[Constraint]) -> None:
    """Raise ``InvalidParameterError`` unless ``value`` satisfies one of ``constraints``."""
    constraints = list(constraints)
    if any(c.accepts(value) for c in constraints):
        return
    described = [c.describe() for c in constraints]
    expected = described[0] if len(described) == 1 else ", ".join(described[:-1]) + " or " + described[-1]
    raise InvalidParameterError(
        f"The {name!r} parameter of {func_name} must be {expected}. Got {value!r} instead."
    )


def validate_params(spec: dict[str, list[Constraint]]) -> Callable[[F], F]:
    """Check the named parameters of the decorated function against ``spec`` on every call."""

    def decorator(func: F) -> F:
        signature = inspect.signature(func)
        unknown = set(spec) - set(signature.parameters)
        if unknown:
            raise TypeError(f"validate_params names unknown parameters {sorted(unknown)}")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as error:
                raise TypeError(
                    f"{func.__name__}(): {error}. {call_form(func.__name__, signature)}"
                ) from None
            bound.apply_defaults()
            for name, constraints in spec.items():
                check_param(func.__name__, name, bound.arguments[name], constraints)
            return func(*args, **kwargs)

        wrapper.__reportgen_param_spec__ = spec  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorator


def call_form(name: str, signature: inspect.Signature) -> str:
    """How to call ``name``: its positional parameters, and the order of its data roles in words.

    The roles (training, holdout, synthetic data) come in ``report()``'s order in every public
    function; one with no holdout says so, so that a holdout passed to it is not taken for data.
    """
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    positional = [p.name for p in signature.parameters.values() if p.kind in kinds]
    keywords = any(p.kind is inspect.Parameter.KEYWORD_ONLY for p in signature.parameters.values())
    form = f"{name}({', '.join([*positional, *(['*', '...'] if keywords else [])])})"
    roles = [ROLES[p] for p in positional if p in ROLES]
    if not roles:
        return f"Call it as {form}."
    no_holdout = "" if "data_test" in positional else f" ({name} takes no holdout)"
    return f"Call it as {form}: the data in report()'s order, {', '.join(roles)}{no_holdout}."
