"""The ``model`` marker is written on each test that loads a model (tests/conftest.py): a test that asks for a session
fixture loading one carries it. (A test that loads one in this process without it fails in conftest's audit.)"""
from __future__ import annotations

import pytest
from conftest import MODEL_FIXTURES


def test_every_test_that_asks_for_a_model_fixture_carries_the_model_marker(request: pytest.FixtureRequest) -> None:
    unmarked = [item.nodeid for item in request.session.items
                if set(getattr(item, "fixturenames", ())) & MODEL_FIXTURES and item.get_closest_marker("model") is None]
    assert unmarked == [], "mark these @pytest.mark.model"

