"""Tests of absa_checks/suites/.
A package, so that a test file may share its name with one in another folder."""
