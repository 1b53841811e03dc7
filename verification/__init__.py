"""Checkers for the three verification buckets, the memory and skill gates, and scoring."""

from verification.checkers import check_agent_behavior, check_state_change, check_tool_calls, diff_failures
from verification.matchers import explain, matches, validate_matcher
from verification.scoring import CATEGORY_WEIGHTS, Summary, Tally, overall, summarise
from verification.verify import Verdict, verify

# Bumped whenever a checker, matcher, gate or the scoring changes what passes: results of two
# verifier versions are not comparable (provenance records it with every result): a store judged by an
# older version is rescored (`mobilepa rescore`) before its scores are read.
# 3: one confirmation rule, delegated answers checked, $none_of by the names a model uses, $name read by polarity
# 4: a denial voids only the name it governs, $none_of counts affirmed names, yes/no answers checked by $verdict
# 5: a superlative's answer must be named first ($first), a member's fact passes $none_of only as its relation
# 6: an answer to a yes/no question opening with no verdict fails where it states the property asked the other way
# 7: $none_of knows the value that makes a member: a non-member named with another value of it is no member stated
VERIFIER_VERSION = "7"

__all__ = [
    "CATEGORY_WEIGHTS",
    "VERIFIER_VERSION",
    "Summary",
    "Tally",
    "Verdict",
    "check_agent_behavior",
    "check_state_change",
    "check_tool_calls",
    "diff_failures",
    "explain",
    "matches",
    "overall",
    "summarise",
    "validate_matcher",
    "verify",
]
