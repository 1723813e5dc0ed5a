"""Tests of absa_checks/perturb/.
A package, so that a test file may share its name with one in another folder."""
