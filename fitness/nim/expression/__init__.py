"""The move-scoring expressions of the `expression` genome kind (genetic programming)."""

from .language import PRIMITIVES, TERMINALS, Context, Node, compile_expression, interpret, parse, to_string
from .simplify import simplify

__all__ = ["PRIMITIVES", "TERMINALS", "Context", "Node", "compile_expression", "interpret", "parse", "simplify",
           "to_string"]
