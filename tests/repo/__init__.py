"""Tests of the repository itself (layers, module sizes, the docs' catalogues, shipped files).
A package, so that a test file may share its name with one in another folder."""
