"""The reproduction report: the papers' numbers beside ours, with a verdict per claim."""
