"""Tests of absa_checks/expansion/.
A package, so that a test file may share its name with one in another folder."""
