"""Tests of absa_checks/sources/.
A package, so that a test file may share its name with one in another folder."""
