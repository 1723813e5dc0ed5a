"""Tests of absa_checks/run/.
A package, so that a test file may share its name with one in another folder."""
