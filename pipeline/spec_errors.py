"""Pydantic validation errors, said in one line a user can act on.

`runs/x.toml: population.size: must be >= 2 (got 0)`; an unknown key is
answered with the allowed ones (and the closest, if it looks like a typo).
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from typing import Mapping

from pydantic import BaseModel, ValidationError

__all__ = ["SpecError", "blame_flags", "explain"]


class SpecError(ValueError):
    """A run spec that cannot be run, explained in one line."""


def _model_at(loc: tuple, root: type[BaseModel]) -> type[BaseModel] | None:
    """The spec section (model class) a validation error's location points into."""
    model: type[BaseModel] = root
    for key in loc[:-1]:
        field = model.model_fields.get(str(key))
        if field is None:
            return None
        options = typing.get_args(field.annotation) if isinstance(field.annotation, types.UnionType) \
            or typing.get_origin(field.annotation) is typing.Union else (field.annotation,)
        models = [o for o in options if isinstance(o, type) and issubclass(o, BaseModel)]
        if not models:
            return None
        model = models[0]
    return model


def _unknown_key(loc: tuple, root: type[BaseModel]) -> str:
    model = _model_at(loc, root)
    if model is None:
        return "unknown key"
    allowed = list(model.model_fields)
    close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"unknown key; {hint}allowed: {', '.join(allowed)}"


def explain(error: ValidationError, source: str, root: type[BaseModel]) -> str:
    """One line for a validation error: `source: field.path: what is allowed (got value)`."""
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"])  # empty: a rule across sections, which names its keys
    kind, ctx = first["type"], first.get("ctx", {})
    plain = {
        "extra_forbidden": _unknown_key(tuple(first["loc"]), root) if kind == "extra_forbidden" else "",
        "missing": "required",
        "greater_than_equal": f"must be >= {ctx.get('ge')}",
        "greater_than": f"must be > {ctx.get('gt')}",
        "less_than_equal": f"must be <= {ctx.get('le')}",
        "less_than": f"must be < {ctx.get('lt')}",
        "int_parsing": "must be an integer",
        "int_type": "must be an integer",
        "int_from_float": "must be an integer",
        "float_parsing": "must be a number",
        "float_type": "must be a number",
        "bool_parsing": "must be true or false",
        "bool_type": "must be true or false",
        "string_type": "must be a string",
        "dict_type": "must be a table",
        "list_type": "must be a list",
        "too_short": f"must hold at least {ctx.get('min_length')}",
        "too_long": f"must hold at most {ctx.get('max_length')}",
        "string_pattern_mismatch": "may only use letters, digits, '.', '_' and '-'",
        "literal_error": f"must be one of {ctx.get('expected')}",
    }
    message = plain.get(kind, first["msg"].removeprefix("Value error, "))
    got = first.get("input")
    shown = "" if kind in ("missing", "extra_forbidden") or isinstance(got, dict) else f" (got {got!r})"
    more = len(error.errors()) - 1
    tail = f" [+{more} more]" if more else ""
    return f"{source}: {where + ': ' if where else ''}{message}{shown}{tail}"


def _unknown_key_of_flag(key: str, reason: str) -> str:
    """`unknown key 'sise' in [population] (did you mean 'size'?)`: the key a flag set, named in its section."""
    section, _, leaf = key.rpartition(".")
    where = f" in [{section}]" if section else ""
    close = re.search(r"did you mean '([^']+)'", reason)
    allowed = reason.partition("allowed: ")[2]
    hint = f" (did you mean {close.group(1)!r}?)" if close else (f"; allowed: {allowed}" if allowed else "")
    return f"unknown key {leaf!r}{where}{hint}"


def blame_flags(message: str, source: str, flags: Mapping[str, str]) -> str:
    """`message` (`source: key: reason`) said of the command-line flag that set `key`
    (`flags`: dotted key -> the flag as typed, e.g. `--workers`, `--set population.size=0`);
    a key no flag set keeps the blame on `source`."""
    if not message.startswith(f"{source}: "):
        return message
    key, colon, reason = message[len(source) + 2:].partition(": ")
    flag = next((label for dotted, label in flags.items() if key == dotted or key.startswith(f"{dotted}.")), None)
    if not colon or flag is None:
        return message
    if reason.startswith("unknown key"):
        reason = _unknown_key_of_flag(key, reason)
    return f"{flag}: {reason}"
