"""The package's version: its one source (pyproject.toml reads it from here), a leaf module
every layer may import."""

__version__ = "0.4.0"
