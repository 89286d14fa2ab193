# Workload generation and trace analysis rules (issue: Workloads).
