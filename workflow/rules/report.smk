# The reproduction report: every paper's claims table (claim, paper value, ours, verdict) and
# the markdown tables its rules register in REPORT_SECTIONS (common.smk), gathered into one document.


rule reproduction_report:
    input:
        claims=lambda wildcards: CLAIMS,
        sections=lambda wildcards: REPORT_SECTIONS,
    output:
        report="results/report/reproduction.md",
        claims="results/report/claims.csv",
    params:
        scale=config["scale"],
    log:
        "logs/report/reproduction.log",
    conda:
        CONDA_ENV
    shell:
        "schedrl report --scale {params.scale} --claims {input.claims:q} "
        "--sections {input.sections:q} --out {output.report:q} --claims-out {output.claims:q} 2> {log:q}"


register("report", rules.reproduction_report.output.report)
