"""Shared pytest configuration: hypothesis profiles.

``fast`` (the default, used by CI) is hypothesis' default profile, with the fuzz sweep of
``tests/test_fuzz.py`` cut to a few derandomised cases per target; ``long``
(``pytest tests/test_fuzz.py --hypothesis-profile=long``) runs the fuzz sweep with 55 cases per target
(more than 10 000 in all).  The ``--hypothesis-profile`` option comes from hypothesis' pytest plugin,
so plain ``pytest`` is unaffected.
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("fast", deadline=None)
settings.register_profile("long", deadline=None)
settings.load_profile("fast")
