"""The package is described in pyproject.toml; this file only adds the compiled build.

With ``RIFTCHART_COMPILE=1`` the modules a search spends its time in are compiled by mypyc
into C extensions, the same source with the same behaviour, about twice as fast (see
docs/model-checking.md, "The compiled build"). Without it, as in the editable install that
setup.sh makes, riftchart is pure Python.
"""

import os

from setuptools import setup

#: The search's hot path: the fast runtime, the rules procedures, Cleanup, keys and successors.
#: Everything else stays Python, among it what a compiled class could not be: ``units`` (a dict
#: subclass), ``action_types`` (callers may hand an action a list) and ``reference_runtime``
#: (python-statemachine's model gets attributes as it goes).
COMPILED = [
    "engine/runtime.py",
    "engine/core.py",
    "engine/state.py",
    "engine/cleanup.py",
    "engine/statekeys.py",
    "engine/expansion.py",
    "engine/actions.py",
    "engine/effect_needs.py",
    "engine/flow.py",
    "engine/chain.py",
    "engine/contest.py",
    "engine/combat.py",
    "engine/scoring.py",
    "engine/effects.py",
    "engine/destinations.py",
    "engine/turn.py",
    "engine/models.py",
    "engine/invariants.py",
]

ext_modules = []
if os.environ.get("RIFTCHART_COMPILE") == "1":
    from mypyc.build import mypycify

    # imported modules are type-checked only as far as the compiled ones need them
    ext_modules = mypycify(["--follow-imports=silent", "--ignore-missing-imports", *COMPILED])

setup(ext_modules=ext_modules)
