"""Tests of absa_checks/cli/.
A package, so that a test file may share its name with one in another folder."""
