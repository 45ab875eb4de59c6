"""Meta-evaluation: functions on scores frames (system, query, measure, value + grouping keys)."""
