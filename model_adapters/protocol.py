"""The adapter contract lives in absa_checks.models.protocol; re-exported here for adapters written against
the old path (model_adapters depends on absa_checks, never the other way round)."""

from absa_checks.models.protocol import Adapter, Answer, Query, QueryError

__all__ = ["Adapter", "Answer", "Query", "QueryError"]
