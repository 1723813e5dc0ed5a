"""Tests of model_adapters/.
A package, so that a test file may share its name with one in another folder."""
