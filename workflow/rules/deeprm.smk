# Rules for the SB3 DeepRM report (deeprm-sb3-report.txt).
