"""Tests of absa_checks/judge/.
A package, so that a test file may share its name with one in another folder."""
