"""The parts of a report: figures, the summary's facts, self-contained HTML, comparisons.

`pipeline.report.write_report` assembles one run's report from them.
"""
