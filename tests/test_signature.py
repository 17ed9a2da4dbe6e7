"""Contracts of the two objects every score passes through: Signature (what a score was computed with) and Totals
(statistics summed exactly over rows, chunks and processes)."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from kpqa.metrics.base import Totals
from kpqa.signature import Signature


def test_signature_prints_version_last_and_parses_back():
    sig = Signature.of("BLEU-1-KPQA", [("tok", "kpw-pieces"), ("kpw", "abc"), ("fw", 0.2)])
    text = str(sig)
    assert text == f"BLEU-1-KPQA|tok:kpw-pieces|kpw:abc|fw:0.2|version:{sig.version}"
    assert Signature.parse(text) == sig and sig.get("kpw") == "abc" and sig.get("version") == sig.version
    # an older string with fields after the version reads the same
    old = Signature.parse(f"BLEU-1-KPQA|tok:kpw-pieces|version:{sig.version}|kpw:abc|fw:0.2")
    assert old.comparable() == sig.comparable()


def test_signature_fields_replace_in_place_and_compare_in_any_order():
    sig = Signature.of("M", [("a", 1), ("precision", "fp32")])
    assert sig.with_fields([("precision", "bf16"), ("cal", "x")]).fields == (("a", "1"), ("precision", "bf16"),
                                                                             ("cal", "x"))
    assert Signature.of("M", [("precision", "fp32"), ("a", 1)]).comparable() == sig.comparable()
    assert sig.with_fields([("precision", "bf16")]).comparable(ignore={"precision"}) == sig.comparable({"precision"})
    assert sig.with_fields([("a", 2)]).comparable() != sig.comparable()


def test_totals_sum_exactly_whatever_the_split():
    rng = np.random.default_rng(0)
    floats = rng.random((101, 1)) * 1e-3 + 1e6  # sums that float addition would round differently by split
    counts = rng.integers(0, 10**12, (101, 1))
    whole_f, whole_c = Totals.of(floats), Totals.of(counts)
    for cut in (1, 50, 100):
        assert (Totals.of(floats[:cut]) + Totals.of(floats[cut:])).sums == whole_f.sums
        assert (Totals.of(counts[:cut]) + Totals.of(counts[cut:])).sums == whole_c.sums
    assert whole_f.sums == [sum(map(Fraction, floats[:, 0].tolist()), Fraction(0))]
    assert isinstance(whole_c.sums[0], int) and whole_c.n == 101
    assert whole_f.mean() == float(whole_f.sums[0] / 101)
    assert np.isnan(Totals().mean()) and (Totals() + whole_c).sums == whole_c.sums
    with pytest.raises(ValueError, match="different widths"):
        Totals.of(np.ones((2, 2))) + Totals.of(np.ones((2, 1)))
