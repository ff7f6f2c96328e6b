"""Shared pytest configuration: hypothesis profiles.

``fast`` (the default, used by CI) is hypothesis' default profile, derandomised, with the fuzz sweep of
``tests/test_fuzz.py`` cut to a few cases per target; ``long``
(``pytest tests/test_fuzz.py --hypothesis-profile=long``) runs the fuzz sweep with 55 cases per target
(more than 10 000 in all).  The ``--hypothesis-profile`` option comes from hypothesis' pytest plugin,
so plain ``pytest`` is unaffected.
"""

from __future__ import annotations

from hypothesis import settings

# ``fast`` is derandomised: the CI run is the same every time, so a rare case found by one random
# draw cannot make one landing fail and the next pass; the random search belongs to
# ``--hypothesis-profile=long`` (with ``--hypothesis-seed=N`` to replay a draw).
settings.register_profile("fast", deadline=None, derandomize=True)
settings.register_profile("long", deadline=None)
settings.load_profile("fast")
