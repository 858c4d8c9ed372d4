"""Property tests of the Python scenario layer (hypothesis, derandomized: the same examples on
every run): any JSON value at any path of any scenario family gives a valid scenario or a
one-line ScenarioError that names a field; `--set` overrides, file loading and the engine JSON
round-trip; validation is idempotent on its own output."""
from __future__ import annotations

import copy
import dataclasses
import json
import math

import pytest

hypothesis = pytest.importorskip("hypothesis")
import tomli_w  # noqa: E402
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from ccscope import Scenario, ScenarioError  # noqa: E402
from ccscope.scenario import apply_set, load_file, to_engine_json, validate  # noqa: E402
from tests.fuzz.gen import all_paths, bases, get, show  # noqa: E402
from tests.fuzz.worker import judge_message  # noqa: E402

SETTINGS = settings(derandomize=True, database=None, deadline=None, max_examples=150,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Families without a CDF file reference (files are read relative to the scenario file).
FAMILIES = sorted(n for n, sc in bases().items() if "file" not in json.dumps(sc.get("workload", [])))

json_scalars = (st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20))
json_values = st.recursive(json_scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
                           max_leaves=12)
TOP_FIELDS = {f.name for f in dataclasses.fields(Scenario)}
TABLE_FIELDS = {"topology", "aqm", "tcp", "dctcp", "dx", "qcn_rp", "asm_rp", "flows", "flow", "workload", "record"}
# TOML has no null; tomli_w writes these.
toml_scalars = (st.booleans() | st.integers(min_value=-2**63, max_value=2**63 - 1)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20))


def _base(name: str) -> dict:
    return copy.deepcopy(bases()[name])


def _assert_clean(e: ScenarioError) -> None:
    why = judge_message(str(e))
    assert why is None, f"{why}: {str(e)[:300]!r}"


@SETTINGS
@given(family=st.sampled_from(FAMILIES), data=st.data(), value=json_values)
def test_any_json_value_at_any_path_validates_or_names_a_field(family, data, value):
    sc = _base(family)
    paths = all_paths(sc)
    path = data.draw(st.sampled_from(paths), label="path")
    old = get(sc, path)
    get(sc, path[:-1])[path[-1]] = value
    try:
        out = validate(sc)
    except ScenarioError as e:
        _assert_clean(e)
        # a number or boolean swapped for another JSON type is reported at that field's table
        if isinstance(old, (int, float)) and type(value) is not type(old) and not isinstance(value, (int, float)):
            root = str(path[0])
            assert str(e).startswith((root, "<scenario>")), f"{show(path)} = {value!r}: {str(e)[:200]}"
    else:
        assert isinstance(out, dict) and "topology" in out


@settings(SETTINGS, max_examples=400)
@given(family=st.sampled_from(FAMILIES), key=st.sampled_from(sorted(TOP_FIELDS)), value=json_values)
# the type confusions (a traceback before): workload = 3 / true / 1.5, record = 5
@example(family="incast_dctcp", key="workload", value=3)
@example(family="dctcp_dumbbell", key="workload", value=True)
@example(family="poisson_short_flows", key="workload", value=1.5)
@example(family="dctcp_dumbbell", key="record", value=5)
@example(family="dctcp_dumbbell", key="flow", value=7)
def test_any_json_value_at_a_top_level_field_validates_or_names_it(family, key, value):
    sc = _base(family)
    sc[key] = value
    try:
        validate(sc)
    except ScenarioError as e:
        _assert_clean(e)
        # a scalar where a table or list belongs is reported at that field (an empty list may
        # instead leave the scenario without flows, which names `flows`)
        if key in TABLE_FIELDS and isinstance(value, (bool, int, float, str)):
            assert str(e).startswith((key, "<scenario>")), f"{key} = {value!r}: {str(e)[:200]}"


@SETTINGS
@given(family=st.sampled_from(FAMILIES))
def test_validate_accepts_its_own_output(family):
    once = validate(_base(family))
    assert validate(once) == once


@SETTINGS
@given(family=st.sampled_from(FAMILIES), data=st.data(), value=toml_scalars)
def test_apply_set_stores_the_toml_literal_at_the_dotted_path(family, data, value):
    sc = _base(family)
    dotted = [p for p in all_paths(sc) if all(isinstance(k, str) and k.isidentifier() for k in p)]
    path = data.draw(st.sampled_from(dotted), label="path")
    literal = tomli_w.dumps({"v": value}).split("=", 1)[1].strip()
    out = apply_set(sc, f"{'.'.join(path)}={literal}")
    got = get(out, path)
    if isinstance(value, float) and math.isnan(value):
        assert math.isnan(got)
    else:
        assert got == value and type(got) is type(value)


@SETTINGS
@given(text=st.text(max_size=40))
def test_apply_set_refuses_or_applies_any_text(text):
    sc = _base("dctcp_dumbbell")
    try:
        apply_set(sc, text)
    except ScenarioError as e:
        _assert_clean(e)


@SETTINGS
@given(family=st.sampled_from(FAMILIES), suffix=st.sampled_from([".toml", ".json"]))
def test_load_file_round_trips_every_family(family, suffix, tmp_path_factory):
    sc = _base(family)
    p = tmp_path_factory.mktemp("rt") / f"s{suffix}"
    p.write_text(tomli_w.dumps(sc) if suffix == ".toml" else json.dumps(sc))
    assert load_file(p) == sc


@SETTINGS
@given(family=st.sampled_from(FAMILIES), data=st.data(), value=json_values)
def test_to_engine_json_round_trips_json_values(family, data, value):
    sc = _base(family)
    path = data.draw(st.sampled_from(all_paths(sc)), label="path")
    get(sc, path[:-1])[path[-1]] = value
    try:
        text = to_engine_json(sc)
    except ScenarioError as e:  # a workload that is not an array of tables is refused here, by name
        _assert_clean(e)
        assert path == ("workload",) and str(e).startswith("workload = "), str(e)
        return
    assert json.loads(text) == sc


@SETTINGS
@given(family=st.sampled_from(FAMILIES), data=st.data(), bad=st.sampled_from([math.nan, math.inf, -math.inf]))
def test_to_engine_json_names_the_path_of_a_non_finite_number(family, data, bad):
    sc = _base(family)
    path = data.draw(st.sampled_from(all_paths(sc)), label="path")
    get(sc, path[:-1])[path[-1]] = bad
    with pytest.raises(ScenarioError) as e:
        to_engine_json(sc)
    _assert_clean(e.value)
    assert show(path) in str(e.value)
