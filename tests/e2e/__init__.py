"""Tests of the product end to end (a real pytest run, as a user runs it).
A package, so that a test file may share its name with one in another folder."""
