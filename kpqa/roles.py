"""What a result column holds: a metric (or judge) and its role, so that no reader tells them apart by hand.

A metric ``M`` writes its score as ``M``; scored against each row's known-wrong answers as ``M-wrong`` (a judge's
input, with no decision of its own); decided, as ``M-prob`` (P(correct)) and ``M-correct`` (1 / 0). The name is
made by :meth:`Role.of` and read back by :meth:`ResultColumn.parse`, the one place that knows the suffixes.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Role(Enum):
    """What a column of a metric ``M`` holds, by the suffix its name carries."""

    SCORE = ""
    WRONG = "-wrong"  # M's score with the row's known-wrong answers as the references (empty where it has none)
    PROB = "-prob"  # P(correct) by M's calibration, or a judge's
    CORRECT = "-correct"  # the decision: 1 correct, 0 not

    def of(self, metric: str) -> str:
        """The name of ``metric``'s column in this role (``Role.PROB.of("F1")``: ``F1-prob``)."""
        return metric + self.value


#: the decision columns' roles, in the order a metric's decision columns are written
DECISIONS = (Role.PROB, Role.CORRECT)
#: their suffixes (``-prob``, ``-correct``)
DECISION_SUFFIXES = tuple(role.value for role in DECISIONS)


@dataclass(frozen=True)
class ResultColumn:
    """A result column: the metric (or judge) it is of and its role."""

    metric: str
    role: Role = Role.SCORE

    @classmethod
    def parse(cls, name: str) -> "ResultColumn":
        """The column a name says (``KPQA-judge-prob``: KPQA-judge's P(correct); ``F1``: F1's score)."""
        for role in (Role.WRONG, *DECISIONS):
            if name.endswith(role.value) and len(name) > len(role.value):
                return cls(name[: -len(role.value)], role)
        return cls(name)

    @property
    def name(self) -> str:
        """The column's name."""
        return self.role.of(self.metric)


def role_of(name: str) -> Role:
    """The role of the column ``name``."""
    return ResultColumn.parse(name).role


def metric_of(name: str) -> str:
    """The metric (or judge) the column ``name`` is of, whatever its role."""
    return ResultColumn.parse(name).metric


def decided_metric(column: str) -> str:
    """The metric or judge a decision column (``M-prob``, ``M-correct``) is of; any other column itself."""
    found = ResultColumn.parse(column)
    return found.metric if found.role in DECISIONS else column


def decision_names(metric: str) -> list[str]:
    """``metric``'s decision columns: ``M-prob``, ``M-correct``."""
    return [role.of(metric) for role in DECISIONS]
