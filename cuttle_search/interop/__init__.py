"""Adapters to other frameworks: the OpenSpiel game and agent (``pip install -e .[openspiel]``)."""
