"""Turning a plain genome into a playing agent, per genome kind.

Genome kinds (in `operators`) register nothing here; the *agents* they
parameterise live in `fitness` and register a decoder: plain genome + the
kind's plain config -> `Agent`. That keeps `fitness` free of our imports.
"""

from __future__ import annotations

from typing import Any, Callable

from .agents.base import Agent
from .rules import Rules

__all__ = ["register_decoder", "decode", "decoder_kinds"]

Decoder = Callable[[Any, dict, Rules, str], Agent]
_DECODERS: dict[str, Decoder] = {}


def register_decoder(kind: str, decoder: Decoder) -> None:
    _DECODERS[kind] = decoder


def decoder_kinds() -> list[str]:
    return sorted(_DECODERS)


def decode(kind: str, genome: Any, config: dict, rules: Rules, name: str = "genome") -> Agent:
    """The agent a genome of `kind` encodes, playing under `rules`."""
    if kind not in _DECODERS:
        raise ValueError(f"unknown genome kind {kind!r} for Nim; valid kinds: {', '.join(decoder_kinds())}")
    return _DECODERS[kind](genome, config, rules, name)
