"""Where numba caches negtheory's compiled kernels: a per-user cache folder, never the package folder.

numba's default for ``@njit(cache=True)`` writes ``*.nbi`` / ``*.nbc`` files into ``__pycache__`` next to the
source file. For an installed package that folder is ``site-packages/negtheory/__pycache__``: pip does not
record those files, so ``pip uninstall`` (and the uninstall step of ``pip install -e .`` over a regular
install) leaves the folder behind, and Python then imports the leftover ``site-packages/negtheory`` as an
empty namespace package that shadows the real one (``cannot import name '__version__' from 'negtheory'
(unknown location)``).

:func:`install` puts a cache locator in front of numba's own, for negtheory's source files only: their caches
go to the per-user cache folder ``<user cache dir>/negtheory/numba`` (``~/.cache/negtheory/numba`` on Linux,
``$XDG_CACHE_HOME`` respected; numba's own ``AppDirs`` elsewhere), in a sub-folder per source folder, so that
two installed copies never share a cache. Other packages' and the user's own ``cache=True`` functions are not
touched, and ``NUMBA_CACHE_DIR``, when set, keeps precedence for everything (numba's own rule). Where the
per-user folder cannot be written, numba's usual locators apply.
"""

from __future__ import annotations

import os

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def cache_dir() -> str:
    """The folder under which negtheory's numba caches are written when ``NUMBA_CACHE_DIR`` is not set.

    Returns
    -------
    str
        ``<user cache dir>/negtheory/numba``; the user cache dir is numba's ``AppDirs`` choice
        (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux).
    """
    from numba.misc.appdirs import AppDirs

    return os.path.join(AppDirs(appname="negtheory", appauthor=False).user_cache_dir, "numba")


def _in_package(py_file: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(py_file), _PACKAGE_DIR]) == _PACKAGE_DIR
    except (TypeError, ValueError):  # another drive on Windows, or not a path
        return False


def install() -> bool:
    """Register the per-user cache locator for negtheory's kernels (idempotent).

    Runs when this module is imported, at the top of ``negtheory/__init__.py``, before the first
    ``@njit(cache=True)`` decorator of the package is executed.

    Returns
    -------
    bool
        True when the locator is registered, False when this numba has no locator list to extend (the
        kernels then cache where numba's defaults say).
    """
    try:
        from numba.core import caching, config
    except ImportError:  # pragma: no cover - numba is a hard dependency
        return False
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    base = getattr(caching, "UserWideCacheLocator", None) or getattr(
        caching, "_UserWideCacheLocator", None
    )
    locators = getattr(impl, "_locator_classes", None)
    if impl is None or base is None or not isinstance(locators, list):
        return False
    if any(getattr(cls, "_negtheory_locator", False) for cls in locators):
        return True

    class NegtheoryCacheLocator(base):  # type: ignore[misc, valid-type]
        """numba cache locator: negtheory's source files cache into :func:`cache_dir`."""

        _negtheory_locator = True

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(cache_dir(), self.get_suitable_cache_subpath(py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            if config.CACHE_DIR or not _in_package(py_file):
                return None  # NUMBA_CACHE_DIR wins; other packages keep numba's defaults
            return super().from_function(py_func, py_file)

    locators.insert(0, NegtheoryCacheLocator)
    return True


install()  # on import, from the top of negtheory/__init__.py: before the first kernel is decorated
