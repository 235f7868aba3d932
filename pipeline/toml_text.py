"""A resolved spec written back as TOML (`evo spec SPEC`): plain tables, lists and
scalars, None left out (TOML has no null). tomllib reads; nothing in the standard
library writes."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Mapping

__all__ = ["dumps"]

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def dumps(data: Mapping[str, Any]) -> str:
    """TOML text that tomllib reads back as `data` without its None values."""
    return "\n".join(_table(data, ())).strip() + "\n"


def _table(data: Mapping[str, Any], path: tuple[str, ...]) -> list[str]:
    scalars = {k: v for k, v in data.items() if v is not None and not _is_table(v)}
    tables = {k: v for k, v in data.items() if _is_table(v)}
    lines = [f"[{'.'.join(map(_key, path))}]"] if path and (scalars or not tables) else []
    lines += [f"{_key(k)} = {_value(v)}" for k, v in scalars.items()]
    for key, table in tables.items():
        lines += ["", *_table(table, (*path, key))]
    return lines


def _is_table(value: Any) -> bool:
    """A section written as `[a.b]`; an empty table stays inline (`options = {}`)."""
    return isinstance(value, Mapping) and bool(value)


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _string(key)


def _string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, but for DEL, which TOML also escapes."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return repr(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        items = ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items() if v is not None)
        return "{ " + items + " }" if items else "{}"
    raise TypeError(f"no TOML form for {type(value).__name__}")
