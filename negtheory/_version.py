"""The package version (a leaf module, so that submodules can read it without importing :mod:`negtheory`)."""

__version__ = "0.1.0"
