"""Tests of absa_checks/reports/.
A package, so that a test file may share its name with one in another folder."""
