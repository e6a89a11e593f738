"""Renderers: text, markdown, JSON, CSV, SARIF and HTML of analysis results.

A command X renders with ``report/X.py`` (``report.compare``, ``report.analysis`` for
analyze, ``report.power``, ``report.lint``, ``report.list``); this package imports none of
them, so that rendering one result does not load what another needs.
"""
