"""The rule sets, by name: ``mex``, ``mexico``, ``mexen``, ``mythical``.

Each lives in its own module exposing ``RULES`` (an object implementing
:class:`table.rules.base.Rules`); modules are imported on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

from table.rules.base import Rules, shown

RULE_NAMES: tuple[str, ...] = ("mex", "mexico", "mexen", "mythical")


class UnknownRules(ValueError):
    """A rules name that is not one of :data:`RULE_NAMES`."""


def get_rules(name: str) -> Rules[Any]:
    """The rule set called ``name``; UnknownRules names the known ones."""
    if name not in RULE_NAMES:
        raise UnknownRules(f"unknown rules {shown(name)} (known: {', '.join(RULE_NAMES)})")
    module = importlib.import_module(f"table.rules.{name}")
    rules: Rules[Any] = module.RULES
    return rules
